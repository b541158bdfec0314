"""An independent conservation check for lenses and migrations (issue 15, item 3).

It never reads the transform's own list of what it mapped. It enumerates the input's leaves
(scalar values with their JSON pointers) and classifies each by what it can see for itself:

- ``mapped``: the same value (same JSON type) appears somewhere in the output outside any stash
  (matched by value, not by place: formats that repeat a message history per step, like
  trajectory-sdk, legitimately carry one output value for several input leaves);
- ``reported``: a pointer of the report's ``stashed``, ``named`` or ``dropped`` items is the leaf's
  pointer or a prefix of it;
- ``stashed``: the value is held by an entry of an ``_atif_stash`` in the output (decoded with
  the ``add`` and ``replace`` operations of a layer's patch, RFC.md §4.5);
- ``derived``: a correspondence of the test's own table (``tests/support/correspondences.py``: a renamed
  value, a position, a recomputed total, a converted count, a default the way back writes)
  accepts it, verified on the input and the output;
- ``leaked``: none of these — a value the output neither carries nor accounts for.
"""

from __future__ import annotations

import operator
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from atif_spec.jsonio.jsontext import canonical_json
from atif_spec.jsonio.pointers import pointer as make_pointer
from atif_spec.transforms.changes import ChangeReport
from atif_spec.transforms.stash import STASH_KEY
from tests.support.correspondences import Context, Rule, first

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


def _walk(value: Any) -> tuple[set[Key], list[dict[str, Any]]]:
    """The values of the scalars below ``value`` outside the stashes, and the stashes found
    (each once).

    A container found in several places (the messages that every cumulative trajectory-sdk
    snapshot repeats) is visited once: it holds the same values and the same stash wherever it
    sits, so the result is what a walk of every place gives, in time linear in the distinct
    containers.
    """
    found: set[Key] = set()
    held: list[dict[str, Any]] = []
    seen: set[int] = set()
    last: list[Any] = []
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                if k == STASH_KEY:
                    if isinstance(v, dict) and isinstance(v.get("layers"), list):
                        held.append(v)
                elif isinstance(v, (dict, list)):
                    if id(v) not in seen:
                        seen.add(id(v))
                        pending.append(v)
                else:
                    found.add(key(v))
        elif isinstance(node, list):  # by identity, at C speed: one object, one value
            if len(node) <= len(last) and all(map(operator.is_, node, last)):
                continue  # a prefix of the list just visited: every member seen
            extends = len(last) < len(node) and all(map(operator.is_, last, node))
            tail = node[len(last) :] if extends else node
            members = dict(zip(map(id, tail), tail, strict=True))
            last = node
            fresh = members.keys() - seen
            seen.update(fresh)
            for i in fresh:
                v = members[i]
                if isinstance(v, (dict, list)):
                    pending.append(v)
                else:
                    found.add(key(v))
        else:
            found.add(key(node))
    return found, held


def carried(output: Any) -> set[Key]:
    """The values of every scalar below ``output`` outside the stashes (see :func:`_walk`)."""
    return _walk(output)[0]


def stashes(value: Any) -> Iterator[dict[str, Any]]:
    """Every stash held anywhere in ``value`` (including stashes inside stashed values)."""
    for stash in _walk(value)[1]:
        yield from _nested(stash)


def _nested(stash: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """``stash`` and the stashes inside the values of its patches."""
    yield stash
    for layer in stash["layers"]:
        for op in layer.get("patch", []):
            if isinstance(op, dict):
                yield from stashes(op.get("value"))


def stash_pool(output: Any) -> Counter[Key]:
    """The values the output's stashes hold (``add`` and ``replace`` operations)."""
    return _pool(stashes(output))


def _pool(found: Iterable[dict[str, Any]]) -> Counter[Key]:
    pool: Counter[Key] = Counter()
    for stash in found:
        for layer in stash["layers"]:
            for op in layer.get("patch", []):
                if isinstance(op, dict) and op.get("op") in ("add", "replace"):
                    pool.update(key(v) for _, v in leaves(op.get("value"), skip_stash=False))
    return pool


@dataclass
class Tally:
    """How one input's leaves were accounted for."""

    mapped: int = 0
    reported: int = 0
    stashed: int = 0
    derived: int = 0
    leaked: list[tuple[str, Any]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.mapped + self.reported + self.stashed + self.derived + len(self.leaked)


def _covered(ptr: str, prefixes: set[str]) -> bool:
    """Whether ``ptr`` or one of its ancestors (including the root) is in ``prefixes``."""
    while True:
        if ptr in prefixes:
            return True
        if not ptr:
            return False
        ptr = ptr[: ptr.rindex("/")]


def check(
    source: Any,
    output: Any,
    report: ChangeReport,
    rules: Iterable[Rule] = (),
    back: Any = None,
) -> Tally:
    """Classify every leaf of ``source`` against ``output`` and ``report`` (see the module).

    ``rules`` are the correspondences accepted for this pair of formats; ``back`` is the output
    converted back to the source format (the rows that accept a default need it)."""
    values, top = _walk(output)
    rules = tuple(rules)
    held = _pool(s for stash in top for s in _nested(stash))
    pool = frozenset(+held)
    ctx = Context(source, lambda v: key(v) in values, lambda v: key(v) in pool, back)
    prefixes = {i.pointer for i in (*report.stashed, *report.named, *report.dropped)}
    tally = Tally()
    for ptr, value in leaves(source, skip_stash=False):
        k = key(value)
        if k in values:
            tally.mapped += 1
        elif _covered(ptr, prefixes):
            tally.reported += 1
        elif held[k] > 0:
            held[k] -= 1
            tally.stashed += 1
        elif rules and first(rules, ctx, ptr, value) is not None:
            tally.derived += 1
        else:
            tally.leaked.append((ptr, value))
    return tally


LENSES = {
    "atif": "atif@v1.7",
    "tao": "tao@v0.2.0",
    "trajectory-sdk": "trajectory-sdk@v0.4",
    "step-substep": "step-substep@v1.0",
}


MARK = re.compile(r"(^|/)schema_version$|^/\$schema$")


def leaks(tally: Tally) -> list[tuple[str, Any]]:
    """The leaked leaves that are not version marks."""
    return [(p, v) for p, v in tally.leaked if not MARK.search(p)]
