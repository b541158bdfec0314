"""The validation runner: worker tasks over folders of many small files (issue 35 item 15)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from atif_spec.cli import main
from atif_spec.datasets import forkpool, runner
from atif_spec.validation import listing
from atif_spec.validation.pipeline import Options
from tests.support.documents import minimal_atif
from tests.support.harbor import harbor_job


def folder_of_small_files(root: Path, count: int) -> list[str]:
    """``count`` trajectories, one per file; every fifth one invalid (a step id gap)."""
    names = []
    for i in range(count):
        doc = minimal_atif("v1.7")
        doc["steps"][0]["step_id"] = 1 + (i % 5 == 0)
        path = root / f"t{i:04d}.json"
        path.write_bytes(orjson.dumps(doc))
        names.append(str(path))
    return names


def reports(files: list[str], jobs: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    runner.run_validation(files, Options(), jobs=jobs, sink=out.append, progress=False)
    return out


def test_many_small_files_go_out_in_batches_and_come_back_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: one task (a message each way) per file, so the parent bounded a folder of small
    trajectories at any job count. Now up to TASK_FILES files share a task."""
    files = folder_of_small_files(tmp_path, 300)
    sent: list[int] = []
    real = forkpool.map_forked

    def counting(work: Any, items: Any, jobs: int, **kw: Any) -> Any:
        def each() -> Any:
            for item in items:
                sent.append(len(item))
                yield item

        return real(work, each(), jobs, **kw)

    monkeypatch.setattr(forkpool, "map_forked", counting)
    two = reports(files, jobs=2)
    assert two == reports(files, jobs=1)
    assert [r["source"] for r in two] == files
    assert sum(not r["valid"] for r in two) == 60
    assert sum(sent) == 300
    size = runner.task_files(300, 2)
    assert 1 < size < runner.TASK_FILES  # 300 files: smaller tasks, 8 or more per worker
    assert sent == [size] * (300 // size) + ([300 % size] if 300 % size else [])
    assert runner.task_files(20_000, 2) == runner.TASK_FILES


def test_a_folder_of_a_few_files_goes_out_a_file_per_task() -> None:
    """A folder of a few (large) files still spreads over the workers, without the parent
    looking up their sizes."""
    assert runner.task_files(10, 2) == 1
    assert runner.task_files(0, 2) == 1
    assert runner.task_files(16 * 5, 2) == 5


def test_a_json_lines_range_is_a_task_of_its_own(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    line = orjson.dumps(minimal_atif("v1.7")) + b"\n"
    big.write_bytes(line * (runner.PIECE_BYTES // len(line) + 2))
    small = folder_of_small_files(tmp_path, 3)
    items = list(runner.pieces([small[0], str(big), small[1], small[2]], None))
    assert [[Path(p.name).name for p in task] for task in runner.tasks(items)] == [
        ["t0000.json", "big.jsonl"],
        ["big.jsonl", "t0001.json", "t0002.json"],
    ]


def test_the_parent_looks_up_no_files_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Was: a ``stat`` of every file in the parent to weigh the tasks, a fifth of its serial
    work on a folder of small files (issue 35 item 15). The workers open the files; the parent
    looks at the first one only (to warm up before the fork)."""
    files = folder_of_small_files(tmp_path, 50)
    looked: list[str] = []
    real = os.stat

    def counted(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        looked.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counted)
    parent = os.getpid()
    out = reports(files, jobs=2)
    assert len(out) == 50 and os.getpid() == parent
    assert looked and not set(looked) & set(files[1:]), looked  # the warm-up's look only


def mixed_folder(root: Path) -> Path:
    """Valid and invalid trajectories in subfolders, a file that is not JSON, a JSON Lines
    file, and a Harbor job (whose other files are skipped)."""
    folder = root / "in"
    folder.mkdir()
    for sub in ("a", "b"):
        (folder / sub).mkdir()
        folder_of_small_files(folder / sub, 12)
    (folder / "b" / "broken.json").write_bytes(b'{"schema_version": "ATIF-v1.7", ')
    lines = [orjson.dumps(minimal_atif("v1.7")), b"{nope", orjson.dumps(minimal_atif("v1.6"))]
    (folder / "runs.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    harbor_job(folder / "jobs")
    return folder


@pytest.mark.parametrize("output", ["json", "text"])
def test_jobs_2_prints_what_jobs_1_prints(tmp_path: Path, output: str) -> None:
    """The same reports in the same order, the same summary (skipped Harbor files counted) and
    the same exit status with the workers reading the files as with one process."""
    folder = mixed_folder(tmp_path)
    one, two = (
        CliRunner().invoke(main, ["validate", "--format", output, "--jobs", jobs, str(folder)])
        for jobs in ("1", "2")
    )
    assert (two.exit_code, two.stdout, two.stderr) == (one.exit_code, one.stdout, one.stderr)
    assert one.exit_code == 1
    if output == "json":
        sources = [orjson.loads(line)["source"] for line in one.stdout.splitlines()]
        files = listing.list_inputs([str(folder)]).files  # in order, the job's trajectories too
        assert sources == [f for f in files for _ in range(3 if f.endswith(".jsonl") else 1)]
        assert len(files) > 24 + 2
    else:
        assert "skipped" in one.stdout.splitlines()[-1]


def test_a_file_gone_since_the_listing_is_one_line_in_either_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: a ``FileNotFoundError`` traceback (in the parent, or raised from a worker). The
    reports before it are printed, in order, then one error line, exit 2, with any --jobs."""
    folder = mixed_folder(tmp_path)
    gone = folder / "a" / "t0005.json"
    kept = gone.read_bytes()
    real = listing.list_inputs

    def then_delete(*args: Any, **kwargs: Any) -> listing.Listing:
        found = real(*args, **kwargs)
        gone.unlink()
        return found

    monkeypatch.setattr(listing, "list_inputs", then_delete)
    runs = []
    for jobs in ("1", "2", "2"):  # the last one through the process pool (not Linux)
        if len(runs) == 2:
            monkeypatch.setattr(forkpool, "available", lambda: False)
        gone.write_bytes(kept)
        args = ["validate", "--format", "json", "--jobs", jobs, str(folder)]
        runs.append(CliRunner().invoke(main, args))
    one, two, pooled = runs
    assert (two.exit_code, two.stdout, two.stderr) == (one.exit_code, one.stdout, one.stderr)
    assert (pooled.exit_code, pooled.stdout, pooled.stderr) == (2, one.stdout, one.stderr)
    assert one.exit_code == 2 and isinstance(one.exception, SystemExit)
    assert one.stderr.strip() == f"atif: cannot read {gone}: No such file or directory"
    sources = [orjson.loads(line)["source"] for line in one.stdout.splitlines()]
    assert sources == [str(folder / "a" / f"t{i:04d}.json") for i in range(5)]
