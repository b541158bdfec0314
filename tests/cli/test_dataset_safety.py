"""Parquet inputs and outputs (issue #21): struct and list columns (what pandas and Hugging Face
``datasets`` write) are read, absent fields that came back as null are dropped, and big integers
keep their digits through Parquet. Runs in the ``ray`` nox session, where a skip is a failure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from atif_spec.cli import main

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

BIG = [10**30, 2**64 + 1, 2**63 - 1, 2**53 + 1, -(2**63) - 5]


def atif(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def doc(session: str, **extra: Any) -> dict[str, Any]:
    return {
        "schema_version": "ATIF-v1.7",
        "session_id": session,
        "agent": {"name": "a", "version": "1"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "hi"},
            {"step_id": 2, "source": "agent", "message": "ok", "model_name": "m"},
        ],
        **extra,
    }


def struct_dataset(path: Path) -> None:
    """Rows as pandas/datasets store nested dicts: one struct column, the union of all fields."""
    rows = [{"trajectory": doc("s1")}, {"trajectory": doc("s2", notes="only here")}]
    table = pa.Table.from_pylist(rows)
    assert pa.types.is_struct(table.schema.field("trajectory").type)
    pq.write_table(table, path)


def test_struct_column_validates_with_absent_fields_dropped(tmp_path: Path) -> None:
    struct_dataset(tmp_path / "d.parquet")
    result = atif("validate", str(tmp_path / "d.parquet"), "--format", "json")
    assert result.exit_code == 0, result.output
    reports = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert [r["valid"] for r in reports] == [True, True]


def test_struct_column_migrates(tmp_path: Path) -> None:
    struct_dataset(tmp_path / "d.parquet")
    result = atif("migrate", "--to", "v1.6", str(tmp_path / "d.parquet"))
    assert result.exit_code == 0, result.output
    docs = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert [d["schema_version"] for d in docs] == ["ATIF-v1.6", "ATIF-v1.6"]
    assert "notes" not in docs[0] and docs[1]["notes"] == "only here"


def test_a_dataset_run_prints_the_summary_lines_per_document_with_v_and_nothing_with_q(
    tmp_path: Path,
) -> None:
    """The output convention of ``migrate`` and ``convert`` holds for dataset runs too."""
    struct_dataset(tmp_path / "d.parquet")
    data = str(tmp_path / "d.parquet")
    default = atif("migrate", "--to", "v1.6", data)
    assert default.exit_code == 0, default.output
    assert default.stderr.splitlines() == [
        "Migrated 2 of 2 documents to atif@v1.6: 2 carried over completely, 0 kept data the "
        "target cannot hold in its stash, 0 lost data; 0 not written."
    ]
    verbose = atif("migrate", "--to", "v1.6", data, "-v")
    assert [line.split(": ")[1] for line in verbose.stderr.splitlines()[:2]] == [
        "atif@v1.7 -> atif@v1.6"
    ] * 2
    quiet = atif("migrate", "--to", "v1.6", data, "-q")
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_big_integers_keep_their_digits_through_parquet(tmp_path: Path) -> None:
    text = json.dumps(doc("s1", extra={"big": BIG}))
    pq.write_table(pa.table({"trajectory": [text]}), tmp_path / "d.parquet")
    out = tmp_path / "out"
    result = atif("migrate", "--to", "v1.6", str(tmp_path / "d.parquet"), "-o", str(out))
    assert result.exit_code == 0, result.output
    (document,) = pq.read_table(out / "results.parquet").column("document").to_pylist()
    text_out = document.decode() if isinstance(document, bytes) else document
    assert json.loads(text_out)["extra"]["big"] == BIG
    for n in BIG:
        assert str(n) in text_out
