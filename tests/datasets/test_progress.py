"""The progress line of long runs (issue 35 item 7): total, rate and time left when known."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from atif_spec.datasets.progress import Progress, Total, progress_text, total_of
from atif_spec.datasets.runner import run_validation
from atif_spec.validation.pipeline import Options
from tests.support.documents import minimal_atif


def test_a_count_of_files_gives_done_of_total_rate_and_time_left() -> None:
    text = progress_text("validated", 1234, 1234, Total(20000), elapsed=2.0)
    assert text == "validated 1,234/20,000 documents · 617/s · 0:00:30 left"


def test_a_size_in_bytes_gives_the_bytes_read_and_the_time_left_by_bytes() -> None:
    text = progress_text("migrated", 500, 30_000_000, Total(120_000_000, True), elapsed=10.0)
    assert text == "migrated 500 documents · 30.0 MB/120.0 MB · 50/s · 0:00:30 left"


def test_an_unknown_total_gives_the_count_and_the_rate_only() -> None:
    text = progress_text("validated", 12345, 12345, Total(), elapsed=5.0)
    assert text == "validated 12,345 documents · 2,469/s"


def test_nothing_done_yet_has_no_time_left_and_no_division_by_zero() -> None:
    assert progress_text("validated", 0, 0, Total(10), elapsed=0.0) == (
        "validated 0/10 documents · 0/s"
    )


def test_hours_are_shown_as_a_clock() -> None:
    text = progress_text("converted", 1, 1, Total(10_000), elapsed=1.0)
    assert text.endswith("· 2:46:39 left")


def test_one_document_per_file_is_a_count_of_files(tmp_path: Path) -> None:
    for name in ("a.json", "b.json", "c.json"):
        (tmp_path / name).write_bytes(b"{}")
    assert total_of(sorted(str(p) for p in tmp_path.iterdir())) == Total(3)


def test_json_lines_make_the_total_bytes(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(b"{}")
    (tmp_path / "b.jsonl").write_bytes(b"{}\n{}\n")
    files = [str(tmp_path / "a.json"), str(tmp_path / "b.jsonl")]
    assert total_of(files) == Total(2 + 6, in_bytes=True)
    assert total_of([str(tmp_path / "a.json")], lines=True) == Total(2, in_bytes=True)


def test_standard_input_and_pipes_have_no_known_total(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(b"{}")
    assert total_of([str(tmp_path / "a.json"), "-"]) == Total()
    os.mkfifo(tmp_path / "pipe.jsonl")
    assert total_of([str(tmp_path / "pipe.jsonl")]) == Total()


def test_parquet_and_uris_have_no_known_total(tmp_path: Path) -> None:
    """A Parquet file holds many rows, and neither its bytes nor its name count them."""
    (tmp_path / "d.parquet").write_bytes(b"PAR1")
    assert total_of([str(tmp_path / "d.parquet")]) == Total()
    assert total_of(["s3://bucket/d.jsonl"]) == Total()


def test_the_line_is_drawn_on_a_forced_terminal_and_cleared() -> None:
    screen = io.StringIO()
    with Progress(True, "exported", Total(2), stream=screen) as bar:
        bar.advance()
        assert "exported 1/2 documents" in screen.getvalue()
        bar.clear()
        assert screen.getvalue().endswith("\r\x1b[2K")


def test_nothing_is_drawn_when_not_shown() -> None:
    screen = io.StringIO()
    with Progress(False, "validated", Total(2), stream=screen) as bar:
        bar.advance()
    assert screen.getvalue() == ""


def _files(tmp_path: Path, count: int) -> list[str]:
    doc = orjson.dumps(minimal_atif("v1.7"))
    paths = [tmp_path / f"t{i}.json" for i in range(count)]
    for path in paths:
        path.write_bytes(doc)
    return [str(p) for p in paths]


def test_validate_shows_the_total_of_a_folder_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: ``validated 1/?`` with a list of files whose length was known."""
    screen = io.StringIO()
    monkeypatch.setattr(sys, "stderr", screen)
    reports: list[dict[str, Any]] = []
    run_validation(_files(tmp_path, 3), Options(), sink=reports.append, progress=True)
    assert len(reports) == 3
    assert "validated 1/3 documents" in screen.getvalue()


def test_validate_of_json_lines_counts_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = orjson.dumps(minimal_atif("v1.7"))
    data = tmp_path / "d.jsonl"
    data.write_bytes((line + b"\n") * 3)
    screen = io.StringIO()
    monkeypatch.setattr(sys, "stderr", screen)
    run_validation([str(data)], Options(), sink=lambda _: None, progress=True)
    size = 3 * (len(line) + 1)  # a piece's bytes, counted with its first record
    assert f"validated 1 document · {size} B/{size} B" in screen.getvalue()


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_byte_of_a_json_lines_file_is_counted_by_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """In this process (document by document) and with workers (piece by piece)."""
    line = orjson.dumps(minimal_atif("v1.7")) + b"\n"
    data = tmp_path / "d.jsonl"
    data.write_bytes(line * 4)
    screen = io.StringIO()
    monkeypatch.setattr(sys, "stderr", screen)
    monkeypatch.setattr(Progress, "REFRESH_SECONDS", 0.0)  # draw after every document
    run_validation([str(data)], Options(), jobs=jobs, sink=lambda _: None, progress=True)
    assert f"· {4 * len(line)} B/{4 * len(line)} B ·" in screen.getvalue()
