"""Step-first timelines: ``[Step S<n>] text`` anchors, and ``[S<n>.<m>] type detail`` substeps.

Pure functions from a document to lines. Four inputs are understood: a run log, a legacy log
(a list of provider-stream or legacy turn events, migrated first, so it renders step-first), an
ATIF trajectory (each step an anchor; its tool calls and observation results its substeps; its
embedded subagents, indented, under the step that references them), and a list of trajectories
and run logs (a JSON Lines file), each under a ``[Document <n>]`` line.
Compact mode prints exactly one line per step (its text on one line, cut with an ellipsis to
the width); verbose mode adds every substep and, for a run log, the run-level events a provider
stream carried (results, errors, rate limits, token totals). Steps copied from earlier context
are marked ``(copied)``. Control characters from the document are escaped, so no text from a
document can drive the terminal. The detail strings follow gza's ``gza log --steps`` output.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
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
from atif_spec.transforms.stash import StashError, detach, holder

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
    """One timeline entry: a step anchor or an indented substep, ``depth`` levels down (the
    steps of an embedded subagent sit one level below the step that dispatched it)."""

    label: str
    detail: str
    substep: bool = False
    error: bool = False
    depth: int = 0

    def indent(self) -> str:
        """The spaces before the label."""
        return SUBSTEP_INDENT * (self.depth + self.substep)

    def plain(self) -> str:
        """The entry as plain text."""
        head = f"{self.indent()}[{self.label}]"
        return f"{head} {self.detail}" if self.detail else head

    def rich(self) -> Text:
        """The entry as styled text (colour is dropped by rich when not on a terminal)."""
        text = Text(self.indent())
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
    refs: list[dict[str, Any]] = field(default_factory=list)
    """The step's subagent references (``subagent_trajectory_ref`` of its observation)."""


class UnrenderableError(ValueError):
    """The input is neither a run log, a legacy log, an ATIF trajectory nor a list of
    trajectories and run logs (JSON Lines)."""


MAX_NESTING = 16
"""Embedded subagents nested deeper than this (subagents of subagents ...) are named, not shown."""


@dataclass
class _Render:
    """One rendering: its switches, and the embedded subagents already shown."""

    verbose: bool
    width: int
    shown: set[int] = field(default_factory=set)
    nesting: int = 0
    """How many embedded subagents enclose the lines being made."""

    def fit(self, label: str, text: str, depth: int) -> Line:
        """A step or header line: its whole text when verbose, else one line cut to the width."""
        if self.verbose:
            return Line(label, escape(text, keep_newlines=True), depth=depth)
        room = max(self.width - len(SUBSTEP_INDENT * depth) - len(label) - 3, 1)
        return Line(label, truncate(escape(_SPACE.sub(" ", text)), room, ELLIPSIS), depth=depth)


def timeline(document: Any, *, verbose: bool = False, width: int = WIDTH) -> list[Line]:
    """The timeline of a run log, legacy event list or ATIF trajectory, or of each document of
    a list of trajectories and run logs (JSON Lines) under a ``[Document <n>]`` line.

    Compact: one line per step, cut to ``width`` columns. Verbose: every step with its whole
    text, every substep, then the run-level lines. The embedded subagents of an ATIF trajectory
    follow, indented, the step whose observation references them; those no step references
    follow the last step.
    """
    out: list[Line] = []
    for header, doc in _as_documents(document):
        render = _Render(verbose, width)
        if header is not None:
            out.append(render.fit(header, _describe(doc), 0))
        out.extend(_document_lines(doc, render, 0))
    return out


def _document_lines(doc: Any, render: _Render, depth: int) -> list[Line]:
    out: list[Line] = []
    embedded = _embedded(doc)
    for anchor in _anchors(doc):
        text = f"{COPIED} {anchor.text}".strip() if anchor.copied else anchor.text
        out.append(render.fit(f"Step {anchor.step_id}", text, depth))
        if render.verbose:
            out.extend(replace(line, depth=depth) for line in anchor.substeps)
        for ref in anchor.refs:
            out.extend(_ref_lines(ref, embedded, render, depth + 1))
    for trajectory_id, sub in embedded:
        if id(sub) not in render.shown:
            out.extend(_subagent_lines(trajectory_id, sub, "no step references it", render, depth))
    if render.verbose and depth == 0:
        out.extend(run_lines(doc))
    return out


def _embedded(doc: Any) -> list[tuple[str, dict[str, Any]]]:
    """``(trajectory_id, subagent)`` for each embedded subagent of an ATIF trajectory."""
    subs = _list(doc.get("subagent_trajectories")) if isinstance(doc, dict) else []
    return [(str(s.get("trajectory_id", "?")), s) for s in subs if isinstance(s, dict)]


def _ref_lines(
    ref: dict[str, Any], embedded: list[tuple[str, dict[str, Any]]], render: _Render, depth: int
) -> list[Line]:
    """The subagent a reference names: the embedded one (shown once), else one line."""
    wanted = ref.get("trajectory_id")
    sub = next((s for t, s in embedded if t == wanted), None) if isinstance(wanted, str) else None
    if sub is not None and id(sub) not in render.shown:
        return _subagent_lines(str(wanted), sub, "", render, depth)
    path = ref.get("trajectory_path")
    names = (wanted, path, ref.get("session_id"))
    name = next((v for v in names if isinstance(v, str) and v), "?")
    if sub is not None:
        note = "shown above"
    elif isinstance(path, str) and path:
        note = "in another file" if name == path else f"in another file: {path}"
    else:
        note = "not embedded"
    return [render.fit(f"Subagent {escape(name)}", f"({note})", depth)]


def _subagent_lines(
    trajectory_id: str, sub: dict[str, Any], note: str, render: _Render, depth: int
) -> list[Line]:
    """An embedded subagent: a ``[Subagent <id>]`` line, then its timeline one level down."""
    render.shown.add(id(sub))
    label = f"Subagent {escape(trajectory_id)}"
    about = f"{_describe(sub)} ({note})" if note else _describe(sub)
    if _kind(sub) is None:
        return [render.fit(label, f"{about} (not a trajectory: not shown)", depth)]
    if render.nesting >= MAX_NESTING:
        return [
            render.fit(label, f"{about} (nested more than {MAX_NESTING} deep: not shown)", depth)
        ]
    render.nesting += 1
    try:
        return [render.fit(label, about, depth), *_document_lines(sub, render, depth + 1)]
    finally:
        render.nesting -= 1


def _describe(doc: Any) -> str:
    """What a document is, in a few words: its version, agent or run, id and size."""
    if not isinstance(doc, dict):
        return ""
    agent = doc.get("agent")
    name = agent.get("name") if isinstance(agent, dict) else None
    ident = doc.get("session_id") or doc.get("run_id")
    words = [v for v in (doc.get("schema_version"), name, ident) if isinstance(v, str) and v]
    return ", ".join([" ".join(words), f"{len(_list(doc.get('steps')))} step(s)"]).lstrip(", ")


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


def _as_documents(document: Any) -> list[tuple[str | None, Any]]:
    """The documents of an input, each with its header (None for a single document): a legacy
    log migrated to its run log, a list of trajectories and run logs item by item."""
    if not isinstance(document, list):
        return [(None, document)]
    if detect_stream(document) is not None:
        return [(None, migrate(document).document)]
    if not document:
        raise UnrenderableError("no documents and no legacy log events")
    for n, item in enumerate(document, start=1):
        if _kind(item) is None:
            raise UnrenderableError(
                f"record {n} is neither an ATIF trajectory nor a run log, and the records are "
                "not a legacy log"
            )
    return [(f"Document {n}", item) for n, item in enumerate(document, start=1)]


def _kind(document: Any) -> str | None:
    """``step-substep`` or ``atif`` for a document this module renders, else None."""
    if isinstance(document, dict):
        for fmt in ("step-substep", "atif"):
            if get_format(fmt).detect(document) is not None:
                return fmt
    return None


def _anchors(document: Any) -> list[_Anchor]:
    kind = _kind(document)
    if kind == "step-substep":
        return _run_log_anchors(document)
    if kind == "atif":
        return _atif_anchors(document)
    raise UnrenderableError("not a run log, legacy log or ATIF trajectory")


def _numbered(value: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(position from 1, item)`` for the object items of a list (nothing for other values)."""
    for n, item in enumerate(value if isinstance(value, list) else [], start=1):
        if isinstance(item, dict):
            yield n, item


_COPIED_POINTER = re.compile(r"^/steps/([0-9]+)/is_copied_context$")


def _stashed_copied(doc: dict[str, Any]) -> set[int]:
    """Positions of steps whose ``is_copied_context: true`` the ATIF→run-log lens kept in its
    patch (the top stash layer, when it was made from ATIF, whose steps map one to one)."""

    try:
        _, layers = detach(doc, holder("step-substep"))
    except StashError:
        return set()
    if not layers or not str(layers[-1].get("by", "")).startswith("atif@"):
        return set()
    out: set[int] = set()
    for op in _list(layers[-1].get("patch")):
        match = _COPIED_POINTER.match(str(op.get("path", ""))) if isinstance(op, dict) else None
        if match and op.get("op") in ("add", "replace") and op.get("value") is True:
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
                anchor.refs.extend(
                    r for r in _list(result.get("subagent_trajectory_ref")) if isinstance(r, dict)
                )
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
