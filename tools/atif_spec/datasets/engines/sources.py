"""Dataset inputs: files and directories on local disk or object storage, one document per record.

A dataset is any mix of JSON files (one document each), JSON Lines files (one per non-blank
line) and Parquet files holding each trajectory in one column, best as a JSON string; a struct
or list column (what pandas and Hugging Face ``datasets`` write) is read too, its null members
dropped (see :func:`cell_bytes`: a struct cannot tell a missing key from a null). Every
engine lists and reads inputs through this module, so every engine sees the same documents
with the same ``source`` and ``line``: the file as listed and the 1-based line (JSON Lines) or
row (Parquet) number.

Local paths are read with the standard library; URIs with a scheme (``s3://``, ``gs://``,
``hdfs://``, ``file://``) through ``pyarrow.fs``; Parquet needs pyarrow too (the ``parquet``
extra, or ``ray``).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from atif_spec.datasets.engines.storage import (
    answer,
    failure,
    locate,
    open_file,
    open_stream,
    pyarrow,
)
from atif_spec.jsonio.jsontext import dumps
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
PARQUET_BATCH_ROWS = 256


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


def cell_bytes(value: Any) -> bytes:
    """The document in a table cell: JSON text or bytes, or a struct or list cell (what pandas
    and Hugging Face ``datasets`` write for nested dicts) as JSON; a null cell is an empty
    document.

    An Arrow struct has a slot for every field of every row, so a field a row did not have
    comes back as null: in struct and list cells, object members whose value is null are dropped
    (a documented normalisation: such a column cannot tell an absent field from a null one).
    """
    if value is None:
        return b""
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes):
        return value
    if isinstance(value, dict | list):
        return dumps(_without_nulls(value))
    return repr(value).encode()  # a number or boolean cell: not a document (a parse finding)


def _without_nulls(value: Any) -> Any:
    """``value`` with every null-valued object member removed, at every level."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


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
    """One document per row of ``column`` (string, binary, struct or list: :func:`cell_bytes`)."""
    pq = pyarrow("parquet")
    handle: Any = open_file(name) if is_uri(name) else name
    local = _local_path(name)
    parquet = pq.ParquetFile(handle)
    if column not in parquet.schema_arrow.names:
        raise UnreadablePath(
            f"{name}: no column {column!r} (columns: {', '.join(parquet.schema_arrow.names)})"
        )
    row = 0
    for batch in parquet.iter_batches(batch_size=PARQUET_BATCH_ROWS, columns=[column]):
        for value in batch.column(0).to_pylist():
            row += 1
            data = cell_bytes(value)
            if len(data) > max_bytes:
                yield RawDocument(name, b"", row, local, oversize=len(data))
            else:
                yield RawDocument(name, data, row, local)
