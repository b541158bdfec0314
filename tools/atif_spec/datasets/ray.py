"""Validation, migration and conversion of whole datasets on Ray Data (``atif-spec[ray]``).

Work distribution, retries, backpressure and spilling are Ray's; this module only tells Ray
what to read and which pure function to map over each batch
(:func:`atif_spec.datasets.engines.process`).

    from atif_spec.datasets import ray as atif_ray
    from atif_spec.datasets.engines import Task

    ds = atif_ray.apply(atif_ray.read(["s3://bucket/trajectories/"]), Task("validate"))
    atif_ray.summarize(ds, Task("validate")).to_json()     # counts, failed document ids

:func:`read` lists JSON, JSON Lines and Parquet files (a column holding each trajectory as a
JSON string) and turns them into a dataset of one row per document: ``source``, ``line``,
``path``, ``data`` (the bytes) and ``oversize``. :func:`apply` adds ``report`` (the JSON report),
``passed`` and, for migrations and conversions, ``document`` (the new document as JSON text,
null when it did not pass); it works on any dataset with a JSON column (``column=``), e.g. one
from ``ray.data.read_parquet``. :func:`summarize` adds the reports up where they are.
:func:`run` does all of it for ``atif ... --engine ray``.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from atif_spec.datasets.engines import Result, Task, process
from atif_spec.datasets.engines.parquet import cells
from atif_spec.datasets.engines.sources import DEFAULT_COLUMN, expand, read_documents
from atif_spec.datasets.pool import batches
from atif_spec.datasets.summary import DatasetSummary
from atif_spec.jsonio import jsontext
from atif_spec.validation.reader import DEFAULT_MAX_BYTES, STDIN, RawDocument, UnreadablePath

if importlib.util.find_spec("ray") is None:  # pragma: no cover - exercised without the extra
    raise ImportError("the Ray engine needs the 'ray' extra (docs/USAGE.md, Optional extras)")
# Untyped modules: the ray extra is optional and pyarrow has no type hints. Ray itself is
# imported on first use, so that connect() can configure a local cluster before it loads.
pa: Any = importlib.import_module("pyarrow")

Dataset = Any
"""A ``ray.data.Dataset``."""
Table = Any
"""A ``pyarrow.Table`` (one batch)."""

__all__ = ["apply", "connect", "read", "run", "summarize", "write"]

READ_BLOCK_DOCUMENTS = 256
READ_BLOCK_BYTES = 16 * 1024 * 1024
BATCH_DOCUMENTS = 64
SUMMARY_BATCH = 8192
RESULT_COLUMNS = ("source", "line", "passed", "report", "document")
"""Columns :func:`write` keeps (``document`` only for migrations and conversions)."""

Sink = Callable[[Result], None]


def connect(address: str | None = None, *, num_cpus: int | None = None) -> None:
    """Join a Ray cluster: ``address`` (or ``RAY_ADDRESS``), else start one on this machine.

    Does nothing when Ray is already initialized (a caller that called ``ray.init`` itself keeps
    its own settings). A cluster started here, before anything imported Ray, listens on
    127.0.0.1 only and sends no usage statistics.
    """
    remote = bool(address or os.environ.get("RAY_ADDRESS"))
    if not remote and "ray" not in sys.modules:
        # Ray reads these when it is imported: no usage statistics, and a node address on the
        # loopback interface (Ray otherwise advertises the machine's outward-facing address).
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    ray = _ray()
    if ray.is_initialized():
        return
    if remote:
        ray.init(address=address, log_to_driver=False)
        return
    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)


def _ray() -> Any:
    """The ``ray`` module, with Ray Data loaded."""
    importlib.import_module("ray.data")
    return importlib.import_module("ray")


# --- reading ---------------------------------------------------------------------------------


def read(
    inputs: list[str],
    *,
    lines: bool | None = None,
    column: str = DEFAULT_COLUMN,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Dataset:
    """A dataset of one row per document of ``inputs`` (files, directories, URIs).

    Files are listed here (:func:`atif_spec.datasets.engines.sources.expand`) and read by Ray tasks,
    one file per task, streaming blocks of a few hundred documents.
    """
    return _read_listed(expand(inputs), lines=lines, column=column, max_bytes=max_bytes)


def _read_listed(files: list[str], *, lines: bool | None, column: str, max_bytes: int) -> Dataset:
    """:func:`read` of files already listed by :func:`atif_spec.datasets.engines.sources.expand`."""
    listing = _ray().data.from_items([{"file": f} for f in files], override_num_blocks=len(files))
    return listing.map_batches(
        _read_files,
        batch_size=1,
        batch_format="pyarrow",
        fn_kwargs={"lines": lines, "column": column, "max_bytes": max_bytes},
    )


_DOCUMENT_SCHEMA = pa.schema(
    [
        ("source", pa.string()),
        ("line", pa.int64()),
        ("path", pa.string()),
        ("data", pa.large_binary()),
        ("oversize", pa.int64()),
    ]
)


def _table(docs: list[RawDocument]) -> Table:
    return pa.table(
        [
            [d.source for d in docs],
            [d.line for d in docs],
            [None if d.path is None else str(d.path) for d in docs],
            [d.data for d in docs],
            [d.oversize for d in docs],
        ],
        schema=_DOCUMENT_SCHEMA,
    )


def _read_files(
    batch: Table, *, lines: bool | None, column: str, max_bytes: int
) -> Iterator[Table]:
    for name in batch.column("file").to_pylist():
        docs = read_documents(name, max_bytes=max_bytes, lines=lines, column=column)
        for block in batches(
            docs,
            size=READ_BLOCK_DOCUMENTS,
            weight=lambda d: len(d.data),
            max_weight=READ_BLOCK_BYTES,
        ):
            yield _table(block)


# --- processing ------------------------------------------------------------------------------


def apply(
    ds: Dataset,
    task: Task,
    *,
    column: str = "data",
    batch_size: int = BATCH_DOCUMENTS,
) -> Dataset:
    """``ds`` with ``report``, ``passed`` and (migrate, convert) ``document`` columns added.

    ``column`` holds each document as JSON (string or binary). ``source``, ``line`` and
    ``path`` columns are used when present (reports name ``<dataset>`` otherwise).
    """
    return ds.map_batches(
        _process_batch,
        batch_size=batch_size,
        batch_format="pyarrow",
        fn_kwargs={"task": task, "column": column},
    )


def _column(batch: Table, name: str, default: Any) -> list[Any]:
    if name in batch.column_names:
        return list(batch.column(name).to_pylist())
    return [default] * batch.num_rows


def raw_documents(batch: Table, column: str) -> list[RawDocument]:
    """The documents of one batch (its ``column`` cells with their source, line and path)."""
    cell_bytes = cells(batch.schema.field(column))
    rows = zip(
        _column(batch, "source", "<dataset>"),
        batch.column(column).to_pylist(),
        _column(batch, "line", None),
        _column(batch, "path", None),
        _column(batch, "oversize", None),
        strict=True,
    )
    return [
        RawDocument(
            source,
            cell_bytes(data),
            line,
            None if path is None else Path(path),
            oversize,
        )
        for source, data, line, path, oversize in rows
    ]


def _process_batch(batch: Table, *, task: Task, column: str) -> Table:
    done = [process(task, raw) for raw in raw_documents(batch, column)]
    out = batch.append_column(
        "report", pa.array([jsontext.dumps(r.report).decode() for r in done], pa.large_string())
    ).append_column("passed", pa.array([r.passed for r in done], pa.bool_()))
    if task.operation != "validate":
        texts = [None if r.document is None else r.document.decode() for r in done]
        out = out.append_column("document", pa.array(texts, pa.large_string()))
    return out


# --- summarizing and writing -----------------------------------------------------------------


def summarize(ds: Dataset, task: Task) -> DatasetSummary:
    """The summary of a dataset with a ``report`` column, computed batch by batch on the
    cluster; only the parts (small) come back here to be merged."""
    parts = ds.select_columns(["report"]).map_batches(
        _summarize_batch,
        batch_size=SUMMARY_BATCH,
        batch_format="pyarrow",
        fn_kwargs={"task": task},
    )
    summary = task.summary()
    for row in parts.iter_rows():
        summary.merge(DatasetSummary.from_dict(orjson.loads(row["summary"])))
    return summary


def _summarize_batch(batch: Table, *, task: Task) -> Table:
    part = task.summary()
    for text in batch.column("report").to_pylist():
        part.add(orjson.loads(text))
    return pa.table({"summary": pa.array([part.to_json().decode()], pa.large_string())})


def write(ds: Dataset, path: str) -> None:
    """Write the results (source, line, passed, report and document) as Parquet files under
    ``path`` (a directory or URI); read them back with ``ray.data.read_parquet`` or
    ``atif ... --column document``."""
    keep = [c for c in RESULT_COLUMNS if c in ds.columns()]
    ds.select_columns(keep).write_parquet(path)


@contextlib.contextmanager
def _preserving_order(preserve: bool) -> Iterator[None]:
    """Results in input order (for a sink), at some cost in throughput."""
    options = _ray().data.DataContext.get_current().execution_options
    saved = options.preserve_order
    options.preserve_order = preserve
    try:
        yield
    finally:
        options.preserve_order = saved


def run(
    task: Task,
    inputs: list[str],
    *,
    lines: bool | None = None,
    column: str = DEFAULT_COLUMN,
    output: str | None = None,
    sink: Sink | None = None,
    address: str | None = None,
) -> DatasetSummary:
    """Do ``task`` to every document of ``inputs`` on Ray and return the summary.

    ``output``: also write the results there (:func:`write`). ``sink``: receive every result
    here (the CLI prints them), in input order unless ``output`` is given (then in the order of
    the written files). Raises
    :class:`~atif_spec.validation.reader.UnreadablePath` for an input that does not exist.
    """
    files = expand(inputs)
    if STDIN in files:
        raise UnreadablePath("standard input (-) is read by the local engine only")
    summary = task.summary()
    if not files:
        return summary
    connect(address)
    with _preserving_order(sink is not None):
        docs = _read_listed(files, lines=lines, column=column, max_bytes=task.max_bytes)
        ds = apply(docs, task)
        if output is not None:
            write(ds, output)
            ds = _ray().data.read_parquet(output)
        if sink is None:
            return summarize(ds, task)
        for batch in ds.iter_batches(batch_format="pyarrow", batch_size=1024):
            reports = batch.column("report").to_pylist()
            documents = _column(batch, "document", None)
            for text, document in zip(reports, documents, strict=True):
                result = Result(orjson.loads(text), None if document is None else document.encode())
                summary.add(result.report)
                sink(result)
    return summary
