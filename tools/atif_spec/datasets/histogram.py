"""Axis scales and histogram bins: the one arithmetic behind the charts of ``atif view`` and the
histograms of ``atif stats --histogram``.

Scales step by 1, 2 or 5 times a power of ten from zero; bins are half-open ranges
``[low, high)`` of such a width, from a multiple of the width at or below the smallest value, so
every value falls in exactly one bin and the edges read as round numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

BINS = 12
"""About how many bins a histogram has (between ``BINS / 2.5`` and ``BINS + 1``)."""
TICKS = 4
"""About how many steps an axis has above zero."""


def nice(x: float) -> float:
    """The smallest of 1, 2, 5 times a power of ten that is at least ``x`` (1 for ``x <= 0``)."""
    if not x > 0 or not math.isfinite(x):
        return 1.0
    power = math.floor(math.log10(x))
    for m in (1, 2, 5, 10):
        value = _round(m * 10.0**power)
        if value >= x * (1 - 1e-12):
            return value
    return _round(10.0 ** (power + 1))  # pragma: no cover - 10 * 10**power >= x always


def _round(x: float) -> float:
    """``x`` without the float noise of ``m * 10**p`` (0.30000000000000004 -> 0.3)."""
    return float(f"{x:.12g}")


def ticks(top: float, count: int = TICKS) -> list[float]:
    """Axis marks from 0 to at least ``top``: about ``count`` equal steps of a :func:`nice`
    size (integers stay integers: the step is at least 1 for an integer ``top``)."""
    step = nice(top / count) if top > 0 else 1.0
    if float(top).is_integer():
        step = max(1.0, step)
    n = max(1, math.ceil(top / step - 1e-9))
    return [_round(k * step) for k in range(n + 1)]


@dataclass(frozen=True, slots=True)
class Bin:
    """The values ``low <= v < high``, and how many there are."""

    low: float
    high: float
    count: int

    def label(self, integer: bool) -> str:
        """The range, an en dash between its ends: ``10`` to ``19`` for integer bins (``7`` when
        one wide), ``0.01`` to ``0.02`` otherwise."""
        if integer:
            low, last = int(self.low), int(self.high) - 1
            return f"{low:,}" if low == last else f"{low:,}\u2013{last:,}"
        return f"{self.low:g}\u2013{self.high:g}"


def bins(values: Sequence[float], count: int = BINS, *, integer: bool = True) -> list[Bin]:
    """A histogram of ``values`` in about ``count`` bins of a :func:`nice` width (at least 1 for
    ``integer`` values); empty bins between full ones are kept, none before or after."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return []
    low, high = min(finite), max(finite)
    width = nice((high - low or abs(high)) / count)  # all equal: a bin to scale with them
    if integer:
        width = max(1.0, width)
    start = math.floor(low / width) * width
    n = math.floor((high - start) / width) + 1
    counts = [0] * n
    for v in finite:
        counts[min(n - 1, math.floor((v - start) / width))] += 1
    return [
        Bin(_round(start + i * width), _round(start + (i + 1) * width), c)
        for i, c in enumerate(counts)
    ]


def text(title: str, found: list[Bin], *, integer: bool = True, width: int = 40) -> list[str]:
    """A histogram for the terminal: one line per bin, its range, its count and a bar of ``#``
    (the longest bar ``width`` wide; a bin with any value shows at least one ``#``)."""
    lines = [f"{title} ({sum(b.count for b in found):,} documents):"]
    if not found:
        return [*lines, "  (no values)"]
    top = max(b.count for b in found)
    labels = [b.label(integer) for b in found]
    pad = max(len(label) for label in labels)
    digits = len(f"{top:,}")
    for b, label in zip(found, labels, strict=True):
        bar = "#" * max(1 if b.count else 0, round(width * b.count / top))
        lines.append(f"  {label:>{pad}}  {b.count:>{digits},}  {bar}".rstrip())
    return lines
