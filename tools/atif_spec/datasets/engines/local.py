"""The local engine: this machine, in this process or a pool of ``jobs`` worker processes.

Documents stream through in input order with a bounded number of batches in flight (the same
scheme as ``atif validate --jobs``), so memory stays bounded however large the dataset is.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator

from atif_spec.datasets.engines import Result, Task, process_batch
from atif_spec.datasets.engines.sources import DEFAULT_COLUMN, read_documents
from atif_spec.datasets.pool import map_ordered
from atif_spec.datasets.summary import DatasetSummary
from atif_spec.transforms.document import MigrateOptions, Outcome, migrate_raw
from atif_spec.validation.reader import RawDocument, by_trace

Sink = Callable[[Result], None]
"""Receives every result, in input order."""


def documents(
    files: Iterable[str], task: Task, *, lines: bool | None = None, column: str = DEFAULT_COLUMN
) -> Iterator[RawDocument]:
    """Every document of every file, in order; to transform, an OTLP/JSON file's documents are
    its traces (:func:`atif_spec.validation.reader.by_trace`; validation reads its lines)."""
    for name in files:
        found = read_documents(name, max_bytes=task.max_bytes, lines=lines, column=column)
        yield from found if task.operation == "validate" else by_trace(found, task.max_bytes)


def results(
    task: Task, docs: Iterable[RawDocument], jobs: int = 1
) -> Iterator[tuple[RawDocument, Result]]:
    """Every document with its result, in input order, here or in ``jobs`` processes."""
    return map_ordered(functools.partial(process_batch, task), docs, jobs)


def run(
    task: Task,
    files: list[str],
    *,
    jobs: int = 1,
    lines: bool | None = None,
    column: str = DEFAULT_COLUMN,
    sink: Sink | None = None,
) -> DatasetSummary:
    """Do ``task`` to every document of ``files`` (see
    :func:`atif_spec.datasets.engines.sources.expand`) and return the summary; ``sink`` sees every
    result in input order."""
    summary = task.summary()
    for _, result in results(task, documents(files, task, lines=lines, column=column), jobs):
        summary.add(result.report)
        if sink is not None:
            sink(result)
    return summary


def migrate_batch(batch: list[RawDocument], options: MigrateOptions) -> list[Outcome]:
    """Migrate a batch of documents (worker entry point)."""
    return [migrate_raw(raw, options) for raw in batch]


def outcomes(
    docs: Iterable[RawDocument], options: MigrateOptions, jobs: int
) -> Iterator[tuple[RawDocument, Outcome]]:
    """Every document with its outcome, in input order, in this process or in ``jobs``
    processes."""
    return map_ordered(functools.partial(migrate_batch, options=options), docs, jobs)
