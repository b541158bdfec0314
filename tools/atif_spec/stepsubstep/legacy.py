"""Legacy logs to run logs: provider JSON Lines streams and normalized legacy turn events.

Two inputs, one output (a run-log document, :mod:`atif_spec.formats.step_substep`):

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

from atif_spec.formats.step_substep import (
    SOURCES,
    SUBSTEP_TYPES,
    SYNTHETIC_SUMMARY,
    default_source,
    is_rfc3339,
    step_id,
    substep_id,
)
from atif_spec.formats.streams import detect_stream
from atif_spec.jsonio import jsontext
from atif_spec.jsonio.pointers import pointer
from atif_spec.stepsubstep.usage import (
    add_usage,
    claude_metrics,
    codex_metrics,
    final_metrics,
    gemini_metrics,
    has_tokens,
)
from atif_spec.validation.findings import Finding, Level, input_finding

STEP_KINDS = frozenset({"message", "status"})
SUBSTEP_KINDS = frozenset(SUBSTEP_TYPES)
_GZA_METADATA = frozenset({"branch", "stats", "outcome"})
_GEMINI_PAYLOAD_SKIP = frozenset({"type", "id", "call_id", "tool_id", "timestamp"})


@dataclass
class Migration:
    """A run-log document and the warnings about what the source did not say."""

    document: dict[str, Any]
    findings: list[Finding] = field(default_factory=list)

    @property
    def stashed(self) -> list[tuple[str, str]]:
        """``(pointer, what)`` for every named ``extra`` key the migration filled."""
        return extra_locations(self.document)


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


def parse_jsonl(data: bytes) -> list[Any]:
    """The events of a JSON Lines log (blank lines skipped); ValueError names a bad line."""
    events: list[Any] = []
    for number, line in enumerate(data.splitlines(), start=1):
        if line.strip():
            try:
                events.append(jsontext.loads(line))
            except orjson.JSONDecodeError as exc:
                raise ValueError(f"line {number} is not JSON: {exc}") from exc
    return events


def read_stream(data: bytes) -> tuple[dict[str, Any], list[Finding]]:
    """The run log of a provider stream's (or legacy log's) bytes, and the migration's
    warnings: what ``atif convert`` converts, and what ``view`` and ``stats`` read in memory.
    ValueError names a line that is not JSON."""
    result = migrate(parse_jsonl(data))
    return result.document, result.findings


def content_run_id(events: Sequence[Any]) -> str:
    """A run id derived from the events' content (used when the source names none)."""
    digest = hashlib.sha256(jsontext.dumps(list(events), sort_keys=True)).hexdigest()
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
        source: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        m = len(self.substeps) + 1
        if source is None:
            source = default_source(type_)
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
        self.run_extra: dict[str, Any] = {}
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
        extra = dict(self.run_extra)
        if self.unmapped:
            extra["unmapped_events"] = self.unmapped
        if extra:
            doc["extra"] = extra
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
    """One pass over a provider stream with gza's step boundaries.

    Every event kind lands somewhere named: a step, a substep, a run-log field, or a named key
    of the run's, a step's or a substep's ``extra`` (spec/step-substep/MAPPING.md lists them).
    """

    def __init__(self, events: Sequence[Any], provider: str) -> None:
        super().__init__(events, provider)
        self.turn = 0
        self.turn_events: dict[int, int] = {}
        self.claude_ids: set[str] = set()
        self.usage_ids: set[str] = set()
        self.pending: list[str] = []
        self.pending_at: str | None = None
        self.seen_calls: set[str] = set()
        self.call_payloads: dict[str, dict[str, Any]] = {}
        self.failed = False
        self.usage: list[dict[str, int]] = []
        self.cost: float | None = None
        self.line = 0

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

    def substep(
        self,
        type_: str,
        payload: Any,
        call_id: str | None,
        at: str | None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        step = self.ensure(at)
        turn, event = self.labels()
        step.add(type_, payload, call_id=call_id, timestamp=at, turn=turn, event=event, extra=extra)

    def status(self, kind: str, message: str, at: str | None, **fields: Any) -> None:
        """A ``status_update`` substep: ``{kind, message, ...}`` (reasoning, todo lists, ...)."""
        self.substep("status_update", {"kind": kind, "message": message, **fields}, None, at)

    # -- run-level named extras ----------------------------------------------------------------
    def run_note(self, key: str, value: Any) -> None:
        """Append ``value`` to the run's ``extra[key]`` list."""
        self.run_extra.setdefault(key, []).append(value)

    def run_once(self, key: str, value: Any) -> None:
        """Set the run's ``extra[key]`` unless it is set (first value wins)."""
        if value not in (None, "") and key not in self.run_extra:
            self.run_extra[key] = value

    def error(self, entry: dict[str, Any], message: Any) -> None:
        self.run_note("errors", {"line": self.line, "message": message, "event": entry})

    # -- the pass ------------------------------------------------------------------------------
    def build(self) -> None:
        for line, entry in enumerate(self.events, start=1):
            self.line = line
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
        final = final_metrics(self.usage, self.cost, len(self.steps))
        if final is not None:
            self.run_extra["final_metrics"] = final

    # Each handler returns True when it mapped the event, False to keep it in extra.
    # -- Claude Code stream-json ---------------------------------------------------------------
    def on_assistant(self, entry: dict[str, Any], at: str | None) -> bool:
        message = entry.get("message")
        if not isinstance(message, dict):
            return False
        self.run_once("session_id", entry.get("session_id"))
        items = _content_items(message.get("content"))
        mid = message.get("id") if isinstance(message.get("id"), str) else None
        texts = [
            t for t in (_truthy_text(i.get("text")) for i in items if i.get("type") == "text") if t
        ]
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
        for item in items:
            self._claude_block(item, at)
        if not texts and not [i for i in items if i.get("type") != "text"]:
            if not has_tokens(message.get("usage")):
                return False
            self.ensure(at)
        self._claude_identity(self.current, entry, message, mid)
        return True

    def _claude_block(self, item: dict[str, Any], at: str | None) -> None:
        """A non-text content block as a substep (or the step's ``extra.other_content``)."""
        kind = item.get("type")
        if kind == "text":
            return
        if kind in ("tool_use", "server_tool_use"):
            step = self.ensure(at)
            call_id = item.get("id") if isinstance(item.get("id"), str) else None
            if call_id is not None and call_id in step.call_ids:
                return
            name = str(item.get("name", "unknown"))
            payload = {"tool_name": name, "tool_input": item.get("input", {})}
            self.substep("tool_call", payload, call_id, at)
        elif kind == "tool_result":
            self._claude_result(item, at, None)
        elif kind == "tool_retry":
            retry_of = item.get("retry_of_call_id")
            call_id = item.get("id") if isinstance(item.get("id"), str) else None
            self.substep("tool_retry", {"retry_of_call_id": retry_of}, call_id, at)
        elif kind == "thinking":
            fields = {k: v for k, v in item.items() if k != "type"}
            self.status("thinking", one_line(item.get("thinking")), at, **fields)
        elif kind == "redacted_thinking":
            fields = {k: v for k, v in item.items() if k != "type"}
            self.status("redacted_thinking", "[redacted]", at, **fields)
        else:
            self.ensure(at).extra.setdefault("other_content", []).append(item)

    def _claude_identity(
        self, step: _Step | None, entry: dict[str, Any], message: dict[str, Any], mid: str | None
    ) -> None:
        """Message id, model, row uuid, usage (once per message id) into the step's extra."""
        if step is None:
            return
        if mid is not None and mid not in step.extra.get("message_ids", []):
            step.extra.setdefault("message_ids", []).append(mid)
        model = message.get("model")
        if isinstance(model, str) and model:
            step.extra.setdefault("model", model)
            self.run_once("model", model)
        for key in ("uuid", "parent_tool_use_id"):
            if entry.get(key) not in (None, ""):
                step.extra.setdefault(key + "s", []).append(entry[key])
        rest = {
            k: v
            for k, v in message.items()
            if k not in ("id", "type", "role", "model", "content", "usage") and v is not None
        }
        if rest:
            step.extra.setdefault("message_fields", {}).update(rest)
        usage = message.get("usage")
        if not has_tokens(usage) or (mid is not None and mid in self.usage_ids):
            return
        assert isinstance(usage, dict)
        if mid is not None:
            self.usage_ids.add(mid)
        add_usage(step.extra.setdefault("usage", {}), usage)
        metrics = claude_metrics(step.extra["usage"])
        step.extra["metrics"] = metrics
        self.usage.append(claude_metrics(usage))

    def _claude_result(
        self, item: dict[str, Any], at: str | None, row: dict[str, Any] | None
    ) -> None:
        is_error = bool(item.get("is_error", False))
        call_id = item.get("tool_use_id") if isinstance(item.get("tool_use_id"), str) else None
        payload = {"content": item.get("content", ""), "is_error": is_error}
        rest = {k: v for k, v in (row or {}).items() if k not in ("type", "message", "session_id")}
        self.substep(
            "tool_error" if is_error else "tool_output", payload, call_id, at, rest or None
        )

    def on_user(self, entry: dict[str, Any], at: str | None) -> bool:
        message = entry.get("message")
        items = _content_items(message.get("content")) if isinstance(message, dict) else []
        mapped = False
        for item in items:
            if item.get("type") == "tool_result":
                self._claude_result(item, at, entry)
            elif item.get("type") == "text" and isinstance(item.get("text"), str):
                self.run_note("user_messages", {"line": self.line, "text": item["text"]})
            else:
                continue
            mapped = True
        return mapped

    def on_system(self, entry: dict[str, Any], at: str | None) -> bool:
        if isinstance(entry.get("session_id"), str) and self.run_id is None:
            self.run_id = entry["session_id"]
        self.run_once("session_id", entry.get("session_id"))
        self.run_once("model", entry.get("model"))
        self.run_note("system_events", entry)
        return True

    def on_stream_event(self, entry: dict[str, Any], at: str | None) -> bool:
        """Claude's partial-message events (``--include-partial-messages``): the same content
        arrives again as ``assistant`` rows, so they are kept, not mapped twice."""
        self.run_note("stream_events", entry)
        return True

    def on_rate_limit_event(self, entry: dict[str, Any], at: str | None) -> bool:
        self.run_note("rate_limit_events", entry)
        return True

    def on_error(self, entry: dict[str, Any], at: str | None) -> bool:
        self.error(entry, entry.get("message"))
        return True

    def on_result(self, entry: dict[str, Any], at: str | None) -> bool:
        self.flush()
        subtype = entry.get("subtype")
        if (
            entry.get("is_error") is True
            or (isinstance(subtype, str) and subtype.startswith("error"))
            or entry.get("status") == "error"
        ):
            self.failed = True
        self.run_once("session_id", entry.get("session_id"))
        cost = entry.get("total_cost_usd", entry.get("cost_usd"))
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            self.cost = float(cost)
        stats = entry.get("stats")
        if isinstance(stats, dict) and has_tokens(stats):
            self.usage.append(gemini_metrics(stats))
        self.run_note("results", entry)
        return True

    # -- Gemini CLI stream-json ----------------------------------------------------------------
    def on_init(self, entry: dict[str, Any], at: str | None) -> bool:
        return self.on_system(entry, at)

    def on_message(self, entry: dict[str, Any], at: str | None) -> bool:
        role = entry.get("role")
        if role == "user":
            self.flush()
            self.current = None
            self.turn += 1
            self.run_note("user_messages", {"line": self.line, "text": entry.get("content")})
            return True
        content = entry.get("content")
        if role != "assistant" or not isinstance(content, str):
            return False
        if entry.get("delta"):
            if not self.pending:
                self.pending_at = at
            self.pending.append(content)
            return True
        replaced, self.pending, self.pending_at = self.pending, [], None
        step = self.message_step(content.strip(), at) if content.strip() else self.current
        if replaced:
            if step is None:
                step = self.ensure(at)
            step.extra.setdefault("replaced_deltas", []).extend(replaced)
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

    # -- Codex exec --json ---------------------------------------------------------------------
    def on_turn_started(self, entry: dict[str, Any], at: str | None) -> bool:
        self.flush()
        self.current = None
        self.turn += 1
        return True

    def on_turn_completed(self, entry: dict[str, Any], at: str | None) -> bool:
        usage = entry.get("usage")
        if has_tokens(usage):
            assert isinstance(usage, dict)
            self.usage.append(codex_metrics(usage))
        self.run_note("turn_usage", {"turn": self.turn, "usage": usage})
        return True

    def on_turn_failed(self, entry: dict[str, Any], at: str | None) -> bool:
        self.failed = True
        error = entry.get("error")
        self.error(entry, error.get("message") if isinstance(error, dict) else error)
        return True

    def on_thread_started(self, entry: dict[str, Any], at: str | None) -> bool:
        if isinstance(entry.get("thread_id"), str) and self.run_id is None:
            self.run_id = entry["thread_id"]
        self.run_once("session_id", entry.get("thread_id"))
        return True

    def on_gza(self, entry: dict[str, Any], at: str | None) -> bool:
        subtype = entry.get("subtype", "")
        message = entry.get("message", "")
        if subtype in _GZA_METADATA:
            self.run_note("gza_metadata", entry)
            return True
        if not message:
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
        if not isinstance(item, dict):
            return False
        if item.get("type") == "command_execution" and isinstance(item.get("id"), str):
            self._codex_call(item, at)
        else:
            self.run_note("item_updates", {"line": self.line, "event": entry})
        return True

    def on_item_updated(self, entry: dict[str, Any], at: str | None) -> bool:
        if not isinstance(entry.get("item"), dict):
            return False
        self.run_note("item_updates", {"line": self.line, "event": entry})
        return True

    def on_item_completed(self, entry: dict[str, Any], at: str | None) -> bool:
        item = entry.get("item")
        if not isinstance(item, dict):
            return False
        kind = item.get("type")
        if kind == "agent_message":
            text = _truthy_text(item.get("text"))
            if text is None:
                return False
            self.flush()
            self.message_step(text, at)
            return True
        if kind == "command_execution":
            self._codex_command(item, at)
            return True
        handler = _CODEX_ITEMS.get(str(kind))
        if handler is None:
            return False
        handler(self, item, at)
        return True

    def _codex_command(self, item: dict[str, Any], at: str | None) -> None:
        call_id = item.get("id") if isinstance(item.get("id"), str) else None
        if call_id is None or call_id not in self.seen_calls:
            self._codex_call(item, at)
        else:
            self._complete_call(call_id, item)
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

    def _complete_call(self, call_id: str, item: dict[str, Any]) -> None:
        """Fill a started call's command from its completed item (``item.started`` may carry
        none: the command is only in ``item.completed``)."""
        payload = self.call_payloads.get(call_id)
        command = item.get("command")
        if payload is not None and not payload["command"] and isinstance(command, str):
            payload["command"] = command
            payload["tool_input"]["command"] = command

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
        if call_id is not None:
            self.call_payloads[call_id] = payload
        self.substep("tool_call", payload, call_id, at)

    def _codex_tool(
        self, item: dict[str, Any], at: str | None, name: str, tool_input: dict[str, Any]
    ) -> tuple[str | None, dict[str, Any]]:
        """A tool-like Codex item as a ``tool_call``; its other members ride in the payload."""
        call_id = item.get("id") if isinstance(item.get("id"), str) else None
        rest = {k: v for k, v in item.items() if k not in ("id", "type")}
        self.substep(
            "tool_call", {"tool_name": name, "tool_input": tool_input, "item": rest}, call_id, at
        )
        return call_id, rest

    def _codex_file_change(self, item: dict[str, Any], at: str | None) -> None:
        changes: list[Any] = _list(item.get("changes"))
        call_id, _ = self._codex_tool(item, at, "file_change", {"changes": changes})
        lines = [
            f"{c.get('kind', '?')} {c.get('path', '')}".strip()
            for c in changes
            if isinstance(c, dict)
        ]
        status = item.get("status")
        failed = status in ("failed", "declined")
        payload = {"status": status, "output": "\n".join(lines)}
        self.substep("tool_error" if failed else "tool_output", payload, call_id, at)

    def _codex_mcp(self, item: dict[str, Any], at: str | None) -> None:
        name = f"{item.get('server', '')}.{item.get('tool', 'unknown')}".lstrip(".")
        args = item.get("arguments")
        arguments: dict[str, Any] = args if isinstance(args, dict) else {}
        call_id, _ = self._codex_tool(item, at, name, arguments)
        error = item.get("error")
        if error not in (None, "", {}):
            message = error.get("message", error) if isinstance(error, dict) else error
            self.substep("tool_error", {"output": one_line(message), "error": error}, call_id, at)
        elif "result" in item:
            result = item["result"]
            text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
            self.substep("tool_output", {"output": text, "status": item.get("status")}, call_id, at)

    def _codex_web_search(self, item: dict[str, Any], at: str | None) -> None:
        self._codex_tool(item, at, "web_search", {"query": item.get("query", "")})

    def _codex_collab(self, item: dict[str, Any], at: str | None) -> None:
        tool = str(item.get("tool", "collab_tool_call"))
        fields = {k: v for k, v in item.items() if k not in ("id", "type", "tool")}
        self._codex_tool(item, at, tool, fields)

    def _codex_todo(self, item: dict[str, Any], at: str | None) -> None:
        items = _list(item.get("items"))
        done = len([t for t in items if isinstance(t, dict) and t.get("completed") is True])
        self.status("todo_list", f"{len(items)} todos ({done} completed)", at, items=items)

    def _codex_reasoning(self, item: dict[str, Any], at: str | None) -> None:
        fields = {k: v for k, v in item.items() if k not in ("type",)}
        self.status("reasoning", one_line(item.get("text")), at, **fields)

    def _codex_error(self, item: dict[str, Any], at: str | None) -> None:
        fields = {k: v for k, v in item.items() if k not in ("type",)}
        self.status("error", one_line(item.get("message")), at, **fields)


_CODEX_ITEMS: dict[str, Any] = {
    "file_change": _StreamBuilder._codex_file_change,
    "mcp_tool_call": _StreamBuilder._codex_mcp,
    "web_search": _StreamBuilder._codex_web_search,
    "collab_tool_call": _StreamBuilder._codex_collab,
    "todo_list": _StreamBuilder._codex_todo,
    "reasoning": _StreamBuilder._codex_reasoning,
    "error": _StreamBuilder._codex_error,
}
"""Codex ``item.completed`` item types other than messages and commands, and their handler."""


def one_line(value: Any, limit: int = 200) -> str:
    """A one-line preview of a text (whitespace runs collapsed), cut to ``limit`` characters."""
    if not isinstance(value, str):
        return "" if value is None else one_line(json.dumps(value, ensure_ascii=False), limit)
    text = " ".join(value.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


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
                source = ev.get("source") if ev.get("source") in SOURCES else None
                call_id = ev.get("call_id") if isinstance(ev.get("call_id"), str) else None
                payload = ev.get("payload", {})
                step.add(
                    str(kind),
                    payload,
                    call_id=call_id,
                    timestamp=at,
                    turn=turn,
                    event=event_id,
                    source=None if source is None else str(source),
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


def extra_locations(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """``(pointer, what)`` for each key of the run's, the steps' and the substeps' ``extra``."""
    out: list[tuple[str, str]] = []
    for key in doc.get("extra") or {}:
        out.append((pointer("extra", key), f"run extra {key!r}"))
    for i, step in enumerate(doc.get("steps") or []):
        for key in step.get("extra") or {}:
            out.append((pointer("steps", i, "extra", key), f"step extra {key!r}"))
        for j, sub in enumerate(step.get("substeps") or []):
            for key in sub.get("extra") or {}:
                out.append(
                    (pointer("steps", i, "substeps", j, "extra", key), f"substep extra {key!r}")
                )
    return out


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


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
