"""How much of a converted document is stash: the readability measure of RFC.md §4.5.

A lens should write what a native producer of its target writes; the stash keeps only the
residue. :func:`share` measures one output: the compact JSON bytes of every stash (the reserved
key and its value, wherever it sits), plus the members of free-form objects that the mapping
registry does not document and that the source did not hold either (a key the lens wrote
without a row: as opaque to a reader as the stash), against the compact bytes of the whole
document.
:func:`lens_table` adds that up per lens over the valid conformance fixtures of the lens's
source format (``nox -s bench`` prints it; a test bounds it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atif_spec.jsonio import jsontext
from atif_spec.transforms.lenses import ConversionError, all_lenses, convert
from atif_spec.transforms.mapping import documents
from atif_spec.transforms.stash import STASH_KEY, AttributeHolder


@dataclass(slots=True)
class Share:
    """Byte counts of one output (or a sum of outputs)."""

    stash: int = 0
    """Compact bytes of ``"_atif_stash":<value>`` members."""
    unregistered: int = 0
    """Compact bytes of ``"key":<value>`` free-form members that no table documents and that
    the source did not hold in a free-form object."""
    total: int = 0
    """Compact bytes of the whole output."""
    documents: int = 0
    low: float = 100.0
    """The smallest per-document percentage in the sum."""
    high: float = 0.0
    """The largest per-document percentage in the sum."""

    def add(self, other: Share) -> None:
        """Add ``other`` into this sum."""
        self.stash += other.stash
        self.unregistered += other.unregistered
        self.total += other.total
        self.documents += other.documents
        self.low = min(self.low, other.low)
        self.high = max(self.high, other.high)

    @property
    def percent(self) -> float:
        """Stash and undocumented bytes as a percentage of the output (0 for an empty sum)."""
        return 100.0 * (self.stash + self.unregistered) / self.total if self.total else 0.0


def _stash_bytes(value: Any) -> Iterator[int]:
    """The compact bytes of each stash below ``value``: a ``_atif_stash`` member (key and
    value), or an OTLP attribute ``atif.stash`` (the whole ``KeyValue``, RFC.md §4.5.2)."""
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, dict) and node.get("key") == AttributeHolder.key and "value" in node:
            yield len(jsontext.dumps(node))
        elif isinstance(node, dict):
            for key, member in node.items():
                if key == STASH_KEY:
                    yield len(jsontext.dumps(member)) + len(STASH_KEY) + 3
                else:
                    pending.append(member)
        elif isinstance(node, list):
            pending.extend(node)


_FREE_FORM = ("extra", "metadata")
"""Keys of free-form objects (and ``telemetry.data``, see :func:`_free_members`)."""


def _free_members(doc: Any) -> Iterator[tuple[tuple[str | int, ...], str, Any]]:
    """(path, key, value) of every member of a free-form object below ``doc``, stashes left
    out (members inside a free-form member are part of that member)."""
    pending: list[tuple[Any, tuple[str | int, ...], bool]] = [(doc, (), False)]
    while pending:
        node, path, free = pending.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key == STASH_KEY:
                    continue
                if free:
                    yield (*path, key), key, value
                    continue
                inner = key in _FREE_FORM or (key == "data" and path[-1:] == ("telemetry",))
                pending.append((value, (*path, key), inner))
        elif isinstance(node, list) and not free:
            pending.extend((value, (*path, i), False) for i, value in enumerate(node))


def _canonical(key: str, value: Any) -> bytes:
    return jsontext.dumps({key: value}, sort_keys=True)


def unregistered(out: Any, source: Any, step: str) -> int:
    """Compact bytes of the free-form members of ``out`` that the tables of ``step`` do not
    document and that ``source`` does not hold, with the same value, in a free-form object."""

    held = {_canonical(key, value) for _, key, value in _free_members(source)}
    size = 0
    for path, key, value in _free_members(out):
        if documents(step, path):
            continue
        member = _canonical(key, value)
        if member not in held:
            size += len(jsontext.dumps({key: value})) - 1  # `"key":value` and a comma
    return size


def share(doc: Any, source: Any = None, step: str | None = None) -> Share:
    """The stash bytes and total bytes of one output document, and with the ``source`` it was
    converted from by ``step``, the bytes of its undocumented free-form members."""
    stash = sum(_stash_bytes(doc))
    extra = unregistered(doc, source, step) if step is not None else 0
    total = len(jsontext.dumps(doc))
    percent = 100.0 * (stash + extra) / total if total else 0.0
    return Share(
        stash=stash, unregistered=extra, total=total, documents=1, low=percent, high=percent
    )


def valid_fixtures(root: Path, fmt: str, version: str) -> list[Path]:
    """The valid fixtures of ``fmt`` ``version`` under the conformance directory ``root``."""
    folder = root / fmt / version / "valid"
    return sorted([*folder.glob("*.json"), *folder.glob("*.jsonl")])


def _read(path: Path) -> Any:
    """A fixture's document: its JSON value, or a ``.jsonl`` event stream's list of events."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


OLDER_SOURCES: dict[str, tuple[str, ...]] = {"tao@v0.2.0": ("v0.1.0",)}
"""Older versions of its source format that a lens also reads (TAO → ATIF reads 0.1.x records):
:func:`lens_table` gives them rows of their own, ``tao@v0.1.0->atif@v1.7``."""


def lens_table(root: Path) -> dict[str, Share]:
    """Stash share per lens (``SOURCE->TARGET``) over the valid fixtures of its source, and
    per older source version it reads (:data:`OLDER_SOURCES`)."""

    table: dict[str, Share] = {}
    for lens in all_lenses():
        fmt, _, version = lens.source.partition("@")
        for read in (version, *OLDER_SOURCES.get(lens.source, ())):
            name = lens.name if read == version else f"{fmt}@{read}->{lens.target}"
            total = table.setdefault(name, Share())
            for path in valid_fixtures(root, fmt, read):
                doc = _read(path)
                try:
                    out, _ = convert(doc, lens.target)
                except ConversionError:
                    continue
                total.add(share(out, doc, lens.name))
    return table


def format_table(table: dict[str, Share]) -> str:
    """The table as aligned text lines."""
    head = (
        f"  {'lens':<40} {'docs':>5} {'stash B':>9} {'undoc B':>8} {'out B':>9} {'share':>7}"
        "  per doc"
    )
    lines = [head]
    for name, s in sorted(table.items()):
        spread = f"{s.low:.0f}-{s.high:.0f} %" if s.documents else "-"
        lines.append(
            f"  {name:<40} {s.documents:>5} {s.stash:>9} {s.unregistered:>8} {s.total:>9}"
            f" {s.percent:>6.1f}%  {spread}"
        )
    return "\n".join(lines)
