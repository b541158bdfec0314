"""Runs validation over many documents, in this process or in a pool of worker processes.

Documents stream through in input order with a bounded number of batches in flight, so
memory stays bounded however long a JSON Lines file is.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from atif_spec.pool import map_ordered
from atif_spec.reader import RawDocument, read_file
from atif_spec.validation import Options, validate_raw

BATCH_BYTES = 8 * 1024 * 1024


@dataclass(slots=True)
class Summary:
    """Counts over a whole run."""

    documents: int = 0
    invalid: int = 0
    with_warnings: int = 0
    errors: int = 0
    warnings: int = 0
    by_code: dict[str, int] = field(default_factory=dict)

    def add(self, report: dict[str, Any]) -> None:
        """Count one document's report (its JSON form)."""
        self.documents += 1
        if not report["valid"]:
            self.invalid += 1
        if report["warnings"]:
            self.with_warnings += 1
        self.errors += len(report["errors"])
        self.warnings += len(report["warnings"])
        for f in (*report["errors"], *report["warnings"]):
            self.by_code[f["code"]] = self.by_code.get(f["code"], 0) + 1


Sink = Callable[[dict[str, Any]], None]


def documents(files: Iterable[str], lines: bool | None, max_bytes: int) -> Iterator[RawDocument]:
    """Every document of every input, in order."""
    for name in files:
        yield from read_file(name, max_bytes, lines)


def validate_batch(batch: list[RawDocument], options: Options) -> list[dict[str, Any]]:
    """Validate a batch of documents; returns their reports in JSON form (worker entry point)."""
    return [validate_raw(doc, options).to_dict() for doc in batch]


def run_validation(
    files: list[str],
    options: Options,
    *,
    jobs: int = 1,
    lines: bool | None = None,
    sink: Sink,
    progress: bool | None = None,
) -> Summary:
    """Validate every document of ``files``, handing each report to ``sink`` in input order."""
    summary = Summary()
    docs = documents(files, lines, options.max_bytes)
    show = sys.stderr.isatty() if progress is None else progress
    with _Progress(show) as bar:

        def emit(report: dict[str, Any]) -> None:
            summary.add(report)
            sink(report)
            bar.advance()

        work = functools.partial(validate_batch, options=options)
        for _, report in map_ordered(
            work, docs, jobs, weight=lambda d: len(d.data), max_weight=BATCH_BYTES
        ):
            emit(report)
    return summary


class _Progress:
    """A rich progress counter on a terminal; nothing otherwise."""

    def __init__(self, show: bool) -> None:
        self._show = show
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> _Progress:
        if self._show:
            from rich.progress import MofNCompleteColumn, Progress, SpinnerColumn, TimeElapsedColumn

            self._progress = Progress(
                SpinnerColumn(),
                "validated",
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                transient=True,
                console=_stderr_console(),
            )
            self._progress.__enter__()
            self._task = self._progress.add_task("validate", total=None)
        return self

    def advance(self) -> None:
        if self._progress is not None:
            self._progress.advance(self._task)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)


def _stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True)
