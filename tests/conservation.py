"""An independent conservation check for lenses and migrations (issue 15, item 3).

It never reads the transform's own list of what it mapped. It enumerates the input's leaves
(scalar values with their JSON pointers) and classifies each by what it can see for itself:

- ``mapped``: the same value (same JSON type) appears somewhere in the output outside any stash
  (matched by value, not by place: formats that repeat a message history per step, like
  trajectory-sdk, legitimately carry one output value for several input leaves);
- ``reported``: a pointer of the report's ``stashed``, ``named`` or ``dropped`` items is the leaf's
  pointer or a prefix of it;
- ``stashed``: the value is held by an entry of an ``_atif_stash`` in the output (decoded with
  :func:`atif_spec.stash.is_stash`, RFC.md §4.5);
- ``leaked``: none of these — a value the output neither carries nor accounts for.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from atif_spec.changes import ChangeReport
from atif_spec.stash import STASH_KEY, canonical_json, is_stash, make_pointer

Key = tuple[str, bytes]


def leaves(value: Any, ptr: str = "", *, skip_stash: bool = True) -> Iterator[tuple[str, Any]]:
    """Every scalar below ``value`` with its pointer (stash members skipped when asked)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if skip_stash and k == STASH_KEY:
                continue
            yield from leaves(v, ptr + make_pointer(k), skip_stash=skip_stash)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, ptr + make_pointer(i), skip_stash=skip_stash)
    else:
        yield ptr, value


def key(value: Any) -> Key:
    """A value's identity for matching: its JSON type and canonical text (``1`` is not ``true``)."""
    if value is None:
        kind = "null"
    elif isinstance(value, bool):
        kind = "bool"
    elif isinstance(value, (int, float)):
        kind = "number"
    else:
        kind = "string"
    return kind, canonical_json(value)


def stashes(value: Any) -> Iterator[dict[str, Any]]:
    """Every stash held anywhere in ``value`` (including stashes inside stashed values)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == STASH_KEY and is_stash(v):
                yield v
                for layer in v["layers"]:
                    for entry in layer["entries"]:
                        if isinstance(entry, dict):
                            yield from stashes(entry.get("value"))
            else:
                yield from stashes(v)
    elif isinstance(value, list):
        for v in value:
            yield from stashes(v)


def stash_pool(output: Any) -> Counter[Key]:
    """The values the output's stashes hold (``removed`` and ``replaced`` entries)."""
    pool: Counter[Key] = Counter()
    for stash in stashes(output):
        for layer in stash["layers"]:
            for entry in layer["entries"]:
                if isinstance(entry, dict) and entry.get("op") in ("removed", "replaced"):
                    pool.update(key(v) for _, v in leaves(entry.get("value"), skip_stash=False))
    return pool


@dataclass
class Tally:
    """How one input's leaves were accounted for."""

    mapped: int = 0
    reported: int = 0
    stashed: int = 0
    leaked: list[tuple[str, Any]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.mapped + self.reported + self.stashed + len(self.leaked)


def _covered(ptr: str, prefixes: set[str]) -> bool:
    """Whether ``ptr`` or one of its ancestors (including the root) is in ``prefixes``."""
    while True:
        if ptr in prefixes:
            return True
        if not ptr:
            return False
        ptr = ptr[: ptr.rindex("/")]


def check(source: Any, output: Any, report: ChangeReport) -> Tally:
    """Classify every leaf of ``source`` against ``output`` and ``report`` (see the module)."""
    carried = {key(v) for _, v in leaves(output)}
    held = stash_pool(output)
    prefixes = {i.pointer for i in (*report.stashed, *report.named, *report.dropped)}
    tally = Tally()
    for ptr, value in leaves(source, skip_stash=False):
        k = key(value)
        if k in carried:
            tally.mapped += 1
        elif _covered(ptr, prefixes):
            tally.reported += 1
        elif held[k] > 0:
            held[k] -= 1
            tally.stashed += 1
        else:
            tally.leaked.append((ptr, value))
    return tally
