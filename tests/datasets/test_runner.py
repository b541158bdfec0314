"""The validation runner: worker tasks over folders of many small files (issue 35 item 15)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from atif_spec.datasets import forkpool, runner
from atif_spec.validation.pipeline import Options
from tests.support.documents import minimal_atif


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
    assert max(sent) == runner.TASK_FILES
    assert len(sent) == -(-300 // runner.TASK_FILES)


def test_a_task_holds_at_most_piece_bytes_of_files(tmp_path: Path) -> None:
    """A folder of a few large files still spreads over the workers: a task stops at
    PIECE_BYTES on disk."""
    big = tmp_path / "big.json"
    big.write_bytes(b" " * runner.PIECE_BYTES + orjson.dumps(minimal_atif("v1.7")))
    small = folder_of_small_files(tmp_path, 3)
    items = list(runner.pieces([small[0], str(big), small[1], small[2]], None))
    assert [[Path(p.name).name for p in task] for task in runner.tasks(items)] == [
        ["t0000.json", "big.json"],
        ["t0001.json", "t0002.json"],
    ]
