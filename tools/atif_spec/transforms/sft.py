"""Supervised fine-tuning examples from ATIF trajectories, and the context rules they share.

:func:`timeline` is the one place that decides, for an ATIF trajectory, which messages form the
model's context and which agent steps are training targets (ATIF rules G3, G7, G9):

- an agent step is a **target** unless it has ``is_copied_context: true`` (context copied from
  an earlier trajectory) or ``llm_call_count: 0`` (a deterministic dispatch, no LLM call), or,
  in a version without the field, the same fact under the step's ``extra`` where a downgrade
  keeps it (:func:`atif_spec.formats.totals.is_copied_context`); such steps stay in the context of
  later targets; an agent step with neither text nor tool calls is no target either;
- a system step whose ``extra.context_management.boundary`` is ``"replace"`` **resets** the
  context: from then on it is that step's ``observation.results[].content`` (one system message
  per result) followed by the later steps; the boundary step's own message is not context. With
  ``boundary: "append"`` those system messages are added to the context instead.

:func:`examples` turns the timeline into chat examples (schema
``spec/atif-spec/v1/sft-example.schema.json``): one per target, holding the context before the
step and the step's assistant message, with OpenAI-style tool calls and the tool definitions of
``agent.tool_definitions``. The trajectory-sdk lens
(:mod:`atif_spec.transforms.lenses.trajectory_sdk`) cuts the same timeline into cumulative
snapshots. Everything here is pure and never raises on any JSON value.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from atif_spec.formats.totals import is_copied_context, zero_calls
from atif_spec.jsonio.jsonvalues import objects
from atif_spec.jsonio.pointers import join

Doc = dict[str, Any]
Kind = Literal["system", "user", "agent", "tool", "reset"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One event of a trajectory's timeline, in order."""

    kind: Kind
    index: int
    """Index of the ATIF step in ``steps``."""
    step: Doc
    result: Doc | None = None
    """For ``tool`` turns: the observation result answering a call."""
    call: Doc | None = None
    """For ``tool`` turns: the tool call the result answers, when the step has it."""
    trainable: bool = False
    """For ``agent`` turns: whether the step is a training target."""
    replacement: tuple[Any, ...] = field(default=())
    """For ``reset`` turns: the ``content`` of each result of the boundary step (the new
    context, one system message each)."""


def results(step: Doc) -> list[Doc]:
    """The object results of a step's observation."""
    observation = step.get("observation")
    return list(objects(observation.get("results"))) if isinstance(observation, dict) else []


def is_target(step: Doc) -> bool:
    """An agent step that is neither copied context nor a deterministic dispatch."""
    return step.get("source") == "agent" and not is_copied_context(step) and not zero_calls(step)


def boundary(step: Doc) -> Any:
    """A system step's ``extra.context_management.boundary`` (None for other steps)."""
    extra = step.get("extra")
    cm = extra.get("context_management") if isinstance(extra, dict) else None
    return cm.get("boundary") if step.get("source") == "system" and isinstance(cm, dict) else None


def is_replace_boundary(step: Doc) -> bool:
    """A system step declaring ``extra.context_management.boundary: "replace"``."""
    return bool(boundary(step) == "replace")


def is_empty(step: Doc) -> bool:
    """A step with no message text or parts and no tool calls (nothing to learn or show)."""
    message = step.get("message")
    return message in (None, "", []) and not list(objects(step.get("tool_calls")))


def is_training_target(step: Doc) -> bool:
    """A target of :func:`examples`: :func:`is_target`, and not :func:`is_empty`."""
    return is_target(step) and not is_empty(step)


def timeline(doc: Any) -> Iterator[Turn]:
    """The context events of one trajectory (embedded subagents are not inlined).

    System and user steps give one message each; an agent step gives its assistant message and
    then one ``tool`` turn per observation result that names a ``source_call_id`` (in result
    order). Results without a call id (system operations, subagent references) are not chat
    messages and give no turn; a replace boundary gives a ``reset`` turn instead of a message.
    """
    steps = doc.get("steps") if isinstance(doc, dict) else None
    if not isinstance(steps, list):
        return
    for index, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        source = step.get("source")
        if is_replace_boundary(step):
            contents = tuple(r.get("content") for r in results(step))
            yield Turn("reset", index, step, replacement=contents)
        elif source in ("system", "user"):
            yield Turn(source, index, step)
        elif source == "agent":
            yield Turn("agent", index, step, trainable=is_target(step))
            calls = {
                c.get("tool_call_id"): c
                for c in objects(step.get("tool_calls"))
                if isinstance(c.get("tool_call_id"), str)
            }
            for result in results(step):
                cid = result.get("source_call_id")
                if isinstance(cid, str):
                    yield Turn("tool", index, step, result=result, call=calls.get(cid))


# --- chat messages --------------------------------------------------------------------------


def _part(part: Any) -> Doc | None:
    """An ATIF ContentPart as an OpenAI-style content part (None for unknown parts)."""
    if not isinstance(part, dict):
        return None
    kind = part.get("type")
    source = part.get("source")
    path = source.get("path") if isinstance(source, dict) else None
    if kind == "text" and isinstance(part.get("text"), str):
        return {"type": "text", "text": part["text"]}
    if kind == "image" and isinstance(path, str):
        return {"type": "image_url", "image_url": {"url": path}}
    if kind == "audio" and isinstance(path, str):
        return {"type": "audio_url", "audio_url": {"url": path}}
    return None


def chat_content(value: Any) -> str | list[Doc]:
    """A message or result content: a string stays a string, parts become chat parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return [p for p in map(_part, value) if p is not None]
    return ""


def arguments_text(arguments: Any) -> str:
    """Tool-call arguments as the JSON string chat APIs expect (key order kept)."""
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))


def chat_message(turn: Turn) -> Doc:
    """The chat message of a non-reset turn."""
    step = turn.step
    if turn.kind in ("system", "user"):
        return {"role": turn.kind, "content": chat_content(step.get("message"))}
    if turn.kind == "tool":
        result = turn.result or {}
        message: Doc = {"role": "tool", "tool_call_id": result.get("source_call_id")}
        name = turn.call.get("function_name") if turn.call is not None else None
        if isinstance(name, str):
            message["name"] = name
        message["content"] = chat_content(result.get("content"))
        return message
    out: Doc = {"role": "assistant", "content": chat_content(step.get("message"))}
    if isinstance(step.get("reasoning_content"), str):
        out["reasoning_content"] = step["reasoning_content"]
    calls = [
        {
            "id": c.get("tool_call_id") if isinstance(c.get("tool_call_id"), str) else "",
            "type": "function",
            "function": {
                "name": c.get("function_name") if isinstance(c.get("function_name"), str) else "",
                "arguments": arguments_text(c.get("arguments", {})),
            },
        }
        for c in objects(step.get("tool_calls"))
    ]
    if calls:
        out["tool_calls"] = calls
    return out


def _joined(contents: list[Any]) -> str | list[Doc]:
    """Several result contents as one message content (text joined by newlines, else parts)."""
    converted = [chat_content(c) for c in contents if c is not None]
    if all(isinstance(c, str) for c in converted):
        return "\n".join(c for c in converted if isinstance(c, str))
    parts: list[Doc] = []
    for c in converted:
        parts.extend([{"type": "text", "text": c}] if isinstance(c, str) else c)
    return parts


def _tool_message(call: Doc, content: str | list[Doc]) -> Doc:
    cid = call.get("tool_call_id")
    message: Doc = {"role": "tool", "tool_call_id": cid if isinstance(cid, str) else ""}
    if isinstance(call.get("function_name"), str):
        message["name"] = call["function_name"]
    message["content"] = content
    return message


def tool_messages(step: Doc) -> list[Doc]:
    """The messages answering an agent step, so that every result reaches the context and every
    tool call is followed by exactly one tool message (what chat formats require).

    Each call's message holds the results naming it by ``source_call_id`` (with a repeated call
    id, one result per call in order, the rest to the last of them). Results naming no call of
    the step (Harbor's terminus-2 writes one such result for a turn of several commands) go to
    the last call left without a result, else to the last call. Several results in one message
    are joined (text by newlines). A call without any result gets an empty tool message. A step
    without tool calls gives one user message per result that has content (the environment's
    answer).
    """
    calls = list(objects(step.get("tool_calls")))
    ids = [c.get("tool_call_id") for c in calls]
    keyed: dict[str, list[Doc]] = {}
    loose: list[Doc] = []
    for result in results(step):
        cid = result.get("source_call_id")
        if isinstance(cid, str) and cid in ids:
            keyed.setdefault(cid, []).append(result)
        else:
            loose.append(result)
    if not calls:
        return [
            {"role": "user", "content": chat_content(r.get("content"))}
            for r in loose
            if r.get("content") not in (None, "", [])
        ]
    assigned: list[list[Doc]] = [[] for _ in calls]
    for i, cid in enumerate(ids):
        waiting = keyed.get(cid, []) if isinstance(cid, str) else []
        if isinstance(cid, str) and waiting:
            last = cid not in ids[i + 1 :]
            assigned[i] = waiting if last else [waiting.pop(0)]
            if last:
                keyed[cid] = []
    if loose:
        empty = [i for i, got in enumerate(assigned) if not got]
        assigned[empty[-1] if empty else len(calls) - 1].extend(loose)
    return [
        _tool_message(call, _joined([r.get("content") for r in got]))
        for call, got in zip(calls, assigned, strict=True)
    ]


def pairing_problems(messages: list[Any]) -> list[str]:
    """What breaks the chat-format pairing in a message list: every assistant message with
    ``tool_calls`` is followed by exactly one tool message per call id, and a tool message
    answers a call of the assistant message before it. Empty when the list is sound."""
    problems: list[str] = []
    pending: list[Any] | None = None
    for n, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "tool":
            cid = message.get("tool_call_id")
            if pending is None or cid not in pending:
                problems.append(f"message {n}: tool message {cid!r} answers no pending call")
            else:
                pending.remove(cid)
            continue
        if pending:
            problems.append(f"message {n}: calls {pending!r} have no tool message")
        calls = message.get("tool_calls") if role == "assistant" else None
        pending = [c.get("id") for c in calls] if isinstance(calls, list) else None
    if pending and len(messages) > 0 and messages[-1].get("role") != "assistant":
        problems.append(f"end: calls {pending!r} have no tool message")
    return problems


def reset_messages(turn: Turn) -> list[Doc]:
    """The context that a replace boundary starts: one system message per result content."""
    return [{"role": "system", "content": chat_content(c)} for c in turn.replacement]


def tools(doc: Any) -> list[Any] | None:
    """``agent.tool_definitions`` when it is a non-empty list."""
    agent = doc.get("agent") if isinstance(doc, dict) else None
    defs = agent.get("tool_definitions") if isinstance(agent, dict) else None
    return defs if isinstance(defs, list) and defs else None


def _metadata(doc: Doc, base: str, turn: Turn) -> Doc:
    meta: Doc = {}
    for key in ("session_id", "trajectory_id"):
        if isinstance(doc.get(key), str):
            meta[key] = doc[key]
    step_id = turn.step.get("step_id")
    if isinstance(step_id, int) and not isinstance(step_id, bool):
        meta["step_id"] = step_id
    meta["pointer"] = join(base, "steps", turn.index)
    return meta


def _events(doc: Doc) -> Iterator[tuple[str, Turn, list[Doc]]]:
    """What a trajectory does to the chat context, in order: ``("reset", turn, messages)``
    (the context becomes ``messages``), ``("target", turn, [message])`` (an example: the
    context so far, then ``message``) and ``("add", turn, messages)`` (appended to the
    context). :func:`examples` and :func:`projected_bytes` both read it."""
    for turn in timeline(doc):
        if turn.kind == "reset":
            yield "reset", turn, reset_messages(turn)
        elif turn.kind == "tool":  # answered with the agent step (tool_messages)
            continue
        elif turn.kind == "system" and boundary(turn.step) == "append":
            added = [
                {"role": "system", "content": chat_content(r.get("content"))}
                for r in results(turn.step)
            ]
            yield "add", turn, added
        elif turn.kind == "agent" and is_empty(turn.step):
            yield "add", turn, tool_messages(turn.step)
        else:
            message = chat_message(turn)
            if turn.kind == "agent" and is_training_target(turn.step):
                yield "target", turn, [message]
            answers = tool_messages(turn.step) if turn.kind == "agent" else []
            yield "add", turn, [message, *answers]


def examples(
    doc: Any, *, subagents: bool = True, base: str = "", max_context_steps: int | None = None
) -> Iterator[Doc]:
    """One chat example per training target of ``doc`` (and of its embedded subagents).

    Each example is ``{"messages": [...], "tools"?: [...], "metadata": {...}}``: the context
    before the target step, then the step's assistant message (the one message to learn).
    Memory use is linear in the trajectory; examples are yielded one at a time, but their total
    size grows with the square of the steps (each repeats the context before it; see
    :func:`projected_bytes`). ``max_context_steps`` keeps only the context messages of the N
    steps before the target (by position in ``steps``; 0: the target message alone).
    """
    if not isinstance(doc, dict):
        return
    defs = tools(doc)
    context: list[Doc] = []
    indexes: list[int] = []
    """The step index of each context message (nondecreasing)."""
    for kind, turn, messages in _events(doc):
        if kind == "reset":
            context, indexes = list(messages), [turn.index] * len(messages)
        elif kind == "target":
            cut = _cut(indexes, turn.index, max_context_steps)
            example: Doc = {"messages": [*context[cut:], messages[0]]}
            if defs is not None:
                example["tools"] = defs
            example["metadata"] = _metadata(doc, base, turn)
            yield example
        else:
            context.extend(messages)
            indexes.extend([turn.index] * len(messages))
    if subagents and isinstance(doc.get("subagent_trajectories"), list):
        for i, sub in enumerate(doc["subagent_trajectories"]):
            yield from examples(
                sub,
                subagents=True,
                base=join(base, "subagent_trajectories", i),
                max_context_steps=max_context_steps,
            )


def _cut(indexes: list[int], target: int, max_context_steps: int | None) -> int:
    """Where the context kept for a target at step ``target`` starts."""
    if max_context_steps is None:
        return 0
    return bisect.bisect_left(indexes, target - max_context_steps)


def projected_bytes(doc: Any, *, max_context_steps: int | None = None) -> int:
    """About how many bytes the examples of ``doc`` take as JSON Lines, in linear time: each
    message is serialized once and the contexts are summed with running totals."""
    if not isinstance(doc, dict):
        return 0
    defs = tools(doc)
    fixed = 200 + (len(_text(defs)) if defs is not None else 0)  # tools, metadata, brackets
    total = 0
    running = [0]  # running[i]: bytes of the first i context messages
    indexes: list[int] = []
    for kind, turn, messages in _events(doc):
        sizes = [len(_text(message)) + 1 for message in messages]
        if kind == "target":
            cut = _cut(indexes, turn.index, max_context_steps)
            total += running[-1] - running[cut] + sizes[0] + fixed
            continue
        if kind == "reset":
            running, indexes = [0], []
        for size in sizes:
            running.append(running[-1] + size)
            indexes.append(turn.index)
    subagents = doc.get("subagent_trajectories")
    for sub in subagents if isinstance(subagents, list) else ():
        total += projected_bytes(sub, max_context_steps=max_context_steps)
    return total


def _text(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
