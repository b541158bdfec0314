"""Step-first timelines: ``[Step S<n>] text`` anchors, and ``[S<n>.<m>] type detail`` substeps.

Pure functions from a document to lines. Three inputs are understood: a run log, a legacy log
(a list of provider-stream or legacy turn events, migrated first, so it renders step-first), and
an ATIF trajectory (each step an anchor; its tool calls and observation results its substeps).
Compact mode prints one line per step; verbose mode adds every substep. The detail strings
follow gza's ``gza log --steps`` output, so gza's fixtures render line for line the same.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from atif_spec.stepsubstep.legacy import detect_stream, migrate
from atif_spec.stepsubstep.model import step_id, substep_id

STEP_STYLE = "bold cyan"
SUBSTEP_STYLE = "green"
ERROR_STYLE = "red"
SUBSTEP_INDENT = "  "


@dataclass(frozen=True)
class Line:
    """One timeline entry: a step anchor or an indented substep."""

    label: str
    detail: str
    substep: bool = False
    error: bool = False

    def plain(self) -> str:
        """The entry as plain text."""
        head = (SUBSTEP_INDENT if self.substep else "") + f"[{self.label}]"
        return f"{head} {self.detail}" if self.detail else head

    def rich(self) -> Text:
        """The entry as styled text (colour is dropped by rich when not on a terminal)."""
        text = Text(SUBSTEP_INDENT if self.substep else "")
        text.append(f"[{self.label}]", style=SUBSTEP_STYLE if self.substep else STEP_STYLE)
        if self.detail:
            text.append(" ")
            text.append(self.detail, style=ERROR_STYLE if self.error else "")
        return text


@dataclass
class _Anchor:
    step_id: str
    text: str
    substeps: list[Line] = field(default_factory=list)


class UnrenderableError(ValueError):
    """The input is neither a run log, a legacy log nor an ATIF trajectory."""


def timeline(document: Any, *, verbose: bool = False) -> list[Line]:
    """The timeline of a run log, legacy event list or ATIF trajectory."""
    anchors = _anchors(document)
    out: list[Line] = []
    for anchor in anchors:
        out.append(Line(f"Step {anchor.step_id}", anchor.text))
        if verbose:
            out.extend(anchor.substeps)
    return out


def render_lines(document: Any, *, verbose: bool = False) -> list[str]:
    """The timeline as plain text, one string per entry (a message may span several lines)."""
    return [line.plain() for line in timeline(document, verbose=verbose)]


def render_text(document: Any, *, verbose: bool = False) -> list[Text]:
    """The timeline as rich :class:`~rich.text.Text`, one per entry."""
    return [line.rich() for line in timeline(document, verbose=verbose)]


def truncate(text: str, limit: int, suffix: str = "...") -> str:
    """``text`` cut to ``limit`` characters, the suffix included."""
    return text if len(text) <= limit else text[: limit - len(suffix)] + suffix


# -- input kinds --------------------------------------------------------------------------------


def _anchors(document: Any) -> list[_Anchor]:
    from atif_spec.formats import get_format

    if isinstance(document, list):
        if detect_stream(document) is None:
            raise UnrenderableError("not a legacy log: no provider or legacy turn events")
        return _run_log_anchors(migrate(document).document)
    if isinstance(document, dict):
        if get_format("step-substep").detect(document) is not None:
            return _run_log_anchors(document)
        if get_format("atif").detect(document) is not None:
            return _atif_anchors(document)
    raise UnrenderableError("not a run log, legacy log or ATIF trajectory")


def _numbered(value: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(position from 1, item)`` for the object items of a list (nothing for other values)."""
    for n, item in enumerate(value if isinstance(value, list) else [], start=1):
        if isinstance(item, dict):
            yield n, item


def _run_log_anchors(doc: dict[str, Any]) -> list[_Anchor]:
    anchors: list[_Anchor] = []
    for n, step in _numbered(doc.get("steps")):
        sid = str(step["step_id"]) if isinstance(step.get("step_id"), str) else step_id(n)
        text = _first_text(step.get("message_text"), step.get("summary"))
        anchor = _Anchor(sid, text)
        for m, sub in _numbered(step.get("substeps")):
            given = sub.get("substep_id")
            label = given if isinstance(given, str) else substep_id(sid, m)
            type_ = str(sub.get("type", "event"))
            detail = f"{type_} {substep_detail(type_, sub.get('payload'))}".strip()
            anchor.substeps.append(Line(label, detail, substep=True, error=type_ == "tool_error"))
        anchors.append(anchor)
    return anchors


def _atif_anchors(doc: dict[str, Any]) -> list[_Anchor]:
    anchors: list[_Anchor] = []
    for n, step in _numbered(doc.get("steps")):
        sid = step_id(step["step_id"]) if isinstance(step.get("step_id"), int) else step_id(n)
        source = str(step.get("source", "step"))
        message = _message_text(step.get("message"))
        anchor = _Anchor(sid, f"({source}) {message}".strip())
        calls = step.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                name = str(call.get("function_name", "unknown"))
                args = _compact(call.get("arguments"), 100)
                detail = f"tool_call {name} {args}".strip()
                anchor.substeps.append(Line("", detail, substep=True))
        obs = step.get("observation")
        results = obs.get("results") if isinstance(obs, dict) else None
        for result in results if isinstance(results, list) else []:
            if isinstance(result, dict):
                content = result.get("content")
                body = content if isinstance(content, str) else _message_text(content)
                detail = f"tool_output {truncate(body, 120)}".strip()
                anchor.substeps.append(Line("", detail, substep=True))
        anchor.substeps = [
            Line(substep_id(sid, m), line.detail, substep=True)
            for m, line in enumerate(anchor.substeps, start=1)
        ]
        anchors.append(anchor)
    return anchors


# -- details ------------------------------------------------------------------------------------


def substep_detail(type_: str, payload: Any) -> str:
    """The text after a substep's type (the same strings gza's timeline prints)."""
    if not isinstance(payload, dict):
        return "" if payload is None else truncate(_json(payload), 120)
    if type_ == "tool_call":
        return _call_detail(payload)
    if type_ in ("tool_output", "tool_error"):
        if "output" in payload or "exit_code" in payload:
            return truncate(str(payload.get("output", "")), 120)
        if "is_error" in payload:
            content = payload.get("content", "")
            if isinstance(content, str):
                return truncate(content.replace("\\n", "\n"), 120)
            return truncate(_json(content), 120)
    if type_ == "status_update" and isinstance(payload.get("message"), str):
        return truncate(payload["message"], 120)
    if type_ == "artifact":
        where = payload.get("path") or payload.get("uri")
        if isinstance(where, str):
            return where
    return truncate(_json(payload), 120)


def _call_detail(payload: dict[str, Any]) -> str:
    name = str(payload.get("tool_name", "unknown"))
    if isinstance(payload.get("command"), str):
        return f"{name} {truncate(payload['command'], 100)}".strip()
    tool_input = payload.get("tool_input")
    return summarize_tool(name, tool_input if isinstance(tool_input, dict) else {})


def summarize_tool(name: str, tool_input: dict[str, Any]) -> str:
    """A one-line summary of a tool call from its name and input."""
    if name == "Bash":
        command = str(tool_input.get("command", ""))
        return truncate(command, 100) if command else "Bash"
    if name in ("Read", "Edit", "Write"):
        return f"{name} {tool_input.get('file_path', '')}".strip()
    if name == "Grep":
        detail = f"{tool_input.get('pattern', '')} [{tool_input.get('path', '')}]".strip()
        return f"Grep {detail}".strip()
    if name == "Glob":
        return f"Glob {tool_input.get('pattern', '')}".strip()
    if name == "TodoWrite":
        todos = tool_input.get("todos", [])
        return f"TodoWrite {len(todos)} todos" if isinstance(todos, list) else "TodoWrite"
    return name


def _first_text(*values: Any) -> str:
    for value in values:
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _message_text(message: Any) -> str:
    if isinstance(message, str):
        return message.strip()
    if isinstance(message, Sequence):
        parts = [p.get("text") for p in message if isinstance(p, dict)]
        return "\n".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
    return ""


def _compact(value: Any, limit: int) -> str:
    if value in (None, "", {}, []):
        return ""
    return truncate(value if isinstance(value, str) else _json(value), limit)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True)
