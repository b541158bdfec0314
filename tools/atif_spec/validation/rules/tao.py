"""opentraces TAO trace-record rules: references between fields, ordering, totals, the hash.

The upstream models check types only; these are the cross-field expectations the format's
documentation and conformance checks state. Checks skip whatever has the wrong type (the schema
reports it) and never raise. Levels follow ``spec/tao/DECISIONS.md``: a reference that resolves
to nothing, or a ``content_hash`` that does not match the record, is an error; ordering, totals
and dropped keys are warnings.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any, TypeGuard

from atif_spec.formats.tao import (
    VERSIONS,
    UnloadableRecordError,
    content_hash,
    spelling,
    unknown_keys,
)
from atif_spec.jsonio.jsonvalues import dicts, list_member
from atif_spec.jsonio.pointers import join
from atif_spec.validation.findings import Level
from atif_spec.validation.rules.registry import RuleContext, rule

Findings = Iterator[tuple[str, str]]

FORMAT = "tao"
ALL = VERSIONS

UNLINKED = "unlinked_response"
"""``Observation.error`` value that marks a result whose call is knowingly absent."""

_SHA256_HEX = re.compile(r"[0-9a-f]{64}")

# metrics total -> token_usage counter it sums
_TOKEN_TOTALS = (
    ("total_input_tokens", "input_tokens"),
    ("total_output_tokens", "output_tokens"),
)
# the same, for the cache totals that version 0.3.0 adds
_CACHE_TOTALS = (
    ("total_cache_read_tokens", "cache_read_tokens"),
    ("total_cache_creation_tokens", "cache_write_tokens"),
)
SINCE_V03 = VERSIONS[VERSIONS.index("v0.3.0") :]
SINCE_V06 = VERSIONS[VERSIONS.index("v0.6.0") :]


def _is_int(value: Any) -> TypeGuard[int]:
    """A JSON integer (``True`` is not one)."""
    return type(value) is int


def _indexed_steps(node: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(position, step)`` for every step that is an object."""
    yield from dicts(list_member(node, "steps"))


# --- 1: steps ------------------------------------------------------------------------------------


@rule(
    code="TAO101",
    name="non-increasing-step-index",
    level=Level.WARNING,
    format=FORMAT,
    versions=ALL,
    section="opentraces Step.step_index, conformance check C8; spec/tao/DECISIONS.md D11",
    summary="Each step_index is greater than every step_index before it (unique, increasing).",
)
def check_step_index_order(ctx: RuleContext) -> Findings:
    """What it checks: that every ``step_index`` is greater than all the indexes before it in
    ``steps``, so the indexes are unique and increasing. The start value and gaps are free.
    Non-integer indexes are left to the schema.

    Why: ``parent_step`` and ``Snippet.source_step`` name steps by index; a repeated index makes
    them ambiguous, and an index that goes down suggests steps were merged out of order.

    Example: ``"steps": [{"step_index": 0, ...}, {"step_index": 1, ...}, {"step_index": 1, ...}]``.

    Valid instead: ``"steps": [{"step_index": 0, ...}, {"step_index": 1, ...},
    {"step_index": 4, ...}]``.

    Spec: opentraces Step ("sequential step number"); upstream conformance check C8 (unique,
    increasing)
    """
    highest: int | None = None
    seen: set[int] = set()
    for i, step in _indexed_steps(ctx.node):
        index = step.get("step_index")
        if not _is_int(index):
            continue
        if highest is not None and index <= highest:
            what = (
                "repeats an earlier step_index"
                if index in seen
                else f"is lower than the earlier step_index {highest}"
            )
            yield (
                join(ctx.base, "steps", i, "step_index"),
                f"step_index {index} {what}; indexes must be unique and increasing",
            )
        seen.add(index)
        highest = index if highest is None else max(highest, index)


@rule(
    code="TAO102",
    name="unknown-parent-step",
    level=Level.ERROR,
    format=FORMAT,
    versions=ALL,
    section="opentraces Step.parent_step; spec/tao/DECISIONS.md D12",
    summary="A step's parent_step is the step_index of another step of the record.",
)
def check_parent_step(ctx: RuleContext) -> Findings:
    """What it checks: that a non-null ``parent_step`` equals the ``step_index`` of another step
    of the record, before or after it. Non-integer values are left to the schema.

    Why: ``parent_step`` names the step that launched the sub-agent; converters that nest
    sub-agent steps under their parent need the parent to exist, and a step cannot launch
    itself. The parent may come later: opentraces' Claude Code parser writes a sub-agent's steps
    just before the step that launched them.

    Example: a step with ``"parent_step": 7`` in a record whose indexes are 0 to 5.

    Valid instead: ``"parent_step": 2`` where step 2 is the ``Task`` call that started the
    sub-agent (written before or after the sub-agent's steps).

    Spec: opentraces Step (``parent_step``: step index of the parent, for sub-agents);
    spec/tao/DECISIONS.md D12.
    """
    indexed = list(_indexed_steps(ctx.node))
    counts = Counter(s.get("step_index") for _, s in indexed if _is_int(s.get("step_index")))
    for i, step in indexed:
        parent = step.get("parent_step")
        if not _is_int(parent):
            continue
        if parent not in counts:
            why = "no step of this record"
        elif parent == step.get("step_index") and counts[parent] == 1:
            why = "the step itself"
        else:
            continue
        yield (
            join(ctx.base, "steps", i, "parent_step"),
            f"parent_step {parent} names {why}; it must be the step_index of another step",
        )


@rule(
    code="TAO103",
    name="subagent-step-without-parent",
    level=Level.WARNING,
    format=FORMAT,
    versions=ALL,
    section="opentraces Step.call_type, conformance check C12; spec/tao/DECISIONS.md D12",
    summary="A step with call_type subagent names its parent_step.",
)
def check_subagent_parent(ctx: RuleContext) -> Findings:
    """What it checks: that a step with ``"call_type": "subagent"`` has a non-null
    ``parent_step``.

    Why: without the parent link a sub-agent's calls cannot be grouped under the step that
    launched them, and converters cannot rebuild the sub-agent trajectory.

    Example: ``{"step_index": 5, "role": "agent", "call_type": "subagent"}``.

    Valid instead: ``{"step_index": 5, "role": "agent", "call_type": "subagent",
    "parent_step": 3}``.

    Spec: opentraces Step (sub-agent steps use ``parent_step`` to link back); upstream
    conformance check C12
    """
    for i, step in _indexed_steps(ctx.node):
        if step.get("call_type") == "subagent" and step.get("parent_step") is None:
            yield (
                join(ctx.base, "steps", i),
                "a subagent step has no parent_step; name the step that launched the sub-agent",
            )


@rule(
    code="TAO104",
    name="unknown-system-prompt-hash",
    level=Level.ERROR,
    format=FORMAT,
    versions=ALL,
    section="opentraces system_prompts, Step.system_prompt_hash; spec/tao/DECISIONS.md D13",
    summary="A step's system_prompt_hash is a key of the record's system_prompts.",
)
def check_system_prompt_hash(ctx: RuleContext) -> Findings:
    """What it checks: that every non-null ``system_prompt_hash`` is a key of the root
    ``system_prompts`` map (a missing map counts as empty). Skipped when ``system_prompts`` is
    not an object.

    Why: system prompts are stored once and steps point at them; a key with no entry loses the
    prompt the call was made with.

    Example: ``"system_prompts": {"a1b2c3": "You are ..."}`` and a step with
    ``"system_prompt_hash": "ffff00"``.

    Valid instead: the step names ``"a1b2c3"``, or the prompt is added under ``"ffff00"``.

    Spec: opentraces TraceRecord (``system_prompts``: deduplicated prompts keyed by hash) and
    Step (``system_prompt_hash``: key into ``system_prompts``)
    """
    if not isinstance(ctx.node, dict):
        return
    prompts = ctx.node.get("system_prompts", {})
    if not isinstance(prompts, dict):
        return
    for i, step in _indexed_steps(ctx.node):
        key = step.get("system_prompt_hash")
        if isinstance(key, str) and key not in prompts:
            yield (
                join(ctx.base, "steps", i, "system_prompt_hash"),
                f"system_prompt_hash {key!r} is not a key of system_prompts",
            )


# --- 2: tool calls and observations --------------------------------------------------------------


def _call_ids(step: dict[str, Any]) -> set[str] | None:
    """The step's ``tool_call_id`` values; None when ``tool_calls`` is malformed (ids unknown)."""
    calls = step.get("tool_calls", [])
    if not isinstance(calls, list):
        return None
    return {
        c["tool_call_id"]
        for c in calls
        if isinstance(c, dict) and isinstance(c.get("tool_call_id"), str)
    }


@rule(
    code="TAO201",
    name="unknown-source-call-id",
    level=Level.ERROR,
    format=FORMAT,
    versions=ALL,
    section=(
        "opentraces Observation.source_call_id, conformance check C10; spec/tao/DECISIONS.md D10"
    ),
    summary="Each observation's source_call_id names a tool call of the same step.",
)
def check_source_call_id(ctx: RuleContext) -> Findings:
    """What it checks: that every observation's ``source_call_id`` equals a ``tool_call_id`` in
    the ``tool_calls`` of the step holding the observation. An observation whose ``error`` is
    ``"unlinked_response"`` is exempt: its producer has marked the link as knowingly absent.
    Steps whose ``tool_calls`` is malformed are skipped.

    Why: results are stored on the step that made the call and found through this id; a result
    that names no call of its step cannot be paired with its call (and ATIF, which has the same
    same-step rule, rejects it on conversion).

    Example: a step with ``"tool_calls": [{"tool_call_id": "toolu_1", ...}]`` and
    ``"observations": [{"source_call_id": "toolu_9", ...}]``.

    Valid instead: ``"source_call_id": "toolu_1"``, or the result moved to the step that made
    call ``toolu_9``.

    Spec: opentraces Step and Observation (tool results are attached to the step that made the
    call and link back through ``source_call_id``); upstream conformance check C10;
    spec/tao/DECISIONS.md D10.
    """
    owner: dict[str, int] | None = None
    for i, step in _indexed_steps(ctx.node):
        observations = step.get("observations")
        if not isinstance(observations, list) or not observations:
            continue
        ids = _call_ids(step)
        if ids is None:
            continue
        for k, obs in enumerate(observations):
            if not isinstance(obs, dict) or obs.get("error") == UNLINKED:
                continue
            source = obs.get("source_call_id")
            if not isinstance(source, str) or source in ids:
                continue
            if owner is None:
                owner = _call_owners(ctx.node)
            hint = (
                f"; it answers a call of step {owner[source]} and belongs on that step"
                if source in owner
                else ""
            )
            yield (
                join(ctx.base, "steps", i, "observations", k, "source_call_id"),
                f"source_call_id {source!r} names no tool call of this step{hint}",
            )


def _call_owners(node: Any) -> dict[str, int]:
    """``tool_call_id`` → position of the first step that made the call."""
    owners: dict[str, int] = {}
    for i, step in _indexed_steps(node):
        for call_id in _call_ids(step) or ():
            owners.setdefault(call_id, i)
    return owners


# --- 3: totals -----------------------------------------------------------------------------------


def _usage_sum(steps: list[Any], counter: str) -> int | None:
    """Sum of a ``token_usage`` counter over the steps; None when unknown or never reported."""
    total = 0
    for step in steps:
        if not isinstance(step, dict) or "token_usage" not in step:
            continue
        usage = step["token_usage"]
        if not isinstance(usage, dict):
            return None
        value = usage.get(counter, 0)
        if not _is_int(value):
            return None
        total += value
    reported = any(
        isinstance(s, dict)
        and isinstance(s.get("token_usage"), dict)
        and s["token_usage"].get(counter, 0) != 0
        for s in steps
    )
    return total if reported else None


@rule(
    code="TAO301",
    name="metrics-total-mismatch",
    level=Level.WARNING,
    format=FORMAT,
    versions=ALL,
    section="opentraces Metrics totals; spec/tao/DECISIONS.md D14",
    summary="Filled metrics totals agree with the steps (step count and token sums).",
)
def check_metrics_totals(ctx: RuleContext) -> Findings:
    """What it checks: that ``metrics.total_steps`` equals the number of steps, and that
    ``metrics.total_input_tokens`` and ``metrics.total_output_tokens`` equal the sums of the
    steps' ``token_usage.input_tokens`` and ``output_tokens``. A total still at its default 0 is
    taken as not filled and is not checked, and a token total is not checked when no step reports
    that counter (some producers fill only the session totals). From version 0.3.0 the same
    holds for ``total_cache_read_tokens`` and ``total_cache_creation_tokens``, the sums of
    ``cache_read_tokens`` and ``cache_write_tokens`` (opentraces' parsers fill them so).

    Why: the totals are documented as the step count and the sums of the per-step counts; when
    they disagree, at least one of the two is wrong and cost or usage analyses diverge.

    Example: two steps with 4200 and 0 input tokens and ``"total_input_tokens": 8400``.

    Valid instead: ``"total_input_tokens": 4200``.

    Spec: opentraces Metrics (``total_steps``: step count; ``total_input_tokens``: sum of input
    tokens; ``total_output_tokens``: sum of output tokens)
    """
    if not isinstance(ctx.node, dict):
        return
    metrics = ctx.node.get("metrics")
    steps = ctx.node.get("steps", [])
    if not isinstance(metrics, dict) or not isinstance(steps, list):
        return
    count = metrics.get("total_steps")
    if _is_int(count) and count != 0 and count != len(steps):
        yield (
            join(ctx.base, "metrics", "total_steps"),
            f"total_steps is {count} but the record has {len(steps)} steps",
        )
    totals = _TOKEN_TOTALS + (_CACHE_TOTALS if ctx.version in SINCE_V03 else ())
    for total_name, counter in totals:
        total = metrics.get(total_name)
        if not _is_int(total) or total == 0:
            continue
        summed = _usage_sum(steps, counter)
        if summed is not None and summed != total:
            yield (
                join(ctx.base, "metrics", total_name),
                f"{total_name} is {total} but the steps' {counter} add up to {summed}",
            )


# --- 4: integrity ---------------------------------------------------------------------------------


@rule(
    code="TAO401",
    name="content-hash-mismatch",
    level=Level.ERROR,
    format=FORMAT,
    versions=ALL,
    section="opentraces content_hash, conformance checks C3, C27; spec/tao/DECISIONS.md D15",
    summary="A non-null content_hash equals the SHA-256 recomputed from the record.",
)
def check_content_hash(ctx: RuleContext) -> Findings:
    """What it checks: that a non-null ``content_hash`` equals the hash recomputed from the
    record under the model of the version checked: every default filled in, keys unknown to that
    version dropped, ``trace_id`` and ``content_hash`` left out, the rest serialized as JSON with
    sorted keys, ``", "``/``": "`` separators and ASCII escapes, then SHA-256 as 64 lowercase hex
    digits. Skipped when the record would not load (the schema reports why).

    Why: the hash identifies the record's content for deduplication; a stale or shortened value
    makes identical sessions look different, or edited ones look unchanged.

    Example: a record edited after it was written, still carrying its old ``content_hash``; or
    a shortened value such as ``"e3b0c44298fc1c14..."``.

    Valid instead: the recomputed 64-digit value, or ``"content_hash": null``.

    Spec: opentraces TraceRecord (``content_hash``: SHA-256 for deduplication); upstream
    conformance checks C3 and C27 (definition and test vectors).
    """
    if not isinstance(ctx.node, dict):
        return
    stored = ctx.node.get("content_hash")
    if not isinstance(stored, str):
        return
    try:
        expected = content_hash(ctx.node, ctx.version)
    except (UnloadableRecordError, RecursionError, ValueError, TypeError):
        return
    if stored == expected:
        return
    shape = "" if _SHA256_HEX.fullmatch(stored) else " (not 64 lowercase hex digits)"
    yield (
        join(ctx.base, "content_hash"),
        f"content_hash {stored!r}{shape} does not match the record; "
        f"recomputed under schema {spelling(ctx.version)}: {expected}",
    )


# --- 5: keys the version does not define ----------------------------------------------------------


@rule(
    code="TAO501",
    name="unknown-field",
    level=Level.WARNING,
    format=FORMAT,
    versions=ALL,
    section="opentraces models drop unknown keys; spec/tao/DECISIONS.md D1",
    summary="Objects of the record use only the fields of the version checked.",
)
def check_unknown_fields(ctx: RuleContext) -> Findings:
    """What it checks: keys of the record's objects that the version checked does not define,
    for example ``security.tier`` (shown in some documentation, never a field), a 0.2.0 field in
    a 0.1.0 record, or a misspelt field name. Free-form objects (``input``, ``metadata``,
    ``tool_definitions`` entries, ``system_prompts``, ``contributor``) may hold any key.

    Why: upstream readers accept such keys but drop them without a word, so their data is lost
    on the first read and write, and ``content_hash`` does not cover them.

    Example: ``"security": {"tier": 2, "redactions_applied": 1}``.

    Valid instead: ``"security": {"redactions_applied": 1}``, with anything else under
    ``metadata``.

    Spec: the opentraces models ignore unknown keys; this project's
    open-object decision in ``spec/tao/DECISIONS.md``.
    """
    try:
        pointers = list(unknown_keys(ctx.node, ctx.version, ctx.base))
    except RecursionError:
        return
    for ptr in pointers:
        key = ptr.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
        yield (
            ptr,
            f"{key!r} is not a field of schema {spelling(ctx.version)}; "
            "upstream readers drop it and content_hash leaves it out",
        )
