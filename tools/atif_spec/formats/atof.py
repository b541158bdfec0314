"""ATOF, the Agentic Trajectory Observability Format (NVIDIA NeMo Agent Toolkit, spec 0.1): a
JSON Lines stream of scope and mark events that together describe one run.

A stream is one document: in memory, the list of its events in file order (the event at index
``i`` is the ``i``-th non-blank line; findings point at ``/i/...`` and carry that line). Each
event is checked against ``spec/atof/v0.1/event.schema.json``; the rules of the stream (a scope's
start and end share a ``uuid``, the end after the start, parents before children) are the
``ATOF1xx`` rules. Facts of the model: the category vocabulary, the flags, the two kinds, and
the timestamp in microseconds (RFC 3339 text or an integer, spec §5.1).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from atif_spec.formats import FormatSpec

VERSIONS: Final = ("v0.1",)
WIRE_VERSION: Final = "0.1"
"""The ``atof_version`` this validator knows (an event that omits it is 0.1)."""
KINDS: Final = ("scope", "mark")
"""The two event kinds (a tuple: a kind of any JSON type, a list too, can be looked up)."""
CATEGORIES: Final = frozenset(
    {
        "agent",
        "function",
        "llm",
        "tool",
        "retriever",
        "embedder",
        "reranker",
        "guardrail",
        "evaluator",
        "custom",
        "unknown",
    }
)
"""The closed vocabulary of spec §4 (consumers accept other values: spec §4.3)."""
FLAGS: Final = frozenset({"parallel", "relocatable", "stateful", "streaming", "remote"})
"""The canonical behavioural flags of spec §2.1 (vendors add ``vendor.name`` flags)."""


def is_event(value: Any) -> bool:
    """True for an object whose ``kind`` is one of the two ATOF event kinds."""
    return isinstance(value, dict) and value.get("kind") in KINDS


def looks_like_stream(events: list[Any]) -> bool:
    """True when every item is an object (none a legacy turn event) and at least half of them
    are ATOF events: a stream with a few broken events is still a stream."""
    if not events or not all(isinstance(e, dict) for e in events):
        return False
    if any("legacy_event_id" in e for e in events):
        return False
    return 2 * sum(1 for e in events if is_event(e)) >= len(events)


def detect(doc: Any) -> str | None:
    """``v0.1`` for a list of events that :func:`looks_like_stream`; None otherwise (a single
    event is no document: the stream is)."""
    if isinstance(doc, list) and looks_like_stream(doc):
        return VERSIONS[-1]
    return None


def micros(timestamp: Any) -> int | None:
    """The event time in microseconds since the epoch (spec §5.1): an integer as written, an
    RFC 3339 string with an offset converted; None for anything else."""
    if isinstance(timestamp, bool):
        return None
    if isinstance(timestamp, int):
        return timestamp if timestamp >= 0 else None
    if not isinstance(timestamp, str):
        return None
    try:
        parsed = datetime.fromisoformat(timestamp.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return None
    return int(parsed.timestamp() * 1_000_000)


def is_start(event: Any) -> bool:
    """True for a scope event with ``scope_category`` ``start``."""
    return is_event(event) and event["kind"] == "scope" and event.get("scope_category") == "start"


def is_end(event: Any) -> bool:
    """True for a scope event with ``scope_category`` ``end``."""
    return is_event(event) and event["kind"] == "scope" and event.get("scope_category") == "end"


def profile(event: dict[str, Any]) -> dict[str, Any]:
    """The event's ``category_profile`` (empty when absent or not an object)."""
    found = event.get("category_profile")
    return found if isinstance(found, dict) else {}


FORMAT = FormatSpec(
    name="atof",
    title="Agentic Trajectory Observability Format (NeMo Agent Toolkit event stream)",
    versions=VERSIONS,
    detect=detect,
    priority=40,
    stream=True,
)
