"""opentraces TAO trace-record rules for the fields of 0.6.0 and later: ``patches``.

A patch names the step that made it (``step_index``) and the tool call within that step
(``tool_call_id``); the names must resolve, like every other reference of a record
(spec/tao/DECISIONS.md D9, D36).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from atif_spec.jsonio.pointers import join
from atif_spec.validation.findings import Level
from atif_spec.validation.rules.registry import RuleContext, rule
from atif_spec.validation.rules.tao import FORMAT, SINCE_V06

Findings = Iterator[tuple[str, str]]


def _calls_by_step(steps: list[Any]) -> dict[int, set[str] | None]:
    """``step_index`` → the ``tool_call_id`` values of the steps with that index (None when a
    ``tool_calls`` list is malformed, so the ids are unknown)."""
    calls: dict[int, set[str] | None] = defaultdict(set)
    for step in steps:
        if not isinstance(step, dict):
            continue
        index = step.get("step_index")
        if not isinstance(index, int) or isinstance(index, bool):
            continue
        tool_calls = step.get("tool_calls", [])
        known = calls[index]
        if not isinstance(tool_calls, list) or known is None:
            calls[index] = None
            continue
        known.update(
            c["tool_call_id"]
            for c in tool_calls
            if isinstance(c, dict) and isinstance(c.get("tool_call_id"), str)
        )
    return calls


def _dangling(patch: dict[str, Any], calls: dict[int, set[str] | None]) -> tuple[str, str] | None:
    """(member, message) when the patch's step or tool call names nothing, else None."""
    index = patch.get("step_index")
    if not isinstance(index, int) or isinstance(index, bool):
        return None
    if index not in calls:
        return "step_index", f"step_index {index} names no step of this record"
    call = patch.get("tool_call_id")
    known = calls[index]
    if isinstance(call, str) and known is not None and call not in known:
        return "tool_call_id", f"tool_call_id {call!r} names no tool call of step {index}"
    return None


@rule(
    code="TAO105",
    name="unknown-patch-origin",
    level=Level.ERROR,
    format=FORMAT,
    versions=SINCE_V06,
    section="opentraces Patch.step_index, Patch.tool_call_id; spec/tao/DECISIONS.md D36",
    summary="A patch's step_index names a step of the record, its tool_call_id a call of it.",
)
def check_patch_origin(ctx: RuleContext) -> Findings:
    """What it checks: that a non-null ``patches[].step_index`` equals the ``step_index`` of a
    step of the record, and that a non-null ``tool_call_id`` beside it is the id of a tool call of
    that step. A patch without ``step_index`` (one rebuilt from a 0.3.0 ``outcome.patch``) is not
    checked, nor a step whose ``tool_calls`` is malformed.

    Why: the model joins a patch to ``Step.step_index`` and to ``ToolCall.tool_call_id`` "within
    the step"; a join that finds nothing loses which edit made the change.

    Example: ``"patches": [{"patch_id": "p1", "file_path": "a.py", "step_index": 9}]`` in a
    record whose steps are 1 to 4.

    Valid instead: ``"step_index": 3`` where step 3 made the edit, with that edit's
    ``tool_call_id``.

    Spec: opentraces Patch (``step_index``: joins to Step.step_index within this trace;
    ``tool_call_id``: joins to ToolCall.tool_call_id within the step), schema 0.6.0.
    """
    if not isinstance(ctx.node, dict):
        return
    patches = ctx.node.get("patches")
    steps = ctx.node.get("steps", [])
    if not isinstance(patches, list) or not isinstance(steps, list):
        return
    calls = _calls_by_step(steps)
    for i, patch in enumerate(patches):
        found = _dangling(patch, calls) if isinstance(patch, dict) else None
        if found is not None:
            member, message = found
            yield join(ctx.base, "patches", i, member), message
