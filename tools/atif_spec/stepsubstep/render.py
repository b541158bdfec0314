"""Step-first timelines: ``[Step S<n>] text`` anchors, and ``[S<n>.<m>] type detail`` substeps.

Pure functions from a document to lines. Three inputs are understood: a run log, a legacy log
(a list of provider-stream or legacy turn events, migrated first, so it renders step-first), and
an ATIF trajectory (each step an anchor; its tool calls and observation results its substeps).
Compact mode prints exactly one line per step (its text on one line, cut with an ellipsis to
the width); verbose mode adds every substep and, for a run log, the run-level events a provider
stream carried (results, errors, rate limits, token totals). Steps copied from earlier context
are marked ``(copied)``. Control characters from the document are escaped, so no text from a
document can drive the terminal. The detail strings follow gza's ``gza log --steps`` output.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from atif_spec.formats import get_format
from atif_spec.formats.step_substep import step_id, substep_id
from atif_spec.formats.streams import detect_stream
from atif_spec.jsonio.textsafety import escape as safe_text
from atif_spec.stepsubstep.details import (
    compact,
    first_text,
    message_text,
    substep_detail,
    to_json,
    truncate,
)
from atif_spec.stepsubstep.legacy import migrate
from atif_spec.transforms.stash import layer_entries, top_layer

STEP_STYLE = "bold cyan"
SUBSTEP_STYLE = "green"
ERROR_STYLE = "red"
SUBSTEP_INDENT = "  "
WIDTH = 100
"""Compact lines are cut to this many columns when the output is not a terminal."""
ELLIPSIS = "\u2026"
COPIED = "(copied)"
_SPACE = re.compile(r"\s+")


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
    copied: bool = False


class UnrenderableError(ValueError):
    """The input is neither a run log, a legacy log nor an ATIF trajectory."""


def timeline(document: Any, *, verbose: bool = False, width: int = WIDTH) -> list[Line]:
    """The timeline of a run log, legacy event list or ATIF trajectory.

    Compact: one line per step, cut to ``width`` columns. Verbose: every step with its whole
    text, every substep, then the run-level lines.
    """
    doc = _as_document(document)
    out: list[Line] = []
    for anchor in _anchors(doc):
        label = f"Step {anchor.step_id}"
        text = f"{COPIED} {anchor.text}".strip() if anchor.copied else anchor.text
        if verbose:
            out.append(Line(label, escape(text, keep_newlines=True)))
            out.extend(anchor.substeps)
        else:
            room = max(width - len(label) - 3, 1)
            out.append(Line(label, truncate(escape(_SPACE.sub(" ", text)), room, ELLIPSIS)))
    if verbose:
        out.extend(run_lines(doc))
    return out


def render_lines(document: Any, *, verbose: bool = False, width: int = WIDTH) -> list[str]:
    """The timeline as plain text, one string per entry."""
    return [line.plain() for line in timeline(document, verbose=verbose, width=width)]


def render_text(document: Any, *, verbose: bool = False, width: int = WIDTH) -> list[Text]:
    """The timeline as rich :class:`~rich.text.Text`, one per entry."""
    return [line.rich() for line in timeline(document, verbose=verbose, width=width)]


def escape(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` safe for a terminal (:func:`atif_spec.jsonio.textsafety.escape`): tabs are kept,
    newlines only when asked (else ``\\n``)."""
    return safe_text(text, keep=("\t", "\n") if keep_newlines else ("\t",))


def run_lines(doc: dict[str, Any]) -> list[Line]:
    """``[Run]`` lines for what a run log keeps at run level (verbose mode only)."""
    extra = doc.get("extra") if "run_id" in doc else None
    if not isinstance(extra, dict):
        return []
    out: list[Line] = []
    for event in _list(extra.get("rate_limit_events")):
        info = event.get("rate_limit_info") if isinstance(event, dict) else None
        info = info if isinstance(info, dict) else {}
        detail = " ".join(
            str(info[k]) for k in ("status", "rateLimitType", "resetsAt") if info.get(k)
        )
        out.append(
            _run_line(f"rate_limit_event {detail}".strip(), error=info.get("status") == "denied")
        )
    for error in _list(extra.get("errors")):
        message = error.get("message") if isinstance(error, dict) else error
        out.append(_run_line(f"error {compact(message, 120)}".strip(), error=True))
    for result in _list(extra.get("results")):
        if isinstance(result, dict):
            out.append(_run_line(_result_detail(result), error=result.get("is_error") is True))
    final = extra.get("final_metrics")
    if isinstance(final, dict):
        parts = [f"{k.removeprefix('total_')}={v}" for k, v in final.items() if k != "extra"]
        out.append(_run_line("metrics " + " ".join(parts)))
    return out


def _run_line(detail: str, *, error: bool = False) -> Line:
    return Line("Run", escape(detail), substep=False, error=error)


def _result_detail(result: dict[str, Any]) -> str:
    parts = ["result"]
    status = result.get("subtype") or result.get("status")
    if isinstance(status, str) and status:
        parts.append(status)
    if result.get("is_error") is True:
        parts.append("is_error")
    text = result.get("result")
    if isinstance(text, str) and text.strip():
        parts.append(truncate(_SPACE.sub(" ", text.strip()), 80))
    for key in ("num_turns", "num_steps", "duration_ms"):
        if isinstance(result.get(key), int):
            parts.append(f"{key}={result[key]}")
    cost = result.get("total_cost_usd", result.get("cost_usd"))
    if isinstance(cost, (int, float)) and not isinstance(cost, bool):
        parts.append(f"cost_usd={cost}")
    stats = result.get("stats")
    if isinstance(stats, dict):
        parts.append("stats=" + to_json(stats))
    return " ".join(parts)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


# -- input kinds --------------------------------------------------------------------------------


def _as_document(document: Any) -> Any:
    """A legacy log migrated to its run log; other inputs as they are."""
    if isinstance(document, list):
        if detect_stream(document) is None:
            raise UnrenderableError("not a legacy log: no provider or legacy turn events")
        return migrate(document).document
    return document


def _anchors(document: Any) -> list[_Anchor]:

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


_COPIED_POINTER = re.compile(r"^/steps/([0-9]+)/is_copied_context$")


def _stashed_copied(doc: dict[str, Any]) -> set[int]:
    """Positions of steps whose ``is_copied_context: true`` the ATIF→run-log lens stashed (the
    top stash layer, when it was made from ATIF, whose steps map one to one)."""

    top = top_layer(doc)
    if top is None or not str(top.get("by", "")).startswith("atif@"):
        return set()
    out: set[int] = set()
    for entry in _list(layer_entries(top)):
        if not isinstance(entry, dict) or entry.get("value") is not True:
            continue
        match = _COPIED_POINTER.match(str(entry.get("pointer", "")))
        if match and entry.get("op") == "removed":
            out.add(int(match.group(1)))
    return out


def _run_log_anchors(doc: dict[str, Any]) -> list[_Anchor]:
    anchors: list[_Anchor] = []
    stashed_copied = _stashed_copied(doc)
    for n, step in _numbered(doc.get("steps")):
        sid = str(step["step_id"]) if isinstance(step.get("step_id"), str) else step_id(n)
        text = first_text(step.get("message_text"), step.get("summary"))
        extra = step.get("extra")
        copied = (n - 1) in stashed_copied or (
            isinstance(extra, dict) and extra.get("is_copied_context") is True
        )
        anchor = _Anchor(sid, text, copied=copied)
        for m, sub in _numbered(step.get("substeps")):
            given = sub.get("substep_id")
            label = given if isinstance(given, str) else substep_id(sid, m)
            type_ = str(sub.get("type", "event"))
            detail = escape(f"{type_} {substep_detail(type_, sub.get('payload'))}".strip())
            anchor.substeps.append(Line(label, detail, substep=True, error=type_ == "tool_error"))
        anchors.append(anchor)
    return anchors


def _atif_anchors(doc: dict[str, Any]) -> list[_Anchor]:
    anchors: list[_Anchor] = []
    for n, step in _numbered(doc.get("steps")):
        sid = step_id(step["step_id"]) if isinstance(step.get("step_id"), int) else step_id(n)
        source = str(step.get("source", "step"))
        message = message_text(step.get("message"))
        anchor = _Anchor(
            sid, f"({source}) {message}".strip(), copied=step.get("is_copied_context") is True
        )
        calls = step.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                name = str(call.get("function_name", "unknown"))
                args = compact(call.get("arguments"), 100)
                detail = f"tool_call {name} {args}".strip()
                anchor.substeps.append(Line("", detail, substep=True))
        obs = step.get("observation")
        results = obs.get("results") if isinstance(obs, dict) else None
        for result in results if isinstance(results, list) else []:
            if isinstance(result, dict):
                content = result.get("content")
                body = content if isinstance(content, str) else message_text(content)
                detail = f"tool_output {truncate(body, 120)}".strip()
                anchor.substeps.append(Line("", detail, substep=True))
        anchor.substeps = [
            Line(substep_id(sid, m), escape(line.detail), substep=True)
            for m, line in enumerate(anchor.substeps, start=1)
        ]
        anchors.append(anchor)
    return anchors
