"""Field tables that run (RFC.md §4.5.5): rows read by both mappings of a lens and by MAPPING.md.

A :class:`Field` is a rename both mappings copy; a :class:`Named` row puts a member the other
format has no field for under a documented key of a free-form object, through a
:class:`FreeForm` (never over a producer's key; taken back only where the earlier step wrote it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from atif_spec.jsonio.pointers import escape_token
from atif_spec.transforms.driver import Context
from atif_spec.transforms.mapping import Kind, Row

Doc = dict[str, Any]
ABSENT: Any = object()
"""An object has no such member."""


def _code(path: str) -> str:
    return f"`{path.replace('/', '.')}`"


@dataclass(frozen=True, slots=True)
class Field:
    """A member (``source``, a ``/``-separated path below its object) and the member of the
    object made of it in the other format (``target``), copied both ways where present (and
    accepted by ``when``, a lift's condition)."""

    source: str
    target: str
    note: str = ""
    when: Callable[[Any], bool] | None = None

    def forward(self, obj: Doc, out: Doc) -> None:
        value = get(obj, self.source)
        if value is not ABSENT and (self.when is None or self.when(value)):
            put(out, self.target, value)

    def backward(self, obj: Doc, out: Doc) -> None:
        value = get(obj, self.target)
        if value is not ABSENT:
            put(out, self.source, value)

    def row(self, kind: Kind = "field", *, back: bool = False, note: str | None = None) -> Row:
        """The MAPPING.md row; ``back``: for the other direction's table (``target`` first)."""
        left, right = _code(self.source), _code(self.target)
        if back:
            left, right = right, left
        return Row(left, right, kind, self.note if note is None else note)


def get(obj: Any, path: str) -> Any:
    """The member at ``path`` (``/``-separated member names) below ``obj``, or :data:`ABSENT`."""
    if "/" not in path:  # the usual one member, without splitting
        return obj.get(path, ABSENT) if isinstance(obj, dict) else ABSENT
    for token in path.split("/"):
        obj = obj.get(token, ABSENT) if isinstance(obj, dict) else ABSENT
    return obj


def put(out: Doc, path: str, value: Any) -> None:
    """Set the member at ``path`` below ``out``, making the objects above it."""
    if "/" not in path:  # the usual one member, without splitting
        out[path] = value
        return
    *above, last = path.split("/")
    for token in above:
        out = out.setdefault(token, {})
    out[last] = value


@dataclass(frozen=True, slots=True)
class Named:
    """A member (``member``, below its owner) kept under the documented ``key`` of the free-form
    ``holder`` of the object made of its owner, found at ``owner`` (``*`` for any index)."""

    member: str
    key: str
    owner: str = ""
    holder: str = "extra"
    note: str = ""
    label: str = ""
    """How MAPPING.md names the source (default: the member in code type)."""
    when: Callable[[Any], bool] | None = None
    """Written only where ``when`` accepts the value."""

    @property
    def pointer(self) -> str:
        """The named key's pointer pattern from the document root (``mapping.Row.key``)."""
        return f"{self.owner}/{self.holder}/{escape_token(self.key)}"

    def row(self, where: str) -> Row:
        """The MAPPING.md row; ``where`` names the holder's owner (``"step"``; ``""``: the root)."""
        source = self.label or _code(self.member)
        target = f"{where} `{self.holder.replace('/', '.')}.{self.key}`".lstrip()
        return Row(source, target, "named", self.note, key=self.pointer)


def rows(named: Iterable[Named], where: str) -> tuple[Row, ...]:
    """The MAPPING.md rows of named keys whose holders' owner is ``where``."""
    return tuple(n.row(where) for n in named)


class FreeForm:
    """The free-form object of an object being built, from the input object's (``given``, at
    ``at`` in the input): shared while unchanged, else a copy with named keys taken out and put
    in. ``writes``: whether the mapping may add named keys."""

    def __init__(self, given: Any, at: str, ctx: Context, *, writes: bool = True) -> None:
        self.given, self.at, self.ctx, self.writes = given, at, ctx, writes
        self.keys: Doc = given if isinstance(given, dict) else {}
        self.edited = False

    def _edit(self) -> Doc:  # the members, copied before the first change
        if not self.edited:
            self.keys, self.edited = dict(self.keys), True
        return self.keys

    def take(self, obj: Doc, field: str, key: str, ok: Callable[[Any], bool] | None = None) -> bool:
        """Move ``key`` to ``obj[field]``, a named key (no ``ok``) where the inverse wrote it, a
        lift where ``ok`` accepts it; whether it moved."""
        value = self.keys.get(key, ABSENT)
        if value is ABSENT:
            return False
        if not (ok(value) if ok else self.ctx.read(f"{self.at}/{escape_token(key)}")):
            return False
        obj[field] = self._edit().pop(key)
        return True

    def take_all(self, obj: Doc, named: Sequence[Named]) -> None:
        """Take every row's key back to its member (a path) below ``obj``."""
        if not self.keys:  # most objects have no extra
            return
        for row in named:
            if row.key in self.keys and self.ctx.read(f"{self.at}/{escape_token(row.key)}"):
                put(obj, row.member, self._edit().pop(row.key))

    def take_items(self, key: str) -> list[Any]:
        """Take out the elements of the list at ``key`` that the inverse wrote (named keys)."""
        held = self.keys.get(key)
        if not isinstance(held, list):
            return []
        mine = {n for n in range(len(held)) if self.ctx.read(f"{self.at}/{key}/{n}")}
        if mine:
            rest = [v for n, v in enumerate(held) if n not in mine]
            self._edit()[key] = rest
            if not rest:
                del self.keys[key]
        return [held[n] for n in sorted(mine)]

    def put(self, key: str, value: Any, source: str | None, to: str) -> bool:
        """Whether ``value`` was written at ``key`` (not over a producer's member or holder): a
        named key read from ``source``, reported at ``to``; for no ``source`` a conventional one."""
        given = self.given
        foreign = given is not ABSENT and given is not None and not isinstance(given, dict)
        if key in self.keys or foreign or (source is not None and not self.writes):
            return False  # a producer's member, or a producer's holder that is no object
        self._edit()[key] = value
        if source is not None:
            reason = f"{self.ctx.target} has no field for it: a documented name"
            self.ctx.name(source, f"{to}/{escape_token(key)}", reason)
        return True

    def put_all(self, obj: Doc, named: Sequence[Named], src: str, to: str) -> None:
        """:meth:`put` the member of ``obj`` (at ``src``) of every row it has."""
        plain = isinstance(obj, dict)  # (get's usual case, without a call per row)
        for row in named:
            member = row.member
            value = obj.get(member, ABSENT) if plain and "/" not in member else get(obj, member)
            if value is not ABSENT and (row.when is None or row.when(value)):
                self.put(row.key, value, f"{src}/{row.member}", to)

    def put_gathered(
        self, values: Sequence[tuple[str, Any]], parts: Iterable[tuple[str, str, str]], to: str
    ) -> None:
        """Write named keys gathering many members of the input (``values``: key, value), and
        report those of a key written: ``parts`` (input pointer, key, pointer below the key)."""
        if not self.writes:
            return
        written = {key for key, value in values if self.put(key, value, None, to)}
        reason = f"{self.ctx.target} has no field for it: a documented name"
        for source, key, below in parts:
            if key in written:
                self.ctx.name(source, f"{to}/{escape_token(key)}{below}", reason)

    def take_gathered(self, key: str) -> Any:
        """Take out a :meth:`put_gathered` key: what the inverse wrote of it (objects keep those
        members, lists their positions, ``{}`` elsewhere), or :data:`ABSENT`."""
        value = self.keys.get(key, ABSENT)
        at = f"{self.at}/{escape_token(key)}"
        found = ABSENT if value is ABSENT else self._written(value, at)
        if found is not ABSENT:
            del self._edit()[key]
        return found

    def _written(self, value: Any, at: str) -> Any:
        if self.ctx.read(at):
            return value
        if isinstance(value, dict):
            found = {k: self._written(v, f"{at}/{escape_token(k)}") for k, v in value.items()}
            kept = {k: v for k, v in found.items() if v is not ABSENT}
            return kept if kept else ABSENT
        if isinstance(value, list):
            items = [self._written(v, f"{at}/{n}") for n, v in enumerate(value)]
            if all(item is ABSENT for item in items):
                return ABSENT
            return [{} if item is ABSENT else item for item in items]
        return ABSENT

    def place(self, obj: Doc, holder: str = "extra") -> None:
        """Set ``obj[holder]``: the input's when unchanged, nothing when emptied."""
        if not self.edited and isinstance(self.given, dict):
            obj[holder] = self.given
        elif self.keys:
            obj[holder] = self.keys
