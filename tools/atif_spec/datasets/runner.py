"""Runs validation over many documents, in this process or in a pool of worker processes.

Documents stream through in input order with a bounded number of tasks in flight, so memory
stays bounded however long a JSON Lines file is. A task names its files (up to
:data:`TASK_FILES` whole files, or a newline-aligned byte range of a JSON Lines file), and the
files are read where they are validated: by the worker processes with several jobs, so that
the parent only hands out names and ranges and collects reports, or in this process, which
runs the same tasks, with one. Standard input is read here and goes out as bytes.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from atif_spec.datasets.pool import batches, map_ordered
from atif_spec.datasets.progress import Progress, Total, total_of
from atif_spec.validation.pipeline import Options, gc_paused, validate_raw
from atif_spec.validation.reader import (
    LINE_BUFFER,
    STDIN,
    RawDocument,
    UnreadablePath,
    is_jsonl,
    read_file,
    read_files,
    read_lines,
    stream_kind,
    unreadable,
)

BATCH_BYTES = 8 * 1024 * 1024
PIECE_BYTES = 4 * 1024 * 1024
"""Size of the byte ranges of a JSON Lines file that workers read themselves."""


@dataclass(slots=True)
class Summary:
    """Counts over a whole run."""

    documents: int = 0
    invalid: int = 0
    with_warnings: int = 0
    errors: int = 0
    warnings: int = 0

    def add(self, report: dict[str, Any]) -> None:
        """Count one document's report (its JSON form)."""
        self.documents += 1
        if not report["valid"]:
            self.invalid += 1
        if report["warnings"]:
            self.with_warnings += 1
        self.errors += len(report["errors"])
        self.warnings += len(report["warnings"])


Sink = Callable[[dict[str, Any]], None]


def validate_batch(batch: list[RawDocument], options: Options) -> list[dict[str, Any]]:
    """Validate a batch of documents; returns their reports in JSON form (worker entry point).

    The cyclic GC is paused over the batch: parsed documents hold no cycles and are freed by
    reference counting, while the collector would keep walking them (see ``validation``)."""
    with gc_paused():
        return [validate_raw(doc, options).to_dict() for doc in batch]


class Piece(NamedTuple):
    """Part of the input that a worker reads itself: a whole file, or the newline-aligned byte
    range ``[start, end)`` of a JSON Lines file (a tuple: tasks of many pieces pickle fast)."""

    name: str
    start: int = 0
    end: int | None = None
    lines: bool | None = None


def _boundary(fh: BinaryIO, position: int, size: int) -> int:
    """The offset just after the first newline at or after ``position`` (or the file's end)."""
    if position >= size:
        return size
    fh.seek(position)
    while True:
        block = fh.read(1 << 16)
        if not block:
            return size
        at = block.find(b"\n")
        if at >= 0:
            return min(size, fh.tell() - len(block) + at + 1)


def pieces(files: Iterable[str], lines: bool | None) -> Iterator[Piece]:
    """The files as pieces: JSON Lines files cut at newlines every ``PIECE_BYTES``."""
    for name in files:
        if not (is_jsonl(name) if lines is None else lines):
            yield Piece(name, lines=lines)
            continue
        try:
            fh = open(name, "rb")  # noqa: SIM115 - closed by _ranges
        except OSError:  # gone since the listing: the worker that reads it says so, in order
            yield Piece(name, lines=True)
            continue
        yield from _ranges(fh, name)


def _ranges(fh: BinaryIO, name: str) -> Iterator[Piece]:
    """The pieces of an open JSON Lines file, which it closes: its newline-aligned ranges, or
    the whole file when it is one provider stream."""
    with fh:
        size = os.fstat(fh.fileno()).st_size
        if stream_kind(fh) is not None:  # one report for the whole file
            yield Piece(name, lines=True)
            return
        start = 0
        while start < size:
            end = _boundary(fh, start + PIECE_BYTES, size)
            yield Piece(name, start, end, True)
            start = end


TASK_FILES = 64
"""Most whole files in one worker task: a folder of small trajectories goes out in batches of
paths, so the parent's cost per task, a message each way, is not paid per file."""
TASKS_PER_JOB = 8
"""Fewer files per task when there are fewer than this many tasks of :data:`TASK_FILES` per
worker: a folder of a few large files is shared out a file or a few at a time."""


def task_files(files: int, jobs: int) -> int:
    """How many whole files go in one task, for ``files`` files over ``jobs`` workers.

    The parent does not look at the files' sizes: a ``stat`` of every file was a fifth of its
    serial work on a folder of small files (issue 35 item 15); the workers open the files."""
    return max(1, min(TASK_FILES, files // (jobs * TASKS_PER_JOB)))


def tasks(items: Iterable[Piece], size: int = TASK_FILES) -> Iterator[list[Piece]]:
    """Pieces grouped into worker tasks: at most ``size``, and a byte range of a JSON Lines
    file (about ``PIECE_BYTES``) alone."""
    return batches(items, size=size, weight=_range, max_weight=PIECE_BYTES)


def _range(piece: Piece) -> int:
    """The bytes of a JSON Lines range (0 for a whole file, whose size is not looked up)."""
    return 0 if piece.end is None else piece.end - piece.start


class _Range:
    """``readline`` over ``[start, end)`` of a file, counting the lines it hands out."""

    def __init__(self, fh: Any, end: int) -> None:
        self.fh = fh
        self.end = end
        self.lines = 0
        self._open_line = False

    def readline(self, limit: int = -1) -> bytes:
        remaining = self.end - self.fh.tell()
        if remaining <= 0:
            return b""
        data: bytes = self.fh.readline(remaining if limit < 0 else min(limit, remaining))
        if data.endswith(b"\n"):
            self.lines += 1
            self._open_line = False
        elif data:
            self._open_line = True
        return data

    def close_count(self) -> int:
        """Lines in the range (a last line without a newline counts)."""
        return self.lines + (1 if self._open_line else 0)


Clean = tuple[int | None, str | None, str | None]
"""A report without findings, as a worker sends it: its line, format and version (its source
is the piece's file); the parent rebuilds the JSON form with :func:`unpack`."""
Packed = dict[str, Any] | Clean


def _pack(report: dict[str, Any], name: str) -> Packed:
    if report["source"] == name and report["valid"] and not report["warnings"]:
        return report["line"], report["format"], report["version"]  # a valid report has no error
    return report


def unpack(item: Packed, name: str, base: int = 0) -> dict[str, Any]:
    """The JSON form of a report sent by :func:`validate_pieces` for a piece of file ``name``,
    its line number and its findings' moved by ``base`` (the lines of the file before the
    piece)."""
    if isinstance(item, dict):
        if base and item["line"] is not None:
            item["line"] += base
            for finding in (*item["errors"], *item["warnings"]):  # placed in the piece's text
                if "line" in finding:
                    finding["line"] += base
        return item
    line, fmt, version = item
    return {
        "source": name,
        "line": line + base if line is not None else None,
        "format": fmt,
        "version": version,
        "valid": True,
        "errors": [],
        "warnings": [],
    }


PieceResult = tuple[int, list[Packed] | UnreadablePath]
"""The lines a piece spans and its reports, or why its file could not be read."""


def validate_pieces(batch: list[Piece], options: Options) -> list[PieceResult]:
    """For each piece: the number of lines it spans and its reports, with line numbers counted
    from the piece's start (worker entry point). Reports without findings are sent compact
    (see :func:`unpack`): most of a dataset's reports, and less to pickle on both sides.

    A file that cannot be read (gone since the listing) has its error in its place, so that
    the parent emits the reports before it and stops there, as ``--jobs 1`` does."""
    out: list[PieceResult] = []
    with gc_paused():
        for piece in batch:
            try:
                count, reports = _validate_piece(piece, options)
            except UnreadablePath as exc:
                out.append((0, exc))
                continue
            out.append((count, [_pack(report, piece.name) for report in reports]))
    return out


def _validate_piece(piece: Piece, options: Options) -> tuple[int, list[dict[str, Any]]]:
    """The number of lines ``piece`` spans and its reports (see :func:`validate_pieces`)."""
    if piece.end is None:
        docs = read_file(piece.name, options.max_bytes, piece.lines)
        return 0, [validate_raw(doc, options).to_dict() for doc in docs]
    try:
        with open(piece.name, "rb", buffering=LINE_BUFFER) as fh:
            fh.seek(piece.start)
            window = _Range(fh, piece.end)
            docs = read_lines(window, piece.name, Path(piece.name), options.max_bytes)
            reports = [validate_raw(doc, options).to_dict() for doc in docs]
            return window.close_count(), reports
    except OSError as exc:
        raise unreadable(piece.name, exc) from None


def _map_pieces(
    items: Iterator[Piece], options: Options, jobs: int, size: int
) -> Iterator[tuple[Piece, PieceResult]]:
    """Each piece and its result, in order, in tasks of up to ``size`` pieces: here with one
    job, else from ``jobs`` worker processes, forked at once on Linux
    (:mod:`atif_spec.datasets.forkpool`), a process pool elsewhere. The same tasks either way,
    so that ``--jobs 1`` and ``--jobs N`` print the same."""
    work = functools.partial(validate_pieces, options=options)
    if jobs > 1:
        from atif_spec.datasets import forkpool  # noqa: PLC0415 - start-up: only --jobs runs need it

        if forkpool.available():
            for batch, results in forkpool.map_forked(work, tasks(items, size), jobs):
                yield from zip(batch, results, strict=True)
            return
    yield from map_ordered(work, items, jobs, size=size, weight=_range, max_weight=PIECE_BYTES)


WARM_UP_BYTES = 1024 * 1024
"""The largest first document that :func:`_warm_up` validates before the workers start."""


def _warm_up(name: str, options: Options, lines: bool | None) -> None:
    """Validate the first document of ``name`` here and drop its report, before the fork.

    What that document needed (the typed decoder of its version, or the rules) is then built
    once and inherited by every worker instead of built in each. Only what the input needs:
    importing every rule and building every version's decoder up front held every worker
    back for the time of work that a dataset of clean documents never uses."""
    if not os.path.isfile(name):  # a pipe would lose what is read here
        return
    as_lines = is_jsonl(name) if lines is None else lines
    try:
        with open(name, "rb") as fh:
            first = fh.readline(WARM_UP_BYTES) if as_lines else fh.read(WARM_UP_BYTES)
    except OSError:
        return  # the worker that reads it reports it
    if first.strip() and len(first) < WARM_UP_BYTES:
        validate_raw(RawDocument(name, first, 1 if as_lines else None, Path(name)), options)


def run_validation(
    files: list[str],
    options: Options,
    *,
    jobs: int = 1,
    lines: bool | None = None,
    sink: Sink,
    progress: bool | None = None,
) -> Summary:
    """Validate every document of ``files``, handing each report to ``sink`` in input order.

    Files are read where they are validated, in this process or by the workers; the parent
    hands out their names (a task of up to :data:`TASK_FILES`) or byte ranges of JSON Lines
    files. A file that cannot be read ends the run at its place with :class:`UnreadablePath`,
    its reports before it handed on, whatever ``jobs`` is."""
    summary = Summary()
    show = sys.stderr.isatty() if progress is None else progress
    with Progress(show, "validated", total_of(files, lines) if show else Total()) as bar:

        def emit(report: dict[str, Any], size: int = 0) -> None:
            summary.add(report)
            if report["errors"] or report["warnings"]:
                bar.clear()  # findings may go to the same terminal: never on the spinner's line
            sink(report)
            bar.advance(size=size)

        if STDIN in files:
            work = functools.partial(validate_batch, options=options)
            docs = read_files(files, options.max_bytes, lines)
            for doc, report in map_ordered(
                work, docs, jobs, weight=lambda d: len(d.data), max_weight=BATCH_BYTES
            ):
                emit(report, len(doc.data) or doc.oversize or 0)
            return summary
        seen: dict[str, int] = {}
        if files and jobs > 1:  # an empty folder gives none
            _warm_up(files[0], options, lines)
        size = task_files(len(files), jobs)
        for piece, (count, reports) in _map_pieces(pieces(files, lines), options, jobs, size):
            if isinstance(reports, UnreadablePath):
                raise reports
            base = seen.get(piece.name, 0)
            shift = base if piece.end is not None else 0
            done = _size(piece) if show else 0  # a stat only for the progress
            for item in reports:  # the piece's bytes count with its first document
                emit(unpack(item, piece.name, shift), done)
                done = 0
            bar.advance(0, done)  # a piece without a document: blank lines
            seen[piece.name] = base + count
    return summary


def _size(piece: Piece) -> int:
    """The bytes of ``piece``: its range, or the file's size (0 when unknown: its worker says
    why), which the progress counts when its total is in bytes (a terminal's run only)."""
    if piece.end is not None:
        return piece.end - piece.start
    try:
        return os.path.getsize(piece.name)
    except OSError:
        return 0
