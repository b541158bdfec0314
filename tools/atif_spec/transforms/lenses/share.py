"""How much of a converted document is stash (RFC.md §4.5): the compact bytes of every stash,
and of free-form members no mapping table documents and the source did not hold (as opaque to a
reader), against the whole output's; per lens over the valid conformance fixtures of its source
(``nox -s bench`` prints it; a test bounds it)."""

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
    """Compact byte counts of one output (or a sum of outputs)."""

    stash: int = 0  # of `"_atif_stash":<value>` members (or OTLP attributes)
    unregistered: int = 0
    """Of ``"key":<value>`` free-form members no table documents and the source did not hold."""
    total: int = 0
    documents: int = 0
    low: float = 100.0  # the smallest and largest per-document percentages
    high: float = 0.0

    def add(self, other: Share) -> None:
        self.stash += other.stash
        self.unregistered += other.unregistered
        self.total += other.total
        self.documents += other.documents
        self.low, self.high = min(self.low, other.low), max(self.high, other.high)

    @property
    def percent(self) -> float:
        """Stash and undocumented bytes as a percentage of the output (0 for an empty sum)."""
        return 100.0 * (self.stash + self.unregistered) / self.total if self.total else 0.0


def _stash_bytes(value: Any) -> Iterator[int]:
    """The compact bytes of each stash member (key and value) or OTLP ``KeyValue`` below it."""
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


def _free_members(doc: Any) -> Iterator[tuple[tuple[str | int, ...], str, Any]]:
    """(path, key, value) of the members of every free-form object below ``doc``, but stashes."""
    pending: list[tuple[Any, tuple[str | int, ...], bool]] = [(doc, (), False)]
    while pending:
        node, path, free = pending.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if free and key != STASH_KEY:
                    yield (*path, key), key, value
                elif not free and key != STASH_KEY:
                    inner = key in ("extra", "metadata") or (
                        key == "data" and path[-1:] == ("telemetry",)
                    )
                    pending.append((value, (*path, key), inner))
        elif isinstance(node, list) and not free:
            pending.extend((value, (*path, i), False) for i, value in enumerate(node))


def unregistered(out: Any, source: Any, step: str) -> int:
    """Compact bytes of the free-form members of ``out`` that the tables of ``step`` do not
    document and that ``source`` does not hold, with the same value, in a free-form object."""
    held = {jsontext.dumps({k: v}, sort_keys=True) for _, k, v in _free_members(source)}
    return sum(
        len(jsontext.dumps({key: value})) - 1  # `"key":value` and a comma
        for path, key, value in _free_members(out)
        if not documents(step, path) and jsontext.dumps({key: value}, sort_keys=True) not in held
    )


def share(doc: Any, source: Any = None, step: str | None = None) -> Share:
    """One output's bytes; with the ``source`` ``step`` converted, its undocumented ones too."""
    stash = sum(_stash_bytes(doc))
    extra = unregistered(doc, source, step) if step is not None else 0
    total = len(jsontext.dumps(doc))
    percent = 100.0 * (stash + extra) / total if total else 0.0
    return Share(stash, extra, total, 1, percent, percent)


OLDER_SOURCES: dict[str, tuple[str, ...]] = {"tao@v0.2.0": ("v0.1.0",)}
"""Older versions of its source format that a lens also reads, measured in rows of their own."""


def lens_table(root: Path) -> dict[str, Share]:
    """Share per lens over the valid fixtures of its source (and older sources) under ``root``."""
    table: dict[str, Share] = {}
    for lens in all_lenses():
        fmt, _, version = lens.source.partition("@")
        for read in (version, *OLDER_SOURCES.get(lens.source, ())):
            total = table.setdefault(f"{fmt}@{read}->{lens.target}", Share())
            folder = root / fmt / read / "valid"
            for path in sorted([*folder.glob("*.json"), *folder.glob("*.jsonl")]):
                text = path.read_text(encoding="utf-8")
                doc = (
                    [json.loads(line) for line in text.splitlines() if line.strip()]
                    if path.suffix == ".jsonl"  # an event stream: its list of events
                    else json.loads(text)
                )
                try:
                    out, _ = convert(doc, lens.target)
                except ConversionError:
                    continue
                total.add(share(out, doc, lens.name))
    return table


def format_table(table: dict[str, Share]) -> str:
    """The table as aligned text lines."""
    lines = [
        f"  {'lens':<40} {'docs':>5} {'stash B':>9} {'undoc B':>8} {'out B':>9} {'share':>7}"
        "  per doc"
    ]
    for name, s in sorted(table.items()):
        spread = f"{s.low:.0f}-{s.high:.0f} %" if s.documents else "-"
        lines.append(
            f"  {name:<40} {s.documents:>5} {s.stash:>9} {s.unregistered:>8} {s.total:>9}"
            f" {s.percent:>6.1f}%  {spread}"
        )
    return "\n".join(lines)
