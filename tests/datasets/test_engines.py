"""Engine-independent parts of dataset runs: the summary, the pure per-document work, reading
datasets, and the local engine (Ray itself: tests/datasets/test_ray.py)."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from atif_spec.datasets.engines import Result, Task, local, process
from atif_spec.datasets.engines.sources import expand, read_documents
from atif_spec.datasets.summary import DatasetSummary, summarize
from atif_spec.transforms.document import MigrateOptions, migrate_raw
from atif_spec.validation.pipeline import Options, validate_raw
from atif_spec.validation.reader import RawDocument, UnreadablePath
from tests.support import ROOT
from tests.support.documents import minimal_atif
from tests.support.otlp import SMALL_A, SMALL_B, gathered_from, interleaved, jsonl

sys.path.insert(0, str(ROOT / "bench"))
import dataset

HAS_PYARROW = importlib.util.find_spec("pyarrow") is not None
needs_pyarrow = pytest.mark.skipif(not HAS_PYARROW, reason="pyarrow not installed (ray extra)")
SUMMARY_SCHEMA = orjson.loads((ROOT / "spec/atif-spec/v1/dataset-summary.schema.json").read_bytes())


def raw(doc: Any, line: int | None = 1, source: str = "a.jsonl") -> RawDocument:
    data = doc if isinstance(doc, bytes) else orjson.dumps(doc)
    return RawDocument(source, data, line)


def sample_reports() -> list[dict[str, Any]]:
    """Validation reports of every kind: valid, invalid, unparseable, warning-only."""
    return [
        validate_raw(raw(dataset.record(i), line=i + 1), Options(check_files=False)).to_dict()
        for i in range(200)
    ]


# --- summary ---------------------------------------------------------------------------------


def test_summary_counts_one_of_each() -> None:
    invalid = minimal_atif("v1.7")
    del invalid["agent"]["version"]
    reports = [
        validate_raw(raw(minimal_atif("v1.7"), 1)).to_dict(),
        validate_raw(raw(invalid, 2)).to_dict(),
        validate_raw(raw(b"{oops", 3)).to_dict(),
        validate_raw(raw(b"\xef\xbb\xbf" + orjson.dumps(minimal_atif("v1.2")), 4)).to_dict(),
    ]
    out = summarize(reports, "validate").to_dict()
    assert (out["documents"], out["passed"], out["failed"], out["with_warnings"]) == (4, 2, 2, 1)
    assert out["by_version"] == {
        "atif@v1.2": {"documents": 1, "failed": 0},
        "atif@v1.7": {"documents": 2, "failed": 1},
        "unknown": {"documents": 1, "failed": 1},
    }
    assert out["by_code"]["schema:required"] == {"findings": 1, "documents": 1}
    assert out["by_code"]["input:invalid-json"] == {"findings": 1, "documents": 1}
    assert out["by_code"]["input:byte-order-mark"] == {"findings": 1, "documents": 1}
    assert out["failed_documents"] == [
        {"source": "a.jsonl", "line": 2},
        {"source": "a.jsonl", "line": 3},
    ]
    assert out["errors"] == 2 and out["warnings"] == 1
    Draft202012Validator(SUMMARY_SCHEMA).validate(out)


def test_summary_of_change_reports_counts_items_and_source_versions() -> None:
    task = Task("migrate", to="v1.1")
    doc = orjson.loads((ROOT / "conformance/atif/v1.8/valid/rich.json").read_bytes())
    results = [process(task, raw(doc, 1)), process(task, raw(b"[]", 2))]
    out = summarize([r.report for r in results], "migrate", task.target).to_dict()
    assert out["target"] == "atif@v1.1"
    assert (out["passed"], out["failed"]) == (1, 1)
    assert out["stashed"] == len(results[0].report["stashed"]) > 0
    assert set(out["by_version"]) == {"atif@v1.8", "unknown"}
    Draft202012Validator(SUMMARY_SCHEMA).validate(out)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=199), max_size=8), st.randoms())
def test_summary_of_parts_equals_summary_of_whole(cuts: list[int], rnd: Any) -> None:
    """However the reports are split and shuffled, the merged parts give the same JSON."""
    reports = REPORTS[:]
    rnd.shuffle(reports)
    bounds = sorted({0, *cuts, len(reports)})
    whole = summarize(REPORTS, "validate")
    merged = DatasetSummary("validate")
    for start, end in itertools.pairwise(bounds):
        part = summarize(reports[start:end], "validate")
        merged.merge(DatasetSummary.from_dict(orjson.loads(part.to_json())))
    assert merged.to_json() == whole.to_json()


REPORTS = sample_reports()


def test_sample_reports_cover_every_kind() -> None:
    out = summarize(REPORTS, "validate").to_dict()
    assert out["failed"] and out["with_warnings"] and "unknown" in out["by_version"]
    assert any(code.startswith("input:") for code in out["by_code"])
    assert any(code.startswith("schema:") for code in out["by_code"])


def test_merge_refuses_other_operations() -> None:
    with pytest.raises(ValueError, match="cannot merge"):
        DatasetSummary("validate").merge(DatasetSummary("migrate", "atif@v1.6"))


# --- the pure per-document work --------------------------------------------------------------


def test_process_is_the_commands_work() -> None:
    for i in range(60):
        doc = raw(dataset.record(i), line=i + 1)
        assert process(Task("validate"), doc).report == validate_raw(doc).to_dict()
        got = process(Task("migrate", to="atif@v1.5"), doc)
        want = migrate_raw(doc, MigrateOptions("v1.5"))
        assert (got.report, got.document) == (want.report, want.data)
        got = process(Task("convert", to="atif@v1.5"), doc)
        want = migrate_raw(doc, MigrateOptions("atif@v1.5", convert=True))
        assert (got.report, got.document) == (want.report, want.data)


def test_process_writes_streamed_conversions_too() -> None:
    """trajectory-sdk documents come out of the command in pieces; the engines must join them."""
    written = 0
    for i in range(20):
        doc = raw(dataset.record(i), line=i + 1)
        got = process(Task("convert", to="trajectory-sdk@v0.4"), doc)
        want = migrate_raw(doc, MigrateOptions("trajectory-sdk@v0.4", convert=True))
        assert got.report == want.report
        assert got.document == (b"".join(want.chunks()) if want.writable else None)
        written += got.document is not None
    assert written


def test_result_passed_reads_either_report() -> None:
    assert Result({"valid": False}).passed is False
    assert Result({"ok": True}).passed is True


def test_task_needs_a_target_for_changes() -> None:
    with pytest.raises(ValueError, match="needs a target"):
        Task("migrate")
    with pytest.raises(ValueError, match="unknown operation"):
        Task("export")  # type: ignore[arg-type]
    assert Task("convert", to="ATIF-v1.6").target == "atif@v1.6"
    assert Task("migrate", to="v1.6").target == "atif@v1.6"


# --- reading ---------------------------------------------------------------------------------


def test_expand_lists_dataset_files_sorted(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    for name in ("b/x.jsonl", "a.json", "c.parquet", "notes.txt"):
        (tmp_path / name).write_bytes(b"{}")
    assert expand([str(tmp_path)]) == [
        str(tmp_path / "a.json"),
        str(tmp_path / "b/x.jsonl"),
        str(tmp_path / "c.parquet"),
    ]
    with pytest.raises(UnreadablePath, match="no such file"):
        expand([str(tmp_path / "missing")])


def test_stdin_is_an_input(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    stdin = io.TextIOWrapper(io.BytesIO(orjson.dumps(minimal_atif("v1.7")) + b"\n{oops\n"))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert expand(["-"]) == ["-"]
    summary = local.run(Task("validate"), ["-"], lines=True)
    assert (summary.passed, summary.failed, summary.failed_documents) == (1, 1, [("<stdin>", 2)])


def test_json_lines_keep_line_numbers_across_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"a": 1}\n\n{"a": 2}\n')
    docs = list(read_documents(str(path)))
    assert [(d.line, d.data.strip()) for d in docs] == [(1, b'{"a": 1}'), (3, b'{"a": 2}')]


@needs_pyarrow
def test_parquet_rows_are_documents(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"trajectory": ['{"a": 1}', None, "x" * 50]}), path)
    docs = list(read_documents(str(path), max_bytes=20))
    assert [(d.source, d.line, d.data, d.oversize) for d in docs] == [
        (str(path), 1, b'{"a": 1}', None),
        (str(path), 2, b"", None),
        (str(path), 3, b"", 50),
    ]
    assert docs[0].path == path
    with pytest.raises(UnreadablePath, match="no column 'doc'"):
        list(read_documents(str(path), column="doc"))


@needs_pyarrow
def test_file_uris_read_like_paths(tmp_path: Path) -> None:
    dataset.generate(tmp_path, documents=300)
    by_path = [(d.line, d.data) for f in expand([str(tmp_path)]) for d in read_documents(f)]
    uris = expand([f"file://{tmp_path}"])
    assert all(u.startswith("file://") for u in uris)
    by_uri = [(d.line, d.data) for f in uris for d in read_documents(f)]
    assert by_uri == by_path and len(by_path) == 301


# --- the local engine ------------------------------------------------------------------------


@needs_pyarrow
def test_local_engine_jobs_do_not_change_results(tmp_path: Path) -> None:
    written = dataset.generate(tmp_path, documents=1200)
    files = expand([str(tmp_path)])
    for task in (Task("validate"), Task("migrate", to="v1.4")):
        seen: list[Result] = []
        one = local.run(task, files, jobs=1, sink=seen.append)
        two = local.run(task, files, jobs=2)
        assert one.to_json() == two.to_json()
        assert one.documents == len(seen) == written["documents"]
        where = [(r.report["source"], r.report["line"]) for r in seen]
        assert where == sorted(where)


@needs_pyarrow
def test_local_results_file(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from atif_spec.cli.dataset import run

    data = tmp_path / "data"
    dataset.generate(data, documents=500)
    out = tmp_path / "out"
    summary = run(Task("migrate", to="v1.6"), expand([str(data)]), output=str(out))
    table = pq.read_table(out / "results.parquet")
    assert table.column_names == ["source", "line", "passed", "report", "document"]
    assert table.num_rows == summary.documents
    passed = table.column("passed").to_pylist()
    documents = table.column("document").to_pylist()
    assert sum(passed) == summary.passed
    assert all((d is not None) == p for d, p in zip(documents, passed, strict=True))
    first = orjson.loads(next(d for d in documents if d is not None))
    assert first["schema_version"] == "ATIF-v1.6"


def test_the_local_engine_converts_an_otlp_file_by_trace_and_validates_it_by_line(
    tmp_path: Path,
) -> None:

    path = tmp_path / "traces.jsonl"
    path.write_bytes(jsonl(interleaved(SMALL_A, SMALL_B)))
    converted: list[Result] = []
    local.run(Task("convert", to="atif@v1.8"), [str(path)], sink=converted.append)
    assert [(r.report["line"], gathered_from(r.report)) for r in converted] == [
        (1, [1, 3, 4]),
        (1, [1, 2]),
    ]
    assert all(r.passed for r in converted)
    validated: list[Result] = []
    local.run(Task("validate"), [str(path)], sink=validated.append)
    assert [r.report["line"] for r in validated] == [1, 2, 3, 4]
