"""A lens as two plain mappings plus the stash of their difference (RFC.md §4.5).

A format mapping is written as a pair of deterministic functions, ``forward`` (source to target)
and ``backward`` (target to source), that need not be inverses. :func:`run_lens` makes them
lossless: it compares the source document with ``backward(forward(source))`` and records, in one
stash layer signed by the lens, the entries that turn the rebuilt document back into the source
(``removed`` for values the target cannot hold, ``replaced`` for values that come back
different, ``added`` for values the way back invents). The layer's entries are made and undone
by :mod:`atif_spec.stash` itself, relative to the source document's root (the owner: a
conversion rebuilds every object below the root, so no smaller owner survives it). The layer is
stored in one designated ``extra``-like object of the target (its *holder*, e.g. ``/extra`` for
ATIF, ``/telemetry/data`` for trajectory-sdk).

The inverse lens first takes that layer off (it must be on top and signed by the forward lens),
maps the rest with its own ``forward`` and undoes the layer's entries, so
``inverse(lens(doc)) == doc``. It then records its own difference the same way.

Objects that the rebuilt document shares between several places (the messages repeated by every
cumulative trajectory-sdk snapshot) are compared once: an entry below the first place restores
every place, so a difference costs one entry, not one per snapshot.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from atif_spec.changes import ChangeReport, Item
from atif_spec.convert import ConversionError
from atif_spec.stash import STASH_KEY, STASH_VERSION, Layer, StashError, is_stash, make_pointer, pop

Doc = dict[str, Any]
Mapping = Callable[[Doc, ChangeReport | None], Doc]
"""A plain mapping; reports the values it synthesizes to the report when one is given."""

_HOLDER = "\x00holder"
"""A key no document has: where layers are attached while their entries are made or undone."""


def deep_copy(value: Any) -> Any:
    """An independent copy of a JSON value."""
    if not isinstance(value, (dict, list)):
        return value
    try:
        return orjson.loads(orjson.dumps(value))
    except TypeError:  # integers beyond 64 bits
        return copy.deepcopy(value)


def shared_copy(value: Any) -> Any:
    """An independent copy that keeps sharing: an object found in several places is copied
    once (a trajectory-sdk document built in memory repeats one message object per snapshot,
    and serializing it whole would take quadratic memory)."""
    memo: dict[int, Any] = {}

    def cp(v: Any) -> Any:
        if isinstance(v, dict):
            found = memo.get(id(v))
            if found is None:
                found = memo[id(v)] = {k: cp(x) for k, x in v.items()}
            return found
        if isinstance(v, list):
            found = memo.get(id(v))
            if found is None:
                found = memo[id(v)] = [cp(x) for x in v]
            return found
        return v

    return cp(value)


def same(a: Any, b: Any) -> bool:
    """Strict JSON equality: types, key order and values (``1``, ``1.0`` and ``true`` differ)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return len(a) == len(b) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@dataclass(frozen=True, slots=True)
class Holder:
    """Where a format keeps the stash of a converted document: a path of object keys."""

    path: tuple[str, ...]

    @property
    def pointer(self) -> str:
        """The holder's pointer from the root."""
        return make_pointer(*self.path)

    def _parent(self, doc: Doc, create: bool) -> Doc | None:
        node: Any = doc
        for key in self.path[:-1]:
            if not isinstance(node, dict):
                return None
            if create and not isinstance(node.get(key), dict):
                node[key] = {}
            node = node.get(key)
        return node if isinstance(node, dict) else None

    def take(self, doc: Doc, by: str) -> dict[str, Any] | None:
        """Remove and return the top layer if ``by`` wrote it here (``doc`` is changed)."""
        parent = self._parent(doc, create=False)
        key = self.path[-1]
        extra = parent.get(key) if parent is not None else None
        if parent is None or not isinstance(extra, dict) or not is_stash(extra.get(STASH_KEY)):
            return None
        layers = extra[STASH_KEY]["layers"]
        top = layers[-1] if layers else None
        if not isinstance(top, dict) or top.get("by") != by or top.get("holder") != self.pointer:
            return None
        rest = {k: v for k, v in extra.items() if k != STASH_KEY}
        if len(layers) > 1:
            parent[key] = {**extra, STASH_KEY: {**extra[STASH_KEY], "layers": layers[:-1]}}
        elif rest or top.get("created") not in ("absent", "null"):
            parent[key] = rest
        elif top.get("created") == "null":
            parent[key] = None
        else:
            del parent[key]
        return top

    def put(self, doc: Doc, layer: dict[str, Any]) -> None:
        """Push ``layer`` onto the holder's stash (creating the holder when needed)."""
        parent = self._parent(doc, create=True)
        if parent is None:
            raise StashError(self.pointer, "the stash holder's parent is not an object")
        key = self.path[-1]
        extra = parent.get(key, _ABSENT)
        if extra is _ABSENT or extra is None:
            layer = {**layer, "created": "absent" if extra is _ABSENT else "null"}
            parent[key] = {STASH_KEY: {"version": STASH_VERSION, "layers": [layer]}}
            return
        if not isinstance(extra, dict):
            raise StashError(self.pointer, "the stash holder is not an object")
        current = extra.get(STASH_KEY, _ABSENT)
        if current is not _ABSENT and not is_stash(current):
            raise StashError(
                make_pointer(*self.path, STASH_KEY),
                f"the reserved key {STASH_KEY!r} holds data that is not a stash",
            )
        layers = [] if current is _ABSENT else list(current["layers"])
        parent[key] = {**extra, STASH_KEY: {"version": STASH_VERSION, "layers": [*layers, layer]}}


_ABSENT: Any = object()


class _Differ:
    """Records the entries that undo ``rebuilt`` into ``original`` (forward ops on ``original``).

    Containers that ``original`` shares between places are copied before anything below them
    changes, so that a change made through one place does not show through another.
    """

    def __init__(self, layer: Layer, original: Any, rebuilt: Any) -> None:
        self.layer = layer
        self.shared = _shared_ids(rebuilt)
        self.original_shared = _shared_ids(original)
        self.seen: dict[int, Any] = {}
        """Shared rebuilt containers already compared, by identity, with a copy of the
        original they were compared with (taken before the layer changed it)."""

    def diff(self, path: tuple[str | int, ...], parent: Any, key: str | int, b: Any) -> None:
        a = parent[key]
        if path and id(b) in self.shared:
            first = self.seen.get(id(b), _ABSENT)
            if first is not _ABSENT:
                if not same(a, first):
                    self.layer.replace(path, b)
                return
            self.seen[id(b)] = deep_copy(a)
        if isinstance(a, (dict, list)) and id(a) in self.original_shared:
            a = parent[key] = a.copy()  # copy on write; the children are now shared too
            self.original_shared.update(
                id(v)
                for v in (a.values() if isinstance(a, dict) else a)
                if isinstance(v, (dict, list))
            )
        if isinstance(a, dict) and isinstance(b, dict):
            self._dicts(path, a, b)
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, y in enumerate(b):
                self.diff((*path, i), a, i, y)
        elif not same(a, b):
            self.layer.replace(path, b)

    def _dicts(self, path: tuple[str | int, ...], a: Doc, b: Doc) -> None:
        common_a = [k for k in a if k in b]
        if common_a != [k for k in b if k in a]:
            if path:
                self.layer.replace(path, b)
                return
            common_a = []  # the root: remove every key, then add every key
        for k in [k for k in a if k not in b or k not in common_a]:
            self.layer.remove((*path, k))
        for k in common_a:
            self.diff((*path, k), a, k, b[k])
        for position, k in enumerate(b):
            if k not in common_a:
                self.layer.add((*path, k), b[k], position)


def _shared_ids(value: Any) -> set[int]:
    """Identities of the containers found more than once below ``value``."""
    seen: set[int] = set()
    shared: set[int] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if not isinstance(v, (dict, list)):
            continue
        if id(v) in seen:
            shared.add(id(v))
            continue
        seen.add(id(v))
        stack.extend(v.values() if isinstance(v, dict) else v)
    return shared


def record(original: Doc, rebuilt: Doc, by: str) -> list[dict[str, Any]]:
    """Entries that, undone on ``rebuilt``, give ``original`` (``original`` is changed)."""
    layer = Layer(original, by, (_HOLDER,))
    _Differ(layer, original, rebuilt)._dicts((), original, rebuilt)
    return layer.entries


def undo(doc: Doc, layer: dict[str, Any], by: str) -> list[tuple[str, str]]:
    """Undo a layer's entries on ``doc`` in place; returns ``(pointer, conflict)`` pairs."""
    doc[_HOLDER] = {
        STASH_KEY: {
            "version": STASH_VERSION,
            "layers": [{**layer, "holder": make_pointer(_HOLDER), "created": "absent"}],
        }
    }
    changes = pop(doc, by, (_HOLDER,))
    doc.pop(_HOLDER, None)
    return [(make_pointer(*c.path), c.conflict) for c in changes if c.conflict is not None]


_REASONS = {
    "removed": "{target} has no place for this value",
    "replaced": "{target} cannot hold this value as it is",
    "added": "the way back through {target} adds this value",
}


def run_lens(
    doc: Doc,
    report: ChangeReport,
    *,
    name: str,
    inverse: str,
    forward: Mapping,
    backward: Mapping,
    source_holder: Holder,
    target_holder: Holder,
    drop: bool,
) -> Doc:
    """Convert ``doc`` with ``forward``, keeping what does not survive in ``target_holder``.

    ``name`` is the lens signature (``SOURCE->TARGET``), ``inverse`` the signature of the lens
    going back. A layer that the inverse lens left in ``source_holder`` is taken off first and
    undone after mapping. ``doc`` is not modified.
    """
    target = name.partition("->")[2]
    work = shared_copy(doc)
    previous = source_holder.take(work, inverse)
    out = forward(work, report)
    conflicts: list[tuple[str, str]] = []
    if previous is not None:
        conflicts = undo(out, previous, inverse)
        for ptr, conflict in conflicts:
            report.dropped.append(Item(ptr, name, f"stashed value discarded: {conflict}"))
    try:
        rebuilt = backward(out, None)
    except ConversionError as exc:  # the way back refuses what this lens wrote
        report.errors.extend(exc.report.errors)
        raise ConversionError(report) from None
    entries = record(work, rebuilt, name)
    if previous is not None and not conflicts and not entries:
        # the output is exactly what the inverse lens was given: nothing was invented
        report.decided = [i for i in report.decided if i.step != name]
    for entry in entries:
        op = entry["op"]
        value = entry.get("value")
        reason = _REASONS[op].format(target=target)
        loss = op != "added" and value is not None
        if drop:
            report.dropped.append(Item(entry["pointer"], name, reason, loss=loss))
        else:
            report.stashed.append(
                Item(entry["pointer"], name, reason, stash=target_holder.pointer, loss=loss)
            )
    if entries and not drop:
        target_holder.put(out, {"by": name, "holder": target_holder.pointer, "entries": entries})
    return out
