"""Timing helpers of the benchmarks (timings are printed, never asserted)."""

from __future__ import annotations

import gc
import statistics
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


def interleaved(
    fns: dict[str, Callable[[], object]],
    runs: int,
    calls: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, list[float]]:
    """Seconds per call of each function over ``runs`` rounds; a round times ``calls``
    consecutive calls of each function in turn.

    Interleaving keeps a slow spell of the machine from landing on one side of a ratio only.
    Each block starts from a collected heap, so that the garbage one function leaves (or the
    collections it defers) is not collected in another's time.
    With ``clock=time.process_time`` the time is this process's CPU time, which other
    processes on a busy machine do not inflate.
    """
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            gc.collect()
            start = clock()
            for _ in range(calls):
                fn()
            times[name].append((clock() - start) / calls)
    return times


def calls_for(fn: Callable[[], object], seconds: float = 0.02) -> int:
    """How many calls of ``fn`` take about ``seconds`` (so that tiny calls time well)."""
    once = best_of(fn, 3)
    return max(1, min(5000, round(seconds / max(once, 1e-7))))


def ratios(times: dict[str, list[float]], name: str, base: str) -> list[float]:
    """Round-by-round ratios of ``name`` to ``base`` (both measured by :func:`interleaved`)."""
    return [t / b for t, b in zip(times[name], times[base], strict=True)]


def spread(values: list[float]) -> str:
    """``median (min-max)`` of some ratios, e.g. ``1.21x (1.15-1.30)``."""
    return f"{statistics.median(values):.2f}x ({min(values):.2f}-{max(values):.2f})"


def best(times: dict[str, list[float]]) -> dict[str, float]:
    """The fastest time of each function measured by :func:`interleaved`."""
    return {name: min(values) for name, values in times.items()}


def row(name: str, seconds: float, base: float, note: str = "", width: int = 44) -> None:
    """One printed line: time in ms and its ratio to ``base``."""
    print(f"  {name:<{width}} {seconds * 1000:10.1f} ms   {seconds / base:8.2f}x  {note}")
