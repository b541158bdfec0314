"""Provider streams: JSON Lines files that are a whole run's event stream, not documents.

A Codex ``exec --json``, Claude Code ``stream-json`` or Gemini CLI ``stream-json`` log (or a
log of normalized legacy turn events) is one run, not one document per line. Validation reports
it once per file (``input:provider-stream``) instead of one unknown-format finding per line;
``atif convert FILE --to step-substep@v1.0`` turns it into a run log.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Final

import orjson

from atif_spec.formats import atof, detect

SNIFF_BYTES: Final = 64 * 1024
"""How much of a file's start is read to recognize a stream."""
SNIFF_LINES: Final = 50
NAMES: Final = {
    "codex": "Codex exec --json",
    "claude": "Claude Code stream-json",
    "gemini": "Gemini CLI stream-json",
    "legacy": "legacy turn event",
    "atof": "ATOF event",
}
"""Each stream kind's name in messages."""
# The event types of each provider's stream (their documented "type" values).
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
CLAUDE_TYPES = frozenset({"assistant", "user", "system", "rate_limit_event"})
GEMINI_TYPES = frozenset(
    {"init", "message", "tool_use", "tool_result", "tool_output", "tool_error", "tool_retry"}
)


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


@functools.cache
def known_types() -> frozenset[str]:
    """Event types the three providers (and gza's own lines) document; at least half of the
    sampled events must have one, so an unrelated log with a ``type`` member is not a stream.
    """

    shared = {"result", "error", "stream_event", "gza", "raw"}
    return frozenset(CLAUDE_TYPES | CODEX_TYPES | GEMINI_TYPES | shared)


def sniff_stream(head: bytes) -> str | None:
    """The stream kind (a key of :data:`NAMES`) of a JSON Lines file starting with ``head``;
    None when its first lines are not all events of one provider stream (an unparsable line,
    a non-object, or a line that is a document of a known format all say "not a stream").
    An ATOF stream (``atof``) may hold unparsable lines: it is validated as one document, and
    they are findings of it."""

    lines = head.split(b"\n")
    if len(head) >= SNIFF_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut off
    events: list[Any] = []
    broken = False
    for line in lines:
        if not line.strip():
            continue
        try:
            events.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            broken = True
        if len(events) >= SNIFF_LINES:
            break
    if atof.looks_like_stream(events):
        return "atof"
    if broken or not all(isinstance(e, dict) and detect(e) is None for e in events):
        return None
    if not events or not all("type" in e or "legacy_event_id" in e for e in events):
        return None

    kind = detect_stream(events)
    if kind in (None, "legacy"):
        return kind
    types = known_types()
    known = sum(1 for e in events if e.get("type") in types)
    return kind if 2 * known >= len(events) else None


def convert_hint(source: str, kind: str) -> str:
    """The message of an ``input:provider-stream`` finding."""
    if source == "<stdin>":  # convert reads a stream from a file, not from stdin
        source = "FILE.jsonl"
    return (
        f"a {NAMES.get(kind, kind)} provider stream (one run, not one document per line); "
        f"convert it with: atif convert {source} --to step-substep@v1.0"
    )


def converted_note(kind: str) -> str:
    """What ``view`` and ``stats`` say of a provider stream they read: converted in memory."""
    return (
        f"a {NAMES.get(kind, kind)} provider stream, converted in memory to "
        "step-substep@v1.0 and on to ATIF as atif convert does (atif convert FILE --to "
        "atif@v1.8 writes it)"
    )
