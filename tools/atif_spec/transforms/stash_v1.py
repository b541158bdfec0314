"""The stash: where a migration or conversion keeps what its target cannot hold.

One convention for every lossy-by-default transform (ATIF version steps, format conversions).
Normative text: ``RFC.md §4.5``; JSON Schema: ``spec/atif-spec/v1/stash.schema.json``.

- One reserved key, :data:`STASH_KEY`, inside an ``extra`` object of the target document.
- Its value is ``{"version": 1, "layers": [...]}``: a stack. Each transform step that changes
  things below one *owner* object pushes one layer onto the stash of the owner's nearest ``extra``
  (its *holder*); the inverse step pops exactly the layers on top that name it, and only those.
- A layer lists entries in the order they were made; undoing them in reverse order restores the
  owner exactly, including key order. Entry pointers are relative to the owner, so a layer stays
  correct when its owner moves (a subagent stashed whole, a root ``extra`` moved to ``agent``).
- ``removed`` entries hold a value the target cannot hold; ``added`` and ``replaced`` entries mark
  values a step synthesized (with a fingerprint of what it wrote), so the way back removes them;
  ``moved`` entries are value-less: they record that a step put a value under a named key of a
  free-form object (where a reader finds it), so that only the way back reads it from there.
  A layer may instead declare such keys once, as ``named`` patterns (:class:`NamedKeys`).
  ``placed`` entries are value-less too: a member the target holds whose key position the way
  back does not restore; they name the member it follows.

This module is generic: callers say which object owns a change and where its holder is
(``("extra",)`` for most objects; ``("agent", "extra")`` for an ATIF v1.0 root).
"""

from __future__ import annotations

import copy
import functools
import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard

import orjson

from atif_spec.jsonio import jsontext
from atif_spec.jsonio.jsontext import canonical_json
from atif_spec.jsonio.pointers import parse_pointer
from atif_spec.jsonio.pointers import pointer as make_pointer
from atif_spec.transforms.mapping import named_keys, pattern_matches

STASH_KEY = "_atif_stash"
"""The reserved key, inside an ``extra`` object, that holds a stash."""
STASH_VERSION = 1
"""Version of the stash structure written by this module."""
DEFAULT_HOLDER = "/extra"
"""The holder a layer without ``holder`` names (RFC.md §4.5.2)."""
ALL_NAMED = "*"
"""The ``named`` item that stands for every named key the registry lists for the layer's step."""
_LAYER_ORDER = ("by", "holder", "entries", "named", "foreign", "style", "created")

Path = tuple[str | int, ...]
Op = Literal["removed", "added", "replaced", "moved", "placed"]


class StashError(ValueError):
    """The stash cannot be written: the holder is not an object, or the key holds foreign data."""

    def __init__(self, pointer: str, message: str) -> None:
        super().__init__(message)
        self.pointer = pointer
        self.message = message


@dataclass(frozen=True, slots=True)
class Change:
    """One entry made (or undone) below an owner, for the caller's report."""

    op: Op
    path: Path
    """Path from the owner to the changed location."""
    value: Any = None
    """Removed value (``removed``), original value (``replaced``) or written value (``added``)."""
    conflict: str | None = None
    """When undoing: why the entry could not be undone (the document was edited meanwhile)."""


def fingerprint(value: Any) -> str:
    """Short, deterministic fingerprint of a JSON value (SHA-256 of its sorted-key JSON)."""
    return "sha256:" + hashlib.sha256(canonical_json(value)).hexdigest()[:16]


def is_stash(value: Any) -> TypeGuard[dict[str, Any]]:
    """True when ``value`` has the structure of a stash (the checks a writer relies on)."""
    if not isinstance(value, dict) or value.get("version") != STASH_VERSION:
        return False
    layers = value.get("layers")
    return isinstance(layers, list) and all(
        isinstance(layer, dict)
        and isinstance(layer.get("by"), str)
        and isinstance(layer.get("entries", []), list)
        for layer in layers
    )


def layer_holder(layer: dict[str, Any]) -> Any:
    """The holder pointer of a layer (``/extra`` when it names none)."""
    return layer.get("holder", DEFAULT_HOLDER)


def layer_entries(layer: dict[str, Any]) -> Any:
    """The entries of a layer (none when it lists none)."""
    return layer.get("entries", [])


def make_layer(by: str, holder: str, entries: list[dict[str, Any]], **rest: Any) -> dict[str, Any]:
    """A layer as written (RFC.md §4.5.2): members in their order, ``holder`` left out when it
    is ``/extra`` and ``entries`` when there are none; ``rest`` (``named``, ``foreign``,
    ``created``) as given."""
    members: dict[str, Any] = {"by": by, "holder": holder, "entries": entries, **rest}
    return compact_layer(members)


def compact_layer(layer: dict[str, Any]) -> dict[str, Any]:
    """``layer`` in its written form: known members in order, defaults left out."""
    ordered = {k: layer[k] for k in _LAYER_ORDER if k in layer}
    ordered.update((k, v) for k, v in layer.items() if k not in ordered)
    if ordered.get("holder") == DEFAULT_HOLDER:
        del ordered["holder"]
    if ordered.get("entries") == []:
        del ordered["entries"]
    return ordered


def deep_copy(value: Any) -> Any:
    """An independent copy of a JSON value (restored values must not alias the input)."""
    if isinstance(value, (dict, list)):
        try:
            return orjson.loads(orjson.dumps(value))  # noqa: TID251 - the fast path; TypeError below
        except TypeError:  # integers beyond 64 bits
            return copy.deepcopy(value)
    return value


def resolve(owner: Any, path: Sequence[str | int]) -> Any:
    """The value at ``path`` below ``owner``; LookupError when there is none."""
    node = owner
    for token in path:
        if isinstance(node, dict) and isinstance(token, str) and token in node:  # noqa: SIM114
            node = node[token]
        elif isinstance(node, list) and isinstance(token, int) and 0 <= token < len(node):
            node = node[token]
        else:
            raise LookupError(token)
    return node


def _tokens(container: Any, raw: list[str]) -> Path | None:
    """Typed tokens for ``raw`` below ``container`` (list indexes as ints), or None."""
    out: list[str | int] = []
    node = container
    for token in raw:
        if isinstance(node, list):
            if not token.isdigit():
                return None
            index = int(token)
            out.append(index)
            node = node[index] if index < len(node) else None
        elif isinstance(node, dict):
            out.append(token)
            node = node.get(token)
        else:
            return None
    return tuple(out)


WILDCARD = "*"
"""A pointer token that stands for every index where it meets an array (an ``added`` entry's
pointer, a ``named`` pattern); where it meets an object it is the key ``*``."""


def walk(container: Any, raw: Sequence[str]) -> tuple[list[tuple[Path, Any]], bool]:
    """The values at the places the pointer tokens ``raw`` name below ``container``, a ``*``
    token standing for every index of an array it meets; and whether one did."""
    nodes: list[tuple[Path, Any]] = [((), container)]
    wild = False
    for token in raw:
        found: list[tuple[Path, Any]] = []
        for path, node in nodes:
            if isinstance(node, list) and token == WILDCARD:
                wild = True
                found.extend(((*path, i), v) for i, v in enumerate(node))
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                found.append(((*path, int(token)), node[int(token)]))
            elif isinstance(node, dict) and token in node:
                found.append(((*path, token), node[token]))
        nodes = found
    return nodes, wild


def _members(
    container: Any, raw: Sequence[str], keep: Callable[[dict[str, Any], str], bool]
) -> list[Path] | None:
    """The object members at the places the pattern ``raw`` matches for which ``keep(object,
    key)`` holds; None when no ``*`` token meets an array (then ``raw`` names one place, read
    as usual)."""
    if not raw:
        return None
    nodes, wild = walk(container, raw[:-1])
    if not wild:
        return None
    key = raw[-1]
    return [
        (*path, key)
        for path, node in nodes
        if isinstance(node, dict) and key in node and keep(node, key)
    ]


def matches(container: Any, raw: Sequence[str], check: str) -> list[Path] | None:
    """The members a pattern ``added`` entry stands for below ``container``: those whose value
    has the fingerprint ``check`` (see :func:`_members`)."""
    return _members(container, raw, lambda node, key: fingerprint(node[key]) == check)


def placements(container: Any, raw: Sequence[str], after: str | None) -> list[Path] | None:
    """The members a pattern ``placed`` entry stands for below ``container``: those whose object
    also has ``after`` (any, when None; see :func:`_members`)."""
    return _members(
        container, raw, lambda node, key: after != key and (after is None or after in node)
    )


def follows(obj: dict[str, Any], key: str, after: str | None) -> bool:
    """Whether member ``key`` sits right after ``after`` in ``obj`` (first, when None)."""
    keys = list(obj)
    at = keys.index(key)
    return at == 0 if after is None else at > 0 and keys[at - 1] == after


def place_after(obj: dict[str, Any], key: str, after: str | None) -> None:
    """Move member ``key`` of ``obj`` right after member ``after`` (first, when None)."""
    value = obj.pop(key)
    insert_key(obj, key, value, 0 if after is None else list(obj).index(after) + 1)


def insert_key(obj: dict[str, Any], key: str, value: Any, position: int) -> None:
    """Insert ``key`` into ``obj`` in place so that it becomes the ``position``-th key."""
    if position >= len(obj):
        obj[key] = value
        return
    tail = [(k, obj.pop(k)) for k in list(obj)[position:]]
    obj[key] = value
    obj.update(tail)


def moved_entry(
    path: Path, position: int | None, to: Path, created: str | None = None
) -> dict[str, Any]:
    """The value-less ``moved`` entry (RFC.md §4.5.2) for a member taken from ``path`` (at key
    ``position``; None for an array element) and put at ``to``; ``created`` when putting it there
    created the object that holds it (``absent`` or ``null``)."""
    entry: dict[str, Any] = {"op": "moved", "pointer": make_pointer(*path)}
    if position is not None:
        entry["position"] = position
    entry["to"] = make_pointer(*to)
    if created is not None:
        entry["created"] = created
    return entry


@functools.cache
def _by_name(by: str) -> dict[str, frozenset[str]]:
    """The named-key patterns the mapping registry gives the step ``by``, by key name (the
    last token; keys that end in an array index, or whose name holds ``/`` or ``~``, have
    none)."""
    found: dict[str, set[str]] = {}
    for key in named_keys(by):
        name = key.rsplit("/", 1)[-1]
        if name and name != "*" and "~" not in name:
            found.setdefault(name, set()).add(key)
    return {name: frozenset(keys) for name, keys in found.items()}


@functools.cache
def _all_named(by: str) -> frozenset[str]:
    """Every named-key pattern the mapping registry gives the step ``by``."""
    return named_keys(by)


@dataclass(frozen=True, slots=True)
class NamedKeys:
    """A layer's declaration of the named keys its step wrote (RFC.md §4.5.2 item 7).

    ``patterns`` are owner-relative pointers in which ``*`` stands for any array index;
    ``foreign`` the concrete pointers of members a pattern matches that the step did not write
    (a producer's own key at that name). The declaration replaces one ``moved`` entry per key:
    the inverse reads back every member it :meth:`owns`, and nothing else.
    """

    patterns: tuple[str, ...]
    foreign: frozenset[str] = frozenset()

    @classmethod
    def of(cls, written: Iterable[Path], foreign: Iterable[Path] = ()) -> NamedKeys | None:
        """The declaration for members written at the paths ``written`` (array indexes as ints,
        generalized to ``*``) and producer members at ``foreign`` that the patterns match;
        None when nothing was written."""
        patterns = sorted(
            {make_pointer(*("*" if isinstance(t, int) else t for t in path)) for path in written}
        )
        if not patterns:
            return None
        made = cls(tuple(patterns))
        kept = frozenset(make_pointer(*path) for path in foreign)
        return cls(made.patterns, frozenset(p for p in kept if made.matches(p)))

    @classmethod
    def from_layer(cls, layer: Any) -> NamedKeys | None:
        """The declaration a layer carries, key names expanded into the patterns the mapping
        registry gives them for the layer's step (None when it has none or it is malformed:
        a key name the registry does not know for that step)."""
        if not isinstance(layer, dict):
            return None
        items = layer.get("named")
        foreign = layer.get("foreign", [])
        if not (isinstance(items, list) and items and isinstance(foreign, list)):
            return None
        if not all(isinstance(p, str) for p in [*items, *foreign]):
            return None
        patterns: set[str] = set()
        by = layer.get("by")
        for item in items:
            if item.startswith("/") or not item:
                patterns.add(item)
                continue
            if item == ALL_NAMED:
                expanded = _all_named(by) if isinstance(by, str) else None
            else:
                expanded = _by_name(by).get(item) if isinstance(by, str) else None
            if expanded is None:
                return None
            patterns.update(expanded)
        return cls(tuple(sorted(patterns)), frozenset(foreign))

    def merge(self, other: NamedKeys | None) -> NamedKeys:
        """Both declarations at once (several layers of one step on one holder)."""
        if other is None:
            return self
        patterns = tuple(sorted({*self.patterns, *other.patterns}))
        return NamedKeys(patterns, self.foreign | other.foreign)

    def matches(self, pointer: str | Path) -> bool:
        """True when a pattern matches ``pointer`` (a string, or a path of tokens)."""
        tokens = parse_pointer(pointer) if isinstance(pointer, str) else pointer
        return any(pattern_matches(parse_pointer(p), tokens) for p in self.patterns)

    def owns(self, pointer: str | Path) -> bool:
        """True when the step wrote the member at ``pointer``: a pattern matches, not foreign."""
        text = pointer if isinstance(pointer, str) else make_pointer(*pointer)
        return text not in self.foreign and self.matches(text)

    def places(self, owner: Any) -> list[Path]:
        """The paths of the members below ``owner`` that the step wrote, in pattern order."""
        return [path for path, _ in self.members(owner)]

    def members(self, owner: Any) -> list[tuple[Path, Any]]:
        """(path, value) of the members below ``owner`` that the step wrote, in pattern
        order."""
        found: list[tuple[Path, Any]] = []
        for pattern in self.patterns:
            nodes: list[tuple[Any, Path]] = [(owner, ())]
            for token in parse_pointer(pattern):
                step: list[tuple[Any, Path]] = []
                for node, path in nodes:
                    if token == "*" and isinstance(node, list):
                        step.extend((v, (*path, i)) for i, v in enumerate(node))
                    elif isinstance(node, dict) and token in node:
                        step.append((node[token], (*path, token)))
                nodes = step
            if self.foreign:
                nodes = [(v, p) for v, p in nodes if make_pointer(*p) not in self.foreign]
            found.extend((path, value) for value, path in nodes)
        return found

    def to_layer(self, by: str | None = None, owner: Any = None) -> dict[str, Any]:
        """The layer members that carry the declaration, in their shortest form. With the step
        ``by``, a key name stands for its patterns where the declaration holds every place the
        mapping registry gives that name for the step (RFC.md §4.5.2 item 7); other patterns
        are written out. With ``owner`` too (the object holding the layer), ``*`` stands for
        every named pattern of the step when that is shorter: the members those patterns match
        below ``owner`` that the declaration does not own are then listed in ``foreign``."""
        spelled = self._spelled(by)
        everything = _all_named(by) if by is not None and owner is not None else None
        if not everything or not everything.issuperset(self.patterns):
            return spelled
        wide = NamedKeys(tuple(sorted(everything)))
        foreign = sorted(
            make_pointer(*path) for path, _ in wide.members(owner) if not self.owns(path)
        )
        short: dict[str, Any] = {"named": [ALL_NAMED]}
        if foreign:
            short["foreign"] = foreign
        return short if len(jsontext.dumps(short)) < len(jsontext.dumps(spelled)) else spelled

    def _spelled(self, by: str | None) -> dict[str, Any]:
        rest = set(self.patterns)
        names: list[str] = []
        for name, expanded in sorted(_by_name(by).items()) if by is not None else ():
            if rest.issuperset(expanded):
                names.append(name)
                rest.difference_update(expanded)
        members: dict[str, Any] = {"named": names + sorted(rest)}
        if self.foreign:
            members["foreign"] = sorted(self.foreign)
        return members


@dataclass(slots=True)
class Layer:
    """The entries one step makes below one owner; written into the holder by :meth:`commit`."""

    owner: dict[str, Any]
    by: str
    holder: Path = ("extra",)
    keep: bool = True
    """False with ``--drop``: make the changes but write no stash."""
    entries: list[dict[str, Any]] = field(default_factory=list)

    def remove(self, path: Path) -> Any:
        """Remove the member or element at ``path`` and stash it."""
        if path and tuple(path[: len(self.holder)]) == self.holder:
            raise ValueError("cannot stash the holder itself")
        parent = resolve(self.owner, path[:-1])
        last = path[-1]
        if isinstance(parent, dict):
            assert isinstance(last, str)
            position = list(parent).index(last)
            value = parent.pop(last)
            entry = {"op": "removed", "pointer": make_pointer(*path), "position": position}
        else:
            assert isinstance(last, int)
            value = parent.pop(last)
            entry = {"op": "removed", "pointer": make_pointer(*path)}
        entry["value"] = value
        self.entries.append(entry)
        return value

    def replace(self, path: Path, value: Any) -> Any:
        """Replace the value at ``path`` by a synthesized one; the original is stashed."""
        parent = resolve(self.owner, path[:-1])
        original = parent[path[-1]]
        parent[path[-1]] = value
        self.entries.append(
            {
                "op": "replaced",
                "pointer": make_pointer(*path),
                "value": original,
                "check": fingerprint(value),
            }
        )
        return original

    def add(self, path: Path, value: Any, position: int | None = None) -> None:
        """Add a synthesized member at ``path`` (at key ``position``, default last)."""
        parent = resolve(self.owner, path[:-1])
        last = path[-1]
        if isinstance(parent, dict):
            assert isinstance(last, str)
            insert_key(parent, last, value, len(parent) if position is None else position)
        else:
            assert isinstance(last, int)
            parent.insert(last, value)
        self.entries.append(
            {"op": "added", "pointer": make_pointer(*path), "check": fingerprint(value)}
        )

    def move(self, path: Path, to: Path) -> Any:
        """Move the member at ``path`` to the member ``to`` (a named key of a free-form object,
        created when absent or null); the entry records both places, not the value."""
        parent = resolve(self.owner, path[:-1])
        last = path[-1]
        assert isinstance(parent, dict) and isinstance(last, str)
        position = list(parent).index(last)
        value = parent.pop(last)
        target_parent = self.owner
        entry = moved_entry(path, position, to)
        for depth, token in enumerate(to[:-1]):
            assert isinstance(token, str)
            current = target_parent.get(token, _ABSENT)
            if current is _ABSENT or current is None:
                if depth == len(to) - 2:
                    entry["created"] = "absent" if current is _ABSENT else "null"
                target_parent[token] = {}
            elif isinstance(current, dict):
                target_parent[token] = dict(current)  # never edit a shared object in place
            target_parent = target_parent[token]
        key = to[-1]
        assert isinstance(key, str) and key not in target_parent
        target_parent[key] = value
        self.entries.append(entry)
        return value

    def commit(self) -> None:
        """Push the layer onto the holder's stash (creating ``extra`` when needed)."""
        if not self.entries or not self.keep:
            return
        pointer = make_pointer(*self.holder)
        layer = make_layer(self.by, pointer, self.entries)
        key = self.holder[-1]
        assert isinstance(key, str)
        push_layer(_holder_parent(self.owner, self.holder), key, layer, pointer)


_ABSENT: Any = object()


def push_layer(
    parent: dict[str, Any],
    key: str,
    layer: dict[str, Any],
    pointer: str,
    not_object: str = "the extra object is not an object",
) -> None:
    """Push ``layer`` onto the stash of the holder ``parent[key]`` (at ``pointer``).

    Creates the holder when it is absent or null (the layer records which); never changes an
    existing holder in place, since it may be shared with the caller's input. Raises
    :class:`StashError` (``not_object`` as message) when the holder is not an object, and when
    its stash key holds data that is not a stash.
    """
    extra = parent.get(key, _ABSENT)
    if extra is _ABSENT or extra is None:
        layer["created"] = "absent" if extra is _ABSENT else "null"
        parent[key] = {STASH_KEY: {"version": STASH_VERSION, "layers": [layer]}}
        return
    if not isinstance(extra, dict):
        raise StashError(pointer, not_object)
    current = extra.get(STASH_KEY, _ABSENT)
    if current is _ABSENT:
        layers = [layer]
    elif is_stash(current):
        layers = [*current["layers"], layer]
    else:
        raise StashError(
            pointer + make_pointer(STASH_KEY),
            f"the reserved key {STASH_KEY!r} holds data that is not a stash",
        )
    parent[key] = {**extra, STASH_KEY: {"version": STASH_VERSION, "layers": layers}}


def set_layers(parent: dict[str, Any], key: str, layers: list[Any], created: Any) -> None:
    """Leave the holder ``parent[key]`` with only ``layers`` on its stash.

    With none left the stash key goes, and so does the holder (or it is set back to ``null``)
    when the bottom layer, whose ``created`` is given, created it and nothing else is in it.
    """
    extra: dict[str, Any] = parent[key]
    if layers:
        parent[key] = {**extra, STASH_KEY: {**extra[STASH_KEY], "layers": layers}}
        return
    rest = {k: v for k, v in extra.items() if k != STASH_KEY}
    if rest or created not in ("absent", "null"):
        parent[key] = rest
    elif created == "null":
        parent[key] = None
    else:
        del parent[key]


def _holder_parent(owner: dict[str, Any], holder: Path) -> dict[str, Any]:
    try:
        parent = resolve(owner, holder[:-1]) if len(holder) > 1 else owner
    except LookupError:
        raise StashError(make_pointer(*holder[:-1]), "the holder's parent is missing") from None
    if not isinstance(parent, dict):
        raise StashError(make_pointer(*holder[:-1]), "the holder's parent is not an object")
    return parent


@contextmanager
def layer(
    owner: dict[str, Any], by: str, holder: Path = ("extra",), *, keep: bool = True
) -> Iterator[Layer]:
    """A :class:`Layer` committed when the block ends without an exception."""
    current = Layer(owner, by, holder, keep)
    yield current
    current.commit()


def top_layer(owner: Any, holder: Path = ("extra",)) -> dict[str, Any] | None:
    """The top layer of the stash held for ``owner``, if any."""
    if len(holder) == 1:  # the common case, kept cheap: most objects hold no stash
        extra = owner.get(holder[0]) if isinstance(owner, dict) else None
    else:
        try:
            extra = resolve(owner, holder)
        except LookupError:
            return None
    if not isinstance(extra, dict) or STASH_KEY not in extra:
        return None
    stash = extra[STASH_KEY]
    if not is_stash(stash) or not stash["layers"]:
        return None
    top: dict[str, Any] = stash["layers"][-1]
    return top


def pop(owner: Any, by: str, holder: Path = ("extra",)) -> list[Change]:
    """Undo every layer on top of the owner's stash written by ``by``; returns what was undone.

    Entries are undone in reverse order. An entry whose location was edited since (a value in
    the way, a fingerprint that no longer matches, a path that no longer resolves) is not undone;
    it comes back with ``conflict`` set and the document keeps its current value.
    """
    undone: list[Change] = []
    if not isinstance(owner, dict):
        return undone
    while True:
        top = top_layer(owner, holder)
        if top is None or top["by"] != by or layer_holder(top) != make_pointer(*holder):
            return undone
        parent = _holder_parent(owner, holder)
        key = holder[-1]
        assert isinstance(key, str)
        set_layers(parent, key, parent[key][STASH_KEY]["layers"][:-1], top.get("created"))
        undone.extend(undo(owner, top))


def undo(owner: dict[str, Any], layer: dict[str, Any]) -> list[Change]:
    """Undo the entries of one layer taken off ``owner``'s stash, last first (see :func:`pop`)."""
    return [_undo(owner, entry) for entry in reversed(layer_entries(layer))]


def _undo(owner: dict[str, Any], entry: Any) -> Change:
    if not isinstance(entry, dict) or not isinstance(entry.get("pointer"), str):
        return Change("removed", (), None, "malformed stash entry")
    raw = parse_pointer(entry["pointer"])
    op = entry.get("op")
    value = entry.get("value")
    if op == "moved":
        return _undo_move(owner, entry, raw)
    if op == "placed":
        return _undo_place(owner, entry, raw)
    if op == "added" and WILDCARD in raw:
        found = matches(owner, raw, str(entry.get("check")))
        if found is not None:  # a pattern: the same synthesized value at every place
            for place in found:
                parent = resolve(owner, place[:-1])
                parent.pop(place[-1])
            return Change("added", tuple(raw))
    path = _tokens(owner, raw)
    if op not in ("removed", "added", "replaced") or path is None or not path:
        return Change("removed", tuple(raw), value, "the location no longer exists")
    try:
        parent = resolve(owner, path[:-1])
    except LookupError:
        return Change(op, path, value, "the location no longer exists")
    last = path[-1]
    if op == "removed":
        if isinstance(parent, dict) and isinstance(last, str):
            if last in parent:
                return Change(op, path, value, "the document has a value there again")
            position = entry.get("position")
            at = position if isinstance(position, int) and position >= 0 else len(parent)
            insert_key(parent, last, deep_copy(value), at)
        elif isinstance(parent, list) and isinstance(last, int):
            parent.insert(min(last, len(parent)), deep_copy(value))
        else:
            return Change(op, path, value, "the location no longer exists")
        return Change(op, path, value)
    present = (isinstance(parent, dict) and last in parent) or (
        isinstance(parent, list) and isinstance(last, int) and last < len(parent)
    )
    if not present or fingerprint(parent[last]) != entry.get("check"):
        return Change(op, path, value, "the synthesized value was edited; it is kept")
    if op == "added":
        current = parent.pop(last)
        return Change(op, path, current)
    parent[last] = deep_copy(value)
    return Change(op, path, value)


def _undo_place(owner: dict[str, Any], entry: dict[str, Any], raw: list[str]) -> Change:
    """Put a member back right after the member it followed (first when ``after`` is null);
    a pattern entry, every member it stands for."""
    after = entry.get("after")
    if after is not None and not isinstance(after, str):
        return Change("placed", tuple(raw), None, "malformed stash entry")
    if WILDCARD in raw:
        found = placements(owner, raw, after)
        if found is not None:
            for place in found:
                place_after(resolve(owner, place[:-1]), raw[-1], after)
            return Change("placed", tuple(raw))
    path = _tokens(owner, raw)
    if path is None or not path:
        return Change("placed", tuple(raw), None, "the location no longer exists")
    try:
        parent = resolve(owner, path[:-1])
    except LookupError:
        return Change("placed", path, None, "the location no longer exists")
    last = path[-1]
    if not isinstance(parent, dict) or not isinstance(last, str) or last not in parent:
        return Change("placed", path, None, "the member is gone")
    if after is not None and (after == last or after not in parent):
        return Change("placed", path, None, "the member it followed is gone")
    place_after(parent, last, after)
    return Change("placed", path)


def _undo_move(owner: dict[str, Any], entry: dict[str, Any], raw: list[str]) -> Change:
    """Put a moved value back (see :meth:`Layer.move`)."""
    to = entry.get("to")
    dest = parse_pointer(to) if isinstance(to, str) else []
    path = _tokens(owner, raw)
    if not dest or path is None or not path:
        return Change("moved", tuple(raw), None, "the location no longer exists")
    try:
        holder = resolve(owner, dest[:-1])
        parent = resolve(owner, path[:-1])
    except LookupError:
        return Change("moved", path, None, "the location no longer exists")
    last = path[-1]
    if not isinstance(holder, dict) or dest[-1] not in holder:
        return Change("moved", path, None, "the moved value is gone")
    if not isinstance(parent, dict) or not isinstance(last, str) or last in parent:
        return Change("moved", path, None, "the document has a value there again")
    value = holder.pop(dest[-1])
    position = entry.get("position")
    insert_key(parent, last, value, position if isinstance(position, int) else len(parent))
    created = entry.get("created")
    if not holder and created in ("absent", "null") and len(dest) >= 2:
        grand = resolve(owner, dest[:-2])
        if isinstance(grand, dict):
            if created == "null":
                grand[dest[-2]] = None
            else:
                grand.pop(dest[-2], None)
    return Change("moved", path, value)
