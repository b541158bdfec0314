"""ATIF messages as GenAI messages and back (the JSON of ``gen_ai.input.messages``,
``gen_ai.output.messages`` and ``gen_ai.system_instructions``, semantic conventions v1.41.0).

A message is ``{"role", "parts": [...]}``; the parts the lens writes are ``text``
(``content``), ``reasoning`` (``content``), ``tool_call`` (``id``, ``name``, ``arguments``),
``tool_call_response`` (``id``, ``response``) and ``uri`` (``modality``, ``mime_type``, ``uri``)
for ATIF image and audio parts.
"""

from __future__ import annotations

from typing import Any, Final

from atif_spec.jsonio.jsontext import canonical_json
from atif_spec.transforms.lenses.otel.common import Doc

ROLE_OF_SOURCE: Final = {"user": "user", "system": "system", "agent": "assistant"}
FINISH_TOOL: Final = "tool_call"
FINISH_STOP: Final = "stop"
"""The ``finish_reason`` written (v1.41.0 requires one; ATIF has none): ``tool_call`` for a step
with tool calls, ``stop`` otherwise. Not read back."""


def parts_of(message: Any) -> list[Doc]:
    """GenAI parts of an ATIF ``message`` (a string is one text part; "" none)."""
    if isinstance(message, str):
        return [{"type": "text", "content": message}] if message else []
    out: list[Doc] = []
    for part in message if isinstance(message, list) else ():
        if not isinstance(part, dict):
            continue
        source = part.get("source")
        if part.get("type") in ("image", "audio") and isinstance(source, dict):
            out.append(
                {
                    "type": "uri",
                    "modality": part["type"],
                    "mime_type": source.get("media_type"),
                    "uri": source.get("path"),
                }
            )
        else:
            out.append({"type": "text", "content": part.get("text") or ""})
    return out


def message_of(parts: list[Any]) -> Any:
    """The ATIF ``message`` of GenAI parts: a string when they are one text part (or none), else
    a list of content parts, so that the parts' boundaries are kept; other part types are not
    message content."""
    kept = [p for p in parts if isinstance(p, dict) and p.get("type") in ("text", "uri")]
    if not kept:
        return ""
    if len(kept) == 1 and kept[0].get("type") == "text":
        return str(kept[0].get("content") or "")
    out: list[Doc] = []
    for part in kept:
        if part.get("type") == "text":
            out.append({"type": "text", "text": str(part.get("content") or "")})
        else:
            modality = "audio" if part.get("modality") == "audio" else "image"
            source = {"media_type": part.get("mime_type"), "path": part.get("uri")}
            out.append({"type": modality, "source": source})
    return out


def input_message(step: Doc) -> Doc:
    """The input message of a user or system step."""
    return {"role": ROLE_OF_SOURCE[step["source"]], "parts": parts_of(step.get("message"))}


def output_message(step: Doc) -> Doc:
    """The assistant message of an agent step: reasoning, text, tool calls."""
    parts: list[Doc] = []
    if isinstance(step.get("reasoning_content"), str):
        parts.append({"type": "reasoning", "content": step["reasoning_content"]})
    parts.extend(parts_of(step.get("message")))
    calls = [c for c in step.get("tool_calls") or () if isinstance(c, dict)]
    for call in calls:
        parts.append(
            {
                "type": "tool_call",
                "id": call.get("tool_call_id"),
                "name": call.get("function_name"),
                "arguments": call.get("arguments"),
            }
        )
    finish = FINISH_TOOL if calls else FINISH_STOP
    return {"role": "assistant", "parts": parts, "finish_reason": finish}


def tool_calls_of(parts: list[Any]) -> list[Doc]:
    """ATIF tool calls of the ``tool_call`` parts (arguments that are not an object kept as
    ``{"raw": value}``: ATIF's arguments are an object)."""
    calls: list[Doc] = []
    for part in parts:
        if isinstance(part, dict) and part.get("type") == "tool_call":
            arguments = part.get("arguments")
            if not isinstance(arguments, dict):
                arguments = {} if arguments is None else {"raw": arguments}
            call_id = part.get("id")
            calls.append(
                {
                    "tool_call_id": call_id if isinstance(call_id, str) else f"call-{len(calls)}",
                    "function_name": str(part.get("name") or ""),
                    "arguments": arguments,
                }
            )
    return calls


def reasoning_of(parts: list[Any]) -> str | None:
    texts = [
        str(p.get("content") or "")
        for p in parts
        if isinstance(p, dict) and p.get("type") == "reasoning"
    ]
    return "".join(texts) if texts else None


def fingerprint(message: Any) -> bytes:
    """What makes two messages the same when a chat span repeats history: the role and the
    text, tool-call and tool-response parts (reasoning, often dropped from history, left out)."""
    if not isinstance(message, dict):
        return canonical_json(message)
    parts = [
        {k: v for k, v in p.items() if k in ("type", "content", "id", "name", "uri")}
        for p in message.get("parts") or ()
        if isinstance(p, dict) and p.get("type") != "reasoning"
    ]
    return canonical_json([message.get("role"), parts])


def new_messages(messages: list[Any], history: list[bytes]) -> list[Any]:
    """The messages of a chat span's input that the trace has not shown yet. An input that
    starts with the trace's first message repeats the history: its messages are matched in
    order against ``history`` (the fingerprints so far) and only the others are new. Any other
    input holds new messages only (the lens writes only those)."""
    prints = [fingerprint(m) for m in messages]
    if not history or not prints or prints[0] != history[0]:
        return list(messages)
    out: list[Any] = []
    at = 0
    for message, mark in zip(messages, prints, strict=True):
        try:
            at = history.index(mark, at) + 1
        except ValueError:
            out.append(message)
    return out
