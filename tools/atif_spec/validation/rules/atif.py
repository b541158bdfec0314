"""ATIF rules: the checks that JSON Schema cannot express (sequences, cross-references, sums).

Each check looks at one trajectory node (``ctx.node``): the root or one embedded subagent; the
engine visits every node, so no check descends into ``subagent_trajectories`` on its own. Checks
skip whatever has the wrong type, since the schema already reports it, and never raise.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeGuard

from atif_spec.formats.atif import VERSIONS
from atif_spec.formats.totals import Totals, step_totals, trajectory_totals
from atif_spec.jsonio.jsonvalues import dict_member, list_member
from atif_spec.jsonio.pointers import join
from atif_spec.validation.findings import Level
from atif_spec.validation.rules.atif_files import locate, subagent_resolver, tree_of
from atif_spec.validation.rules.registry import RuleContext, rule, versions_between

Findings = Iterator[tuple[str, str]]

FORMAT = "atif"
ALL = VERSIONS
FROM_1_2 = versions_between(VERSIONS, "v1.2")
FROM_1_3 = versions_between(VERSIONS, "v1.3")
FROM_1_4 = versions_between(VERSIONS, "v1.4")
FROM_1_5 = versions_between(VERSIONS, "v1.5")
FROM_1_6 = versions_between(VERSIONS, "v1.6")
FROM_1_7 = versions_between(VERSIONS, "v1.7")

_FROM_1_3 = frozenset(FROM_1_3)

# The schema's timestamp pattern with the offset left out: a match has no ``Z`` and no offset.
_NO_OFFSET = re.compile(
    r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]+)?)?"
)


# final_metrics total -> per-step metrics field, and whether it holds a cost (a number).
_TOTALS = (
    ("total_prompt_tokens", "prompt_tokens", False),
    ("total_completion_tokens", "completion_tokens", False),
    ("total_cached_tokens", "cached_tokens", False),
    ("total_cost_usd", "cost_usd", True),
)
"""(final_metrics total, per-step metric = :class:`atif_spec.formats.totals.Totals` field, is
cost)"""


# --- small helpers -------------------------------------------------------------------------------


def _is_int(value: Any) -> TypeGuard[int | float]:
    """A JSON Schema integer: an int or an integral float such as ``3.0`` (``True`` is not one)."""
    return type(value) is int or (type(value) is float and value.is_integer())


def _is_number(value: Any) -> TypeGuard[int | float]:
    """A JSON number (``True`` is not one)."""
    return type(value) is int or type(value) is float


def _repeats(items: list[Any], key: str) -> Iterator[tuple[int, str, int]]:
    """``(position, value, first position)`` for each object in ``items`` whose string ``key``
    repeats the one of an earlier object."""
    first: dict[str, int] = {}
    for k, item in enumerate(items):
        if isinstance(item, dict):
            value = item.get(key)
            if isinstance(value, str):
                if value in first:
                    yield k, value, first[value]
                else:
                    first[value] = k


def _notes_blank(node: dict[str, Any]) -> bool:
    """True when ``notes`` is absent, null or only whitespace (so it explains nothing)."""
    notes = node.get("notes")
    return notes is None or (isinstance(notes, str) and not notes.strip())


_Scanned = tuple[int, dict[str, Any], Any, Any, Any, Any, Any, Any]
"""``(index, step, step_id, timestamp, metrics, tool_calls, observation results, extra)``."""

_METRIC_FIELDS = ("prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd")


def _unpack(i: int, step: dict[str, Any]) -> _Scanned:
    """One step's members that the per-step rules read. ``metrics`` and ``extra`` are None
    unless dicts, ``tool_calls`` unless a list, and the results unless ``observation`` is a dict
    whose ``results`` is a list."""
    get = step.get
    metrics = get("metrics")
    calls = get("tool_calls")
    observation = get("observation")
    results = observation.get("results") if isinstance(observation, dict) else None
    extra = get("extra")
    return (
        i,
        step,
        get("step_id"),
        get("timestamp"),
        metrics if isinstance(metrics, dict) else None,
        calls if isinstance(calls, list) else None,
        results if isinstance(results, list) else None,
        extra if isinstance(extra, dict) else None,
    )


def _screen_all(node: Any) -> list[_Scanned]:
    """Every object step is a suspect: the rules check each one exactly."""
    return [
        _unpack(i, step)
        for i, step in enumerate(list_member(node, "steps"))
        if isinstance(step, dict)
    ]


def _quick_pass(node: dict[str, Any]) -> tuple[list[_Scanned], dict[str, list[Any]]]:  # noqa: C901 - the screened fast path: one flat pass over every step, measured in bench/bench_validate.py
    """One pass over the steps of a node the screen schema accepted (see ``rules.screen``).

    The schema guarantees the types, and the screen that no step holds what ATIF103, 302 to 304,
    401, 402, 502, 601 and 602 look for; what is left is checked here with a few dictionary
    reads per step. A step becomes a suspect (checked exactly by every per-step rule) when its
    ``step_id`` is not its position (ATIF101), its ``cached_tokens`` exceed its
    ``prompt_tokens`` (ATIF301), two of its tool calls share an id (ATIF202), or a result names
    a call the step does not make (ATIF201). Suspects are rare, and a suspect the rules then
    clear costs only time.

    Also returns, per metrics field of ``_METRIC_FIELDS``, its non-null values over the steps
    that count towards the totals (what :func:`quick_clean` compares ``final_metrics`` with).
    """
    suspects: list[_Scanned] = []
    prompt: list[Any] = []
    completion: list[Any] = []
    cached: list[Any] = []
    cost: list[Any] = []
    position = 0
    for step in node["steps"]:
        position += 1
        metrics = step.get("metrics")
        if metrics is not None:
            p, k = metrics.get("prompt_tokens"), metrics.get("cached_tokens")
            # Copied-context steps do not count towards the totals (RFC.md §2.4); a vouched
            # document has no metrics on an llm_call_count 0 step (the schema forbids them).
            if step.get("is_copied_context") is not True:
                c, u = metrics.get("completion_tokens"), metrics.get("cost_usd")
                if p is not None:
                    prompt.append(p)
                if c is not None:
                    completion.append(c)
                if u is not None:
                    cost.append(u)
                if k is not None:
                    cached.append(k)
            if k is not None and p is not None and k > p:
                suspects.append(_unpack(position - 1, step))
                continue
        if step["step_id"] != position:
            suspects.append(_unpack(position - 1, step))
            continue
        # The ids of the step's calls: in ``a`` and ``b`` for up to two calls (most steps; no
        # container to build), in ``ids`` for more.
        calls = step.get("tool_calls")
        n = len(calls) if calls else 0
        a = b = None
        ids: Any = ()
        if n == 1:
            a = b = calls[0]["tool_call_id"]
        elif n == 2:
            a, b = calls[0]["tool_call_id"], calls[1]["tool_call_id"]
            if a == b:
                suspects.append(_unpack(position - 1, step))
                continue
        elif n > 2:
            ids = {call["tool_call_id"] for call in calls}
            if len(ids) < n:
                suspects.append(_unpack(position - 1, step))
                continue
        observation = step.get("observation")
        if observation is not None:
            for result in observation["results"]:
                ref = result.get("source_call_id")
                if ref is not None and ref != a and ref != b and ref not in ids:
                    suspects.append(_unpack(position - 1, step))
                    break
    values = dict(zip(_METRIC_FIELDS, (prompt, completion, cached, cost), strict=True))
    return suspects, values


def _screen_vouched(node: dict[str, Any]) -> list[_Scanned]:
    """The suspect steps of a node the screen schema accepted (see :func:`_quick_pass`)."""
    return _quick_pass(node)[0]


SCREEN = True
"""Whether vouched nodes take the quick pass. Tests turn it off to check that every rule finds
exactly the same either way."""


def _function_shaped(definition: Any) -> bool:
    """A tool definition of the OpenAI shape ``{"type": "function", "function": {"name"}}``."""
    if not isinstance(definition, dict) or definition.get("type") != "function":
        return False
    function = definition.get("function")
    return isinstance(function, dict) and isinstance(function.get("name"), str)


def quick_clean(node: dict[str, Any]) -> bool:  # noqa: C901 - the screened fast path: one pass over the steps (via _quick_pass), then flat totals checks, measured in bench/bench_validate.py
    """Whether no ATIF rule can find anything on a vouched root node (one pass over its steps).

    Only for a root the screen accepted, validated without ``--follow-refs``. True means every
    rule would find nothing: the root has a ``session_id`` (ATIF102) and no ``$schema``
    (ATIF104), its tool definitions have
    the function shape (ATIF203), it embeds no subagents (ATIF501, and no embedded node to
    check), the quick pass finds no suspect step (ATIF101, 201, 202, 301; the screen rules out
    what ATIF103, 302 to 304, 401, 402, 502, 601 and 602 look for), and ``total_steps`` and
    each total of ``final_metrics`` match the steps (ATIF305, 306) unless ``notes`` explains
    them. False means "not sure": the rules then run one by one. It is stricter than the rules
    (a v1.6 root without ``session_id``, a total no step reports), never looser;
    ``tests/validation/rules/test_screen.py`` checks that the engine reports the same either way.
    """
    if not SCREEN or node.get("subagent_trajectories") or node.get("session_id") is None:
        return False
    if "$schema" in node:  # ATIF104 compares it with schema_version
        return False
    agent = node.get("agent")
    definitions = agent.get("tool_definitions") if isinstance(agent, dict) else None
    if definitions and not all(_function_shaped(d) for d in definitions):
        return False
    suspects, values = _quick_pass(node)
    if suspects:
        return False
    final = node.get("final_metrics")
    if final is None or not _notes_blank(node):
        return True
    total_steps = final.get("total_steps")
    if total_steps is not None and total_steps != len(node["steps"]):
        return False
    for total_field, metric, cost in _TOTALS:
        total = final.get(total_field)
        if total is None:
            continue
        # The common types only (what ``atif_spec.formats.totals`` and ``_same`` give for them).
        if not cost:
            tokens = sum(values[metric])
            if type(tokens) is int and tokens == total:  # every value an int
                continue
        elif type(total) is float:
            try:
                if math.isclose(total, math.fsum(values[metric]), rel_tol=1e-6):
                    continue
            except (OverflowError, TypeError):
                pass
        return False  # integral floats, an integer cost, or a real mismatch: the rules decide
    return True


def _suspects(ctx: RuleContext) -> list[_Scanned]:
    """The steps of this rule's node that the per-step rules must look at (one shared pass)."""
    result: list[_Scanned] = ctx.memoized(
        "screen", _screen_vouched if ctx.vouched and SCREEN else _screen_all
    )
    return result


# --- A: document structure -----------------------------------------------------------------------


@rule(
    code="ATIF101",
    name="non-sequential-step-id",
    level=Level.ERROR,
    format=FORMAT,
    versions=ALL,
    section="RFC §II StepObject.step_id; RFC.md §2.3",
    summary="Each step's step_id equals its position in steps, counting from 1.",
)
def check_step_ids(ctx: RuleContext) -> Findings:
    """What it checks: that ``steps[i].step_id`` is ``i + 1`` for every step, so the ids run
    1, 2, 3, ... with no gap, repeat or reordering. Each embedded subagent numbers its own steps
    from 1. Steps that are not objects and ids that are not integers are left to the schema.

    Why: ``step_id`` is the ordinal of the turn; consumers use it to cite steps, and a gap or a
    repeat usually means events were lost or duplicated when the trajectory was converted.

    Example: ``"steps": [{"step_id": 1, ...}, {"step_id": 3, ...}]``.

    Valid instead: ``"steps": [{"step_id": 1, ...}, {"step_id": 2, ...}]``.

    Spec: RFC §II StepObject (``step_id``: ordinal index starting from 1).
    """
    for i, _, got, _, _, _, _, _ in _suspects(ctx):
        if got != i + 1 and _is_int(got):
            yield (
                join(ctx.base, "steps", i, "step_id"),
                f"step_id should be {i + 1} (position {i + 1} in steps), got {got}",
            )


@rule(
    code="ATIF102",
    name="missing-root-session-id",
    level=Level.WARNING,
    format=FORMAT,
    versions=FROM_1_7,
    section="RFC §II root session_id; RFC.md §2.3",
    summary="A root trajectory sets session_id (embedded subagents may leave it out).",
)
def check_root_session_id(ctx: RuleContext) -> Findings:
    """What it checks: that the top-level trajectory has a non-null ``session_id``. Embedded
    subagents are exempt: they may inherit the run identity of their parent.

    Why: from v1.7 ``session_id`` is optional, but producers should still set it on root
    trajectories so a run can be traced across files (parent, subagents, continuations).

    Example: ``{"schema_version": "ATIF-v1.7", "agent": {...}, "steps": [...]}``.

    Valid instead: the same document with ``"session_id": "run-42"``.

    Spec: RFC §II root-level ``session_id`` ("Producers SHOULD set this on root
    trajectories"). Before v1.7 the schema requires the field.
    """
    if ctx.is_root and isinstance(ctx.node, dict) and ctx.node.get("session_id") is None:
        yield ctx.base, "the root trajectory has no session_id; set one for run-level traceability"


@rule(
    code="ATIF103",
    name="timestamp-without-offset",
    level=Level.WARNING,
    format=FORMAT,
    versions=ALL,
    section="RFC §II StepObject.timestamp; RFC.md §2.3; spec/atif/DECISIONS.md 6.3",
    summary="A step timestamp gives its UTC offset (Z or ±hh:mm).",
)
def check_timestamp_offset(ctx: RuleContext) -> Findings:
    """What it checks: step ``timestamp`` strings that are well-formed ISO 8601 date-times but
    carry neither ``Z`` nor a ``±hh:mm`` offset. Malformed timestamps are left to the schema.

    Why: a local time without an offset cannot be placed on a common timeline, so durations and
    orderings across machines or time zones become guesses.

    Example: ``"timestamp": "2025-10-11T10:30:00"``.

    Valid instead: ``"timestamp": "2025-10-11T10:30:00Z"`` or ``"2025-10-11T12:30:00+02:00"``.

    Spec: RFC §II StepObject (``timestamp``: ISO 8601, example in UTC); spec/atif/DECISIONS.md 6.3.
    """
    match = _NO_OFFSET.fullmatch
    for i, _, _, ts, _, _, _, _ in _suspects(ctx):
        # cheap pre-filter: anything ending in Z or ±hh:mm has an offset
        if isinstance(ts, str) and ts[-1:] != "Z" and ts[-6:-5] not in "+-" and match(ts):
            yield (
                join(ctx.base, "steps", i, "timestamp"),
                f"timestamp {ts!r} has no UTC offset; append 'Z' or '+hh:mm'",
            )


_SCHEMA_URL_VERSION = re.compile(r"/atif/(v[0-9]+(?:\.[0-9]+)*)/[^/]+\.schema\.json$")


@rule(
    code="ATIF104",
    name="schema-url-names-other-version",
    level=Level.WARNING,
    format=FORMAT,
    versions=ALL,
    section="RFC §II root object (no `$schema` there); RFC.md §8 (editors); DECISIONS.md 6.19",
    summary="A root $schema URL, when it names an ATIF version, names schema_version's.",
)
def check_schema_url_version(ctx: RuleContext) -> Findings:
    """What it checks: that the optional ``$schema`` string of a trajectory, when it is the URL
    of a versioned ATIF schema (``…/atif/v1.7/trajectory.schema.json``), names the version the
    document declares in ``schema_version``. Other URLs (the any-version schema, a local file)
    are not checked.

    Why: editors validate a file against the schema ``$schema`` names, ``atif validate`` against
    the one ``schema_version`` names; when they differ, the editor and the tools disagree.

    Example: ``{"$schema": "https://atif-spec.org/schemas/atif/v1.6/trajectory.schema.json",
    "schema_version": "ATIF-v1.7", ...}``.

    Valid instead: the v1.7 URL, or no ``$schema`` (``atif migrate`` rewrites it).

    Spec: RFC §8 (associating files with the schema); DECISIONS.md 6.19.
    """
    url = ctx.node.get("$schema") if isinstance(ctx.node, dict) else None
    found = _SCHEMA_URL_VERSION.search(url) if isinstance(url, str) else None
    if found is not None and found.group(1) != ctx.version:
        yield (
            join(ctx.base, "$schema"),
            f"$schema names ATIF {found.group(1)} but schema_version says {ctx.version}",
        )


# --- C: tool calls and observations --------------------------------------------------------------


def _call_ids(step: dict[str, Any]) -> set[str] | None:
    """The step's ``tool_call_id`` values; None when ``tool_calls`` is malformed (ids unknown)."""
    calls = step.get("tool_calls")
    if calls is None:
        return set()
    if not isinstance(calls, list):
        return None
    ids: set[str] = set()
    for call in calls:
        if not isinstance(call, dict):
            return None
        call_id = call.get("tool_call_id")
        if not isinstance(call_id, str):
            return None
        ids.add(call_id)
    return ids


def _all_known(results: list[Any], calls: Any) -> bool:
    """Fast path of ATIF201 for well-formed steps: every result's call id is a call's id.

    False means "not sure": the exact, slower check then runs.
    """
    try:
        for result in results:
            ref = result.get("source_call_id")
            if ref is not None:
                for call in calls:
                    if call["tool_call_id"] == ref:
                        break
                else:
                    return False
    except (AttributeError, KeyError, TypeError):
        return False
    return True


@rule(
    code="ATIF201",
    name="unknown-source-call-id",
    level=Level.ERROR,
    format=FORMAT,
    versions=ALL,
    section="RFC §II ObservationResultSchema.source_call_id; RFC.md §2.3",
    summary="An observation result's source_call_id names a tool call of the same step.",
)
def check_source_call_ids(ctx: RuleContext) -> Findings:
    """What it checks: every non-null ``observation.results[k].source_call_id`` equals the
    ``tool_call_id`` of one of the same step's ``tool_calls``. A step whose ``tool_calls`` are
    malformed is skipped (the schema reports them).

    Why: the id links a result to the call that produced it; a result pointing at a call that is
    not in its step (or at no call at all) cannot be paired with its request.

    Example: a step whose only call is ``{"tool_call_id": "call_1", ...}`` and whose result says
    ``"source_call_id": "call_2"``.

    Valid instead: ``"source_call_id": "call_1"``, or ``null`` for a result that no tool call
    produced.

    Spec: RFC §II ObservationResultSchema (``source_call_id``); Harbor enforces it.
    """
    for i, step, results in _ctx_steps_with_results(ctx):
        if _all_known(results, step.get("tool_calls")):
            continue
        ids: set[str] | None = None
        for k, result in enumerate(results):
            if not isinstance(result, dict):
                continue
            ref = result.get("source_call_id")
            if not isinstance(ref, str):
                continue
            if ids is None:
                ids = _call_ids(step)
                if ids is None:
                    break
            if ref not in ids:
                yield (
                    join(ctx.base, "steps", i, "observation", "results", k, "source_call_id"),
                    f"source_call_id {ref!r} matches no tool_call_id in this step's tool_calls",
                )


def _distinct_ids(calls: list[Any]) -> bool:
    """Fast path of ATIF202: well-formed calls whose ids all differ (False: not sure)."""
    try:
        if len(calls) == 2:
            return bool(calls[0]["tool_call_id"] != calls[1]["tool_call_id"])
        return len({call["tool_call_id"] for call in calls}) == len(calls)
    except (KeyError, TypeError):
        return False


@rule(
    code="ATIF202",
    name="duplicate-tool-call-id",
    level=Level.WARNING,
    format=FORMAT,
    versions=ALL,
    section="RFC §II ToolCallSchema.tool_call_id; RFC.md §2.3",
    summary="Tool calls of one step have distinct tool_call_ids.",
)
def check_duplicate_tool_call_ids(ctx: RuleContext) -> Findings:
    """What it checks: that no ``tool_call_id`` occurs twice in one step's ``tool_calls``. The
    later duplicate is reported.

    Why: the id is meant to identify one call; with a repeat, an observation result's
    ``source_call_id`` no longer says which of the calls it answers.

    Example: ``"tool_calls": [{"tool_call_id": "c1", ...}, {"tool_call_id": "c1", ...}]``.

    Valid instead: ``"tool_calls": [{"tool_call_id": "c1", ...}, {"tool_call_id": "c2", ...}]``.

    Spec: RFC §II ToolCallSchema (``tool_call_id``: unique identifier; the scope is unstated, one
    step is the minimum).
    """
    for i, _, _, _, _, calls, _, _ in _suspects(ctx):
        if calls is None or len(calls) < 2:
            continue
        if _distinct_ids(calls):
            continue
        for j, call_id, first in _repeats(calls, "tool_call_id"):
            yield (
                join(ctx.base, "steps", i, "tool_calls", j, "tool_call_id"),
                f"tool_call_id {call_id!r} is already used by tool_calls/{first} of this step",
            )


@rule(
    code="ATIF203",
    name="tool-definition-not-function-shape",
    level=Level.WARNING,
    format=FORMAT,
    versions=FROM_1_5,
    section="RFC §II AgentSchema.tool_definitions; RFC.md §2.3",
    summary='A tool definition has the OpenAI shape {"type": "function", "function": {"name"}}.',
)
def check_tool_definitions(ctx: RuleContext) -> Findings:
    """What it checks: each object in ``agent.tool_definitions`` has ``"type": "function"`` and a
    ``function`` object with a string ``name``. Elements that are not objects are left to the
    schema.

    Why: the RFC says tool definitions follow OpenAI's function-calling schema; consumers that
    replay or train on the trajectory read the tool's name and parameters from that shape.

    Example: ``"tool_definitions": [{"name": "search", "parameters": {...}}]``.

    Valid instead: ``"tool_definitions": [{"type": "function", "function": {"name": "search",
    "parameters": {...}}}]``.

    Spec: RFC §II AgentSchema (``tool_definitions``).
    """
    agent = dict_member(ctx.node, "agent")
    if agent is None:
        return
    definitions = agent.get("tool_definitions")
    if not isinstance(definitions, list):
        return
    for k, definition in enumerate(definitions):
        if not isinstance(definition, dict):
            continue
        problems: list[str] = []
        if definition.get("type") != "function":
            problems.append('"type" is not "function"')
        function = definition.get("function")
        if not isinstance(function, dict):
            problems.append('"function" is not an object')
        elif not isinstance(function.get("name"), str):
            problems.append('"function" has no string "name"')
        if problems:
            yield (
                join(ctx.base, "agent", "tool_definitions", k),
                "tool definition does not follow the function-calling shape: "
                + "; ".join(problems),
            )


# --- D: metrics ----------------------------------------------------------------------------------


def _ctx_metrics(ctx: RuleContext) -> list[tuple[int, dict[str, Any]]]:
    """``(step index, metrics object)`` for every suspect step that has a metrics object."""
    result: list[tuple[int, dict[str, Any]]] = ctx.memoized(
        "metrics", lambda _: [(i, m) for i, _, _, _, m, _, _, _ in _suspects(ctx) if m is not None]
    )
    return result


def _ctx_metrics_with_arrays(ctx: RuleContext) -> list[tuple[int, dict[str, Any]]]:
    """The metrics of the rule's node that carry a token-id or logprob member (memoized)."""
    result: list[tuple[int, dict[str, Any]]] = ctx.memoized(
        "metrics_with_arrays",
        lambda _: [
            (i, m)
            for i, m in _ctx_metrics(ctx)
            if "logprobs" in m or "completion_token_ids" in m or "prompt_token_ids" in m
        ],
    )
    return result


def _ctx_steps_with_results(ctx: RuleContext) -> list[tuple[int, dict[str, Any], list[Any]]]:
    """``(step index, step, observation.results)`` for every suspect step with results."""
    result: list[tuple[int, dict[str, Any], list[Any]]] = ctx.memoized(
        "steps_with_results",
        lambda _: [(i, s, r) for i, s, _, _, _, _, r, _ in _suspects(ctx) if r],
    )
    return result


@rule(
    code="ATIF301",
    name="cached-tokens-exceed-prompt-tokens",
    level=Level.WARNING,
    format=FORMAT,
    versions=FROM_1_2,
    section="RFC §II MetricsSchema.cached_tokens; RFC.md §2.3",
    summary="cached_tokens is at most prompt_tokens (cached tokens are part of the prompt).",
)
def check_cached_tokens(ctx: RuleContext) -> Findings:
    """What it checks: in a step's ``metrics``, ``cached_tokens`` is not larger than
    ``prompt_tokens`` when both are integers.

    Why: since v1.2 ``prompt_tokens`` counts all input tokens, cached ones included, so the cache
    hits are a subset. A larger count usually means the producer reported non-cached prompt
    tokens, which skews cost estimates.

    Example: ``"metrics": {"prompt_tokens": 100, "cached_tokens": 250}``.

    Valid instead: ``"metrics": {"prompt_tokens": 350, "cached_tokens": 250}``.

    Spec: RFC §II MetricsSchema (``prompt_tokens`` includes cached tokens).
    """
    for i, metrics in _ctx_metrics(ctx):
        cached = metrics.get("cached_tokens")
        prompt = metrics.get("prompt_tokens")
        if _is_int(cached) and _is_int(prompt) and cached > prompt:
            yield (
                join(ctx.base, "steps", i, "metrics", "cached_tokens"),
                f"cached_tokens ({cached}) exceeds prompt_tokens ({prompt}), which should"
                " include them",
            )


def _length_check(
    ctx: RuleContext, array_field: str, count_field: str
) -> Iterator[tuple[str, str]]:
    """Findings where ``len(metrics[array_field]) != metrics[count_field]``."""
    for i, metrics in _ctx_metrics_with_arrays(ctx):
        array = metrics.get(array_field)
        count = metrics.get(count_field)
        if isinstance(array, list) and _is_int(count) and len(array) != count:
            yield (
                join(ctx.base, "steps", i, "metrics", array_field),
                f"{array_field} has {len(array)} entries but {count_field} is {count}",
            )


@rule(
    code="ATIF302",
    name="prompt-token-ids-length-mismatch",
    level=Level.WARNING,
    format=FORMAT,
    versions=FROM_1_4,
    section="RFC §II MetricsSchema.prompt_token_ids; RFC.md §2.3",
    summary="prompt_token_ids has prompt_tokens entries.",
)
def check_prompt_token_ids(ctx: RuleContext) -> Findings:
    """What it checks: ``len(metrics.prompt_token_ids) == metrics.prompt_tokens`` when both are
    set.

    Why: the ids are the tokenized prompt; a count that disagrees means one of the two is wrong,
    and training or replay code that relies on the ids would read a different prompt.

    Example: ``"metrics": {"prompt_tokens": 3, "prompt_token_ids": [101, 102]}``.

    Valid instead: ``"metrics": {"prompt_tokens": 2, "prompt_token_ids": [101, 102]}``.

    Spec: RFC §II MetricsSchema (``prompt_token_ids``: length should match).
    """
    yield from _length_check(ctx, "prompt_token_ids", "prompt_tokens")


@rule(
    code="ATIF303",
    name="completion-token-ids-length-mismatch",
    level=Level.WARNING,
    format=FORMAT,
    versions=FROM_1_3,
    section="RFC §II MetricsSchema.completion_token_ids; RFC.md §2.3; spec/atif/DECISIONS.md 6.11",
    summary="completion_token_ids has completion_tokens entries.",
)
def check_completion_token_ids(ctx: RuleContext) -> Findings:
    """What it checks: ``len(metrics.completion_token_ids) == metrics.completion_tokens`` when
    both are set.

    Why: the ids are the generated tokens; a count that disagrees means the ids were truncated
    or the count was taken elsewhere, and token-level training data would be misaligned. (The
    RFC's own §IV example has 37 ids for 44 completion tokens.)

    Example: ``"metrics": {"completion_tokens": 3, "completion_token_ids": [7, 8]}``.

    Valid instead: ``"metrics": {"completion_tokens": 2, "completion_token_ids": [7, 8]}``.

    Spec: RFC §II MetricsSchema (``completion_token_ids``); spec/atif/DECISIONS.md 6.11.
    """
    yield from _length_check(ctx, "completion_token_ids", "completion_tokens")


@rule(
    code="ATIF304",
    name="logprobs-length-mismatch",
    level=Level.WARNING,
    format=FORMAT,
    versions=ALL,
    section="RFC §II MetricsSchema.logprobs; RFC.md §2.3; spec/atif/DECISIONS.md 6.11",
    summary="logprobs has one entry per completion token (and per completion_token_ids entry).",
)
def check_logprobs_length(ctx: RuleContext) -> Findings:
    """What it checks: ``len(metrics.logprobs) == metrics.completion_tokens`` when both are set,
    and, from v1.3, ``len(metrics.logprobs) == len(metrics.completion_token_ids)`` when both
    arrays are set. One finding per metrics object names whatever disagrees.

    Why: there is one log probability per generated token; RL and distillation code pairs each
    log probability with its token id, which fails when the arrays differ in length.

    Example: ``"metrics": {"completion_tokens": 2, "completion_token_ids": [7, 8],
    "logprobs": [-0.1]}``.

    Valid instead: ``"metrics": {"completion_tokens": 2, "completion_token_ids": [7, 8],
    "logprobs": [-0.1, -0.3]}``.

    Spec: RFC §II MetricsSchema (``logprobs``, ``completion_token_ids``).
    """
    aligned = ctx.version in _FROM_1_3
    for i, metrics in _ctx_metrics_with_arrays(ctx):
        logprobs = metrics.get("logprobs")
        if not isinstance(logprobs, list):
            continue
        n = len(logprobs)
        problems: list[str] = []
        count = metrics.get("completion_tokens")
        if _is_int(count) and n != count:
            problems.append(f"completion_tokens is {count}")
        if aligned:
            ids = metrics.get("completion_token_ids")
            if isinstance(ids, list) and len(ids) != n:
                problems.append(f"completion_token_ids has {len(ids)} entries")
        if problems:
            yield (
                join(ctx.base, "steps", i, "metrics", "logprobs"),
                f"logprobs has {n} entries but " + " and ".join(problems),
            )


@rule(
    code="ATIF305",
    name="total-steps-mismatch",
    level=Level.WARNING,
    format=FORMAT,
    versions=ALL,
    section="RFC §II FinalMetricsSchema.total_steps; RFC.md §2.3; spec/atif/DECISIONS.md 6.14",
    summary="final_metrics.total_steps equals the number of steps unless notes explains why.",
)
def check_total_steps(ctx: RuleContext) -> Findings:
    """What it checks: ``final_metrics.total_steps`` equals ``len(steps)``, unless ``notes``
    holds some text (which is where the difference should be explained).

    Why: a total that disagrees with the steps array, with no note, usually means steps were
    dropped or the total was computed before the trajectory was finished.

    Example: three steps with ``"final_metrics": {"total_steps": 5}`` and no ``notes``.

    Valid instead: ``"total_steps": 3``, or keep 5 and add ``"notes": "2 retried steps were
    dropped"``.

    Spec: RFC §II FinalMetricsSchema (``total_steps``: may differ "if explained in notes");
    spec/atif/DECISIONS.md 6.14.
    """
    node = ctx.node
    final = dict_member(node, "final_metrics")
    if final is None:
        return
    total = final.get("total_steps")
    steps = node.get("steps")
    if _is_int(total) and isinstance(steps, list) and total != len(steps) and _notes_blank(node):
        yield (
            join(ctx.base, "final_metrics", "total_steps"),
            f"total_steps is {total} but steps has {len(steps)} entries, and notes does not"
            " explain the difference",
        )


def _as_float(value: Any) -> float | None:
    """``value`` as a float, or None when it is too large for one."""
    try:
        return float(value)
    except OverflowError:
        return None


def _show(value: int | float) -> str:
    """A sum as shown in messages: integers in full, costs to 6 significant digits."""
    return str(value) if isinstance(value, int) else f"{value:.6g}"


def _same(total: int | float, value: int | float, cost: bool) -> bool:
    """Token totals compare exactly; costs with a relative tolerance of 1e-6."""
    if not cost:
        return total == value
    a, b = _as_float(total), _as_float(value)
    return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-6)


@rule(
    code="ATIF306",
    name="final-metrics-total-mismatch",
    level=Level.WARNING,
    format=FORMAT,
    versions=ALL,
    section="RFC §II FinalMetricsSchema; RFC.md §2.3; spec/atif/DECISIONS.md 6.13",
    summary="final_metrics token and cost totals equal the sums of the per-step metrics.",
)
def check_final_metric_totals(ctx: RuleContext) -> Findings:
    """What it checks: each of ``total_prompt_tokens``, ``total_completion_tokens``,
    ``total_cached_tokens`` and ``total_cost_usd`` that is set equals the total of the matching
    per-step metric (``prompt_tokens``, ...) as RFC.md §2.4 defines it
    (:mod:`atif_spec.formats.totals`: copied-context steps and steps without an LLM call do not
    count). Accepted readings: the trajectory's own steps; its steps and every embedded subagent's;
    and, with ``--follow-refs``, those plus every file-referenced subagent's (Harbor's terminus-2
    folds them in). Without ``--follow-refs``, a total that matches none of these while the
    trajectory references subagent files is not judged: the files' usage may be part of it. Costs
    compare with a relative tolerance of 1e-6, tokens exactly. Skipped when ``notes`` holds text,
    for a total no counted step reports, and for a total whose per-step values include a mistyped
    one.

    Why: totals are read as summaries of the run; when they disagree with the steps, one of the
    two is wrong and cost or usage reports differ depending on which one a tool reads.

    Example: steps with ``prompt_tokens`` 100 and 200 and ``"total_prompt_tokens": 250``.

    Valid instead: ``"total_prompt_tokens": 300`` (or a ``notes`` text explaining the gap).

    Spec: RFC §II FinalMetricsSchema ("sum of all ... across all steps"); RFC.md §2.4; the
    reference code's ``total_cost_usd`` description includes subagents;
    spec/atif/DECISIONS.md 6.13.
    """

    node = ctx.node
    final = dict_member(node, "final_metrics")
    if final is None or not _notes_blank(node):
        return
    wanted = [
        (total_field, metric, cost)
        for total_field, metric, cost in _TOTALS
        if (_is_number(final.get(total_field)) if cost else _is_int(final.get(total_field)))
    ]
    if not wanted:
        return
    own = step_totals(node.get("steps"))
    readings: list[Totals] | None = None  # with subagents: computed only when a total disagrees
    for total_field, metric, cost in wanted:
        total = final[total_field]
        value = getattr(own, metric)
        if metric in own.mistyped or (value is not None and _same(total, value, cost)):
            continue
        if readings is None:
            readings = _readings(ctx)
        message = _total_mismatch(total_field, metric, cost, total, value, readings)
        if message is not None:
            yield join(ctx.base, "final_metrics", total_field), message


def _readings(ctx: RuleContext) -> list[Totals]:
    """The node's totals with subagents: embedded ones, then also the files (``--follow-refs``)."""
    readings = [trajectory_totals(ctx.node)]
    if ctx.options.follow_refs and readings[0].unresolved_refs:
        readings.append(trajectory_totals(ctx.node, subagent_resolver(ctx)))
    return readings


def _total_mismatch(
    total_field: str,
    metric: str,
    cost: bool,
    total: int | float,
    value: int | float | None,
    readings: list[Totals],
) -> str | None:
    """ATIF306's message for a total the own steps do not match; None when a reading does."""
    sums = [getattr(r, metric) for r in readings if metric not in r.mistyped]
    if all(s is None for s in (value, *sums)):
        return None
    if any(s is not None and _same(total, s, cost) for s in sums):
        return None
    if readings[-1].unresolved_refs:
        return None  # usage in subagent files that were not read may be part of the total
    message = f"{total_field} is {total} but the steps' {metric} add up to {_show(value or 0)}"
    full = sums[-1] if sums else None
    if full is not None and full != value:
        message += f" ({_show(full)} with subagents)"
    return message


# --- E: media files ------------------------------------------------------------------------------


def _media_paths(ctx: RuleContext) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """``(pointer tokens of source.path, path)`` for every content part with a local path."""
    for i, step, _, _, _, _, results, _ in _suspects(ctx):
        message = step.get("message")
        if isinstance(message, list):
            for j, path in _local_paths(message):
                yield ("steps", i, "message", j, "source", "path"), path
        for k, result in enumerate(results or ()):
            if not isinstance(result, dict):
                continue
            content = result.get("content")
            if not isinstance(content, list):
                continue
            for j, path in _local_paths(content):
                tokens = ("steps", i, "observation", "results", k, "content", j)
                yield (*tokens, "source", "path"), path


def _local_paths(parts: list[Any]) -> Iterator[tuple[int, str]]:
    """``(index, source.path)`` for each content part whose ``source.path`` is local."""
    for j, part in enumerate(parts):
        source = dict_member(part, "source")
        if source is not None:
            path = source.get("path")
            if isinstance(path, str) and "://" not in path:
                yield j, path


def _exists(target: Path) -> bool:
    """Whether something exists at ``target`` (False for paths the OS cannot even look up)."""
    try:
        return target.exists()
    except (OSError, ValueError):
        return False


@rule(
    code="ATIF401",
    name="missing-media-file",
    level=Level.ERROR,
    format=FORMAT,
    versions=FROM_1_6,
    section="RFC §VI Trajectory Validator; RFC.md §2.2 (6); spec/atif/DECISIONS.md D-5",
    summary="A local media path in a content part names an existing file.",
    needs_file=True,
)
def check_media_exists(ctx: RuleContext) -> Findings:
    """What it checks: every image or audio content part (in a step's ``message`` or an
    observation result's ``content``) whose ``source.path`` is local (has no ``://``) points at
    something that exists. Relative paths are read from the folder of the trajectory file;
    absolute paths as they are. Only runs when a file is validated. Paths that leave the
    trajectory's folder are not read (ATIF402 says so), unless outside paths are allowed.

    Why: media are stored beside the trajectory rather than inline; a dangling path loses the
    image or audio the model actually saw.

    Example: ``{"type": "image", "source": {"media_type": "image/png",
    "path": "images/step-3.png"}}`` with no ``images/step-3.png`` next to the file.

    Valid instead: ship the file at ``images/step-3.png``, or reference it by URL.

    Spec: RFC §VI (the reference validator checks media files); RFC.md §2.2.
    """
    tree = tree_of(ctx)
    if tree is None:
        return
    allow_outside = ctx.options.allow_outside
    for tokens, raw in _media_paths(ctx):
        target, inside = locate(tree, raw)
        if (inside or allow_outside) and not _exists(target):
            yield join(ctx.base, *tokens), f"media file {raw!r} does not exist"


@rule(
    code="ATIF402",
    name="media-path-outside-tree",
    level=Level.WARNING,
    format=FORMAT,
    versions=FROM_1_6,
    section="RFC §II ImageSource.path; RFC.md §2.2 (6); spec/atif/DECISIONS.md D-5, D-13",
    summary="A local media path outside the trajectory file's folder is not read (confinement).",
    needs_file=True,
)
def check_media_inside_tree(ctx: RuleContext) -> Findings:
    """What it checks: a local media ``source.path`` that resolves (after ``..`` and symlinks)
    to a place outside the folder holding the trajectory file. Such a path is valid (the RFC
    allows "a relative or absolute file path, or a URL"); the validator only refuses to *read*
    it, so ATIF401 does not check that it exists, and says so here. Turned off by the
    ``allow_outside`` option (the file is then read and checked). Only runs when a file is
    validated with file checks on.

    Why: validating a folder must not make the validator read arbitrary files
    (``../../etc/passwd``, a symlink pointing out), and a folder that points outside itself
    cannot be moved or shared as a unit; neither makes the document wrong.

    Example: ``"path": "../other-run/images/a.png"`` or ``"path": "/tmp/a.png"``.

    Valid instead: nothing is invalid; to have the file checked, copy it into the trajectory's
    folder or validate with ``--allow-outside``.

    Spec: RFC §II ImageSource/AudioSource ``path``; RFC.md §2.2; spec/atif/DECISIONS.md D-13.
    """
    if ctx.options.allow_outside:
        return
    tree = tree_of(ctx)
    if tree is None:
        return
    for tokens, raw in _media_paths(ctx):
        _, inside = locate(tree, raw)
        if not inside:
            yield (
                join(ctx.base, *tokens),
                f"media path {raw!r} resolves outside the trajectory's folder: not read "
                "(--allow-outside reads it)",
            )


# --- F: subagents --------------------------------------------------------------------------------


@rule(
    code="ATIF501",
    name="duplicate-subagent-trajectory-id",
    level=Level.ERROR,
    format=FORMAT,
    versions=FROM_1_7,
    section="RFC §II subagent_trajectories; RFC.md §2.2 (1)",
    summary="Embedded subagents of one parent have distinct trajectory_ids.",
)
def check_subagent_ids(ctx: RuleContext) -> Findings:
    """What it checks: no two elements of this trajectory's ``subagent_trajectories`` share a
    ``trajectory_id``; the later duplicate is reported. Ids in different parents may repeat.

    Why: refs with a null ``trajectory_path`` are resolved by matching ``trajectory_id`` against
    this array; with a duplicate, a ref resolves to two trajectories.

    Example: ``"subagent_trajectories": [{"trajectory_id": "s1", ...},
    {"trajectory_id": "s1", ...}]``.

    Valid instead: ``"trajectory_id": "s1"`` and ``"trajectory_id": "s2"``.

    Spec: RFC §II root ``subagent_trajectories`` ("trajectory_ids within this array MUST be
    unique").
    """
    if not isinstance(ctx.node, dict):
        return
    subs = ctx.node.get("subagent_trajectories")
    if not isinstance(subs, list):
        return
    for k, tid, first in _repeats(subs, "trajectory_id"):
        yield (
            join(ctx.base, "subagent_trajectories", k, "trajectory_id"),
            f"trajectory_id {tid!r} is already used by subagent_trajectories/{first}",
        )


@rule(
    code="ATIF502",
    name="unresolved-embedded-ref",
    level=Level.WARNING,
    format=FORMAT,
    versions=FROM_1_7,
    section="RFC §II SubagentTrajectoryRefSchema; RFC.md §2.2 (1); spec/atif/DECISIONS.md 6.12",
    summary="A ref with no trajectory_path names an embedded subagent of the same trajectory.",
)
def check_embedded_refs(ctx: RuleContext) -> Findings:
    """What it checks: a ``subagent_trajectory_ref`` entry in this trajectory's observations
    that has a ``trajectory_id`` but no ``trajectory_path`` matches the ``trajectory_id`` of an
    element of this trajectory's ``subagent_trajectories``.

    Why: without a path, the embedded array is the only place the subagent can be found; a ref
    that matches nothing points at a trajectory the file does not contain. (The RFC's §VII
    example has such a ref, so this is a warning.)

    Example: ``"subagent_trajectory_ref": [{"trajectory_id": "s9"}]`` with no embedded ``s9``.

    Valid instead: embed ``{"trajectory_id": "s9", ...}`` in ``subagent_trajectories``, or give
    the ref a ``trajectory_path``.

    Spec: RFC §II SubagentTrajectoryRefSchema and ``subagent_trajectories`` (resolution by
    ``trajectory_id``); spec/atif/DECISIONS.md 6.12.
    """
    node = ctx.node
    if not isinstance(node, dict):
        return
    subs = node.get("subagent_trajectories")
    if subs is not None and not isinstance(subs, list):
        return
    known: set[str] | None = None
    with_refs = [
        (i, k, refs)
        for i, _, results in _ctx_steps_with_results(ctx)
        for k, result in enumerate(results)
        if isinstance(result, dict)
        and "subagent_trajectory_ref" in result
        and isinstance(refs := result["subagent_trajectory_ref"], list)
    ]
    for i, k, refs in with_refs:
        for r, ref in enumerate(refs):
            if not isinstance(ref, dict) or ref.get("trajectory_path") is not None:
                continue
            tid = ref.get("trajectory_id")
            if not isinstance(tid, str):
                continue
            if known is None:
                known = {
                    sub["trajectory_id"]
                    for sub in subs or ()
                    if isinstance(sub, dict) and isinstance(sub.get("trajectory_id"), str)
                }
            if tid not in known:
                tokens = ("steps", i, "observation", "results", k, "subagent_trajectory_ref")
                yield (
                    join(ctx.base, *tokens, r, "trajectory_id"),
                    f"trajectory_id {tid!r} has no trajectory_path and matches no embedded"
                    " subagent trajectory",
                )


# --- G: context management -----------------------------------------------------------------------


def _ctx_context_management(ctx: RuleContext) -> list[tuple[int, dict[str, Any], Any]]:
    """The steps that carry ``extra.context_management`` (shared by ATIF601 and ATIF602)."""
    result: list[tuple[int, dict[str, Any], Any]] = ctx.memoized(
        "context_management",
        lambda _: [
            (i, step, value)
            for i, step, _, _, _, _, _, extra in _suspects(ctx)
            if extra is not None and (value := extra.get("context_management")) is not None
        ],
    )
    return result


@rule(
    code="ATIF601",
    name="malformed-context-management",
    level=Level.WARNING,
    format=FORMAT,
    versions=FROM_1_7,
    section="RFC §VII Context Management Convention; RFC.md §2.1; spec/atif/DECISIONS.md D-18",
    summary="extra.context_management is an object whose type and boundary are non-empty strings.",
)
def check_context_management_values(ctx: RuleContext) -> Findings:
    """What it checks: a step's ``extra.context_management`` is an object with a ``type`` and a
    ``boundary``, each a non-empty string. A missing key is reported at the object, a value that
    is not a non-empty string at the key; one finding per offending key. Any string is accepted:
    ``compaction``, ``pruning``, ``injection`` and ``replace``, ``append``, ``truncate`` are the
    documented values, and producers may add others (DECISIONS.md D-18).

    Why: consumers rebuild the model's context window from these two values (``replace`` cuts
    off everything before the step); without them, or with a value that is not a name, there is
    nothing to act on.

    Example: ``"extra": {"context_management": {"type": "compaction"}}``.

    Valid instead: ``"extra": {"context_management": {"type": "compaction",
    "boundary": "replace"}}``.

    Spec: RFC §VII Context Management Convention (both lists are extensible by producers).
    """
    for i, _, value in _ctx_context_management(ctx):
        base = join(ctx.base, "steps", i, "extra", "context_management")
        if not isinstance(value, dict):
            yield base, "context_management should be an object with type and boundary"
            continue
        for key in ("type", "boundary"):
            if key not in value:
                yield base, f"context_management has no {key!r}"
                continue
            got = value[key]
            if not isinstance(got, str) or not got:
                yield join(base, key), f"context_management {key} {got!r} is not a name"


@rule(
    code="ATIF602",
    name="context-management-outside-system-step",
    level=Level.WARNING,
    format=FORMAT,
    versions=FROM_1_7,
    section="RFC §VII Context Management Convention; RFC.md §2.1",
    summary="extra.context_management appears only on system steps.",
)
def check_context_management_source(ctx: RuleContext) -> Findings:
    """What it checks: ``extra.context_management`` is set only on steps whose ``source`` is
    ``system``. Steps whose ``source`` is missing or not a string are left to the schema.

    Why: the convention describes system steps that transform the context window; on a user or
    agent step, consumers that look for context boundaries among system steps miss it.

    Example: ``{"source": "agent", "extra": {"context_management": {"type": "pruning",
    "boundary": "truncate"}}, ...}``.

    Valid instead: move the transformation into its own ``"source": "system"`` step.

    Spec: RFC §VII Context Management Convention ("System steps that transform the agent's
    context window ...").
    """
    for i, step, _ in _ctx_context_management(ctx):
        source = step.get("source")
        if isinstance(source, str) and source != "system":
            yield (
                join(ctx.base, "steps", i, "extra", "context_management"),
                f"context_management is set on a {source!r} step; it belongs on system steps",
            )
