"""Timing helpers of the benchmarks (timings are printed, never asserted)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(fn: Callable[[], object], runs: int) -> float:
    """The fastest of ``runs`` calls, in seconds."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def interleaved(fns: dict[str, Callable[[], object]], runs: int) -> dict[str, list[float]]:
    """Times of each function over ``runs`` rounds, one call of each per round.

    Interleaving keeps a slow spell of the machine from landing on one side of a ratio only.
    """
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return times


def best(times: dict[str, list[float]]) -> dict[str, float]:
    """The fastest time of each function measured by :func:`interleaved`."""
    return {name: min(values) for name, values in times.items()}


def row(name: str, seconds: float, base: float, note: str = "", width: int = 44) -> None:
    """One printed line: time in ms and its ratio to ``base``."""
    print(f"  {name:<{width}} {seconds * 1000:10.1f} ms   {seconds / base:8.2f}x  {note}")
