"""Rules for step/substep run logs (``SSL1xx``): ids, indexes, tool linkage, times."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from atif_spec.formats.step_substep import RESULT_TYPES, TOOL_TYPES, parse_time
from atif_spec.jsonio.jsonvalues import json_int
from atif_spec.jsonio.pointers import join
from atif_spec.validation.findings import Level
from atif_spec.validation.rules.registry import RuleContext, rule

FORMAT = "step-substep"
VERSIONS = ("v1.0",)


_Sub = tuple[int, str, dict[str, Any]]
"""``(position, pointer, substep)`` of a substep that is an object."""
_Step = tuple[int, str, dict[str, Any], list[_Sub]]
"""``(position, pointer, step, its object substeps)`` of a step that is an object."""


def _walk(node: Any, base: str) -> list[_Step]:
    """Every object step of ``node`` with its object substeps, pointers included."""
    steps = node.get("steps") if isinstance(node, dict) else None
    if not isinstance(steps, list):
        return []
    out: list[_Step] = []
    for i, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        ptr = join(base, "steps", i)
        subs = step.get("substeps")
        if not isinstance(subs, list):
            subs = []
        objects = [
            (j, join(ptr, "substeps", j), sub)
            for j, sub in enumerate(subs)
            if isinstance(sub, dict)
        ]
        out.append((i, ptr, step, objects))
    return out


def _steps(ctx: RuleContext) -> list[_Step]:
    """The node's walk (see :func:`_walk`), made once however many rules read it."""
    result: list[_Step] = ctx.memoized("steps", lambda node: _walk(node, ctx.base))
    return result


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@rule(
    code="SSL101",
    name="non-sequential-step-index",
    level=Level.ERROR,
    format=FORMAT,
    versions=VERSIONS,
    section="Message-Step Logging Spec, Event Model: top-level step model; RFC.md §7",
    summary="`step_index` starts at 1 and rises by one per step.",
)
def check_step_index(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: the n-th step (counting from 1) has `step_index` n.

    Why: the index is the run's monotonic step counter; a gap, repeat or reordering means a
    step was lost, duplicated or written out of order.

    Example: steps with `step_index` 1, 3.

    Valid instead: 1, 2.

    Spec: Message-Step Logging Spec, Event Model (`step_index`: monotonic per run, from 1).
    """
    for i, ptr, step, _ in _steps(ctx):
        index = json_int(step.get("step_index"))
        if index is not None and index != i + 1:
            yield join(ptr, "step_index"), f"step {i + 1} has step_index {index}"


@rule(
    code="SSL102",
    name="step-id-mismatch",
    level=Level.ERROR,
    format=FORMAT,
    versions=VERSIONS,
    section="Message-Step Logging Spec, Numbering and Display; RFC.md §7",
    summary="`step_id` is `S` followed by the step's `step_index`.",
)
def check_step_id(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: `step_id` equals `S<step_index>`.

    Why: `S<n>` is the timeline's primary display key; it must name the step's position.

    Example: `{"step_index": 2, "step_id": "S3"}`.

    Valid instead: `{"step_index": 2, "step_id": "S2"}`.

    Spec: Message-Step Logging Spec, Numbering and Display (`S<n>`).
    """
    for _, ptr, step, _ in _steps(ctx):
        index, sid = json_int(step.get("step_index")), _str(step.get("step_id"))
        if index is not None and sid is not None and sid != f"S{index}":
            yield join(ptr, "step_id"), f"step_id {sid!r} should be 'S{index}'"


@rule(
    code="SSL103",
    name="non-sequential-substep-index",
    level=Level.ERROR,
    format=FORMAT,
    versions=VERSIONS,
    section="Message-Step Logging Spec, Event Model: substep model; RFC.md §7",
    summary="`substep_index` starts at 1 in every step and rises by one per substep.",
)
def check_substep_index(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: the m-th substep of a step has `substep_index` m.

    Why: substeps are ordered children of their step; the index is monotonic within the step.

    Example: a step whose substeps have `substep_index` 1, 1.

    Valid instead: 1, 2.

    Spec: Message-Step Logging Spec, Event Model (`substep_index`: monotonic within the step).
    """
    for _, _, _, subs in _steps(ctx):
        for j, sptr, sub in subs:
            index = json_int(sub.get("substep_index"))
            if index is not None and index != j + 1:
                yield join(sptr, "substep_index"), f"substep {j + 1} has substep_index {index}"


@rule(
    code="SSL104",
    name="substep-id-mismatch",
    level=Level.ERROR,
    format=FORMAT,
    versions=VERSIONS,
    section="Message-Step Logging Spec, Numbering and Display; RFC.md §7",
    summary="`substep_id` is the parent's `step_id`, a dot and the `substep_index`.",
)
def check_substep_id(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: `substep_id` equals `<step_id>.<substep_index>` of its parent step.

    Why: `S<n>.<m>` labels substeps in verbose timelines; a label naming another step or
    position points readers at the wrong event.

    Example: substep 1 of step `S2` labelled `S1.1`.

    Valid instead: `S2.1`.

    Spec: Message-Step Logging Spec, Numbering and Display (`S<n>.<m>`).
    """
    for _, _, step, subs in _steps(ctx):
        sid = _str(step.get("step_id"))
        if sid is None:
            continue
        for _, sptr, sub in subs:
            index, label = json_int(sub.get("substep_index")), _str(sub.get("substep_id"))
            if index is not None and label is not None and label != f"{sid}.{index}":
                yield join(sptr, "substep_id"), f"substep_id {label!r} should be '{sid}.{index}'"


@rule(
    code="SSL105",
    name="unknown-result-call-id",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section=(
        "Message-Step Logging Spec, Event Model: tool event linkage; "
        "spec/step-substep/DECISIONS.md SSL-3"
    ),
    summary="A `tool_output` or `tool_error` repeats the `call_id` of an earlier `tool_call` of "
    "the same step.",
)
def check_result_call_id(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: each `tool_output`/`tool_error` with a `call_id` comes after a `tool_call`
    with that `call_id` in the same step.

    Why: results are nested under the step that made the call; a result naming no earlier call
    of its step cannot be linked to what produced it.

    Example: `S2.1` is a `tool_output` with `call_id` `c9`, and no `tool_call` `c9` precedes it.

    Valid instead: `S2.1` `tool_call` `c9`, then `S2.2` `tool_output` `c9`.

    Spec: Message-Step Logging Spec, Tool event linkage, a SHOULD, so a warning: provider
    streams do emit results whose call is not in the log (Gemini), and the run log keeps them
    (DECISIONS SSL-3).
    """
    for _, _, _, subs in _steps(ctx):
        calls: set[str] = set()
        for _, sptr, sub in subs:
            call_id, type_ = _str(sub.get("call_id")), _str(sub.get("type"))
            if call_id is None:
                continue
            if type_ == "tool_call":
                calls.add(call_id)
            elif type_ in RESULT_TYPES and call_id not in calls:
                yield (
                    join(sptr, "call_id"),
                    (
                        f"{type_} names call_id {call_id!r}, which no earlier tool_call of this "
                        "step has"
                    ),
                )


@rule(
    code="SSL106",
    name="missing-call-id",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section=(
        "Message-Step Logging Spec, Event Model: tool event linkage; "
        "spec/step-substep/DECISIONS.md SSL-3"
    ),
    summary="`tool_call`, `tool_output` and `tool_error` substeps carry a `call_id`.",
)
def check_missing_call_id(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: `tool_call`, `tool_output` and `tool_error` substeps have a non-null
    `call_id`.

    Why: the call id is what links a call to its result and to its retries.

    Example: `{"type": "tool_output", "call_id": null, ...}`.

    Valid instead: `{"type": "tool_output", "call_id": "cmd_1", ...}`.

    Spec: Message-Step Logging Spec, Tool event linkage (SHOULD).
    """
    for _, _, _, subs in _steps(ctx):
        for _, sptr, sub in subs:
            type_ = _str(sub.get("type"))
            if type_ in ("tool_call", *RESULT_TYPES) and sub.get("call_id") is None:
                yield sptr, f"{type_} has no call_id, so it cannot be linked"


@rule(
    code="SSL107",
    name="unknown-retry-target",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section=(
        "Message-Step Logging Spec, Event Model: tool event linkage; "
        "spec/step-substep/DECISIONS.md SSL-3"
    ),
    summary="`retry_of_call_id` names an earlier `tool_call` of the run.",
)
def check_retry_target(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: a `retry_of_call_id` in the payload of a `tool_retry` or `tool_call`
    names the `call_id` of a `tool_call` earlier in the run.

    Why: a retry is a new call that points back at the one it repeats; pointing at nothing
    breaks the chain.

    Example: `{"type": "tool_retry", "payload": {"retry_of_call_id": "c0"}}` with no call `c0`.

    Valid instead: a `tool_call` with `call_id` `c0` earlier in the run.

    Spec: Message-Step Logging Spec, Tool event linkage (retries, SHOULD).
    """
    calls: set[str] = set()
    for _, _, _, subs in _steps(ctx):
        for _, sptr, sub in subs:
            payload = sub.get("payload")
            target = _str(payload.get("retry_of_call_id")) if isinstance(payload, dict) else None
            is_retry = sub.get("type") in ("tool_retry", "tool_call")
            if is_retry and target is not None and target not in calls:
                yield (
                    join(sptr, "payload", "retry_of_call_id"),
                    f"retry_of_call_id {target!r} names no earlier tool_call of the run",
                )
            call_id = _str(sub.get("call_id"))
            if sub.get("type") == "tool_call" and call_id is not None:
                calls.add(call_id)


@rule(
    code="SSL108",
    name="completed-before-started",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section=(
        "Message-Step Logging Spec, Event Model: top-level step model; "
        "spec/step-substep/DECISIONS.md SSL-5"
    ),
    summary="`completed_at` is not earlier than `started_at`.",
)
def check_completion_order(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: when both are set, `completed_at` ≥ `started_at` (compared as instants).

    Why: a step cannot end before it begins; such times come from clock or mapping errors.

    Example: `started_at` `2026-02-26T10:00:05Z`, `completed_at` `2026-02-26T10:00:01Z`.

    Valid instead: `completed_at` `2026-02-26T10:00:09Z`.

    Spec: Message-Step Logging Spec, Event Model (implied by `started_at`/`completed_at`).
    """
    for _, ptr, step, _ in _steps(ctx):
        start, end = parse_time(step.get("started_at")), parse_time(step.get("completed_at"))
        if start is not None and end is not None and end < start:
            yield (
                join(ptr, "completed_at"),
                (
                    f"completed_at {step['completed_at']} is earlier than started_at "
                    f"{step['started_at']}"
                ),
            )


@rule(
    code="SSL109",
    name="tool-event-outside-step",
    level=Level.ERROR,
    format=FORMAT,
    versions=VERSIONS,
    section="Message-Step Logging Spec, API Contract; spec/step-substep/DECISIONS.md SSL-6",
    summary="Tool events belong to a message step or to a synthetic step that says why.",
)
def check_tool_event_outside_step(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: a step that holds tool events has `message_text` or, being synthetic, a
    `summary` (`Pre-message tool activity` for events before any message).

    Why: tool events must never be emitted without an active step; when there is no message to
    attach them to, a synthetic step is created and labelled, not left anonymous.

    Example: `{"step_id": "S1", "message_text": null, "summary": null, "substeps": [tool_call]}`.

    Valid instead: the same step with `"summary": "Pre-message tool activity"`.

    Spec: Message-Step Logging Spec, API Contract (MUST) and Mapping from Legacy `T1.x` (3).
    """
    for _, _, step, subs in _steps(ctx):
        text, summary = _str(step.get("message_text")), _str(step.get("summary"))
        if (text and text.strip()) or (summary and summary.strip()):
            continue
        for _, sptr, sub in subs:
            if _str(sub.get("type")) in TOOL_TYPES:
                yield (
                    sptr,
                    (
                        "tool event in a step with neither message_text nor a summary; put it in a "
                        "labelled synthetic step"
                    ),
                )
                break


@rule(
    code="SSL110",
    name="missing-timestamp",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="Message-Step Logging Spec, Event Model; spec/step-substep/DECISIONS.md SSL-2",
    summary="`started_at` and substep `timestamp` are set.",
)
def check_missing_timestamp(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: `started_at` of every step and `timestamp` of every substep are not null.

    Why: the spec requires both; null is allowed only so that logs whose source recorded no
    time (Codex and Claude streams) can be migrated without inventing one.

    Example: `{"started_at": null, ...}`.

    Valid instead: `{"started_at": "2026-02-26T10:00:00Z", ...}`.

    Spec: Message-Step Logging Spec, Event Model (`started_at`, `timestamp`: RFC 3339).
    """
    for _, ptr, step, subs in _steps(ctx):
        if "started_at" in step and step["started_at"] is None:
            yield join(ptr, "started_at"), "started_at is null (the source recorded no time)"
        for _, sptr, sub in subs:
            if "timestamp" in sub and sub["timestamp"] is None:
                yield join(sptr, "timestamp"), "timestamp is null (the source recorded no time)"


@rule(
    code="SSL111",
    name="duplicate-tool-call-id",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section=(
        "Message-Step Logging Spec, Event Model: tool event linkage; "
        "spec/step-substep/DECISIONS.md SSL-3"
    ),
    summary="No two `tool_call` substeps of a run share a `call_id`.",
)
def check_duplicate_call_id(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: every `tool_call` of the run has its own `call_id`.

    Why: results and retries find their call by `call_id`; a repeated id makes that ambiguous.
    A retry is a new call with a new id that names the old one in `retry_of_call_id`.

    Example: `S1.1` and `S3.1` are both `tool_call` with `call_id` `c1`.

    Valid instead: `S3.1` has `call_id` `c2` and `payload.retry_of_call_id` `c1`.

    Spec: Message-Step Logging Spec, Tool event linkage (SHOULD).
    """
    seen: dict[str, str] = {}
    for _, _, _, subs in _steps(ctx):
        for _, sptr, sub in subs:
            call_id = _str(sub.get("call_id"))
            if sub.get("type") != "tool_call" or call_id is None:
                continue
            if call_id in seen:
                yield (
                    join(sptr, "call_id"),
                    f"call_id {call_id!r} was already used at {seen[call_id]}",
                )
            else:
                seen[call_id] = sptr
