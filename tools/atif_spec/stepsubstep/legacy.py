"""Legacy logs to run logs: provider JSON Lines streams and normalized legacy turn events.

Two inputs, one output (a run-log document, :mod:`atif_spec.stepsubstep.model`):

* **Provider streams** as gza logs them: Codex ``exec --json``, Claude Code ``stream-json`` and
  Gemini CLI ``stream-json`` events, one JSON object per line (plus gza's own ``gza`` and ``raw``
  lines). One pass over the events, with the step boundaries of gza's timeline.
* **Normalized legacy events** (``legacy-turn-event.schema.json``): ``{legacy_event_id, kind,
  ...}`` per line, mapped by the spec's rules L1 to L4.

The mapping is deterministic: the same events give the same document byte for byte. Nothing reads
the wall clock; a time the source does not record is null, and a warning says so.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from atif_spec.findings import Finding, Level, input_finding, pointer
from atif_spec.stepsubstep.model import (
    SOURCES,
    SUBSTEP_TYPES,
    SYNTHETIC_SUMMARY,
    is_rfc3339,
    step_id,
    substep_id,
)

STEP_KINDS = frozenset({"message", "status"})
SUBSTEP_KINDS = frozenset(SUBSTEP_TYPES)
CODEX_TYPES = frozenset(
    {
        "thread.started",
        "turn.started",
        "turn.completed",
        "turn.failed",
        "item.started",
        "item.updated",
        "item.completed",
    }
)
CLAUDE_TYPES = frozenset({"assistant", "user", "system"})
GEMINI_TYPES = frozenset(
    {"init", "message", "tool_use", "tool_result", "tool_output", "tool_error", "tool_retry"}
)
_GZA_METADATA = frozenset({"branch", "stats", "outcome"})
_GEMINI_PAYLOAD_SKIP = frozenset({"type", "id", "call_id", "tool_id", "timestamp"})


@dataclass
class Migration:
    """A run-log document and the warnings about what the source did not say."""

    document: dict[str, Any]
    findings: list[Finding] = field(default_factory=list)


def detect_stream(events: Sequence[Any]) -> str | None:
    """``legacy``, ``codex``, ``claude`` or ``gemini`` for a list of events; None otherwise."""
    dicts = [e for e in events if isinstance(e, dict)]
    if not dicts:
        return None
    if all("legacy_event_id" in e and "kind" in e for e in dicts):
        return "legacy"
    types = {e.get("type") for e in dicts}
    for name, known in (("codex", CODEX_TYPES), ("claude", CLAUDE_TYPES), ("gemini", GEMINI_TYPES)):
        if types & known:
            return name
    return None


def migrate(
    events: Sequence[Any], *, run_id: str | None = None, provider: str | None = None
) -> Migration:
    """The run log of a provider stream or of normalized legacy events (see module doc)."""
    kind = detect_stream(events)
    if kind == "legacy":
        builder: _Builder = _LegacyBuilder(events, provider)
    else:
        builder = _StreamBuilder(events, provider or kind or "unknown")
    builder.build()
    return builder.finish(run_id)


def content_run_id(events: Sequence[Any]) -> str:
    """A run id derived from the events' content (used when the source names none)."""
    digest = hashlib.sha256(orjson.dumps(list(events), option=orjson.OPT_SORT_KEYS)).hexdigest()
    return f"run-{digest[:16]}"


def _truthy_text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


class _Step:
    """A step under construction."""

    def __init__(
        self,
        index: int,
        provider: str,
        role: str,
        text: str | None,
        summary: str | None,
        started_at: str | None,
        turn: str | None,
        event: str | None,
    ) -> None:
        self.index = index
        self.provider = provider
        self.role = role
        self.text = text
        self.summary = summary
        self.started_at = started_at
        self.outcome: str | None = "completed"
        self.turn = turn
        self.event = event
        self.substeps: list[dict[str, Any]] = []
        self.extra: dict[str, Any] = {}
        self.message_ids: set[str] = set()
        self.call_ids: set[str] = set()

    def add(
        self,
        type_: str,
        payload: Any,
        *,
        call_id: str | None,
        timestamp: str | None,
        turn: str | None,
        event: str | None,
        source: str = "provider",
        extra: dict[str, Any] | None = None,
    ) -> None:
        m = len(self.substeps) + 1
        sub: dict[str, Any] = {
            "substep_id": substep_id(step_id(self.index), m),
            "substep_index": m,
            "type": type_,
            "source": source,
            "call_id": call_id,
            "payload": payload,
            "timestamp": timestamp,
            "legacy_turn_id": turn,
            "legacy_event_id": event,
        }
        if extra:
            sub["extra"] = extra
        self.substeps.append(sub)
        if type_ == "tool_call" and call_id is not None:
            self.call_ids.add(call_id)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "step_id": step_id(self.index),
            "step_index": self.index,
            "provider": self.provider,
            "message_role": self.role,
            "message_text": self.text,
            "started_at": self.started_at,
            "completed_at": None,
            "outcome": self.outcome,
            "summary": self.summary,
            "legacy_turn_id": self.turn,
            "legacy_event_id": self.event,
            "substeps": self.substeps,
        }
        if self.extra:
            doc["extra"] = self.extra
        return doc


class _Builder:
    """Shared state: the steps so far, the open step, run metadata."""

    def __init__(self, events: Sequence[Any], provider: str) -> None:
        self.events = events
        self.provider = provider
        self.steps: list[_Step] = []
        self.current: _Step | None = None
        self.run_id: str | None = None
        self.unmapped: list[dict[str, Any]] = []
        self.findings: list[Finding] = []

    def build(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def new_step(
        self,
        text: str | None,
        *,
        started_at: str | None,
        turn: str | None,
        event: str | None,
        role: str = "assistant",
        summary: str | None = None,
        provider: str | None = None,
    ) -> _Step:
        step = _Step(
            len(self.steps) + 1,
            provider or self.provider,
            role,
            text,
            summary,
            started_at,
            turn,
            event,
        )
        self.steps.append(step)
        self.current = step
        return step

    def keep(self, line: int, event: Any) -> None:
        self.unmapped.append({"line": line, "event": event})

    def finish(self, run_id: str | None) -> Migration:
        rid = run_id or self.run_id or content_run_id(self.events)
        doc: dict[str, Any] = {
            "run_id": rid,
            "provider": self.provider,
            "steps": [s.to_json() for s in self.steps],
        }
        if self.unmapped:
            doc["extra"] = {"unmapped_events": self.unmapped}
        findings = list(self.findings)
        missing = [
            pointer("steps", i, "started_at")
            for i, s in enumerate(doc["steps"])
            if s["started_at"] is None
        ] + [
            pointer("steps", i, "substeps", j, "timestamp")
            for i, s in enumerate(doc["steps"])
            for j, sub in enumerate(s["substeps"])
            if sub["timestamp"] is None
        ]
        if missing:
            findings.append(
                input_finding(
                    "missing-timestamp",
                    f"the source records no time for {len(missing)} step or substep field(s); "
                    "they are null (first: " + missing[0] + ")",
                    missing[0],
                    Level.WARNING,
                )
            )
        return Migration(doc, findings)


class _StreamBuilder(_Builder):
    """One pass over a provider stream with gza's step boundaries."""

    def __init__(self, events: Sequence[Any], provider: str) -> None:
        super().__init__(events, provider)
        self.turn = 0
        self.turn_events: dict[int, int] = {}
        self.claude_ids: set[str] = set()
        self.pending: list[str] = []
        self.pending_at: str | None = None
        self.seen_calls: set[str] = set()
        self.failed = False

    # -- legacy labels -------------------------------------------------------------------------
    def labels(self) -> tuple[str | None, str | None]:
        """The turn id and the next event id of the current turn (None before any turn)."""
        if self.turn == 0:
            return None, None
        n = self.turn_events.get(self.turn, 0) + 1
        self.turn_events[self.turn] = n
        return f"T{self.turn}", f"T{self.turn}.{n}"

    # -- steps ---------------------------------------------------------------------------------
    def message_step(self, text: str, at: str | None, role: str = "assistant") -> _Step:
        turn, event = self.labels()
        return self.new_step(text, started_at=at, turn=turn, event=event, role=role)

    def ensure(self, at: str | None) -> _Step:
        self.flush()
        if self.current is not None:
            return self.current
        turn = f"T{self.turn}" if self.turn else None
        return self.new_step(None, started_at=at, turn=turn, event=None, summary=SYNTHETIC_SUMMARY)

    def flush(self) -> None:
        """Turn streamed Gemini deltas that no full message replaced into a step."""
        if self.pending:
            text = "".join(self.pending).strip()
            at = self.pending_at
            self.pending, self.pending_at = [], None
            if text:
                self.message_step(text, at)

    def substep(self, type_: str, payload: Any, call_id: str | None, at: str | None) -> None:
        step = self.ensure(at)
        turn, event = self.labels()
        step.add(type_, payload, call_id=call_id, timestamp=at, turn=turn, event=event)

    # -- the pass ------------------------------------------------------------------------------
    def build(self) -> None:
        for line, entry in enumerate(self.events, start=1):
            if not isinstance(entry, dict):
                self.keep(line, entry)
                continue
            at = entry.get("timestamp") if is_rfc3339(entry.get("timestamp")) else None
            kind = entry.get("type")
            handler = getattr(self, "on_" + str(kind).replace(".", "_"), None)
            if kind is None or handler is None or not handler(entry, at):
                self.keep(line, entry)
        self.flush()
        if self.failed and self.steps:
            self.steps[-1].outcome = "failed"

    # Each handler returns True when it mapped the event, False to keep it in extra.
    def on_assistant(self, entry: dict[str, Any], at: str | None) -> bool:
        message = entry.get("message")
        if not isinstance(message, dict):
            return False
        items = _content_items(message.get("content"))
        mid = message.get("id") if isinstance(message.get("id"), str) else None
        texts = [
            t for t in (_truthy_text(i.get("text")) for i in items if i.get("type") == "text") if t
        ]
        tools = [i for i in items if i.get("type") == "tool_use"]
        if mid is not None and mid not in self.claude_ids:
            self.claude_ids.add(mid)
            self.turn += 1
        cur = self.current
        if mid is not None and cur is not None and mid in cur.message_ids:
            if texts:
                joined = "\n".join(texts)
                cur.text = joined if cur.text is None else cur.text + "\n" + joined
        elif texts:
            cur = self.message_step("\n".join(texts), at)
            if mid is not None:
                cur.message_ids.add(mid)
        elif not tools:
            return False
        others = [i for i in items if i.get("type") not in ("text", "tool_use")]
        if others and self.current is not None:
            self.current.extra.setdefault("other_content", []).extend(others)
        for item in tools:
            step = self.ensure(at)
            call_id = item.get("id") if isinstance(item.get("id"), str) else None
            if call_id is not None and call_id in step.call_ids:
                continue
            tool_input = item.get("input", {})
            payload = {"tool_name": str(item.get("name", "unknown")), "tool_input": tool_input}
            self.substep("tool_call", payload, call_id, at)
        return True

    def on_user(self, entry: dict[str, Any], at: str | None) -> bool:
        message = entry.get("message")
        items = _content_items(message.get("content")) if isinstance(message, dict) else []
        results = [i for i in items if i.get("type") == "tool_result"]
        for item in results:
            is_error = bool(item.get("is_error", False))
            call_id = item.get("tool_use_id") if isinstance(item.get("tool_use_id"), str) else None
            payload = {"content": item.get("content", ""), "is_error": is_error}
            self.substep("tool_error" if is_error else "tool_output", payload, call_id, at)
        return bool(results)

    def on_message(self, entry: dict[str, Any], at: str | None) -> bool:
        role = entry.get("role")
        if role == "user":
            self.flush()
            self.current = None
            self.turn += 1
            return False
        content = entry.get("content")
        if role != "assistant" or not isinstance(content, str):
            return False
        if entry.get("delta"):
            if not self.pending:
                self.pending_at = at
            self.pending.append(content)
            return True
        self.pending, self.pending_at = [], None
        if content.strip():
            self.message_step(content.strip(), at)
        return True

    def on_tool_use(self, entry: dict[str, Any], at: str | None) -> bool:
        tool_input = entry.get("tool_input", entry.get("parameters", {}))
        payload = {"tool_name": str(entry.get("tool_name", "unknown")), "tool_input": tool_input}
        self.substep("tool_call", payload, _call_id(entry), at)
        return True

    def _gemini_event(self, type_: str, entry: dict[str, Any], at: str | None) -> bool:
        payload = {k: v for k, v in entry.items() if k not in _GEMINI_PAYLOAD_SKIP}
        self.substep(type_, payload, _call_id(entry), at)
        return True

    def on_tool_output(self, entry: dict[str, Any], at: str | None) -> bool:
        return self._gemini_event("tool_output", entry, at)

    def on_tool_error(self, entry: dict[str, Any], at: str | None) -> bool:
        return self._gemini_event("tool_error", entry, at)

    def on_tool_retry(self, entry: dict[str, Any], at: str | None) -> bool:
        return self._gemini_event("tool_retry", entry, at)

    def on_tool_result(self, entry: dict[str, Any], at: str | None) -> bool:
        failed = entry.get("status") == "error" or entry.get("error") not in (None, "", {})
        return self._gemini_event("tool_error" if failed else "tool_output", entry, at)

    def on_turn_started(self, entry: dict[str, Any], at: str | None) -> bool:
        self.flush()
        self.current = None
        self.turn += 1
        return False

    def on_turn_failed(self, entry: dict[str, Any], at: str | None) -> bool:
        self.failed = True
        return False

    def on_thread_started(self, entry: dict[str, Any], at: str | None) -> bool:
        if isinstance(entry.get("thread_id"), str) and self.run_id is None:
            self.run_id = entry["thread_id"]
        return False

    def on_system(self, entry: dict[str, Any], at: str | None) -> bool:
        if isinstance(entry.get("session_id"), str) and self.run_id is None:
            self.run_id = entry["session_id"]
        return False

    on_init = on_system

    def on_result(self, entry: dict[str, Any], at: str | None) -> bool:
        self.flush()
        subtype = entry.get("subtype")
        if (
            entry.get("is_error") is True
            or (isinstance(subtype, str) and subtype.startswith("error"))
            or entry.get("status") == "error"
        ):
            self.failed = True
        return False

    def on_gza(self, entry: dict[str, Any], at: str | None) -> bool:
        subtype = entry.get("subtype", "")
        message = entry.get("message", "")
        if subtype in _GZA_METADATA or not message:
            return False
        label = f"[gza:{subtype}] {message}" if subtype else f"[gza] {message}"
        self.flush()
        self.message_step(label.strip(), at, role="runner")
        return True

    def on_raw(self, entry: dict[str, Any], at: str | None) -> bool:
        text = _truthy_text(entry.get("message"))
        if text is None:
            return False
        self.flush()
        self.message_step(f"[raw] {text}", at, role="runner")
        return True

    def on_item_started(self, entry: dict[str, Any], at: str | None) -> bool:
        item = entry.get("item")
        if not isinstance(item, dict) or item.get("type") != "command_execution":
            return False
        if not isinstance(item.get("id"), str):
            return False
        self._codex_call(item, at)
        return True

    def on_item_completed(self, entry: dict[str, Any], at: str | None) -> bool:
        item = entry.get("item")
        if not isinstance(item, dict):
            return False
        if item.get("type") == "agent_message":
            text = _truthy_text(item.get("text"))
            if text is None:
                return False
            self.flush()
            self.message_step(text, at)
            return True
        if item.get("type") != "command_execution":
            return False
        call_id = item.get("id") if isinstance(item.get("id"), str) else None
        if call_id is None or call_id not in self.seen_calls:
            self._codex_call(item, at)
        if "aggregated_output" in item or "exit_code" in item:
            exit_code = item.get("exit_code")
            failed = isinstance(exit_code, int) and exit_code != 0
            raw = item.get("aggregated_output", "")
            output = raw if isinstance(raw, str) else ("" if raw is None else str(raw))
            payload = {
                "exit_code": exit_code if isinstance(exit_code, int) else None,
                "output": output,
            }
            self.substep("tool_error" if failed else "tool_output", payload, call_id, at)
        return True

    def _codex_call(self, item: dict[str, Any], at: str | None) -> None:
        call_id = item.get("id") if isinstance(item.get("id"), str) else None
        if call_id is not None:
            self.seen_calls.add(call_id)
        command = str(item.get("command", ""))
        retry_of = item.get("retry_of_call_id")
        payload: dict[str, Any] = {
            "tool_name": "Bash",
            "command": command,
            "tool_input": {"command": command},
        }
        if isinstance(retry_of, str):
            self.substep("tool_retry", {"retry_of_call_id": retry_of}, call_id, at)
            payload["retry_of_call_id"] = retry_of
        self.substep("tool_call", payload, call_id, at)


class _LegacyBuilder(_Builder):
    """Rules L1 to L4 over normalized legacy turn events."""

    def __init__(self, events: Sequence[Any], provider: str | None) -> None:
        first = next((e for e in events if isinstance(e, dict)), {})
        named = first.get("provider") if isinstance(first.get("provider"), str) else None
        super().__init__(events, provider or named or "unknown")

    def build(self) -> None:
        for line, ev in enumerate(self.events, start=1):
            if not isinstance(ev, dict) or not isinstance(ev.get("legacy_event_id"), str):
                self.findings.append(
                    input_finding(
                        "legacy-event",
                        f"line {line} is not a legacy turn event; kept in extra",
                        "",
                        Level.WARNING,
                    )
                )
                self.keep(line, ev)
                continue
            if self.run_id is None and isinstance(ev.get("run_id"), str):
                self.run_id = ev["run_id"]
            event_id: str = ev["legacy_event_id"]
            turn = ev.get("legacy_turn_id")
            turn = turn if isinstance(turn, str) else event_id.split(".", 1)[0]
            at = ev.get("timestamp") if is_rfc3339(ev.get("timestamp")) else None
            provider = ev.get("provider") if isinstance(ev.get("provider"), str) else None
            extra = ev.get("extra") if isinstance(ev.get("extra"), dict) else None
            kind = ev.get("kind")
            if kind in STEP_KINDS:
                default_role = "assistant" if kind == "message" else "runner"
                role = str(ev["role"]) if isinstance(ev.get("role"), str) else default_role
                text = ev.get("text") if isinstance(ev.get("text"), str) else None
                step = self.new_step(
                    text, started_at=at, turn=turn, event=event_id, role=role, provider=provider
                )
                if "outcome" in ev:
                    step.outcome = ev["outcome"]
                if extra:
                    step.extra = dict(extra)
            elif kind in SUBSTEP_KINDS:
                step = self.current or self.new_step(
                    None,
                    started_at=at,
                    turn=turn,
                    event=None,
                    summary=SYNTHETIC_SUMMARY,
                    provider=provider,
                )
                source = ev.get("source") if ev.get("source") in SOURCES else "provider"
                call_id = ev.get("call_id") if isinstance(ev.get("call_id"), str) else None
                payload = ev.get("payload", {})
                step.add(
                    str(kind),
                    payload,
                    call_id=call_id,
                    timestamp=at,
                    turn=turn,
                    event=event_id,
                    source=str(source),
                    extra=extra,
                )
            else:
                self.findings.append(
                    input_finding(
                        "legacy-event",
                        f"line {line} has an unknown kind {kind!r}; kept in extra",
                        "",
                        Level.WARNING,
                    )
                )
                self.keep(line, ev)


def _content_items(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, dict):
        return [content]
    if isinstance(content, list):
        return [i for i in content if isinstance(i, dict)]
    return []


def _call_id(entry: dict[str, Any]) -> str | None:
    for key in ("call_id", "tool_id", "id"):
        value = entry.get(key)
        if isinstance(value, str):
            return value
    return None


def dumps(document: Any) -> str:
    """The canonical text of a document: two-space indent, key order kept, UTF-8, final newline."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
