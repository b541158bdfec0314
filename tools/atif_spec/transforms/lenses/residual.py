"""Residual stashing: keep exactly what a format mapping loses (RFC.md §4.5).

A format mapping is a pair of deterministic functions, ``forward`` (source to target) and
``backward`` (target to source), that need not be inverses. What the target cannot hold is the
difference between the source and what ``backward`` rebuilds from the target: :func:`diff` lists
the stash entries (RFC.md §4.5.2) that turn the rebuilt source back into the source when undone
in reverse order:

- ``removed``: a member or element the rebuilt source lacks (the target has no place for it);
- ``placed``: a member that comes back at another key position (value-less: it names the member
  it follows, so that the way back restores the key order);
- ``replaced``: a value that comes back different (``null`` where the target needs a string,
  a renumbered index, a total the target recomputes);
- ``added``: a member the way back would synthesize although the source lacked it.

Entry pointers are relative to the owner: the source object whose counterpart the entries are
undone on. :func:`commit` pushes them as one layer onto a holder (an ``extra``-like object of the
target), :func:`detach` takes the layers the inverse lens left there and :func:`apply_layers`
undoes them on a rebuilt object, all with :mod:`atif_spec.transforms.stash_v1` semantics. Every lens
keeps one layer for the whole document, owned by the root (RFC.md §4.5.6): :func:`run_lens` does it
for most; the TAO lens commits its root layer itself, plus entry-less layers that only carry
the ``named`` declaration of an embedded subagent.

The comparison pairs list elements by provenance (``origin``), else by identical elements, else
by position (``align=False``: a list of another length is replaced whole), and keeps members
whose key order changed either by stashing the fewest bytes (``reorder=True``) or by replacing
their object whole. Containers that the rebuilt value repeats in several places (the messages
of every cumulative trajectory-sdk snapshot) are compared once: undoing entries below the first
place restores every place, so a difference costs one entry, not one per place.
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from atif_spec.jsonio import jsontext
from atif_spec.jsonio.pointers import parse_pointer
from atif_spec.jsonio.pointers import pointer as make_pointer
from atif_spec.transforms.changes import ChangeReport, Item
from atif_spec.transforms.lenses import ConversionError, refuse
from atif_spec.transforms.stash_v1 import (
    STASH_KEY,
    WILDCARD,
    Change,
    NamedKeys,
    Path,
    StashError,
    compact_layer,
    fingerprint,
    follows,
    is_stash,
    layer_entries,
    layer_holder,
    make_layer,
    matches,
    placements,
    push_layer,
    resolve,
    set_layers,
    undo,
)

Doc = dict[str, Any]
Mapping = Callable[[Doc, ChangeReport | None], Doc]
"""A plain mapping; reports the values it synthesizes to the report when one is given."""
Cut = Callable[[Any, Any], bool]
"""``cut(source_value, rebuilt_value)``: True when another owner handles that pair."""
Origin = Callable[[Any], Any]
"""``origin(rebuilt_value)``: the source value it was made from, or None (see :func:`align`)."""

_ABSENT: Any = object()


# --- JSON values ------------------------------------------------------------------------------


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


def _key(value: Any) -> bytes:
    """Serialization that tells apart key order, ``1`` and ``1.0``, ``true`` and ``1``."""
    return jsontext.dumps(value)


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


_CHECK = len(_key(fingerprint(None)))
"""Bytes of a ``check`` value (every fingerprint has the same length)."""


def _references(value: Any) -> dict[int, int]:
    """How many times each container below ``value`` is referenced (each visited once)."""
    count: dict[int, int] = {}
    stack = [value]
    while stack:
        v = stack.pop()
        if not isinstance(v, (dict, list)):
            continue
        count[id(v)] = count.get(id(v), 0) + 1
        if count[id(v)] == 1:
            stack.extend(v.values() if isinstance(v, dict) else v)
    return count


def _size_at_most(value: Any, limit: int) -> bool:
    """Whether the compact JSON of ``value`` takes at most ``limit`` bytes (stops counting as
    soon as it is over)."""
    total = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            total += 1 + len(v)  # braces and separators
            for k, x in v.items():
                total += len(_key(k)) + 1
                stack.append(x)
        elif isinstance(v, list):
            total += 1 + max(len(v), 1)
            stack.extend(v)
        else:
            total += len(_key(v))
        if total > limit:
            return False
    return True


# --- the difference ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Residual:
    """One stash entry and where its value sits in the source document."""

    entry: dict[str, Any]
    source_path: Path
    """Path of the value in the source object (list indexes as in the source)."""
    member: tuple[int, str] | None = None
    """For an ``added`` or ``placed`` object member: the identity of the rebuilt object that
    holds it, and its key (to find where it sits in the rebuilt value, :func:`_collapse`)."""


def diff(
    source: Any,
    rebuilt: Any,
    cut: Cut | None = None,
    origin: Origin | None = None,
    *,
    align: bool = True,
    reorder: bool = True,
    compact: bool = False,
    compact_lists: bool = False,
) -> list[Residual]:
    """The entries that turn ``rebuilt`` into ``source`` when undone in reverse order.

    ``cut`` skips pairs another owner handles; ``origin`` pairs list elements by provenance.
    ``align=False`` compares lists by position only (a list of another length is replaced);
    ``compact=True`` replaces an object (below the top, holding no container found in several
    places) whole when its entries would take more bytes than the object itself.
    ``reorder=False`` replaces an object whose common members come back in another order
    (at the top: removes and adds every member). ``compact_lists=True`` also replaces a list
    (below the top) whole when its entries would take more bytes than the list, provided every
    container the rebuilt list shares with other places has all its places inside the list.
    """
    out: list[Residual] = []
    differ = _Differ(out, rebuilt, cut, origin, align, reorder, compact)
    differ.compact_lists = compact_lists
    differ.diff(source, rebuilt, (), ())
    return _collapse(out, source, rebuilt)


def _container_paths(value: Any) -> dict[int, Path]:
    """The path of every container below ``value``, by identity; ``(-1,)`` for a container
    found in several places (no one path)."""
    paths: dict[int, Path] = {}
    stack: list[tuple[Path, Any]] = [((), value)]
    while stack:
        path, v = stack.pop()
        if not isinstance(v, (dict, list)):
            continue
        if id(v) in paths:
            paths[id(v)] = (-1,)
            continue
        paths[id(v)] = path
        items = v.items() if isinstance(v, dict) else enumerate(v)
        stack.extend(((*path, k), x) for k, x in items)
    return paths


def _collapse(out: list[Residual], source: Any, rebuilt: Any) -> list[Residual]:
    """Pattern entries (``*`` for the array indexes; RFC.md §4.5.2 item 4) in place of the
    ``added`` entries for the same value the way back writes at several places, and of the
    ``placed`` entries that put the same member after the same member at several places: a
    writer's style (a default it leaves out, its own key order) costs one entry, not one per
    step. A pattern is used only where it stands for exactly the members those entries name
    in ``rebuilt`` (a ``placed`` one may also stand for members already in place). The
    patterns are listed last, so they are undone first, on ``rebuilt`` itself; the result is
    undone on a copy and kept only when it gives ``source`` back."""
    candidates = [r for r in out if r.member is not None and r.entry["op"] in ("added", "placed")]
    if len(candidates) < 2:
        return out
    paths = _container_paths(rebuilt)
    groups: dict[tuple[str, str, str | None], list[tuple[Residual, Path]]] = {}
    for residual in candidates:
        assert residual.member is not None
        holder, key = residual.member
        where = paths.get(holder, (-1,))
        if where[:1] == (-1,) or not any(isinstance(t, int) for t in where):
            continue
        pattern = make_pointer(*(WILDCARD if isinstance(t, int) else t for t in (*where, key)))
        entry = residual.entry
        tag = entry["check"] if entry["op"] == "added" else entry["after"]
        groups.setdefault((entry["op"], pattern, tag), []).append((residual, (*where, key)))
    collapsed: list[Residual] = []
    gone: set[int] = set()
    for (op, pattern, tag), members in groups.items():
        if len(members) < 2:
            continue
        raw = parse_pointer(pattern)
        named = {place for _, place in members}
        if op == "added":
            found = matches(rebuilt, raw, str(tag))
            if found is None or set(found) != named:
                continue  # the pattern would also take a member no entry names
            entry = {"op": "added", "pointer": pattern, "check": tag}
        else:
            found = placements(rebuilt, raw, tag)
            if found is None or any(
                place not in named and not follows(resolve(rebuilt, place[:-1]), raw[-1], tag)
                for place in found
            ):
                continue  # the pattern would also move a member no entry names
            entry = {"op": "placed", "pointer": pattern, "after": tag}
        gone.update(id(r) for r, _ in members)
        collapsed.append(Residual(entry, tuple(raw)))
    if not collapsed:
        return out
    shorter = [r for r in out if id(r) not in gone] + collapsed
    trial = shared_copy(rebuilt)
    undo(trial, {"by": "", "entries": [r.entry for r in shorter]})
    return shorter if same(trial, source) else out


def _kept_keys(src: dict[str, Any], reb: dict[str, Any], reorder: bool) -> set[str] | None:
    """The common keys that keep their place, or None when the object must be replaced.

    They are in the same relative order in both objects; with ``reorder``, the run of them whose
    ``placed`` entries would take the most bytes (the others get one, to restore the key order).
    """
    rank = {k: i for i, k in enumerate(reb)}
    common = [k for k in src if k in rank]
    if all(rank[a] < rank[b] for a, b in pairwise(common)):
        return set(common)
    if not reorder:
        return None
    weight = [len(_key(k)) + _PLACED for k in common]
    best = list(weight)
    before = [-1] * len(common)
    for i in range(len(common)):
        for j in range(i):
            if rank[common[j]] < rank[common[i]] and best[j] + weight[i] > best[i]:
                best[i], before[i] = best[j] + weight[i], j
    kept: set[str] = set()
    i = max(range(len(common)), key=best.__getitem__, default=-1)
    while i >= 0:
        kept.add(common[i])
        i = before[i]
    return kept


_PLACED = len(b'{"op":"placed","pointer":"","after":""},')
"""Bytes of a ``placed`` entry besides its pointer and the key it follows."""


class _Differ:
    """Walks a source value and its rebuilt counterpart, collecting residual entries."""

    def __init__(
        self,
        out: list[Residual],
        rebuilt: Any,
        cut: Cut | None,
        origin: Origin | None,
        align: bool,
        reorder: bool,
        compact: bool = False,
    ) -> None:
        self.out = out
        self.compact = compact
        self.cut = cut
        self.origin = origin
        self.align = align
        self.reorder = reorder
        self.shared = _shared_ids(rebuilt)
        self.rebuilt = rebuilt
        self.seen: dict[int, Any] = {}
        """Shared rebuilt containers already compared, by identity, with their source value."""
        self.compact_lists = False
        self._refs: dict[int, int] | None = None

    def diff(self, src: Any, reb: Any, path: Path, spath: Path) -> None:
        if path and self.cut is not None and self.cut(src, reb):
            return
        if path and id(reb) in self.shared:
            first = self.seen.get(id(reb), _ABSENT)
            if first is not _ABSENT:
                if not same(src, first):
                    self._replace(src, reb, path, spath)
                return
            self.seen[id(reb)] = src
        if isinstance(src, dict) and isinstance(reb, dict):
            mark, first_seen = len(self.out), len(self.seen)
            self._dict(src, reb, path, spath)
            # entries below a shared container's first place also fix its other places: keep
            if (
                self.compact
                and path
                and id(reb) not in self.shared
                and len(self.seen) == first_seen
                and len(self.out) > mark + 1
            ):
                size = sum(len(_key(r.entry)) for r in self.out[mark:])
                if size > len(_key(src)) + len(_key(fingerprint(reb))) + 40:
                    del self.out[mark:]
                    self._replace(src, reb, path, spath)
        elif isinstance(src, list) and isinstance(reb, list):
            mark = len(self.out)
            self._list(src, reb, path, spath)
            if self.compact_lists and path and len(self.out) > mark + 1:
                size = sum(len(_key(r.entry)) for r in self.out[mark:])
                limit = size - _CHECK - 40
                if _size_at_most(src, limit) and self._confined(reb):
                    del self.out[mark:]
                    self._replace(src, reb, path, spath)
        elif not same(src, reb):
            self._replace(src, reb, path, spath)

    def _confined(self, reb: Any) -> bool:
        """Whether every shared container below ``reb`` has all its places below ``reb`` (then
        replacing ``reb`` whole restores them all)."""
        if self._refs is None:
            self._refs = _references(self.rebuilt)
        inside = _references(reb)
        return all(inside[i] == self._refs.get(i, 0) for i in inside if i in self.shared)

    def _replace(self, src: Any, reb: Any, path: Path, spath: Path) -> None:
        entry = {"op": "replaced", "pointer": make_pointer(*path), "value": src}
        entry["check"] = fingerprint(reb)
        self.out.append(Residual(entry, spath))

    def _dict(self, src: dict[str, Any], reb: dict[str, Any], path: Path, spath: Path) -> None:
        kept = _kept_keys(src, reb, self.reorder)
        if kept is None:
            if path:
                self._replace(src, reb, path, spath)
                return
            # the top, without ``reorder``: remove every member, then add every member
            self._rebuild_top(src, reb)
            return
        # undone in reverse: the added members go, the kept and placed members get their
        # values back, the placed members their places (first to last, each right after the
        # member it follows among those present), then the removed members come back at their
        # positions
        keys = list(src)
        for position in range(len(keys) - 1, -1, -1):  # original positions, last first
            key = keys[position]
            if key not in reb:
                entry = {
                    "op": "removed",
                    "pointer": make_pointer(*path, key),
                    "position": position,
                    "value": src[key],
                }
                self.out.append(Residual(entry, (*spath, key)))
        common = [k for k in keys if k in reb]
        for i in range(len(common) - 1, -1, -1):
            key = common[i]
            if key not in kept:
                after = common[i - 1] if i else None
                entry = {"op": "placed", "pointer": make_pointer(*path, key), "after": after}
                self.out.append(Residual(entry, (*spath, key), (id(reb), key)))
        for key in common:
            self.diff(src[key], reb[key], (*path, key), (*spath, key))
        for key in reb:
            if key not in src:
                self._add(reb[key], (*path, key), (*spath, key), (id(reb), key))

    def _rebuild_top(self, src: dict[str, Any], reb: dict[str, Any]) -> None:
        keys = list(src)
        for position in range(len(keys) - 1, -1, -1):
            key = keys[position]
            entry = {
                "op": "removed",
                "pointer": make_pointer(key),
                "position": position,
                "value": src[key],
            }
            self.out.append(Residual(entry, (key,)))
        for key in reb:
            self._add(reb[key], (key,), (key,), (id(reb), key))

    def _list(self, src: list[Any], reb: list[Any], path: Path, spath: Path) -> None:
        if not self.align and len(src) != len(reb):
            self._replace(src, reb, path, spath)
            return
        pairs = align(src, reb, self.origin)
        matched_src = {i for i, _ in pairs}
        matched_reb = {j for _, j in pairs}
        for i in range(len(src) - 1, -1, -1):
            if i not in matched_src:
                entry = {"op": "removed", "pointer": make_pointer(*path, i), "value": src[i]}
                self.out.append(Residual(entry, (*spath, i)))
        for k, (i, j) in enumerate(pairs):  # after the removals, matched elements sit at index k
            self.diff(src[i], reb[j], (*path, k), (*spath, i))
        for j in range(len(reb)):
            if j not in matched_reb:
                self._add(reb[j], (*path, j), (*spath, j))

    def _add(
        self, value: Any, path: Path, spath: Path, member: tuple[int, str] | None = None
    ) -> None:
        entry = {"op": "added", "pointer": make_pointer(*path), "check": fingerprint(value)}
        self.out.append(Residual(entry, spath, member))


def align(src: list[Any], reb: list[Any], origin: Origin | None = None) -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` of list elements compared with each other, in increasing order.

    Anchors first: elements whose ``origin`` is a source element (the longest run of them in
    order), else identical elements; the elements between two anchors pair by position.
    """
    anchors = _provenance(src, reb, origin) if origin is not None else []
    if not anchors:
        if len(src) == len(reb):
            return [(i, i) for i in range(len(src))]
        matcher = difflib.SequenceMatcher(
            a=[_key(v) for v in src], b=[_key(v) for v in reb], autojunk=False
        )
        anchors = [
            (block.a + t, block.b + t)
            for block in matcher.get_matching_blocks()
            for t in range(block.size)
        ]
    pairs: list[tuple[int, int]] = []
    i = j = 0
    for a, b in [*anchors, (len(src), len(reb))]:
        gap = min(a - i, b - j)
        pairs.extend((i + t, j + t) for t in range(gap))
        if a < len(src):
            pairs.append((a, b))
        i, j = a + 1, b + 1
    return pairs


def _provenance(src: list[Any], reb: list[Any], origin: Origin) -> list[tuple[int, int]]:
    """Pairs of elements made from each other: the longest run of them in the same order."""
    where = {id(v): i for i, v in enumerate(src)}
    found = [
        (where[id(o)], j)
        for j, r in enumerate(reb)
        if (o := origin(r)) is not None and id(o) in where
    ]
    return [found[x] for x in longest_increasing([i for i, _ in found])]


def longest_increasing(values: list[int]) -> list[int]:
    """The indexes of the longest strictly increasing subsequence of ``values``, in O(n log n).

    Among equally long ones: the one ending at the first possible index, each element preceded
    by the first possible index (patience sorting; the elements of one length form a
    non-increasing run, so the first one below a value is found by bisection)."""
    tails: list[int] = []  # tails[k]: the smallest last value of a run of length k + 1
    runs: list[list[int]] = []  # runs[k]: the indexes that end a longest run of length k + 1
    before = [-1] * len(values)
    for x, value in enumerate(values):
        length = bisect.bisect_left(tails, value)
        if length == len(tails):
            tails.append(value)
            runs.append([])
        else:
            tails[length] = value
        if length:
            shorter = runs[length - 1]  # values non-increasing: find the first below ``value``
            before[x] = shorter[_first_below(values, shorter, value)]
        runs[length].append(x)
    if not runs:
        return []
    chain = [runs[-1][0]]
    while before[chain[-1]] >= 0:
        chain.append(before[chain[-1]])
    return chain[::-1]


def _first_below(values: list[int], run: list[int], value: int) -> int:
    """The first position in ``run`` (indexes whose values do not increase) whose value is below
    ``value``."""
    low, high = 0, len(run)
    while low < high:
        middle = (low + high) // 2
        if values[run[middle]] < value:
            high = middle
        else:
            low = middle + 1
    return low


# --- layers -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Holder:
    """Where a format keeps the stash of a converted object: a path of object keys."""

    path: tuple[str, ...]

    @property
    def pointer(self) -> str:
        """The holder's pointer from its owner."""
        return make_pointer(*self.path)


def _holder(holder: str | Holder) -> Holder:
    return Holder((holder,)) if isinstance(holder, str) else holder


def _parent(owner: Doc, path: tuple[str, ...], create: bool) -> Doc | None:
    """The object that holds the holder's key (intermediate objects made with ``create``)."""
    node: Any = owner
    for key in path[:-1]:
        if not isinstance(node, dict):
            return None
        if create and not isinstance(node.get(key), dict):
            node[key] = {}
        node = node.get(key)
    return node if isinstance(node, dict) else None


def commit(
    target: Doc,
    holder: str | Holder,
    by: str,
    entries: list[Residual],
    keep: bool = True,
    named: NamedKeys | None = None,
    style: str | None = None,
) -> None:
    """Push the entries (the ``named`` declaration, the inverse's output ``style``) as one layer
    onto ``target``'s holder; nothing when there is none of them, or with ``keep=False``.

    Creates the holder when it is absent or null. Raises
    :class:`atif_spec.transforms.stash_v1.StashError` when the holder is not an object or its stash key
    holds foreign data (RFC.md §4.5.3.6).
    """
    if not (entries or named or style) or not keep:
        return
    place = _holder(holder)
    declared = named.to_layer(by, target) if named is not None else {}
    if style is not None:
        declared["style"] = style
    layer = make_layer(by, place.pointer, [r.entry for r in entries], **declared)
    parent = _parent(target, place.path, create=True)
    if parent is None:
        raise StashError(place.pointer, "the stash holder's parent is not an object")
    push_layer(parent, place.path[-1], layer, place.pointer, "the stash holder is not an object")


def detach(owner: Doc, holder: str | Holder, by: str) -> list[dict[str, Any]]:
    """Take the layers signed ``by`` off the top of ``owner``'s holder, top first.

    The holder is left as :func:`atif_spec.transforms.stash_v1.pop` leaves it (the stash key removed
    when the stack empties; the holder removed, or set back to ``null``, when a layer created it).
    """
    place = _holder(holder)
    parent = _parent(owner, place.path, create=False)
    key = place.path[-1]
    extra = parent.get(key) if parent is not None else None
    if parent is None or not isinstance(extra, dict):
        return []
    stash = extra.get(STASH_KEY)
    if not is_stash(stash):
        return []
    layers: list[dict[str, Any]] = list(stash["layers"])
    taken: list[dict[str, Any]] = []
    while layers and layers[-1]["by"] == by and layer_holder(layers[-1]) == place.pointer:
        taken.append(layers.pop())
    if taken:
        set_layers(parent, key, layers, taken[-1].get("created"))
    return taken


def apply_layers(owner: Doc, layers: list[dict[str, Any]]) -> list[Change]:
    """Undo detached layers (top first) on ``owner``, the rebuilt counterpart of their owner."""
    return [change for layer in layers for change in undo(owner, layer)]


# --- one layer for a whole document -----------------------------------------------------------

_REASONS = {
    "removed": "{target} has no place for this value",
    "placed": "kept to restore the key order",
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
    compact: bool = False,
    compact_lists: bool = False,
    reorder: bool = False,
) -> Doc:
    """Convert ``doc`` with ``forward``, keeping what does not survive in ``target_holder``.

    ``name`` is the lens signature (``SOURCE->TARGET``), ``inverse`` the signature of the lens
    going back. The layers that the inverse lens left in ``source_holder`` are taken off first
    and undone after mapping, so ``inverse(lens(doc)) == doc``. The new layer is owned by the
    document root and compares lists by position and objects in their key order (a conversion
    rebuilds every object below the root, so no smaller owner survives it); ``compact``,
    ``compact_lists`` and ``reorder`` (keep members whose key order changed by stashing the
    fewest bytes, instead of replacing their object) as in :func:`diff`. ``doc`` is not modified.
    """
    target = name.partition("->")[2]
    work = shared_copy(doc)
    previous = detach(work, source_holder, inverse)
    out = forward(work, report)
    conflicts = [c for c in apply_layers(out, previous) if c.conflict is not None]
    for change in conflicts:
        report.dropped.append(
            Item(make_pointer(*change.path), name, f"stashed value discarded: {change.conflict}")
        )
    try:
        rebuilt = backward(out, None)
    except ConversionError as exc:  # the way back refuses what this lens wrote
        report.errors.extend(exc.report.errors)
        raise ConversionError(report) from None
    residuals = diff(
        work,
        rebuilt,
        align=False,
        reorder=reorder,
        compact=compact,
        compact_lists=compact_lists,
    )
    if previous and not conflicts and not residuals:
        # the output is exactly what the inverse lens was given: nothing was invented
        report.decided = [i for i in report.decided if i.step != name]
    for residual in residuals:
        entry = residual.entry
        op = entry["op"]
        value = entry.get("value")
        reason = _REASONS[op].format(target=target)
        loss = op in ("removed", "replaced") and value is not None
        if drop:
            report.dropped.append(Item(entry["pointer"], name, reason, loss=loss))
        else:
            report.stashed.append(
                Item(entry["pointer"], name, reason, stash=target_holder.pointer, loss=loss)
            )
    try:
        commit(out, target_holder, name, residuals, keep=not drop)
    except StashError as exc:
        raise refuse(report, "stash-collision", exc.message, exc.pointer) from None
    return out


# --- moved entries of a lens (RFC.md §4.5.2) -------------------------------------------------


def _with_holder(doc: Doc, holder: Holder, value: Doc) -> Doc:
    """``doc`` with its holder replaced by ``value``: the objects on the holder's path are
    copied, everything else is shared (``doc`` is not modified)."""
    out = dict(doc)
    node = out
    for key in holder.path[:-1]:
        node[key] = dict(node[key])
        node = node[key]
    node[holder.path[-1]] = value
    return out


def _take_from_top(
    doc: Doc, holder: Holder, by: str, take: Callable[[dict[str, Any]], dict[str, Any] | None]
) -> Doc:
    """``doc`` with ``take(layer)`` in place of each layer signed ``by`` on top of its stash
    (``take`` gives the rest of the layer, or None when it takes nothing from it). ``doc`` is
    not modified; it is returned itself when nothing was taken."""
    parent = _parent(doc, holder.path, create=False)
    extra = parent.get(holder.path[-1]) if parent is not None else None
    stash = extra.get(STASH_KEY) if isinstance(extra, dict) else None
    if not isinstance(extra, dict) or not isinstance(stash, dict):
        return doc
    layers = stash.get("layers")
    if not isinstance(layers, list):
        return doc
    new = list(layers)
    taken = False
    for n in range(len(new) - 1, -1, -1):
        layer = new[n]
        if not isinstance(layer, dict) or layer.get("by") != by:
            break
        if layer_holder(layer) != holder.pointer or not isinstance(layer_entries(layer), list):
            break
        rest = take(layer)
        if rest is not None:
            new[n], taken = rest, True
    if not taken:
        return doc
    return _with_holder(doc, holder, {**extra, STASH_KEY: {**stash, "layers": new}})


def take_moves(doc: Doc, holder: Holder, by: str) -> tuple[Doc, list[dict[str, Any]]]:
    """``doc`` without the ``moved`` entries of the layers signed ``by`` on top of its stash, and
    those entries in order. ``doc`` is not modified.

    A lens's ``moved`` entries link two documents (``pointer`` in the source, ``to`` in the
    target), so :func:`atif_spec.transforms.stash_v1.undo` cannot undo them on one document: the
    inverse lens takes them off here, reads each value back from ``to`` while it maps, and lets
    :func:`run_lens` undo the rest of the layers.
    """
    found: list[dict[str, Any]] = []

    def take(layer: dict[str, Any]) -> dict[str, Any] | None:
        entries = layer_entries(layer)
        moves = [e for e in entries if isinstance(e, dict) and e.get("op") == "moved"]
        if not moves:
            return None
        found[:0] = moves
        return {**layer, "entries": [e for e in entries if e not in moves]}

    return _take_from_top(doc, holder, by, take), found


def put_moves(
    out: Doc, holder: Holder, by: str, entries: list[dict[str, Any]], *, pushed: bool
) -> None:
    """Put ``moved`` entries first in the layer ``by`` that :func:`run_lens` just pushed onto
    ``out``'s holder (``pushed``), or push a layer of their own when it pushed none."""
    if not entries:
        return
    if pushed:
        parent = _parent(out, holder.path, create=False)
        assert parent is not None
        layers = parent[holder.path[-1]][STASH_KEY]["layers"]
        top = layers[-1]
        layers[-1] = compact_layer({**top, "entries": [*entries, *layer_entries(top)]})
    else:
        commit(out, holder, by, [Residual(e, ()) for e in entries])


def take_named(doc: Doc, holder: Holder, by: str) -> tuple[Doc, NamedKeys | None]:
    """``doc`` without the ``named`` declarations (RFC.md §4.5.2 item 7) of the layers signed
    ``by`` on top of its stash, and those declarations merged. ``doc`` is not modified.

    Like ``moved`` entries, a declaration links two documents: the inverse lens reads back
    the members it :meth:`~atif_spec.transforms.stash_v1.NamedKeys.owns` while it maps, then lets
    :func:`run_lens` undo the rest of the layers (a layer left with no entries is dropped).
    """
    found: list[NamedKeys] = []

    def take(layer: dict[str, Any]) -> dict[str, Any] | None:
        declared = NamedKeys.from_layer(layer)
        if declared is None:
            return None
        found.append(declared)
        return {k: v for k, v in layer.items() if k not in ("named", "foreign")}

    rest = _take_from_top(doc, holder, by, take)
    merged: NamedKeys | None = None
    for declared in found:
        merged = declared.merge(merged)
    return rest, merged


def put_named(out: Doc, holder: Holder, by: str, named: NamedKeys | None, *, pushed: bool) -> None:
    """Add the ``named`` declaration to the layer ``by`` that :func:`run_lens` just pushed onto
    ``out``'s holder (``pushed``), or push a layer of its own (no entries) when it pushed none."""
    if named is None:
        return
    if pushed:
        parent = _parent(out, holder.path, create=False)
        assert parent is not None
        layers = parent[holder.path[-1]][STASH_KEY]["layers"]
        layers[-1] = compact_layer({**layers[-1], **named.to_layer(by, out)})
    else:
        commit(out, holder, by, [], named=named)
