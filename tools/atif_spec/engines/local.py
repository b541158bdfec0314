"""The local engine: this machine, in this process or a pool of ``jobs`` worker processes.

Documents stream through in input order with a bounded number of batches in flight (the same
scheme as ``atif validate --jobs``), so memory stays bounded however large the dataset is.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor

from atif_spec.engines import Result, Task, process, process_batch
from atif_spec.engines.sources import DEFAULT_COLUMN, read_documents
from atif_spec.reader import RawDocument
from atif_spec.summary import DatasetSummary

BATCH_DOCUMENTS = 64
IN_FLIGHT_PER_JOB = 3

Sink = Callable[[Result], None]
"""Receives every result, in input order."""


def documents(
    files: Iterable[str], task: Task, *, lines: bool | None = None, column: str = DEFAULT_COLUMN
) -> Iterator[RawDocument]:
    """Every document of every file, in order."""
    for name in files:
        yield from read_documents(name, max_bytes=task.max_bytes, lines=lines, column=column)


def results(
    task: Task, docs: Iterable[RawDocument], jobs: int = 1
) -> Iterator[tuple[RawDocument, Result]]:
    """Every document with its result, in input order, here or in ``jobs`` processes."""
    if jobs == 1:
        for raw in docs:
            yield raw, process(task, raw)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: deque[tuple[list[RawDocument], Future[list[Result]]]] = deque()
        for batch in _batches(docs):
            pending.append((batch, pool.submit(process_batch, task, batch)))
            while len(pending) >= jobs * IN_FLIGHT_PER_JOB:
                sent, done = pending.popleft()
                yield from zip(sent, done.result(), strict=True)
        while pending:
            sent, done = pending.popleft()
            yield from zip(sent, done.result(), strict=True)


def _batches(docs: Iterable[RawDocument]) -> Iterator[list[RawDocument]]:
    batch: list[RawDocument] = []
    for raw in docs:
        batch.append(raw)
        if len(batch) >= BATCH_DOCUMENTS:
            yield batch
            batch = []
    if batch:
        yield batch


def run(
    task: Task,
    files: list[str],
    *,
    jobs: int = 1,
    lines: bool | None = None,
    column: str = DEFAULT_COLUMN,
    sink: Sink | None = None,
) -> DatasetSummary:
    """Do ``task`` to every document of ``files`` (see :func:`atif_spec.engines.sources.expand`)
    and return the summary; ``sink`` sees every result in input order."""
    summary = task.summary()
    for _, result in results(task, documents(files, task, lines=lines, column=column), jobs):
        summary.add(result.report)
        if sink is not None:
            sink(result)
    return summary
