"""The one-line details of a timeline: a substep's text (the strings gza's ``gza log --steps``
prints), a tool call's summary, a message's text, cut to a length."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any


def truncate(text: str, limit: int, suffix: str = "...") -> str:
    """``text`` cut to ``limit`` characters, the suffix included."""
    return text if len(text) <= limit else text[: max(limit - len(suffix), 0)] + suffix


def substep_detail(type_: str, payload: Any) -> str:
    """The text after a substep's type (the same strings gza's timeline prints)."""
    if not isinstance(payload, dict):
        return "" if payload is None else truncate(to_json(payload), 120)
    detail = _DETAILS.get(type_)
    text = detail(payload) if detail is not None else None
    return text if text is not None else truncate(to_json(payload), 120)


def _output_detail(payload: dict[str, Any]) -> str | None:
    """A tool output's or error's text; None when no member holds it (the JSON is shown)."""
    if "output" in payload or "exit_code" in payload:
        return truncate(str(payload.get("output", "")), 120)
    if "is_error" in payload:
        content = payload.get("content", "")
        if isinstance(content, str):
            return truncate(content.replace("\\n", "\n"), 120)
        return truncate(to_json(content), 120)
    for key in ("output", "content", "message", "error"):
        if isinstance(payload.get(key), str):
            return truncate(payload[key], 120)
    return None


def _status_detail(payload: dict[str, Any]) -> str | None:
    """A status update's ``kind: message``; None without a string message."""
    if not isinstance(payload.get("message"), str):
        return None
    kind = payload.get("kind")
    parts = [kind if isinstance(kind, str) else "", payload["message"].strip()]
    return truncate(": ".join(p for p in parts if p), 120)


def _artifact_detail(payload: dict[str, Any]) -> str | None:
    """An artifact's path or URI; None when it has neither as a string."""
    where = payload.get("path") or payload.get("uri")
    return where if isinstance(where, str) else None


def _call_detail(payload: dict[str, Any]) -> str:
    name = str(payload.get("tool_name", "unknown"))
    if isinstance(payload.get("command"), str):
        return f"{name} {truncate(strip_shell_wrapper(payload['command']), 100)}".strip()
    tool_input = payload.get("tool_input")
    return summarize_tool(name, tool_input if isinstance(tool_input, dict) else {})


_DETAILS: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "tool_call": _call_detail,
    "tool_output": _output_detail,
    "tool_error": _output_detail,
    "status_update": _status_detail,
    "artifact": _artifact_detail,
}
"""Substep type -> its detail from a payload object (None: the payload's JSON is shown)."""


def summarize_tool(name: str, tool_input: dict[str, Any]) -> str:
    """A one-line summary of a tool call from its name and input."""
    if name == "Bash":
        command = strip_shell_wrapper(str(tool_input.get("command", "")))
        return truncate(command, 100) if command else "Bash"
    if name in ("Read", "Edit", "Write"):
        return f"{name} {tool_input.get('file_path', '')}".strip()
    if name == "Grep":
        detail = f"{tool_input.get('pattern', '')} [{tool_input.get('path', '')}]".strip()
        return f"Grep {detail}".strip()
    if name == "web_search" and isinstance(tool_input.get("query"), str):
        return f"web_search {truncate(tool_input['query'], 100)}"
    if name == "Glob":
        return f"Glob {tool_input.get('pattern', '')}".strip()
    if name == "TodoWrite":
        todos = tool_input.get("todos", [])
        return f"TodoWrite {len(todos)} todos" if isinstance(todos, list) else "TodoWrite"
    return name


def strip_shell_wrapper(command: str) -> str:
    """The inner command of ``/bin/bash -lc '...'`` and ``/bin/sh -c '...'`` (as gza shows it)."""
    for shell in ("/bin/bash -lc ", "/bin/sh -c "):
        for quote in ("'", '"'):
            head = shell + quote
            if command.startswith(head) and len(command) > len(head):
                inner = command[len(head) :]
                return inner[:-1] if inner.endswith(quote) else inner
    return command


def first_text(*values: Any) -> str:
    """The first of ``values`` that is a non-blank string, stripped."""
    for value in values:
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def message_text(message: Any) -> str:
    """The text of a message: the string, or the text parts of a content-part list."""
    if isinstance(message, str):
        return message.strip()
    if isinstance(message, Sequence):
        parts = [p.get("text") for p in message if isinstance(p, dict)]
        return "\n".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
    return ""


def compact(value: Any, limit: int) -> str:
    """``value`` (a string as it is, else its JSON) cut to ``limit``; empty for nothing."""
    if value in (None, "", {}, []):
        return ""
    return truncate(value if isinstance(value, str) else to_json(value), limit)


def to_json(value: Any) -> str:
    """``value`` as one line of ASCII JSON."""
    return json.dumps(value, ensure_ascii=True)
