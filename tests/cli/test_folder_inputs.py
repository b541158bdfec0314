"""Folder inputs of every command: a Harbor job folder gives its trajectories, the rest is
counted as skipped; --include and --exclude choose the files of other layouts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from atif_spec.cli import main
from tests.support.harbor import HarborJob, harbor_job


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def job(tmp_path: Path) -> HarborJob:
    return harbor_job(tmp_path / "jobs")


@pytest.mark.parametrize("extra", [[], ["--follow-refs"], ["--jobs", "2"]])
def test_a_harbor_job_validates_and_the_summary_counts_what_was_skipped(
    job: HarborJob, extra: list[str]
) -> None:
    """Was: 41 document(s): 11 valid, 30 invalid (Harbor's config, result, lock, reward and
    manifest files, the Claude Code session and its settings read as documents), exit 1."""
    result = run("validate", str(job.root), *extra)
    assert result.exit_code == 0, result.output
    documents, skipped = len(job.trajectories), len(job.others)
    assert (documents, skipped) == (10, 31)
    summary = result.output.strip().splitlines()[-1]
    assert summary.startswith(f"{documents} document(s): {documents} valid, 0 invalid;")
    assert f"; skipped {skipped} file(s): {skipped} Harbor job and trial files" in summary


def test_a_dataset_run_lists_the_same_way(job: HarborJob, tmp_path: Path) -> None:
    result = run("validate", str(job.root), "--summary", str(tmp_path / "summary.json"))
    assert result.exit_code == 0, result.output
    assert "skipped 31 file(s)" in result.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["documents"] == len(job.trajectories)


def test_exclude_and_include_on_the_command_line(job: HarborJob) -> None:
    result = run("validate", str(job.root), "--exclude", "steps/", "--exclude", "*.cont-*.json")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("7 document(s): 7 valid")
    assert "7 matching --exclude" in result.output  # 6 files under steps/, 1 continuation

    result = run("validate", "-q", str(job.root), "--include", "**/verifier/reward.json")
    assert result.exit_code == 1  # a reward file is no trajectory: --include read it anyway
    assert result.output.startswith("5 document(s): 0 valid, 5 invalid")


def test_a_bad_pattern_is_a_usage_error(job: HarborJob) -> None:
    result = run("validate", str(job.root), "--exclude", "run-[0-9.json")
    assert result.exit_code == 2
    assert "unclosed '['" in result.output


def test_stats_counts_the_trajectories_only(job: HarborJob) -> None:
    result = CliRunner().invoke(main, ["stats", str(job.root), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["total"]["documents"] == len(job.trajectories)
    assert data["total"]["valid"] == len(job.trajectories)
    assert "atif: note: skipped 31 file(s)" in result.stderr


def test_view_shows_the_trajectories_only(job: HarborJob, tmp_path: Path) -> None:
    page = tmp_path / "job.html"
    result = CliRunner().invoke(main, ["view", str(job.root), "-o", str(page)])
    assert result.exit_code == 0, result.output
    assert "atif: note: skipped 31 file(s)" in result.stderr
    payload = re.search(
        r'<script type="application/json" id="atif-data">(.*?)</script>', page.read_text()
    )
    assert payload is not None
    data = json.loads(payload.group(1))
    assert data["total"] == len(job.trajectories)
    assert sorted(data["inputs"]) == sorted(str(p) for p in job.trajectories)


def test_export_sft_reads_the_trajectories_only(job: HarborJob, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["export-sft", str(job.root), "-o", str(tmp_path / "sft.jsonl")]
    )
    assert result.exit_code == 0, result.output
    assert "atif: note: skipped 31 file(s)" in result.stderr
    assert f" of {len(job.trajectories)} documents to " in result.stderr


@pytest.mark.parametrize("command", [["migrate", "--to", "v1.7"], ["convert", "--to", "atif@v1.7"]])
def test_migrate_and_convert_write_the_trajectories_only(
    job: HarborJob, tmp_path: Path, command: list[str]
) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(main, [command[0], str(job.root), *command[1:], "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "atif: note: skipped 31 file(s)" in result.stderr
    written = sorted(p.relative_to(out) for p in out.rglob("*.json"))
    assert written == sorted(p.relative_to(job.root) for p in job.trajectories)


def test_a_job_folder_in_object_storage_lists_the_same_way(job: HarborJob) -> None:
    pytest.importorskip("pyarrow", reason="URIs are read through pyarrow (parquet extra)")
    result = run("validate", f"file://{job.root}")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{len(job.trajectories)} document(s): 10 valid, 0 invalid")
    assert "skipped 31 file(s)" in result.output


def test_a_job_without_trajectories_is_nothing_found(tmp_path: Path) -> None:
    """Every trial failed before its agent wrote a trajectory: no document, exit 2, and the
    message says what was skipped (not a green run of zero documents)."""
    job = harbor_job(tmp_path)
    for path in job.trajectories:
        path.unlink()
    result = run("validate", str(job.root))
    assert result.exit_code == 2
    assert f"atif: no document files in {job.root}" in result.output
    assert "Harbor job and trial files" in result.output


def test_json_reports_keep_stdout_and_the_count_goes_to_stderr(job: HarborJob) -> None:
    result = CliRunner().invoke(main, ["validate", str(job.root), "--format", "json"])
    assert result.exit_code == 0, result.output
    reports = [json.loads(line) for line in result.stdout.splitlines()]
    assert sorted(r["source"] for r in reports) == sorted(str(p) for p in job.trajectories)
    assert "atif: note: skipped 31 file(s)" in result.stderr


def test_sarif_keeps_stdout_and_github_says_the_count_in_its_summary(job: HarborJob) -> None:
    """Was: a TypeError from the SARIF and GitHub writers once the walk counted skipped files."""
    sarif = CliRunner().invoke(main, ["validate", str(job.root), "--format", "sarif"])
    assert sarif.exit_code == 0, sarif.output
    assert json.loads(sarif.stdout)["version"] == "2.1.0"
    assert "atif: note: skipped 31 file(s)" in sarif.stderr
    github = CliRunner().invoke(main, ["validate", str(job.root), "--format", "github"])
    assert github.exit_code == 0, github.output
    last = github.stdout.splitlines()[-1]
    assert last.startswith(f"{len(job.trajectories)} document(s)") and "skipped 31 file(s)" in last
