"""Supervised fine-tuning examples from ATIF trajectories, and the context rules they share.

:func:`timeline` is the one place that decides, for an ATIF trajectory, which messages form the
model's context and which agent steps are training targets (ATIF rules G3, G7, G9):

- an agent step is a **target** unless it has ``is_copied_context: true`` (context copied from
  an earlier trajectory) or ``llm_call_count: 0`` (a deterministic dispatch, no LLM call); such
  steps stay in the context of later targets;
- a system step whose ``extra.context_management.boundary`` is ``"replace"`` **resets** the
  context: from then on it is that step's ``observation.results[].content`` (one system message
  per result) followed by the later steps; the boundary step's own message is not context.

:func:`examples` turns the timeline into chat examples (schema
``spec/atif-spec/v1/sft-example.schema.json``): one per target, holding the context before the
step and the step's assistant message, with OpenAI-style tool calls and the tool definitions of
``agent.tool_definitions``. The trajectory-sdk lens (:mod:`atif_spec.lenses.trajectory_sdk`)
cuts the same timeline into cumulative snapshots. Everything here is pure and never raises on
any JSON value.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from atif_spec.findings import join
from atif_spec.jsonvalues import objects

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
    return (
        step.get("source") == "agent"
        and step.get("is_copied_context") is not True
        and not (step.get("llm_call_count") == 0 and step.get("llm_call_count") is not False)
    )


def is_replace_boundary(step: Doc) -> bool:
    """A system step declaring ``extra.context_management.boundary: "replace"``."""
    extra = step.get("extra")
    cm = extra.get("context_management") if isinstance(extra, dict) else None
    return (
        step.get("source") == "system" and isinstance(cm, dict) and cm.get("boundary") == "replace"
    )


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
    for turn in timeline(doc):
        if turn.kind == "reset":
            context = reset_messages(turn)
            indexes = [turn.index] * len(context)
            continue
        message = chat_message(turn)
        if turn.kind == "agent" and turn.trainable:
            cut = _cut(indexes, turn.index, max_context_steps)
            example: Doc = {"messages": [*context[cut:], message]}
            if defs is not None:
                example["tools"] = defs
            example["metadata"] = _metadata(doc, base, turn)
            yield example
        context.append(message)
        indexes.append(turn.index)
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
    for turn in timeline(doc):
        if turn.kind == "reset":
            running, indexes = [0], []
            for message in reset_messages(turn):
                running.append(running[-1] + len(_text(message)) + 1)
                indexes.append(turn.index)
            continue
        size = len(_text(chat_message(turn))) + 1
        if turn.kind == "agent" and turn.trainable:
            cut = _cut(indexes, turn.index, max_context_steps)
            total += running[-1] - running[cut] + size + fixed
        running.append(running[-1] + size)
        indexes.append(turn.index)
    subagents = doc.get("subagent_trajectories")
    for sub in subagents if isinstance(subagents, list) else ():
        total += projected_bytes(sub, max_context_steps=max_context_steps)
    return total


def _text(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
