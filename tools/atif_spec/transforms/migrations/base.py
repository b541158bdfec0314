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

    return lambda doc, ctx, base: each(doc, base, "steps", step)


def without(obj: Doc, key: str) -> Doc:
    """``obj`` without ``key`` (``obj`` itself when it has none)."""
    if key not in obj:
        return obj
    out = obj.copy()
    del out[key]
    return out


def each(obj: Doc, ptr: str, key: str, change: Walk) -> Doc:
    """``obj`` (at ``ptr``) with ``change(item, pointer)`` applied to each object in its list
    ``key``; ``obj`` itself when nothing changed."""
    items = obj.get(key)
    if not isinstance(items, list):
        return obj
    at, out = f"{ptr}/{key}", items
    for i, item in enumerate(items):
        if isinstance(item, dict):
            new = change(item, f"{at}/{i}")
            if new is not item:
                if out is items:
                    out = items.copy()
                out[i] = new
    return obj if out is items else {**obj, key: out}


def contents(doc: Doc, base: str, change: Callable[[Doc, str, str], Doc]) -> Doc:
    """``doc`` with ``change(owner, pointer, key)`` applied to each step (``message``) and each
    observation result (``content``)."""

    def content(result: Doc, at: str) -> Doc:
        return change(result, at, "content")

    return each(
        doc, base, "steps", lambda step, ptr: results(change(step, ptr, "message"), ptr, content)
    )


def results(step: Doc, ptr: str, change: Walk) -> Doc:
    """``step`` with ``change(result, pointer)`` applied to each observation result."""
    observation = step.get("observation")
    if not isinstance(observation, dict):
        return step
    new = each(observation, f"{ptr}/observation", "results", change)
    return step if new is observation else {**step, "observation": new}


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


def fact_up(key: str) -> Change:
    """The change that puts back in ``key`` each step's ``extra.<key>`` the way down wrote (an
    ``extra`` left empty goes; the stash restores one that was there)."""

    def change(doc: Doc, ctx: Context, base: str) -> Doc:
        def back(step: Doc, ptr: str) -> Doc:
            if not ctx.read(f"{ptr}/extra/{key}"):
                return step
            extra = FreeForm(step.get("extra", ABSENT), f"{ptr}/extra", ctx)
            out = without(step, "extra")
            if not extra.take(out, key, key):
                return step
            extra.place(out)
            return out

        return each(doc, base, "steps", back) if ctx.reads else doc

    return change


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
