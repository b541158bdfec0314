"""Dataset inputs: files and directories on local disk or object storage, one document per record.

A dataset is any mix of JSON files (one document each), JSON Lines files (one per non-blank
line) and Parquet files (one per row: each trajectory in one column, best as a JSON string, or
one column per top-level field as Hugging Face ``datasets`` writes; see
:mod:`atif_spec.datasets.engines.parquet`). Every
engine lists and reads inputs through this module, so every engine sees the same documents
with the same ``source`` and ``line``: the file as listed and the 1-based line (JSON Lines) or
row (Parquet) number.

Local paths are read with the standard library; URIs with a scheme (``s3://``, ``gs://``,
``hdfs://``, ``file://``) through ``pyarrow.fs`` (:mod:`atif_spec.datasets.engines.storage`);
Parquet needs pyarrow too (the ``parquet`` extra, or ``ray``).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from atif_spec.datasets.engines import parquet
from atif_spec.datasets.engines.storage import (
    answer,
    failure,
    locate,
    open_file,
    open_stream,
    pyarrow,
)
from atif_spec.validation.listing import Filters, Listing, Tree, list_inputs
from atif_spec.validation.reader import (
    DEFAULT_MAX_BYTES,
    JSON_SUFFIXES,
    PARQUET_SUFFIXES,
    RawDocument,
    UnreadablePath,
    is_jsonl,
    is_parquet,
    is_uri,
    read_file,
    read_lines,
)

DATASET_SUFFIXES = (*JSON_SUFFIXES, *PARQUET_SUFFIXES)
DEFAULT_COLUMN = "trajectory"
"""The Parquet column that holds each trajectory as JSON text, unless told otherwise (the same
literal is the ``--column`` default in :mod:`atif_spec.cli.dataset`)."""


def listing(inputs: Iterable[str], filters: Filters | None = None) -> Listing:
    """The files of a dataset's inputs (:func:`atif_spec.validation.listing.list_inputs`, with
    ``*.parquet`` too and URIs listed through ``pyarrow.fs``), and what the walks skipped."""
    return list_inputs(inputs, filters, suffixes=DATASET_SUFFIXES, remote=_uri_tree)


def expand(inputs: Iterable[str], filters: Filters | None = None) -> list[str]:
    """The files of :func:`listing`: directories recursively (sorted), ``-`` for stdin; raises
    :class:`UnreadablePath` for an input that does not exist, or for inputs that hold no file."""
    return listing(inputs, filters).files


def _uri_tree(uri: str) -> Tree | None:
    """The files and folders below a URI (None when it names a file). Object stores have no
    ignore files here: ``.atifignore`` is read on local disk only."""
    fs = pyarrow("fs")
    filesystem, path, prefix = locate(uri)
    info = answer(uri, lambda: filesystem.get_file_info(path))
    if info.type == fs.FileType.NotFound:
        raise UnreadablePath(f"no such file or directory: {uri}")
    if info.type == fs.FileType.File:
        return None
    tree = Tree()
    base = path.rstrip("/") + "/"
    try:
        entries = filesystem.get_file_info(fs.FileSelector(path, recursive=True))
    except (OSError, ValueError) as exc:
        raise failure(uri, exc) from None
    for entry in entries:
        rel = entry.path[len(base) :] if entry.path.startswith(base) else entry.base_name
        if entry.type == fs.FileType.File:
            tree.files.append((rel, prefix + entry.path))
        elif entry.type == fs.FileType.Directory:
            tree.dirs.add(rel)
    return tree


class _RawStream(io.RawIOBase):
    """A pyarrow input stream as a Python raw stream (for buffered ``readline``)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._stream.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._stream.close()
        super().close()


def _local_path(name: str) -> Path | None:
    """The file on this machine (file-level rules resolve against it), if there is one."""
    if not is_uri(name):
        return Path(name)
    if name.startswith("file://"):
        return Path(name[len("file://") :])
    return None


def read_documents(
    name: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    lines: bool | None = None,
    column: str = DEFAULT_COLUMN,
) -> Iterator[RawDocument]:
    """The documents of one dataset file, in order, holding at most a batch in memory."""
    if is_parquet(name):
        yield from _parquet(name, max_bytes, column)
        return
    if not is_uri(name):
        yield from read_file(name, max_bytes, lines)
        return

    try:
        yield from _read_remote(name, max_bytes, lines)
    except OSError as exc:  # the store failed while being read (pyarrow raises OSError)
        raise failure(name, exc) from None


def _read_remote(name: str, max_bytes: int, lines: bool | None) -> Iterator[RawDocument]:
    as_lines = is_jsonl(name) if lines is None else lines
    with io.BufferedReader(_RawStream(open_stream(name)), 1 << 20) as fh:
        if as_lines:
            yield from read_lines(fh, name, _local_path(name), max_bytes)
            return
        data = fh.read(max_bytes + 1)
        if len(data) > max_bytes:
            yield RawDocument(name, b"", None, _local_path(name), oversize=len(data))
            return
        yield RawDocument(name, data, None, _local_path(name))


def _parquet(name: str, max_bytes: int, column: str) -> Iterator[RawDocument]:
    """One document per row (:mod:`atif_spec.datasets.engines.parquet`: a document column, or a
    row of one column per field)."""
    pq = pyarrow("parquet")
    try:
        handle: Any = open_file(name) if is_uri(name) else name
        yield from parquet.read(pq.ParquetFile(handle), name, _local_path(name), max_bytes, column)
    except (OSError, ValueError) as exc:  # unreadable: not Parquet, or the store failed
        raise failure(name, exc) from None


def rows_as_documents(files: Iterable[str], column: str = DEFAULT_COLUMN) -> list[str]:
    """The Parquet files of ``files`` that have one column per field, so that each row is read
    as a document (:func:`atif_spec.datasets.engines.parquet.rows_are_documents`), found from
    their footers; the commands say so before a run."""
    found: list[str] = []
    for name in files:
        if not is_parquet(name):
            continue
        try:
            handle: Any = open_file(name) if is_uri(name) else name
            names = pyarrow("parquet").read_schema(handle).names
        except (OSError, ValueError) as exc:
            raise failure(name, exc) from None
        if parquet.rows_are_documents(names, column):
            found.append(name)
    return found


def rows_note(files: Iterable[str], column: str = DEFAULT_COLUMN) -> str | None:
    """One line saying which of ``files`` are read a row per document (None when none is)."""
    files = rows_as_documents(files, column)
    if not files:
        return None
    more = f" and {len(files) - 1} more Parquet file(s)" if len(files) > 1 else ""
    return f"{files[0]}{more}: no {column!r} column: {parquet.ROWS_NOTE}"
