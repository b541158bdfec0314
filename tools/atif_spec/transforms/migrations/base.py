"""What the version steps share: the step record, copy-on-change walks, the context-only facts.

A change ``(doc, ctx, base) -> doc`` gets a root copy with the new ``schema_version`` (its own to
edit); below the root it copies only what it changes and shares the rest with the input. ``base``
is the trajectory's pointer in the whole document (``""``, or ``/subagent_trajectories/0``).
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
Walk = Callable[[Doc, str], Doc]


def version_step(lower: str, upper: str, up: Change | None, down: Change | None) -> Step:
    """The step ``atif@lower -> atif@upper``; a change of None only rewrites the version."""
    return Step(f"atif@{lower}", f"atif@{upper}", _mapping(upper, up), _mapping(lower, down))


def _mapping(version: str, change: Change | None) -> Callable[[Doc, Context], Doc]:
    text = spelling(version)

    def mapping(doc: Doc, ctx: Context) -> Doc:
        out = {**doc, "schema_version": text}
        return out if change is None else change(out, ctx, "")

    return mapping


def metrics_field_down(field: str) -> Change:
    """The change down of a version that added ``Metrics.<field>``: it goes to the stash."""

    def step(obj: Doc, ptr: str) -> Doc:
        metrics = obj.get("metrics")
        if isinstance(metrics, dict) and field in metrics:
            return {**obj, "metrics": without(metrics, field)}
        return obj

    return lambda doc, ctx, base: steps(doc, base, step)


def without(obj: Doc, *keys: str) -> Doc:
    """``obj`` without ``keys`` (``obj`` itself when it has none of them)."""
    if obj.keys().isdisjoint(keys):
        return obj
    out = obj.copy()
    for key in keys:
        out.pop(key, None)
    return out


def each(items: Any, at: str, change: Walk) -> Any:
    """``items`` (at ``at``) with ``change(item, pointer)`` applied to each object in it; the same
    list when nothing changed (and anything that is not a list as it is)."""
    if not isinstance(items, list):
        return items
    out = items
    for i, item in enumerate(items):
        if isinstance(item, dict):
            new = change(item, f"{at}/{i}")
            if new is not item:
                if out is items:
                    out = items.copy()
                out[i] = new
    return out


def steps(doc: Doc, base: str, change: Walk) -> Doc:
    """``doc`` (a root copy the caller owns) with ``change(step, pointer)`` applied to each step."""
    if "steps" in doc:
        doc["steps"] = each(doc["steps"], f"{base}/steps", change)
    return doc


def contents(doc: Doc, base: str, change: Callable[[Doc, str, str], Doc]) -> Doc:
    """``doc`` (a root copy the caller owns) with ``change(owner, pointer, key)`` applied to
    each step (``message``) and each observation result (``content``)."""

    def content(result: Doc, at: str) -> Doc:
        return change(result, at, "content")

    return steps(doc, base, lambda step, ptr: results(change(step, ptr, "message"), ptr, content))


def results(step: Doc, ptr: str, change: Walk) -> Doc:
    """``step`` with ``change(result, pointer)`` applied to each observation result."""
    observation = step.get("observation")
    if not isinstance(observation, dict):
        return step
    old = observation.get("results")
    new = each(old, f"{ptr}/observation/results", change)
    return step if new is old else {**step, "observation": {**observation, "results": new}}


# --- the context-only facts: is_copied_context (v1.5) and llm_call_count (v1.7) -----------------


def fact_down(step: Doc, ptr: str, key: str, ctx: Context) -> Doc:
    """``step`` without ``key``. A value that makes the step context only (``true``, ``0``) stays
    readable as the named ``extra.<key>`` (warning ``migrate:context-only-step``) unless the
    producer's ``extra`` has that key or is no object: then, like other values, it is stashed."""
    if key not in step:
        return step
    out = without(step, key)
    if not context_only_fact(key, step[key]):
        return out
    extra = FreeForm(step.get("extra", ABSENT), f"{ptr}/extra", ctx)
    if extra.put(key, step[key], f"{ptr}/{key}", f"{ptr}/extra"):
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
    """``doc`` with each step's ``extra.<key>`` that the way down wrote back in ``key`` (an
    ``extra`` left empty goes; the stash restores one that was there)."""

    def back(step: Doc, ptr: str) -> Doc:
        if not ctx.read(f"{ptr}/extra/{key}"):
            return step
        extra = FreeForm(step.get("extra", ABSENT), f"{ptr}/extra", ctx)
        out = without(step, "extra")
        if not extra.take(out, key, key):
            return step
        extra.place(out)
        return out

    return steps(doc, "", back) if ctx.reads else doc


def drop_context_only(doc: Doc, key: str, step: Step, report: ChangeReport) -> Doc:
    """``--drop-context-only-steps`` before ``step`` (which has no ``key``): ``doc`` without the
    steps ``key`` makes context only, the integer ``step_id`` of the others renumbered from 1,
    and a ``final_metrics.total_steps`` that counted them (dropped and decided; not stashed)."""
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
