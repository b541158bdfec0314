"""Ordered, bounded parallel maps: the one way the commands spread documents over processes.

Documents are grouped into batches; batches go to a pool of worker processes with a bounded
number in flight, and results come back in input order. Memory stays bounded however long the
input is, and ``jobs=1`` runs the same batches in this process.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future

T = TypeVar("T")
R = TypeVar("R")

BATCH_ITEMS = 64
IN_FLIGHT_PER_JOB = 3


def batches(
    items: Iterable[T],
    *,
    size: int = BATCH_ITEMS,
    weight: Callable[[T], int] | None = None,
    max_weight: int | None = None,
) -> Iterator[list[T]]:
    """Consecutive batches of at most ``size`` items (and at most ``max_weight`` in total)."""
    batch: list[T] = []
    total = 0
    for item in items:
        batch.append(item)
        if weight is not None:
            total += weight(item)
        if len(batch) >= size or (max_weight is not None and total >= max_weight):
            yield batch
            batch, total = [], 0
    if batch:
        yield batch


def map_ordered(
    work: Callable[[list[T]], list[R]],
    items: Iterable[T],
    jobs: int = 1,
    *,
    size: int = BATCH_ITEMS,
    weight: Callable[[T], int] | None = None,
    max_weight: int | None = None,
) -> Iterator[tuple[T, R]]:
    """``(item, result)`` for every item, in input order; ``work`` maps a batch to its results
    (it must be picklable, e.g. a module-level function or a ``functools.partial`` of one)."""
    groups = batches(items, size=size, weight=weight, max_weight=max_weight)
    if jobs == 1:
        for batch in groups:
            yield from zip(batch, work(batch), strict=True)
        return
    # The process pool machinery (multiprocessing) would cost a run of --jobs 1 a noticeable
    # part of its start-up for nothing.
    from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415 - start-up, see above

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: deque[tuple[list[T], Future[list[R]]]] = deque()
        for batch in groups:
            pending.append((batch, pool.submit(work, batch)))
            while len(pending) >= jobs * IN_FLIGHT_PER_JOB:
                sent, done = pending.popleft()
                yield from zip(sent, done.result(), strict=True)
        while pending:
            sent, done = pending.popleft()
            yield from zip(sent, done.result(), strict=True)
