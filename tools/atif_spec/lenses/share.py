"""How much of a converted document is stash: the readability measure of RFC.md §4.5.

A lens should write what a native producer of its target writes; the stash keeps only the
residue. :func:`share` measures one output: the compact JSON bytes of every stash (the reserved
key and its value, wherever it sits) against the compact bytes of the whole document.
:func:`lens_table` adds that up per lens over the valid conformance fixtures of the lens's
source format (``nox -s bench`` prints it; a test bounds it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from atif_spec.stash import STASH_KEY


@dataclass(slots=True)
class Share:
    """Byte counts of one output (or a sum of outputs)."""

    stash: int = 0
    """Compact bytes of ``"_atif_stash":<value>`` members."""
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
        self.total += other.total
        self.documents += other.documents
        self.low = min(self.low, other.low)
        self.high = max(self.high, other.high)

    @property
    def percent(self) -> float:
        """Stash bytes as a percentage of the output (0 for an empty sum)."""
        return 100.0 * self.stash / self.total if self.total else 0.0


def _stashes(value: Any) -> Iterator[Any]:
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            for key, member in node.items():
                if key == STASH_KEY:
                    yield member
                else:
                    pending.append(member)
        elif isinstance(node, list):
            pending.extend(node)


def share(doc: Any) -> Share:
    """The stash bytes and total bytes of one output document."""
    stash = sum(len(orjson.dumps(s)) + len(STASH_KEY) + 3 for s in _stashes(doc))
    total = len(orjson.dumps(doc))
    percent = 100.0 * stash / total if total else 0.0
    return Share(stash=stash, total=total, documents=1, low=percent, high=percent)


def valid_fixtures(root: Path, fmt: str, version: str) -> list[Path]:
    """The valid fixtures of ``fmt`` ``version`` under the conformance directory ``root``."""
    return sorted((root / fmt / version / "valid").glob("*.json"))


def lens_table(root: Path) -> dict[str, Share]:
    """Stash share per lens (``SOURCE->TARGET``) over the valid fixtures of its source."""
    from atif_spec.lenses import ConversionError, all_lenses, convert

    table: dict[str, Share] = {}
    for lens in all_lenses():
        fmt, _, version = lens.source.partition("@")
        total = table.setdefault(lens.name, Share())
        for path in valid_fixtures(root, fmt, version):
            doc = json.loads(path.read_text(encoding="utf-8"))
            try:
                out, _ = convert(doc, lens.target)
            except ConversionError:
                continue
            total.add(share(out))
    return table


def format_table(table: dict[str, Share]) -> str:
    """The table as aligned text lines."""
    head = f"  {'lens':<40} {'docs':>5} {'stash B':>9} {'out B':>9} {'stash %':>8}  per doc"
    lines = [head]
    for name, s in sorted(table.items()):
        spread = f"{s.low:.0f}-{s.high:.0f} %" if s.documents else "-"
        lines.append(
            f"  {name:<40} {s.documents:>5} {s.stash:>9} {s.total:>9} {s.percent:>7.1f}%  {spread}"
        )
    return "\n".join(lines)
