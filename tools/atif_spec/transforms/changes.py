"""The change report of ``atif migrate`` and ``atif convert`` (schema:
``spec/atif-spec/v1/change-report.schema.json``): source and target, and by JSON pointer every
item the target could not hold as it was: ``stashed``, ``named`` (under a documented name in a
free-form object), ``dropped`` (on request or after an edit), ``decided`` (synthesized by a
documented policy); ``errors`` say why a document was refused or not written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from atif_spec.jsonio.pointers import MISSING, pointer, value_at
from atif_spec.transforms.stash import STASH_KEY, holder
from atif_spec.validation.findings import Finding, Level


@dataclass(slots=True)
class Item:
    """One stashed, dropped or decided location."""

    pointer: str
    """Where the value was (stashed, dropped) or was written (decided), in the step's input."""
    step: str
    """The step that made the change, e.g. ``atif@v1.7->atif@v1.6``."""
    reason: str
    stash: str | None = None
    """For stashed items: pointer of the holder whose stash holds the value."""
    value: Any = None
    has_value: bool = False
    """Whether ``value`` is reported (decided items report the value they wrote)."""
    loss: bool = True
    """Whether the item counts for ``--fail-on-loss`` (null values and version marks do not)."""
    to: str | None = None
    """For named items: pointer of the named member that now holds the value."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used in reports."""
        both = {"pointer": self.pointer, "step": self.step, "stash": self.stash, "to": self.to}
        out: dict[str, Any] = {key: value for key, value in both.items() if value is not None}
        if self.has_value:
            out["value"] = self.value
        out["reason"] = self.reason
        return out


@dataclass(slots=True)
class ChangeReport:
    """The result of migrating (or converting) one document."""

    source: str = "<object>"
    line: int | None = None
    from_: str | None = None
    """Source target, ``atif@v1.8``; None when it could not be identified."""
    to: str | None = None
    stashed: list[Item] = field(default_factory=list)
    named: list[Item] = field(default_factory=list)
    """Values kept under a documented name in a free-form object (not a loss)."""
    dropped: list[Item] = field(default_factory=list)
    decided: list[Item] = field(default_factory=list)
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    output: str | None = None
    """Where the result was written (CLI), when it was."""
    mapped: int | None = None
    """Leaf values of the written document in the target's own fields, counted when
    :attr:`counts` is first read after :meth:`tally` (off the hot path); None until then."""
    written: Any = field(default=None, repr=False, compare=False)
    """The written document :meth:`tally` was given, until its leaves are counted."""

    @property
    def ok(self) -> bool:
        """True when the document was migrated (no error)."""
        return not any(f.level is Level.ERROR for f in self.errors)

    def refusals(self, kind: str, fail_on_loss: bool, fail_on_decision: bool) -> list[Finding]:
        """The findings that refuse this document under ``--fail-on-loss`` and
        ``--fail-on-decision`` (``kind`` is the code prefix: ``migrate`` or ``convert``)."""
        out: list[Finding] = []
        for code, items, wanted, what in (
            ("would-lose-data", self.lossy, fail_on_loss, "{to} cannot hold {n} value(s)"),
            ("needs-decision", self.decided, fail_on_decision, "{n} value(s) would be synthesized"),
        ):
            if wanted and items:
                first = items[0]
                head = what.format(to=self.to, n=len(items))
                message = f"{head}, first {first.pointer} ({first.reason})"
                out.append(Finding(f"{kind}:{code}", code, Level.ERROR, first.pointer, message))
        return out

    @property
    def lossy(self) -> list[Item]:
        """Stashed and dropped items that hold data (what ``--fail-on-loss`` refuses)."""
        return [i for i in (*self.stashed, *self.dropped) if i.loss]

    def absorb(self, other: ChangeReport) -> None:
        """Add the items and warnings of a sub-run (a migration inside a conversion)."""
        for name in ("stashed", "named", "dropped", "decided", "warnings"):
            getattr(self, name).extend(getattr(other, name))

    def tally(self, doc: Any) -> None:
        """Note the written ``doc``: :attr:`counts` counts its leaf values held in the target's
        own fields when first read (the document must not be changed before)."""
        self.mapped, self.written = None, doc

    @property
    def counts(self) -> dict[str, int] | None:
        """How many values went where (RFC.md §4.3); None before :meth:`tally`."""
        if self.mapped is None and self.written is not None:
            self.mapped, self.written = mapped_leaves(self.written, self.to), None
        if self.mapped is None:
            return None
        return {
            "mapped": self.mapped,
            "named": len(self.named),
            "stashed": len(self.stashed),
            "dropped": len(self.dropped),
        }

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: one line of ``atif migrate --report json``."""
        counts = self.counts
        return {
            "source": self.source,
            "line": self.line,
            "from": self.from_,
            "to": self.to,
            "ok": self.ok,
            "output": self.output,
            **({"counts": counts} if counts is not None else {}),
            "stashed": [i.to_dict() for i in self.stashed],
            **({"named": [i.to_dict() for i in self.named]} if self.named else {}),
            "dropped": [i.to_dict() for i in self.dropped],
            "decided": [i.to_dict() for i in self.decided],
            "errors": [f.to_dict() for f in self.errors],
            "warnings": [f.to_dict() for f in self.warnings],
        }


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _members(item: Any) -> Any:
    """The members of a container, its stash left out."""
    if not isinstance(item, dict):
        return item
    return [v for k, v in item.items() if k != STASH_KEY] if STASH_KEY in item else item.values()


def _branch(value: Any) -> bool:
    return isinstance(value, (dict, list)) and bool(value)


def _leaf_count(node: Any) -> int:
    """Leaf values below ``node``, stashes left out; a container in several places (snapshots
    share their messages) counts at each but is walked once (met again: :func:`_memo`)."""
    if not _branch(node):
        return 1
    count, seen, again, pending = 0, set[int](), list[Any](), [node]
    while pending:
        item = pending.pop()
        if id(item) in seen:
            again.append(item)
            continue
        seen.add(id(item))
        members = _members(item)
        inner = [v for v in members if type(v) not in _SCALARS and _branch(v)]
        count += len(members) - len(inner)
        pending += inner
    memo: dict[int, int] = {}
    return count + sum(_memo(item, memo) for item in again)


def _memo(node: Any, memo: dict[int, int]) -> int:
    """The leaves below the container ``node``, each container's count kept in ``memo``."""
    stack: list[tuple[Any, Any]] = [(node, None)]
    while stack:
        item, children = stack.pop()
        if children is not None:  # every child is counted: count the container
            memo[id(item)] = sum(memo.get(id(c), 1) for c in children)
        elif id(item) not in memo:
            children = list(_members(item))
            stack.append((item, children))
            stack += [(c, None) for c in children if _branch(c) and id(c) not in memo]
    return memo[id(node)]


def mapped_leaves(doc: Any, target: str | None = None) -> int:
    """Leaf values (scalars, empty arrays and objects) of ``doc`` (of ``target``, default ATIF)
    outside its stash and the named members its layers list under ``wrote``; iterative."""
    total = _leaf_count(doc)
    stash = value_at(doc, pointer(*holder(target or "atif"), STASH_KEY))
    layers = stash.get("layers") if isinstance(stash, dict) else None
    for layer in layers if isinstance(layers, list) else ():
        wrote = layer.get("wrote") if isinstance(layer, dict) else None
        for ptr in wrote if isinstance(wrote, list) else ():
            value = value_at(doc, ptr) if isinstance(ptr, str) else MISSING
            if value is not MISSING:
                total -= _leaf_count(value)
    return total
