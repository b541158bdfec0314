"""What the version steps share: the step record, copying only what changes, the context-only facts.

A version step is a :class:`atif_spec.transforms.driver.Step` made by :func:`version_step` from
two changes, ``up`` and ``down``. A change receives a copy of the trajectory's root with its new
``schema_version`` (its own to edit) and returns the trajectory; below the root it copies only
what it changes and shares the rest with the input. ``base`` is the trajectory's pointer in the
whole document (``""``, or ``/subagent_trajectories/0`` for an embedded one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from atif_spec.formats.atif import spelling
from atif_spec.formats.totals import context_only_fact
from atif_spec.transforms.changes import ChangeReport, Item
from atif_spec.transforms.driver import Context, Step
from atif_spec.transforms.fields import ABSENT, FreeForm

Doc = dict[str, Any]
Change = Callable[[Doc, Context, str], Doc]


def version_step(lower: str, upper: str, up: Change | None, down: Change | None) -> Step:
    """The step ``atif@lower -> atif@upper``; a change of None only rewrites the version."""
    return Step(f"atif@{lower}", f"atif@{upper}", _mapping(upper, up), _mapping(lower, down))


def _mapping(version: str, change: Change | None) -> Callable[[Doc, Context], Doc]:
    def mapping(doc: Doc, ctx: Context) -> Doc:
        out = {**doc, "schema_version": spelling(version)}
        return change(out, ctx, "") if change is not None else out

    return mapping


def metrics_field_down(field: str) -> Change:
    """The change down of a version that added ``Metrics.<field>``: it goes to the stash."""

    def down(doc: Doc, ctx: Context, base: str) -> Doc:
        def step(obj: Doc, ptr: str) -> Doc:
            metrics = obj.get("metrics")
            if isinstance(metrics, dict) and field in metrics:
                return {**obj, "metrics": without(metrics, field)}
            return obj

        return steps(doc, base, step)

    return down


def without(obj: Doc, *keys: str) -> Doc:
    """``obj`` without ``keys`` (``obj`` itself when it has none of them)."""
    if obj.keys().isdisjoint(keys):
        return obj
    return {k: v for k, v in obj.items() if k not in keys}


def each(items: Any, change: Callable[[Doc, int], Doc]) -> Any:
    """``items`` with ``change(item, index)`` applied to every object in it; the same list when
    nothing changed (and anything that is not a list as it is)."""
    if not isinstance(items, list):
        return items
    out: list[Any] | None = None
    for i, item in enumerate(items):
        if isinstance(item, dict):
            new = change(item, i)
            if new is not item:
                if out is None:
                    out = list(items)
                out[i] = new
    return items if out is None else out


def steps(doc: Doc, base: str, change: Callable[[Doc, str], Doc]) -> Doc:
    """``doc`` (a root copy the caller owns) with ``change(step, pointer)`` applied to each step."""
    if "steps" in doc:
        doc["steps"] = each(doc["steps"], lambda step, i: change(step, f"{base}/steps/{i}"))
    return doc


def contents(doc: Doc, base: str, change: Callable[[Doc, str, str], Doc]) -> Doc:
    """``doc`` (a root copy the caller owns) with ``change(owner, pointer, key)`` applied to
    each step (``message``) and each observation result (``content``)."""

    def step(obj: Doc, ptr: str) -> Doc:
        obj = change(obj, ptr, "message")
        return results(obj, ptr, lambda result, at: change(result, at, "content"))

    return steps(doc, base, step)


def results(step: Doc, ptr: str, change: Callable[[Doc, str], Doc]) -> Doc:
    """``step`` with ``change(result, pointer)`` applied to each observation result."""
    observation = step.get("observation")
    if not isinstance(observation, dict):
        return step
    old = observation.get("results")
    new = each(old, lambda r, k: change(r, f"{ptr}/observation/results/{k}"))
    return step if new is old else {**step, "observation": {**observation, "results": new}}


# --- the context-only facts: is_copied_context (v1.5) and llm_call_count (v1.7) -----------------


def fact_down(step: Doc, ptr: str, key: str, ctx: Context) -> Doc:
    """``step`` without ``key``. When its value makes the step context only (``true``, ``0``),
    it stays readable as the step's ``extra.<key>`` (a named key, :class:`FreeForm`; warning
    ``migrate:context-only-step``), unless the producer's own ``extra`` has that key or is not
    an object: then, like any other value, it goes to the stash."""
    if key not in step:
        return step
    out = without(step, key)
    extra = FreeForm(step.get("extra", ABSENT), f"{ptr}/extra", ctx)
    if context_only_fact(key, step[key]) and extra.put(
        key, step[key], f"{ptr}/{key}", f"{ptr}/extra"
    ):
        extra.place(out)
        version = ctx.target.partition("@")[2]
        ctx.warn(
            "context-only-step",
            ptr,
            f"{version} has no {key}; the step is context only, not a training target: kept "
            f"as extra.{key} (export-sft and the totals read it)",
        )
    return out


def fact_up(doc: Doc, ctx: Context, key: str) -> Doc:
    """``doc`` with each step's ``extra.<key>`` that the way down wrote (``ctx.read``) back in
    ``key`` (an ``extra`` left empty goes; the stash restores one that was there)."""

    def back(step: Doc, ptr: str) -> Doc:
        extra = FreeForm(step.get("extra", ABSENT), f"{ptr}/extra", ctx)
        out = without(step, "extra")
        if not extra.take(out, key, key):
            return step
        extra.place(out)
        return out

    return steps(doc, "", back) if ctx.reads else doc


def drop_context_only(doc: Doc, key: str, step: Step, report: ChangeReport) -> Doc:
    """The policy ``--drop-context-only-steps``, before ``step`` (which has no ``key``): ``doc``
    without the steps ``key`` makes context only, the integer ``step_id`` of the others
    renumbered from 1, and a ``final_metrics.total_steps`` that counted the steps following
    (reported as dropped and decided; not invertible, so not stashed)."""
    listed = doc.get("steps")
    if not isinstance(listed, list):
        return doc
    reason = f"{step.target.partition('@')[2]} has no {key}; the policy drops context-only steps"
    keep: list[Any] = []
    for i, item in enumerate(listed):
        if isinstance(item, dict) and context_only_fact(key, item.get(key)):
            report.dropped.append(Item(f"/steps/{i}", step.name, reason))
        else:
            keep.append(item)
    if len(keep) == len(listed):
        return doc
    policy = "context-only steps dropped: step_id renumbered from 1"
    for n, item in enumerate(keep, start=1):
        old = item.get("step_id") if isinstance(item, dict) else None
        if isinstance(old, int) and not isinstance(old, bool) and old != n:
            keep[n - 1] = {**item, "step_id": n}
            report.decided.append(
                Item(f"/steps/{n - 1}/step_id", step.name, policy, value=n, has_value=True)
            )
    out = {**doc, "steps": keep}
    final = doc.get("final_metrics")
    if isinstance(final, dict) and final.get("total_steps") == len(listed):
        out["final_metrics"] = final | {"total_steps": len(keep)}
        ptr = "/final_metrics/total_steps"
        report.decided.append(Item(ptr, step.name, policy, value=len(keep), has_value=True))
    return out
