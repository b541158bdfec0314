"""A deterministic trajectory dataset for the engine tests and benchmarks (no randomness, no clock).

`generate(directory, documents=20_000)` writes several JSON Lines and Parquet files (Parquet
needs pyarrow): ATIF documents of every version, a few documents of the sibling formats (valid
conformance fixtures), invalid documents (schema and rule violations) and unparseable records
(truncated JSON, NaN, bad UTF-8, an array, blank lines, a null Parquet cell) and
documents that only warn (a byte order mark). Document *i* is
always the same bytes, in the same file, at the same line or row.

    python bench/dataset.py DIRECTORY [--documents N]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
VERSIONS = ("v1.0", "v1.1", "v1.2", "v1.3", "v1.4", "v1.5", "v1.6", "v1.7", "v1.8")
FIXTURES = ("tao/v0.2.0/valid/minimal.json", "trajectory-sdk/v0.4/valid/minimal.json")
COLUMN = "trajectory"
JSONL_FILES = 4
PARQUET_FILES = 2
UNPARSEABLE = (
    b'{"schema_version": "ATIF-v1.7", "steps": [',
    b'{"schema_version": "ATIF-v1.6", "agent": {"name": "a", "version": NaN}}',
    b'{"schema_version": "ATIF-v1.5", "session_id": "\xff\xfe"}',
    b"[1, 2, 3]",
    b"not json at all",
)


def atif(i: int, version: str) -> dict[str, Any]:
    """A valid ATIF document of ``version`` with a few steps (varies with ``i``)."""
    steps: list[dict[str, Any]] = [
        {"step_id": 1, "source": "user", "message": f"Task {i}: fix the failing test."}
    ]
    for k in range(i % 4):
        steps.append(
            {
                "step_id": len(steps) + 1,
                "source": "agent",
                "message": f"Looking at module {i}-{k}. " + "x" * (i % 97),
                "tool_calls": [
                    {
                        "tool_call_id": f"call_{i}_{k}",
                        "function_name": "bash",
                        "arguments": {"command": f"grep -rn symbol_{k} src/"},
                    }
                ],
                "observation": {
                    "results": [{"source_call_id": f"call_{i}_{k}", "content": f"src/m{k}.py:1"}]
                },
            }
        )
    steps.append({"step_id": len(steps) + 1, "source": "agent", "message": "Done."})
    return {
        "schema_version": f"ATIF-{version}",
        "session_id": f"session-{i}",
        "agent": {"name": "bench-agent", "version": "1.0.0", "model_name": "model-a"},
        "steps": steps,
    }


def invalid(i: int, version: str) -> dict[str, Any]:
    """An ATIF document with one kind of error (schema or rule), chosen by ``i``."""
    doc = atif(i, version)
    kind = (i // 50) % 4
    if kind == 0:
        del doc["agent"]["version"]  # schema:required
    elif kind == 1:
        doc["agent"]["colour"] = "blue"  # schema:additionalProperties
    elif kind == 2:
        doc["steps"][0]["step_id"] = 7  # non-sequential step ids (rule)
    else:
        doc["steps"][0]["source"] = "robot"  # schema:enum
    return doc


def record(i: int) -> bytes:
    """The bytes of document ``i``."""
    version = VERSIONS[i % len(VERSIONS)]
    slot = i % 50
    if slot == 7:
        return UNPARSEABLE[(i // 50) % len(UNPARSEABLE)]
    if slot in (13, 29):
        return orjson.dumps(invalid(i, version))
    if slot == 23:
        return b"\xef\xbb\xbf" + orjson.dumps(atif(i, version))  # a byte order mark: a warning
    if slot == 41:
        name = FIXTURES[(i // 50) % len(FIXTURES)]
        return orjson.dumps(json.loads((ROOT / "conformance" / name).read_text()))
    return orjson.dumps(atif(i, version))


def generate(directory: Path, documents: int = 20_000) -> dict[str, Any]:
    """Write the dataset into ``directory``; returns what was written (files, counts)."""
    directory.mkdir(parents=True, exist_ok=True)
    files = JSONL_FILES + PARQUET_FILES
    per_file = -(-documents // files)
    written: Counter[str] = Counter()
    names: list[str] = []
    for f in range(files):
        indices = range(f * per_file, min(documents, (f + 1) * per_file))
        if f < JSONL_FILES:
            path = directory / f"part-{f:02d}.jsonl"
            with path.open("wb") as fh:
                for i in indices:
                    fh.write(record(i) + b"\n")
                    if i % 1000 == 999:
                        fh.write(b"\n")  # a blank line: skipped, but counted in line numbers
        else:
            path = directory / f"part-{f:02d}.parquet"
            blank = f == files - 1
            _write_parquet(path, [record(i) for i in indices], blank_row=blank)
            written["documents"] += blank
        names.append(path.name)
        written["documents"] += len(indices)
    return {"files": names, "documents": written["documents"]}


def _write_parquet(path: Path, rows: list[bytes], blank_row: bool) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    texts: list[str | None] = []
    for data in rows:
        try:
            texts.append(data.decode())
        except UnicodeDecodeError:
            texts.append(data.decode("latin-1"))  # a string column cannot hold bad UTF-8
    if blank_row:
        texts.append(None)  # a null cell: an empty document
    ids = list(range(len(texts)))
    table = pa.table({"id": pa.array(ids, pa.int64()), COLUMN: pa.array(texts, pa.string())})
    pq.write_table(table, path, row_group_size=1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("directory", type=Path)
    parser.add_argument("--documents", type=int, default=20_000)
    args = parser.parse_args()
    print(json.dumps(generate(args.directory, args.documents)))


if __name__ == "__main__":
    main()
