"""Residual stashing for format conversions: keep exactly what a native mapping loses.

A lens fills its target natively wherever the target has a field for a value. What it cannot
hold is found by running the *inverse* lens's native mapping on the result (the "rebuilt source")
and comparing it with the real source: :func:`diff` lists the stash entries (RFC.md §4.5.2) that
turn the rebuilt source back into the source when undone in reverse order:

- ``removed``: a member or element the rebuilt source lacks (the target has no place for it), or
  a member that comes back at another key position (stashed with its position, plus an ``added``
  entry for the rebuilt one, so that the way back restores the key order);
- ``replaced``: a value that comes back different (``null`` where the target needs a string,
  a renumbered index, a total the target recomputes);
- ``added``: a member the way back would synthesize although the source lacked it.

Entries are relative to the owner's counterpart in the source (a TAO step for an ATIF step);
:func:`commit` pushes them as one layer onto the holder in the target, :func:`detach` takes the
layers the inverse lens left, and :func:`apply_layers` undoes them on a rebuilt object, all with
:mod:`atif_spec.stash` semantics.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from atif_spec.stash import (
    STASH_KEY,
    STASH_VERSION,
    Change,
    Layer,
    Path,
    fingerprint,
    is_stash,
    make_pointer,
    pop,
)

Cut = Callable[[Any, Any], bool]
"""``cut(source_value, rebuilt_value)``: True when another owner handles that pair."""
Origin = Callable[[Any], Any]
"""``origin(rebuilt_value)``: the source value it was made from, or None (see :func:`align`)."""


@dataclass(frozen=True, slots=True)
class Residual:
    """One stash entry and where its value sits in the source document."""

    entry: dict[str, Any]
    source_path: Path
    """Path of the value in the source object (list indexes as in the source)."""
    moved: bool = False
    """True for the ``removed`` half of a member kept only for its key position."""


def _key(value: Any) -> bytes:
    """Serialization that tells apart key order, ``1`` and ``1.0``, ``true`` and ``1``."""
    try:
        return orjson.dumps(value)
    except TypeError:  # integers beyond 64 bits
        return json.dumps(value, ensure_ascii=False).encode()


def same(a: Any, b: Any) -> bool:
    """True when two JSON values serialize identically (key order and number types included)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict | list):
        return _key(a) == _key(b)
    return bool(a == b)


def diff(
    source: Any, rebuilt: Any, cut: Cut | None = None, origin: Origin | None = None
) -> list[Residual]:
    """The entries that turn ``rebuilt`` into ``source`` when undone in reverse order.

    ``cut`` skips pairs another owner handles; ``origin`` pairs list elements by provenance.
    """
    out: list[Residual] = []
    _Differ(out, cut, origin).diff(source, rebuilt, (), ())
    return out


def _kept_keys(src: dict[str, Any], reb: dict[str, Any]) -> set[str]:
    """The common keys that keep their place: in the same relative order in both objects, and
    as many bytes of value as possible (the others are stashed to restore the key order)."""
    rank = {k: i for i, k in enumerate(reb)}
    common = [k for k in src if k in rank]
    weight = [len(_key(src[k])) + 1 for k in common]
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


class _Differ:
    """Walks a source value and its rebuilt counterpart, collecting residual entries."""

    def __init__(self, out: list[Residual], cut: Cut | None, origin: Origin | None) -> None:
        self.out = out
        self.cut = cut
        self.origin = origin

    def diff(self, src: Any, reb: Any, path: Path, spath: Path) -> None:
        if path and self.cut is not None and self.cut(src, reb):
            return
        if isinstance(src, dict) and isinstance(reb, dict):
            self._dict(src, reb, path, spath)
        elif isinstance(src, list) and isinstance(reb, list):
            self._list(src, reb, path, spath)
        elif not same(src, reb):
            entry = {"op": "replaced", "pointer": make_pointer(*path), "value": src}
            entry["check"] = fingerprint(reb)
            self.out.append(Residual(entry, spath))

    def _dict(self, src: dict[str, Any], reb: dict[str, Any], path: Path, spath: Path) -> None:
        keys = list(src)
        kept = _kept_keys(src, reb)
        for position in range(len(keys) - 1, -1, -1):  # original positions, last first
            key = keys[position]
            if key not in kept:
                entry = {
                    "op": "removed",
                    "pointer": make_pointer(*path, key),
                    "position": position,
                    "value": src[key],
                }
                self.out.append(Residual(entry, (*spath, key), moved=key in reb))
        for key in keys:
            if key in kept:
                self.diff(src[key], reb[key], (*path, key), (*spath, key))
        for key in reb:
            if key not in kept:
                entry = {"op": "added", "pointer": make_pointer(*path, key)}
                entry["check"] = fingerprint(reb[key])
                self.out.append(Residual(entry, (*spath, key)))

    def _list(self, src: list[Any], reb: list[Any], path: Path, spath: Path) -> None:
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
                entry = {"op": "added", "pointer": make_pointer(*path, j)}
                entry["check"] = fingerprint(reb[j])
                self.out.append(Residual(entry, (*spath, j)))


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
    best = [1] * len(found)
    before = [-1] * len(found)
    for x in range(len(found)):
        for y in range(x):
            if found[y][0] < found[x][0] and best[y] + 1 > best[x]:
                best[x], before[x] = best[y] + 1, y
    chain: list[tuple[int, int]] = []
    x = max(range(len(found)), key=best.__getitem__, default=-1)
    while x >= 0:
        chain.append(found[x])
        x = before[x]
    return chain[::-1]


def commit(
    target: dict[str, Any], holder: str, by: str, entries: list[Residual], keep: bool
) -> None:
    """Push the entries as one layer onto ``target[holder]`` (nothing with ``keep=False``).

    Raises :class:`atif_spec.stash.StashError` on a collision (RFC.md §4.5.3.6).
    """
    layer = Layer(target, by, (holder,), keep, [r.entry for r in entries])
    layer.commit()


def detach(parent: dict[str, Any], holder: str, by: str) -> list[dict[str, Any]]:
    """Take the layers signed ``by`` off the top of ``parent[holder]``'s stash, top first.

    The holder is left as :func:`atif_spec.stash.pop` leaves it (the stash key removed when the
    stack empties; the holder removed, or set back to ``null``, when a layer created it).
    """
    extra = parent.get(holder)
    if not isinstance(extra, dict):
        return []
    stash = extra.get(STASH_KEY)
    if not is_stash(stash):
        return []
    layers: list[dict[str, Any]] = list(stash["layers"])
    taken: list[dict[str, Any]] = []
    while layers and layers[-1]["by"] == by and layers[-1].get("holder") == make_pointer(holder):
        taken.append(layers.pop())
    if not taken:
        return []
    rest = {k: v for k, v in extra.items() if k != STASH_KEY}
    created = taken[-1].get("created")
    if layers:
        parent[holder] = {**extra, STASH_KEY: {**stash, "layers": layers}}
    elif rest or created not in ("absent", "null"):
        parent[holder] = rest
    elif created == "null":
        parent[holder] = None
    else:
        del parent[holder]
    return taken


_TMP = "\x00atif-spec-convert"


def apply_layers(owner: dict[str, Any], layers: list[dict[str, Any]]) -> list[Change]:
    """Undo detached layers (top first) on ``owner``, the rebuilt counterpart of their owner."""
    changes: list[Change] = []
    tmp = _TMP
    while tmp in owner:
        tmp += "_"
    for layer in layers:
        moved = {**layer, "holder": make_pointer(tmp), "created": "absent"}
        owner[tmp] = {STASH_KEY: {"version": STASH_VERSION, "layers": [moved]}}
        changes.extend(pop(owner, layer["by"], (tmp,)))
        owner.pop(tmp, None)
    return changes
