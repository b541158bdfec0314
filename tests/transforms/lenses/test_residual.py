"""Residual stashing's list alignment: the provenance chain in n log n, as the quadratic DP chose."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from atif_spec.transforms.lenses.residual import longest_increasing


def _quadratic(values: list[int]) -> list[int]:
    """The reference: the O(n²) dynamic programme the lens used before (first index wins ties)."""
    best = [1] * len(values)
    before = [-1] * len(values)
    for x in range(len(values)):
        for y in range(x):
            if values[y] < values[x] and best[y] + 1 > best[x]:
                best[x], before[x] = best[y] + 1, y
    chain: list[int] = []
    x = max(range(len(values)), key=best.__getitem__, default=-1)
    while x >= 0:
        chain.append(x)
        x = before[x]
    return chain[::-1]


@given(st.lists(st.integers(0, 12), max_size=40))
def test_the_same_chain_as_the_quadratic_programme(values: list[int]) -> None:
    assert longest_increasing(values) == _quadratic(values)


def test_examples() -> None:
    assert longest_increasing([]) == []
    assert longest_increasing([3, 1, 2, 5, 4]) == [1, 2, 3]
    assert longest_increasing([2, 2, 2]) == [0]


def test_a_long_run() -> None:
    """200 000 elements with a reordered tail: well under a second in n log n (the quadratic
    programme took hours; ATIF -> TAO of 50 000 steps took 262 s, issue 36)."""
    values = list(range(200_000))
    values[-10:] = reversed(values[-10:])
    assert longest_increasing(values) == list(range(199_991))
