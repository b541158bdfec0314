"""Axis scales and histogram bins (the charts of ``atif view``, ``atif stats --histogram``)."""

from __future__ import annotations

import pytest

from atif_spec.datasets.histogram import Bin, bins, nice, text, ticks


@pytest.mark.parametrize(
    ("x", "expected"),
    [(0, 1.0), (-3, 1.0), (1, 1.0), (1.2, 2.0), (3, 5.0), (7, 10.0), (0.03, 0.05), (450, 500.0)],
)
def test_nice_is_the_next_1_2_5_step(x: float, expected: float) -> None:
    assert nice(x) == expected


def test_ticks_start_at_zero_and_reach_the_top_in_round_steps() -> None:
    assert ticks(520) == [0, 200, 400, 600]
    assert ticks(8.5) == [0, 5, 10]
    assert ticks(0.3) == [0, 0.1, 0.2, 0.3]  # no float noise (0.30000000000000004)
    assert ticks(3) == [0, 1, 2, 3]  # an integer axis never steps by less than 1
    assert ticks(0) == [0, 1]
    assert ticks(400_000) == [0, 100_000, 200_000, 300_000, 400_000]


def test_bins_are_round_half_open_and_hold_every_value() -> None:
    values = [0, 3, 9, 10, 19, 55]
    found = bins(values, count=5)
    assert [(b.low, b.high) for b in found][:2] == [(0, 20), (20, 40)]
    assert [b.count for b in found] == [5, 0, 1]  # the empty bin between full ones is kept
    assert sum(b.count for b in found) == len(values)
    # Integer bins are at least 1 wide; one value gives one bin.
    assert bins([1, 1, 2], count=20) == [Bin(1, 2, 2), Bin(2, 3, 1)]
    assert bins([7]) == [Bin(7, 8, 1)]
    assert bins([]) == [] and bins([float("nan")]) == []
    # Float bins: no rounding to integers.
    costs = bins([0.001, 0.0123, 0.02], count=4, integer=False)
    assert costs[0] == Bin(0, 0.005, 1) and costs[-1] == Bin(0.02, 0.025, 1)


def test_bin_labels_read_as_ranges_of_values() -> None:
    assert Bin(10, 20, 3).label(integer=True) == "10\u201319"
    assert Bin(7, 8, 1).label(integer=True) == "7"
    assert Bin(10_000, 12_000, 1).label(integer=True) == "10,000\u201311,999"
    assert Bin(0.01, 0.02, 1).label(integer=False) == "0.01\u20130.02"


def test_text_histogram_has_counts_and_bars() -> None:
    lines = text("steps per document", [Bin(0, 10, 40), Bin(10, 20, 0), Bin(20, 30, 1)], width=20)
    assert lines == [
        "steps per document (41 documents):",
        "    0\u20139  40  ####################",
        "  10\u201319   0",
        "  20\u201329   1  #",  # a bin with any value shows at least one mark
    ]
    assert text("cost", []) == ["cost (0 documents):", "  (no values)"]
