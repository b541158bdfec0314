"""Results of a local dataset run as one Parquet file: the layout the Ray engine writes.

Columns: ``source``, ``line``, ``passed``, ``report`` (the JSON report) and, for migrations and
conversions, ``document`` (the new document as JSON text, null when it did not pass). The file
is written under a temporary name and renamed when complete.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import TracebackType
from typing import Any

from atif_spec.datasets.engines import Result, Task
from atif_spec.jsonio import jsontext

ROWS_PER_GROUP = 4096


def result_schema(task: Task) -> Any:
    """The Arrow schema of the results of ``task``."""
    pa: Any = importlib.import_module("pyarrow")
    fields = [
        ("source", pa.string()),
        ("line", pa.int64()),
        ("passed", pa.bool_()),
        ("report", pa.large_string()),
    ]
    if task.operation != "validate":
        fields.append(("document", pa.large_string()))
    return pa.schema(fields)


class ParquetResults:
    """Collects results and writes them, a row group at a time, to ``DIR/results.parquet``."""

    def __init__(self, directory: str, task: Task) -> None:
        self._pq: Any = importlib.import_module("pyarrow.parquet")
        self._pa: Any = importlib.import_module("pyarrow")
        self._task = task
        self._schema = result_schema(task)
        folder = Path(directory)
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "results.parquet"
        self._temp = folder / ".results.parquet.tmp"
        self._writer: Any = self._pq.ParquetWriter(str(self._temp), self._schema)
        self._rows: list[Result] = []

    def add(self, result: Result) -> None:
        """Queue one result (written when a row group is full)."""
        self._rows.append(result)
        if len(self._rows) >= ROWS_PER_GROUP:
            self._flush()

    def _flush(self) -> None:
        if not self._rows:
            return
        rows = self._rows
        columns = [
            [r.report["source"] for r in rows],
            [r.report["line"] for r in rows],
            [r.passed for r in rows],
            [jsontext.dumps(r.report).decode() for r in rows],
        ]
        if self._task.operation != "validate":
            columns.append([None if r.document is None else r.document.decode() for r in rows])
        self._writer.write_table(self._pa.table(columns, schema=self._schema))
        self._rows = []

    def __enter__(self) -> ParquetResults:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if kind is None:
            self._flush()
            self._writer.close()
            os.replace(self._temp, self.path)
            return
        self._writer.close()
        self._temp.unlink(missing_ok=True)
