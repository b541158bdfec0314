"""trajectory-sdk v0.4 rules: what the SDK's builder guarantees beyond the JSON Schema.

Sections cite the SDK (its code and documentation) and ``spec/trajectory-sdk/DECISIONS.md``
(``D3``). Checks read the document as it is; a field of the wrong type is skipped here and left
to the schema. The *transcript* is the last step's ``messages``: it holds every message of the
conversation (only system messages replaced mid-way are missing from it). When the context
restarts after a ``summarization_boundary`` step (D18), the transcript is the boundary step's
messages followed by the last step's (one segment per restart).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from atif_spec.jsonio.jsonvalues import dict_member, json_int
from atif_spec.jsonio.pointers import join
from atif_spec.validation.findings import Level
from atif_spec.validation.rules.registry import RuleContext, rule

FORMAT = "trajectory-sdk"
VERSIONS = ("v0.4",)

Found = Iterator[tuple[str, str]]


# --- helpers -------------------------------------------------------------------------------


def _num(value: Any) -> float | None:
    """``value`` as a float when it is a JSON number that a float can hold."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


def _role(message: Any) -> object:
    """The message's role, or None when the message is not an object."""
    return message.get("role") if isinstance(message, dict) else None


def _leading_system(messages: list[Any]) -> int:
    """How many messages at the start of ``messages`` are system messages."""
    n = 0
    for m in messages:
        if _role(m) != "system":
            break
        n += 1
    return n


def _first_difference(a: list[Any], a_start: int, b: list[Any], b_start: int, n: int) -> int:
    """Offset of the first of ``n`` elements where ``a[a_start:]`` and ``b[b_start:]`` differ.

    Returns ``n`` when all ``n`` agree. Linear in the size of the compared elements; a run
    that agrees is compared at C speed first (identical objects compare equal at once, so
    the cumulative snapshots of a converted file cost little).
    """
    if a[a_start : a_start + n] == b[b_start : b_start + n]:
        return n
    for k in range(n):
        x, y = a[a_start + k], b[b_start + k]
        if x is not y and x != y:
            return k
    return n


def _is_decision_point(message: Any, user_seen: bool) -> bool:
    """Would the builder close a snapshot at ``message``? (DECISIONS D2, D8, D9)."""
    role = _role(message)
    if not user_seen:
        return role == "user"
    if role == "tool":
        return True
    return role == "assistant" and not message.get("tool_calls")


@dataclass(frozen=True, slots=True)
class _Pair:
    """How step ``index`` extends the step before it."""

    index: int
    messages: list[Any]
    new_from: int
    """Index in ``messages`` of the first message the step adds."""
    swapped: bool
    """True when the leading system messages were replaced (0.4 copy-on-write)."""
    user_seen: bool
    """True when a user message comes before ``new_from``."""


def _steps(ctx: RuleContext) -> list[Any] | None:
    steps = ctx.node.get("steps") if isinstance(ctx.node, dict) else None
    return steps if isinstance(steps, list) else None


def _compare(prev: list[Any], cur: list[Any]) -> tuple[int | None, bool]:
    """Where ``cur`` starts adding to ``prev``, and whether the system prefix was swapped.

    Returns ``(None, swapped)`` when ``cur`` does not repeat ``prev`` (allowing a replaced run
    of leading system messages). Lengths are compared before any element.
    """
    n = len(prev)
    if len(cur) >= n and _first_difference(prev, 0, cur, 0, n) == n:
        return n, False
    s_prev, s_cur = _leading_system(prev), _leading_system(cur)
    body = n - s_prev
    if s_prev == n or len(cur) - s_cur < body:
        return None, True
    if s_cur == 0 or (s_prev == s_cur and _first_difference(prev, 0, cur, 0, s_prev) == s_prev):
        return None, False  # no replacement prefix, or the same one: the body differs
    if _first_difference(prev, s_prev, cur, s_cur, body) != body:
        return None, True
    return s_cur + body, True


BOUNDARY = "summarization_boundary"
"""The trainable status of the last snapshot before a context restart (DECISIONS D18)."""


def compare_snapshots(prev: list[Any], cur: list[Any]) -> tuple[int | None, bool]:
    """Public name of :func:`_compare` (shared with the trajectory-sdk lens)."""
    return _compare(prev, cur)


def leading_system(messages: list[Any]) -> int:
    """Public name of :func:`_leading_system` (shared with the trajectory-sdk lens)."""
    return _leading_system(messages)


def _is_boundary(step: Any) -> bool:
    """Is ``step`` the last snapshot before a context restart? (D18)."""
    return isinstance(step, dict) and step.get("trainable_status") == BOUNDARY


def is_restart(prev_step: Any, prev: list[Any], cur: list[Any]) -> bool:
    """Does ``cur`` start afresh after a ``summarization_boundary`` snapshot? (D18)."""
    return _is_boundary(prev_step) and _compare(prev, cur)[0] is None


@dataclass(frozen=True, slots=True)
class _Walk:
    """One comparison of every step's messages with the step before (shared by the rules)."""

    pairs: list[_Pair]
    """Step 0 (``new_from`` 0), and each later step that repeats the step before it (both
    having message lists)."""
    broken: list[tuple[int, list[Any], list[Any]]]
    """``(index, messages of the step before, messages)`` of each step that does not repeat
    the step before it and is no restart."""
    segments: list[tuple[list[Any], str]]
    """The transcript, as the messages and pointer of the last step of each context segment.
    Without restarts this is just the last step. A step that starts afresh after a
    ``summarization_boundary`` step (D18) closes a segment: the boundary step holds the
    messages before the restart."""


def _compare_steps(ctx: RuleContext) -> _Walk:
    """The :class:`_Walk` of the rule's node."""
    walk = _Walk([], [], [])
    steps = _steps(ctx)
    if not steps:
        return walk
    prev: list[Any] | None = None
    user_seen = False
    for i, step in enumerate(steps):
        cur = step.get("messages") if isinstance(step, dict) else None
        if not isinstance(cur, list):
            prev = None
            continue
        if i == 0:
            walk.pairs.append(_Pair(0, cur, 0, False, False))
        elif prev is not None:
            new_from, swapped = _compare(prev, cur)
            if new_from is not None:
                walk.pairs.append(_Pair(i, cur, new_from, swapped, user_seen))
            elif _is_boundary(steps[i - 1]):
                walk.segments.append((prev, join(ctx.base, "steps", i - 1, "messages")))
            else:
                walk.broken.append((i, prev, cur))
        user_seen = any(_role(m) == "user" for m in cur)
        prev = cur
    last = len(steps) - 1
    messages = steps[last].get("messages") if isinstance(steps[last], dict) else None
    if isinstance(messages, list):
        walk.segments.append((messages, join(ctx.base, "steps", last, "messages")))
    return walk


def _walk(ctx: RuleContext) -> _Walk:
    """The node's :class:`_Walk`, made once however many rules read it."""
    result: _Walk = ctx.memoized("walk", lambda _: _compare_steps(ctx))
    return result


def _pairs(ctx: RuleContext) -> list[_Pair]:
    """Each step with a message list that extends its predecessor (see :class:`_Walk`)."""
    return _walk(ctx).pairs


def _segments(ctx: RuleContext) -> list[tuple[list[Any], str]]:
    """The transcript's segments (see :class:`_Walk`)."""
    return _walk(ctx).segments


def _transcript(ctx: RuleContext) -> Iterator[tuple[list[Any], str, int, Any]]:
    """``(segment messages, their pointer, index, message)`` for every transcript message."""
    for messages, where in _segments(ctx):
        for k, m in enumerate(messages):
            yield messages, where, k, m


# --- TSDK1xx: cumulative snapshots -----------------------------------------------------------


@rule(
    code="TSDK101",
    name="broken-cumulative-prefix",
    level=Level.ERROR,
    format=FORMAT,
    versions=VERSIONS,
    section=(
        "trajectory-sdk builder (cumulative snapshots); "
        "spec/trajectory-sdk/DECISIONS.md D1, D3, D18"
    ),
    summary="A step does not start with every message of the step before it.",
)
def broken_cumulative_prefix(ctx: RuleContext) -> Found:
    """*What it checks*: every step after the first repeats the previous step's messages, in
    order and unchanged, before adding its own. One exception is allowed, as in the 0.4 builder:
    the run of system messages at the start may be replaced by a different run (a system
    message arriving mid-conversation replaces the system prefix of later snapshots), as long as
    every non-system message of the previous step follows unchanged (the new run is never
    empty: dropping the system messages is not a replacement). Only pairs of steps that
    both have a message list are compared. The pointer is the first message that differs
    (``/steps/i/messages/k``), or ``/steps/i/messages`` when the step is too short to repeat
    its predecessor.

    *Why*: each step is a snapshot of one growing conversation; a converter keeps only the last
    snapshot and a trainer trusts each one as the true context, so a snapshot that rewrites
    history makes the file contradict itself.

    *Example*: step 1 is ``[system, user "Hi", assistant]`` and step 2 is
    ``[system, user "Hello", assistant, tool]``.

    *Valid instead*: step 2 is ``[system, user "Hi", assistant, tool]``, or
    ``[system2, user "Hi", assistant, tool]`` when a new system prompt arrived.

    A step after a step whose ``trainable_status`` is ``summarization_boundary`` may instead
    start afresh (a context restart, DECISIONS D18): it need not repeat anything.

    *Spec*: the SDK's builder (code column, 0.4 copy-on-write); DECISIONS D1, D3, D18.
    """
    for i, prev, cur in _walk(ctx).broken:
        yield _broken(ctx, i, prev, cur)


def _broken(ctx: RuleContext, i: int, prev: list[Any], cur: list[Any]) -> tuple[str, str]:
    """Pointer and message for a step that does not repeat ``prev``."""
    where = join(ctx.base, "steps", i, "messages")
    n = len(prev)
    s_prev, s_cur = _leading_system(prev), _leading_system(cur)
    if s_cur == 0 or (s_prev == s_cur and _first_difference(prev, 0, cur, 0, s_prev) == s_prev):
        # No replacement prefix to allow for: report the first differing message.
        k = _first_difference(prev, 0, cur, 0, min(n, len(cur)))
        if k < min(n, len(cur)):
            return (
                join(where, k),
                f"message {k} differs from message {k} of step {i - 1}; "
                "a step must repeat every message of the step before it",
            )
    else:
        body = n - s_prev
        m = min(body, len(cur) - s_cur)
        k = _first_difference(prev, s_prev, cur, s_cur, m)
        if k < m:
            return (
                join(where, s_cur + k),
                f"message {s_cur + k} differs from message {s_prev + k} of step {i - 1} "
                "(after the system messages at the start); a step must repeat the step "
                "before it",
            )
    return (
        where,
        f"step {i} has {len(cur)} messages and does not repeat the {n} messages of step {i - 1}",
    )


@rule(
    code="TSDK102",
    name="step-not-at-decision-point",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="trajectory-sdk builder (step boundary); spec/trajectory-sdk/DECISIONS.md D2, D8, D9",
    summary="A step other than the last ends where the builder would not close a snapshot.",
)
def step_not_at_decision_point(ctx: RuleContext) -> Found:
    """*What it checks*: every step except the last ends at a decision point: step 0 at the
    first user message; a later step at a tool message or at an assistant message without
    tool calls (``tool_calls`` null or empty). The last step may end anywhere, since the builder
    writes a final snapshot for messages left over. Steps that do not repeat their predecessor
    are left to TSDK101. Pointer: the step's last message.

    *Why*: the builder closes snapshots only at these points; a file cut elsewhere (for example
    one step per turn, as the SDK's concept page describes) cannot be rebuilt from its
    transcript, so round trips through ATIF will not reproduce it.

    *Example*: a middle step ending with an assistant message that calls a tool.

    *Valid instead*: end that step at the tool message that answers the call.

    *Spec*: the SDK's builder (code column, boundaries a-d); DECISIONS D2, D8, D9.
    """
    steps = _steps(ctx)
    if not steps:
        return
    last = len(steps) - 1
    for pair in _pairs(ctx):
        if pair.index == last or not pair.messages:
            continue
        user_seen = pair.user_seen or any(
            _role(m) == "user" for m in pair.messages[pair.new_from : -1]
        )
        end = pair.messages[-1]
        if not _is_decision_point(end, user_seen):
            k = len(pair.messages) - 1
            expected = (
                "the first user message"
                if not user_seen
                else "a tool message or an assistant message without tool calls"
            )
            yield (
                join(ctx.base, "steps", pair.index, "messages", k),
                f"step {pair.index} ends with a {_role(end)!s} message; the builder closes "
                f"a step only at {expected}",
            )


@rule(
    code="TSDK103",
    name="skipped-decision-point",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section=(
        "trajectory-sdk builder (step boundary); spec/trajectory-sdk/DECISIONS.md D1, D2, D8, D9"
    ),
    summary="A step adds a message at which the builder would have closed an earlier step.",
)
def skipped_decision_point(ctx: RuleContext) -> Found:
    """*What it checks*: among the messages a step adds to its predecessor (all of step 0's
    messages), only the last may be a decision point: the first user message, or after it a
    tool message or an assistant message without tool calls. Steps that do not repeat their
    predecessor are left to TSDK101. Pointer: each decision point that is not the step's last
    message.

    *Why*: the builder writes one snapshot per decision point, so every tool result and every
    final assistant reply starts a training example of its own; a file that merges several is
    cut per turn (as the concept page describes) rather than as the code does.

    *Example*: step 0 holds ``[system, user, assistant "Hello!"]``.

    *Valid instead*: step 0 is ``[system, user]`` and step 1 adds the assistant reply.

    *Spec*: the SDK's builder (code column, boundaries a-c; step 0 closes at the first user
    message); DECISIONS D2, D8, D9.
    """
    for pair in _pairs(ctx):
        user_seen = pair.user_seen
        last = len(pair.messages) - 1
        for k in range(pair.new_from, last):
            m = pair.messages[k]
            if _is_decision_point(m, user_seen):
                yield (
                    join(ctx.base, "steps", pair.index, "messages", k),
                    f"the builder would have closed a step at this {_role(m)!s} message; "
                    f"step {pair.index} continues past it",
                )
            if _role(m) == "user":
                user_seen = True


@rule(
    code="TSDK104",
    name="step-adds-no-messages",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section=(
        "trajectory-sdk builder (one snapshot per decision point); "
        "spec/trajectory-sdk/DECISIONS.md D1"
    ),
    summary="A step repeats the step before it without adding a message.",
)
def step_adds_no_messages(ctx: RuleContext) -> Found:
    """*What it checks*: every step after the first adds at least one message to the step
    before it (a replaced system prefix alone does not count). Pointer: ``/steps/i/messages``.

    *Why*: the builder closes a snapshot only when a new decision-point message arrives, so
    it never writes the same context twice; a repeated snapshot duplicates a training example.

    *Example*: steps 1 and 2 hold the same four messages.

    *Valid instead*: drop the repeated step, or add the message it was meant to capture.

    *Spec*: the SDK's builder (one snapshot per decision point); DECISIONS D1.
    """
    for pair in _pairs(ctx):
        if pair.index > 0 and pair.new_from >= len(pair.messages):
            yield (
                join(ctx.base, "steps", pair.index, "messages"),
                f"step {pair.index} adds no message to step {pair.index - 1}",
            )


@rule(
    code="TSDK105",
    name="inline-system-message",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="trajectory-sdk builder (system prefix); spec/trajectory-sdk/DECISIONS.md D3",
    summary="A system message after the first user message is appended instead of replacing "
    "the system prefix.",
)
def inline_system_message(ctx: RuleContext) -> Found:
    """*What it checks*: among the messages a step adds to its predecessor, no system message
    comes after the first user message of the conversation. Pointer: each such message.

    *Why*: from 0.4 the builder moves a mid-conversation system message to the front of later
    snapshots, replacing the previous system messages there (copy-on-write); appending it in
    place is how 0.1 behaved. A reader rebuilding the steps of a 0.4 file would place it
    differently.

    *Example*: step 2 is ``[system "A", user, assistant, system "B", user, assistant]``.

    *Valid instead*: ``[system "B", user, assistant, user, assistant]`` for the later steps,
    with the earlier steps keeping ``system "A"``.

    *Spec*: the SDK's builder (0.4.x copy-on-write system prefix); DECISIONS D3.
    """
    for pair in _pairs(ctx):
        user_seen = pair.user_seen
        for k in range(pair.new_from, len(pair.messages)):
            role = _role(pair.messages[k])
            if role == "system" and user_seen:
                yield (
                    join(ctx.base, "steps", pair.index, "messages", k),
                    "a system message after the first user message should replace the "
                    "system messages at the start of the snapshot, not be appended",
                )
            elif role == "user":
                user_seen = True


# --- TSDK2xx: tool calls and tool messages ---------------------------------------------------


@rule(
    code="TSDK201",
    name="tool-response-without-call",
    level=Level.ERROR,
    format=FORMAT,
    versions=VERSIONS,
    section="trajectory-sdk ToolResponse.id; spec/trajectory-sdk/DECISIONS.md D12",
    summary="A tool message answers a call id that no earlier assistant message made.",
)
def tool_response_without_call(ctx: RuleContext) -> Found:
    """*What it checks*: in the transcript (the last step's messages), the string
    ``tool_response.id`` of every tool message equals the ``id`` of a tool call made by an
    earlier assistant message. When the earlier calls include one without an id (sources may
    give none) and with the same function name, the response is accepted. Pointer:
    ``/steps/<last>/messages/k/tool_response/id``.

    *Why*: the response's id names the call it answers; converters attach the result to that
    call (ATIF keeps a result on the step that made the call), and an answer to no call has
    nowhere to go.

    *Example*: a tool message with ``tool_response.id: "call_9"`` when the assistant only
    called ``call_1``.

    *Valid instead*: ``tool_response.id: "call_1"``.

    *Spec*: the SDK's dataclasses (ToolResponse.id is the call id being answered); DECISIONS D12.
    """
    for where, response, calls, unnamed in _responses(ctx):
        rid = response.get("id")
        if not isinstance(rid, str) or rid in calls:
            continue
        name = response.get("name")
        if isinstance(name, str) and name in unnamed:
            continue
        yield (
            join(where, "tool_response", "id"),
            f"tool response id {rid!r} matches no tool call of an earlier assistant message",
        )


_Response = tuple[str, dict[str, Any], dict[str, Any], set[Any]]


def _responses(ctx: RuleContext) -> Iterator[_Response]:
    """``(message pointer, tool_response, earlier calls, earlier id-less call names)`` for each
    transcript tool message whose ``tool_response`` is an object. The calls map the ids of the
    tool calls of the assistant messages before it to their names (see :func:`_collect_calls`).
    """
    calls: dict[str, Any] = {}
    unnamed: set[Any] = set()
    for _messages, where, k, m in _transcript(ctx):
        if not isinstance(m, dict):
            continue
        role = m.get("role")
        if role == "assistant":
            _collect_calls(m, calls, unnamed)
        elif role == "tool":
            response = m.get("tool_response")
            if isinstance(response, dict):
                yield join(where, k), response, calls, unnamed


def _collect_calls(message: dict[str, Any], calls: dict[str, Any], unnamed: set[Any]) -> None:
    """Record the ids (and names of id-less calls) of an assistant message's tool calls."""
    tool_calls = message.get("tool_calls")
    if not isinstance(tool_calls, list):
        return
    for call in tool_calls:
        if not isinstance(call, dict):
            continue
        cid = call.get("id")
        name = call.get("name")
        if isinstance(cid, str):
            calls.setdefault(cid, name)
        elif cid is None and isinstance(name, str):
            unnamed.add(name)


@rule(
    code="TSDK202",
    name="tool-response-name-mismatch",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="trajectory-sdk ToolResponse.name; spec/trajectory-sdk/DECISIONS.md D12",
    summary="A tool response names a different function than the call it answers.",
)
def tool_response_name_mismatch(ctx: RuleContext) -> Found:
    """*What it checks*: in the transcript, when a tool message's ``tool_response.id`` matches
    an earlier assistant tool call, its ``tool_response.name`` equals that call's ``name``.
    Pointer: ``/steps/<last>/messages/k/tool_response/name``.

    *Why*: both fields come from the same call; a differing name means the result was linked
    to the wrong call, and a converter would attach it to a call of another function.

    *Example*: the call ``{"id": "call_1", "name": "get_weather"}`` answered by
    ``{"id": "call_1", "name": "get_time"}``.

    *Valid instead*: ``{"id": "call_1", "name": "get_weather"}``.

    *Spec*: the SDK's dataclasses (ToolResponse.id and name identify the answered call).
    """
    for where, response, calls, _ in _responses(ctx):
        rid, name = response.get("id"), response.get("name")
        if not isinstance(rid, str) or rid not in calls or not isinstance(name, str):
            continue
        expected = calls[rid]
        if isinstance(expected, str) and name != expected:
            yield (
                join(where, "tool_response", "name"),
                f"tool response names {name!r} but call {rid!r} was to {expected!r}",
            )


@rule(
    code="TSDK203",
    name="tool-message-without-response",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="trajectory-sdk Message.tool_response; spec/trajectory-sdk/DECISIONS.md D12",
    summary="A tool message carries no tool_response.",
)
def tool_message_without_response(ctx: RuleContext) -> Found:
    """*What it checks*: in the transcript, every message with role ``tool`` has a non-null
    ``tool_response``. Pointer: ``/steps/<last>/messages/k``.

    *Why*: the response holds the id of the call being answered; without it the result cannot
    be linked to its call, tool failures cannot be counted, and converters must guess.

    *Example*: ``{"role": "tool", "content": "62F", "tool_response": null}``.

    *Valid instead*: add ``tool_response: {"id": "call_1", "name": "get_weather",
    "arguments": {}, "response": "62F"}``.

    *Spec*: the SDK's dataclasses (tool_response is carried by tool messages) and its
    documentation (the input recipes fill it for every tool message).
    """
    for _messages, where, k, m in _transcript(ctx):
        if isinstance(m, dict) and m.get("role") == "tool" and m.get("tool_response") is None:
            yield join(where, k), "tool message without a tool_response linking it to its call"


@rule(
    code="TSDK204",
    name="tool-field-on-wrong-role",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section=(
        "trajectory-sdk Message.tool_calls, Message.tool_response; "
        "spec/trajectory-sdk/DECISIONS.md D12"
    ),
    summary="tool_calls on a non-assistant message, or tool_response on a non-tool message.",
)
def tool_field_on_wrong_role(ctx: RuleContext) -> Found:
    """*What it checks*: in the transcript, a non-empty ``tool_calls`` appears only on
    assistant messages and a non-null ``tool_response`` only on tool messages. Pointer: the
    misplaced field.

    *Why*: the builder counts calls on assistant messages and closes steps at tool messages;
    a call or result on another role is ignored by the counts, lost by converters, and shifts
    the step boundaries.

    *Example*: a user message with ``tool_calls: [{"name": "search", ...}]``.

    *Valid instead*: put the call on the assistant message that made it.

    *Spec*: the SDK's dataclasses (tool_calls on assistant messages, tool_response on tool
    messages) and its counting of tool calls.
    """
    for _messages, where, k, m in _transcript(ctx):
        if not isinstance(m, dict):
            continue
        role = m.get("role")
        if role != "assistant" and m.get("tool_calls"):
            yield join(where, k, "tool_calls"), f"tool_calls on a {role!s} message"
        if role != "tool" and m.get("tool_response") is not None:
            yield join(where, k, "tool_response"), f"tool_response on a {role!s} message"


# --- TSDK3xx: metrics ------------------------------------------------------------------------


@rule(
    code="TSDK301",
    name="step-count-mismatch",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="trajectory-sdk Trajectory.num_steps; spec/trajectory-sdk/MAPPING.md",
    summary="task.num_steps or metrics.steps differs from the number of steps.",
)
def step_count_mismatch(ctx: RuleContext) -> Found:
    """*What it checks*: ``task.num_steps`` and ``metrics.steps``, when they are integers,
    equal the length of ``steps``. One finding per differing field.

    *Why*: the builder writes ``len(steps)`` into both; a different value means steps were
    added or removed after building, and the counts mislead anyone sizing a dataset.

    *Example*: three steps and ``task.num_steps: 2``.

    *Valid instead*: ``task.num_steps: 3``.

    *Spec*: the SDK's dataclasses (num_steps, steps).
    """
    steps = _steps(ctx)
    if steps is None or not isinstance(ctx.node, dict):
        return
    for parent in ("task", "metrics"):
        node = dict_member(ctx.node, parent)
        field = "num_steps" if parent == "task" else "steps"
        value = json_int(node.get(field)) if node is not None else None
        if value is not None and value != len(steps):
            yield (
                join(ctx.base, parent, field),
                f"{parent}.{field} is {value} but the document has {len(steps)} steps",
            )


@rule(
    code="TSDK302",
    name="tool-call-count-mismatch",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="trajectory-sdk num_tool_calls; spec/trajectory-sdk/DECISIONS.md D18",
    summary="metrics.num_tool_calls differs from the tool calls in the transcript.",
)
def tool_call_count_mismatch(ctx: RuleContext) -> Found:
    """*What it checks*: ``metrics.num_tool_calls``, when an integer, equals the number of
    tool calls made by assistant messages in the transcript (the sum of the lengths of their
    ``tool_calls`` arrays).

    *Why*: the builder derives the count from the messages; a different count corrupts the
    tool error rate and any statistics drawn from it.

    *Example*: two assistant tool calls and ``num_tool_calls: 3``.

    *Valid instead*: ``num_tool_calls: 2``.

    *Spec*: the SDK's dataclasses (num_tool_calls).
    """
    metrics = dict_member(ctx.node, "metrics")
    found = _segments(ctx)
    if metrics is None or not found:
        return
    value = json_int(metrics.get("num_tool_calls"))
    if value is None:
        return
    actual = sum(
        len(m["tool_calls"])
        for _messages, _where, _k, m in _transcript(ctx)
        if _role(m) == "assistant" and isinstance(m.get("tool_calls"), list)
    )
    if value != actual:
        yield (
            join(ctx.base, "metrics", "num_tool_calls"),
            f"metrics.num_tool_calls is {value} but assistant messages make {actual} tool calls",
        )


@rule(
    code="TSDK303",
    name="tool-failure-count-mismatch",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="trajectory-sdk num_tool_failures; spec/trajectory-sdk/DECISIONS.md D9",
    summary="metrics.num_tool_failures differs from the failed tool messages.",
)
def tool_failure_count_mismatch(ctx: RuleContext) -> Found:
    """*What it checks*: ``metrics.num_tool_failures``, when an integer, equals the number of
    tool messages in the transcript whose ``tool_response.error`` is a non-empty string.

    *Why*: the builder counts failures from the messages; a different count misreports how
    reliable the tools were.

    *Example*: one tool message with an error and ``num_tool_failures: 0``.

    *Valid instead*: ``num_tool_failures: 1``.

    *Spec*: the SDK's dataclasses (num_tool_failures); DECISIONS D9 (an empty error string is
    not a failure).
    """
    metrics = dict_member(ctx.node, "metrics")
    found = _segments(ctx)
    if metrics is None or not found:
        return
    value = json_int(metrics.get("num_tool_failures"))
    if value is None:
        return
    actual = 0
    for _messages, _where, _k, m in _transcript(ctx):
        if _role(m) == "tool":
            response = m.get("tool_response")
            if isinstance(response, dict) and isinstance(response.get("error"), str):
                actual += bool(response["error"])
    if value != actual:
        yield (
            join(ctx.base, "metrics", "num_tool_failures"),
            f"metrics.num_tool_failures is {value} but {actual} tool messages report an error",
        )


@rule(
    code="TSDK304",
    name="tool-error-rate-mismatch",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="trajectory-sdk tool_error_rate; spec/trajectory-sdk/MAPPING.md",
    summary="metrics.tool_error_rate is not num_tool_failures / num_tool_calls.",
)
def tool_error_rate_mismatch(ctx: RuleContext) -> Found:
    """*What it checks*: when ``metrics.tool_error_rate``, ``num_tool_failures`` and
    ``num_tool_calls`` are all numbers, the rate equals failures divided by calls, or 0.0 when
    there were no calls (compared with a relative tolerance of 1e-9).

    *Why*: the rate is derived from the two counts in the same object; a rate that disagrees
    with them cannot be trusted.

    *Example*: 1 failure in 4 calls and ``tool_error_rate: 0.5``.

    *Valid instead*: ``tool_error_rate: 0.25``.

    *Spec*: the SDK's dataclasses (tool_error_rate: failures divided by calls, 0.0 without
    calls).
    """
    metrics = dict_member(ctx.node, "metrics")
    if metrics is None:
        return
    rate = _num(metrics.get("tool_error_rate"))
    failures = json_int(metrics.get("num_tool_failures"))
    calls = json_int(metrics.get("num_tool_calls"))
    if rate is None or failures is None or calls is None:
        return
    try:
        expected = failures / calls if calls else 0.0
    except OverflowError:
        return
    if not math.isclose(rate, expected, rel_tol=1e-9, abs_tol=1e-12):
        yield (
            join(ctx.base, "metrics", "tool_error_rate"),
            f"metrics.tool_error_rate is {rate} but {failures} failures in {calls} calls "
            f"give {expected}",
        )


# --- TSDK4xx: identity and provenance --------------------------------------------------------


@rule(
    code="TSDK401",
    name="task-id-mismatch",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="trajectory-sdk Task.id; spec/trajectory-sdk/MAPPING.md",
    summary="task.id is not <data_source>:<conversation_id>.",
)
def task_id_mismatch(ctx: RuleContext) -> Found:
    """*What it checks*: when ``task.id``, ``task.data_source`` and ``task.conversation_id``
    are all strings, the id is ``<data_source>:<conversation_id>``.

    *Why*: the builder makes the id from the other two, and tools use it to find the same
    conversation across exports; an id built another way breaks that lookup.

    *Example*: ``{"id": "conv_1", "data_source": "langsmith", "conversation_id": "conv_1"}``.

    *Valid instead*: ``"id": "langsmith:conv_1"``.

    *Spec*: the SDK's dataclasses (Task.id).
    """
    task = dict_member(ctx.node, "task")
    if task is None:
        return
    tid, source, conv = task.get("id"), task.get("data_source"), task.get("conversation_id")
    if isinstance(tid, str) and isinstance(source, str) and isinstance(conv, str):
        expected = f"{source}:{conv}"
        if tid != expected:
            yield join(ctx.base, "task", "id"), f"task.id is {tid!r}, expected {expected!r}"


@rule(
    code="TSDK402",
    name="idempotency-key-mismatch",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="trajectory-sdk idempotency key; spec/trajectory-sdk/DECISIONS.md D10",
    summary="telemetry.data.idempotency_key is not <source>:<conversation_id>:<content_hash>.",
)
def idempotency_key_mismatch(ctx: RuleContext) -> Found:
    """*What it checks*: when ``telemetry.source``, ``telemetry.data.conversation_id``,
    ``telemetry.data.content_hash`` and ``telemetry.data.idempotency_key`` are all strings,
    the key is ``<source>:<conversation_id>:<content_hash>``. The hash itself is not
    recomputed (DECISIONS D10).

    *Why*: uploads are deduplicated on this key; a key that does not match the content hash
    it claims to contain lets a changed trajectory pass as already uploaded, or duplicates an
    unchanged one.

    *Example*: a key ending in a different hash than ``content_hash``.

    *Valid instead*: ``"idempotency_key": "langsmith:conv_1:<content_hash>"``.

    *Spec*: the SDK's dataclasses (idempotency key); DECISIONS D10.
    """
    telemetry = dict_member(ctx.node, "telemetry")
    data = dict_member(telemetry, "data")
    if telemetry is None or data is None:
        return
    parts = (telemetry.get("source"), data.get("conversation_id"), data.get("content_hash"))
    key = data.get("idempotency_key")
    if isinstance(key, str) and all(isinstance(p, str) for p in parts):
        expected = ":".join(str(p) for p in parts)
        if key != expected:
            yield (
                join(ctx.base, "telemetry", "data", "idempotency_key"),
                f"idempotency key is {key!r}, expected {expected!r}",
            )


@rule(
    code="TSDK403",
    name="telemetry-disagrees-with-task",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="trajectory-sdk Telemetry; spec/trajectory-sdk/MAPPING.md",
    summary="telemetry.source or telemetry.data.conversation_id differs from the task.",
)
def telemetry_disagrees_with_task(ctx: RuleContext) -> Found:
    """*What it checks*: ``telemetry.source`` equals ``task.data_source`` and
    ``telemetry.data.conversation_id`` equals ``task.conversation_id``, for each pair where both
    are strings. Pointer: the telemetry field.

    *Why*: the builder copies both from the same conversation; a disagreement means the
    telemetry (and the idempotency key made from it) belongs to another conversation.

    *Example*: ``task.conversation_id: "conv_1"`` with
    ``telemetry.data.conversation_id: "conv_2"``.

    *Valid instead*: both ``"conv_1"``.

    *Spec*: the SDK's dataclasses (Telemetry).
    """
    task = dict_member(ctx.node, "task")
    telemetry = dict_member(ctx.node, "telemetry")
    if task is None or telemetry is None:
        return
    data = dict_member(telemetry, "data")
    checks: list[tuple[Any, Any, tuple[str, ...], str]] = [
        (telemetry.get("source"), task.get("data_source"), ("source",), "task.data_source")
    ]
    if data is not None:
        checks.append(
            (
                data.get("conversation_id"),
                task.get("conversation_id"),
                ("data", "conversation_id"),
                "task.conversation_id",
            )
        )
    for value, expected, tokens, other in checks:
        if isinstance(value, str) and isinstance(expected, str) and value != expected:
            yield (
                join(ctx.base, "telemetry", *tokens),
                f"telemetry has {value!r} but {other} is {expected!r}",
            )
