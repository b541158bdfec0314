"""ATOF 0.1 rules: the rules of the stream, which no schema of one event can state.

The document is the list of a stream's events (``atif_spec.formats.atof``); pointers are
``/i/...`` for the ``i``-th event, and the report places each on its line. Sections cite the ATOF
core specification as ``nvidia-nat-atif`` 1.9.0 quotes it and ``spec/atof/DECISIONS.md``
(``ATOF-n``). Events that are not objects, or fields of the wrong type, are skipped here and left
to the schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from atif_spec.formats import atof
from atif_spec.jsonio.pointers import join
from atif_spec.validation.findings import Level
from atif_spec.validation.rules.registry import RuleContext, rule

FORMAT = "atof"
VERSIONS = atof.VERSIONS

Found = Iterator[tuple[str, str]]


@dataclass
class Scopes:
    """Where each scope's start and end events are (first of each), and the repeats."""

    starts: dict[str, int] = field(default_factory=dict)
    ends: dict[str, int] = field(default_factory=dict)
    repeated: list[tuple[int, str]] = field(default_factory=list)
    """``(index, "start"|"end")`` of a second start or end of the same ``uuid``."""


def _scopes(events: Any) -> Scopes:
    found = Scopes()
    if not isinstance(events, list):
        return found
    for index, event in enumerate(events):
        uuid = event.get("uuid") if atof.is_event(event) else None
        if not isinstance(uuid, str):
            continue
        for phase, seen in (("start", found.starts), ("end", found.ends)):
            if event.get("kind") == "scope" and event.get("scope_category") == phase:
                if uuid in seen:
                    found.repeated.append((index, phase))
                else:
                    seen[uuid] = index
    return found


def _events(ctx: RuleContext) -> list[tuple[int, dict[str, Any]]]:
    """``(index, event)`` of each ATOF event of the stream."""
    node = ctx.node if isinstance(ctx.node, list) else []
    return [(i, e) for i, e in enumerate(node) if atof.is_event(e)]


@rule(
    code="ATOF101",
    name="end-without-start",
    level=Level.ERROR,
    format=FORMAT,
    versions=VERSIONS,
    section="ATOF §3.1, §5.3 (start and end share the uuid); spec/atof/DECISIONS.md ATOF-4",
    summary="A scope end event has no start event with the same uuid.",
)
def end_without_start(ctx: RuleContext) -> Found:
    """*What it checks*: every ``scope`` event with ``scope_category`` ``end`` has a ``start``
    event with the same ``uuid`` in the stream. Pointer: the end event's ``uuid``.

    *Why*: a scope is pushed by its start and popped by its end; an end alone tells neither when
    the work began nor what it was asked, and a consumer cannot pair it.

    *Example*: a tool scope's end with ``uuid`` ``t1`` and no start ``t1``.

    *Valid instead*: the start event ``t1`` earlier in the stream.

    *Spec*: ATOF §3.1, §5.3; spec/atof/DECISIONS.md ATOF-4.
    """
    scopes = ctx.memoized("atof-scopes", _scopes)
    for uuid, index in scopes.ends.items():
        if uuid not in scopes.starts:
            yield join(ctx.base, index, "uuid"), f"scope {uuid!r} ends but never starts"


@rule(
    code="ATOF102",
    name="start-without-end",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="ATOF §3.1, §5.3; spec/atof/DECISIONS.md ATOF-4",
    summary="A scope start event has no end event with the same uuid (the scope never closes).",
)
def start_without_end(ctx: RuleContext) -> Found:
    """*What it checks*: every ``scope`` start has an ``end`` with the same ``uuid``. Pointer: the
    start event's ``uuid``.

    *Why*: a stream cut short (a crash, a stream still being written) leaves scopes open; the
    events before the cut are still good data, so this is a warning, not an error.

    *Example*: an ``llm`` scope starts and the stream ends.

    *Valid instead*: its end event with the same ``uuid``.

    *Spec*: ATOF §3.1, §5.3; spec/atof/DECISIONS.md ATOF-4.
    """
    scopes = ctx.memoized("atof-scopes", _scopes)
    for uuid, index in scopes.starts.items():
        if uuid not in scopes.ends:
            yield join(ctx.base, index, "uuid"), f"scope {uuid!r} starts but never ends"


@rule(
    code="ATOF103",
    name="repeated-scope-event",
    level=Level.ERROR,
    format=FORMAT,
    versions=VERSIONS,
    section="ATOF §5.3 (one start and one end per scope); spec/atof/DECISIONS.md ATOF-4",
    summary="A scope has a second start, or a second end, with the same uuid.",
)
def repeated_scope_event(ctx: RuleContext) -> Found:
    """*What it checks*: no ``uuid`` has two ``start`` events or two ``end`` events. Pointer: the
    repeated event's ``uuid``.

    *Why*: a uuid names one span; a second start makes the pairing (and the tree of parents)
    ambiguous.

    *Example*: two start events with ``uuid`` ``a1``.

    *Valid instead*: a fresh uuid for the second scope.

    *Spec*: ATOF §5.3; spec/atof/DECISIONS.md ATOF-4.
    """
    scopes = ctx.memoized("atof-scopes", _scopes)
    for index, phase in scopes.repeated:
        uuid = ctx.node[index]["uuid"]
        yield join(ctx.base, index, "uuid"), f"scope {uuid!r} has a second {phase} event"


@rule(
    code="ATOF104",
    name="end-before-start",
    level=Level.ERROR,
    format=FORMAT,
    versions=VERSIONS,
    section="ATOF §5.1 (timestamps), §5.3; spec/atof/DECISIONS.md ATOF-5",
    summary="A scope's end event is earlier than its start (by timestamp, or in the file).",
)
def end_before_start(ctx: RuleContext) -> Found:
    """*What it checks*: a scope's end comes after its start: its ``timestamp`` is not earlier
    (RFC 3339 text and integer microseconds compared as instants), and it is not on an earlier
    line. Pointer: the end event's ``timestamp``, or its ``uuid`` when only the order is wrong.

    *Why*: a span that ends before it starts has a negative duration; readers that sort by
    time (nat's ``read_jsonl``) would see the end first and cannot pair it.

    *Example*: start at ``2026-01-01T00:00:05Z``, end at ``2026-01-01T00:00:01Z``.

    *Valid instead*: the end's time at or after the start's.

    *Spec*: ATOF §5.1, §5.3; spec/atof/DECISIONS.md ATOF-5.
    """
    scopes = ctx.memoized("atof-scopes", _scopes)
    for uuid, end in scopes.ends.items():
        start = scopes.starts.get(uuid)
        if start is None:
            continue
        begun = atof.micros(ctx.node[start].get("timestamp"))
        ended = atof.micros(ctx.node[end].get("timestamp"))
        if begun is not None and ended is not None and ended < begun:
            yield join(ctx.base, end, "timestamp"), f"scope {uuid!r} ends before it starts"
        elif end < start:
            yield join(ctx.base, end, "uuid"), f"scope {uuid!r} ends on a line before its start"


@rule(
    code="ATOF105",
    name="unknown-parent",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="ATOF §2 (parent_uuid: the enclosing scope); spec/atof/DECISIONS.md ATOF-6",
    summary="An event's parent_uuid names no scope of the stream.",
)
def unknown_parent(ctx: RuleContext) -> Found:
    """*What it checks*: each ``parent_uuid`` names a scope that starts in the stream. Pointer:
    the ``parent_uuid``.

    *Why*: the parent links build the call tree (which tool belongs to which agent); a link to
    nothing makes the event a second root. A stream written from the middle of a run (the
    parent outside the file) is possible, so this is a warning.

    *Example*: a tool scope with ``parent_uuid`` ``agent-9`` and no scope ``agent-9``.

    *Valid instead*: the parent scope's events in the stream, or ``parent_uuid`` null.

    *Spec*: ATOF §2; spec/atof/DECISIONS.md ATOF-6.
    """
    scopes = ctx.memoized("atof-scopes", _scopes)
    for index, event in _events(ctx):
        parent = event.get("parent_uuid")
        if isinstance(parent, str) and parent not in scopes.starts:
            yield join(ctx.base, index, "parent_uuid"), f"no scope {parent!r} starts in the stream"


def _outside(event: dict[str, Any], start: dict[str, Any], end: dict[str, Any] | None) -> bool:
    """True when ``event``'s time is before ``start``'s or after ``end``'s."""
    at = atof.micros(event.get("timestamp"))
    begun = atof.micros(start.get("timestamp"))
    if at is None or begun is None:
        return False
    if at < begun:
        return True
    ended = atof.micros(end.get("timestamp")) if end is not None else None
    return ended is not None and at > ended


@rule(
    code="ATOF106",
    name="outside-parent-scope",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="ATOF §5.3 (scopes nest on the active scope stack); spec/atof/DECISIONS.md ATOF-5",
    summary="An event's time is before its parent scope starts or after it ends.",
)
def outside_parent_scope(ctx: RuleContext) -> Found:
    """*What it checks*: an event with a ``parent_uuid`` happens while its parent scope is open:
    not before the parent's start nor after its end (as instants). Pointer: the event's
    ``timestamp``.

    *Why*: a child is pushed onto the scope stack above its parent; a child outside its parent's
    lifetime means the clock or the parent link is wrong, and a converter that walks the stream
    in time order attaches it to the wrong turn.

    *Example*: a tool scope that starts a second after its agent scope ended.

    *Valid instead*: the tool's events between the agent's start and end.

    *Spec*: ATOF §5.3; spec/atof/DECISIONS.md ATOF-5.
    """
    scopes = ctx.memoized("atof-scopes", _scopes)
    for index, event in _events(ctx):
        parent = event.get("parent_uuid")
        start = scopes.starts.get(parent) if isinstance(parent, str) else None
        if start is None:
            continue
        end = scopes.ends.get(parent)
        if _outside(event, ctx.node[start], ctx.node[end] if end is not None else None):
            yield (
                join(ctx.base, index, "timestamp"),
                f"the event is outside the lifetime of its parent scope {parent!r}",
            )


@rule(
    code="ATOF107",
    name="unknown-atof-version",
    level=Level.ERROR,
    format=FORMAT,
    versions=VERSIONS,
    section="ATOF §2, §5.6 (atof_version); spec/atof/DECISIONS.md ATOF-3",
    summary="An event declares an atof_version other than 0.1.",
)
def unknown_atof_version(ctx: RuleContext) -> Found:
    """*What it checks*: every event's ``atof_version`` (0.1 when absent) is ``0.1``. Pointer:
    the ``atof_version``.

    *Why*: the schema accepts any ``0.MINOR`` as nat's model does, but this validator knows the
    fields and rules of 0.1 only; a later minor version may mean something else by them.

    *Example*: ``"atof_version": "0.2"``.

    *Valid instead*: ``"atof_version": "0.1"``.

    *Spec*: ATOF §2, §5.6; spec/atof/DECISIONS.md ATOF-3.
    """
    for index, event in _events(ctx):
        version = event.get("atof_version", atof.WIRE_VERSION)
        if isinstance(version, str) and version != atof.WIRE_VERSION:
            yield (
                join(ctx.base, index, "atof_version"),
                f"atof_version {version!r}: this validator knows {atof.WIRE_VERSION} only",
            )


@rule(
    code="ATOF108",
    name="attributes-not-canonical",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="ATOF §2.1 (a sorted, deduplicated, lowercase array); spec/atof/DECISIONS.md ATOF-7",
    summary="A scope's attributes are not sorted, repeat a flag, or are not lowercase.",
)
def attributes_not_canonical(ctx: RuleContext) -> Found:
    """*What it checks*: a scope event's ``attributes`` are lowercase, sorted and without
    repeats. Pointer: the ``attributes``.

    *Why*: the spec's wire form is canonical so that two streams with the same flags are the same
    bytes; nat's model reorders them on reading, so a non-canonical array does not round-trip.

    *Example*: ``["streaming", "parallel"]``.

    *Valid instead*: ``["parallel", "streaming"]``.

    *Spec*: ATOF §2.1; spec/atof/DECISIONS.md ATOF-7.
    """
    for index, event in _events(ctx):
        flags = event.get("attributes")
        if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
            continue
        if flags != sorted(set(flags)) or any(f != f.lower() for f in flags):
            yield (
                join(ctx.base, index, "attributes"),
                f"attributes {flags!r} are not lowercase, sorted and without repeats",
            )


@rule(
    code="ATOF109",
    name="scope-ends-disagree",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="ATOF §3.1 (a start/end pair describes one scope); spec/atof/DECISIONS.md ATOF-4",
    summary="A scope's end names another category, name or parent than its start.",
)
def scope_ends_disagree(ctx: RuleContext) -> Found:
    """*What it checks*: a scope's end event has the same ``category``, ``name`` and
    ``parent_uuid`` as its start. Pointer: the end event's field that differs.

    *Why*: both events describe one span; converters read the category from the start (nat's
    category map) and the payload from the end, so a mismatch makes them disagree on what the
    span was.

    *Example*: start ``category`` ``tool``, end ``category`` ``function``.

    *Valid instead*: the same category, name and parent on both.

    *Spec*: ATOF §3.1; spec/atof/DECISIONS.md ATOF-4.
    """
    scopes = ctx.memoized("atof-scopes", _scopes)
    for uuid, end in scopes.ends.items():
        start = scopes.starts.get(uuid)
        if start is None:
            continue
        for key in ("category", "name", "parent_uuid"):
            if ctx.node[start].get(key) != ctx.node[end].get(key):
                yield (
                    join(ctx.base, end, key),
                    f"the end of scope {uuid!r} has another {key} than its start",
                )


@rule(
    code="ATOF110",
    name="category-outside-vocabulary",
    level=Level.WARNING,
    format=FORMAT,
    versions=VERSIONS,
    section="ATOF §4 (closed vocabulary), §4.3; spec/atof/DECISIONS.md ATOF-8",
    summary="A category is not one of the spec's eleven (use custom with a subtype).",
)
def category_outside_vocabulary(ctx: RuleContext) -> Found:
    """*What it checks*: each ``category`` is one of ``agent``, ``function``, ``llm``, ``tool``,
    ``retriever``, ``embedder``, ``reranker``, ``guardrail``, ``evaluator``, ``custom``,
    ``unknown``. Pointer: the ``category``.

    *Why*: producers must use the closed vocabulary (``custom`` plus
    ``category_profile.subtype`` for their own kinds); consumers must not reject other values,
    so this is a warning, not an error.

    *Example*: ``"category": "context"``.

    *Valid instead*: ``"category": "custom", "category_profile": {"subtype": "context"}``.

    *Spec*: ATOF §4, §4.3; spec/atof/DECISIONS.md ATOF-8.
    """
    for index, event in _events(ctx):
        category = event.get("category")
        if isinstance(category, str) and category and category not in atof.CATEGORIES:
            yield (
                join(ctx.base, index, "category"),
                f"category {category!r} is not in the ATOF vocabulary",
            )
