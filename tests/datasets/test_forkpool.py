"""The forked ordered map that ``atif validate --jobs N`` uses on Linux."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from atif_spec.datasets import forkpool

pytestmark = pytest.mark.skipif(not forkpool.available(), reason="forked workers: Linux only")


def _square_with_pid(n: int) -> tuple[int, int]:
    return n * n, os.getpid()


def _slow_on_multiples_of_four(n: int) -> tuple[int, int]:
    if n % 4 == 0:
        time.sleep(0.02)
    return n, os.getpid()


def _fails_on_seven(n: int) -> int:
    if n == 7:
        raise ValueError("seven")
    return n


def _dies_on_three(n: int) -> int:
    if n == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return n


def test_results_come_back_in_input_order_from_several_processes() -> None:
    out = list(forkpool.map_forked(_square_with_pid, range(200), 2))
    assert [item for item, _ in out] == list(range(200))
    assert [square for _, (square, _) in out] == [n * n for n in range(200)]
    pids = {pid for _, (_, pid) in out}
    assert len(pids) == 2 and os.getpid() not in pids


def test_a_slow_task_does_not_hold_back_the_other_worker_nor_the_order() -> None:
    """Tasks go to whichever worker is free: the one that is not stuck on a slow task takes
    most of the rest, and results still come back in input order."""
    out = list(forkpool.map_forked(_slow_on_multiples_of_four, range(40), 2))
    assert [n for _, (n, _) in out] == list(range(40))
    by_pid: dict[int, int] = {}
    for _, (_, pid) in out:
        by_pid[pid] = by_pid.get(pid, 0) + 1
    assert len(by_pid) == 2


def test_a_worker_exception_is_raised_in_the_parent_after_the_earlier_results() -> None:
    seen = []
    with pytest.raises(ValueError, match="seven"):
        for _, result in forkpool.map_forked(_fails_on_seven, range(20), 2):
            seen.append(result)
    assert seen == list(range(7))


def test_a_worker_that_dies_is_reported() -> None:
    with pytest.raises(forkpool.WorkerDied):
        list(forkpool.map_forked(_dies_on_three, range(10), 2))


def _children() -> set[int]:
    """This process's children, running or not yet reaped (Linux's /proc lists zombies too)."""
    lists = Path(f"/proc/{os.getpid()}/task").glob("*/children")
    return {int(pid) for path in lists for pid in path.read_text().split()}


def test_stopping_early_leaves_no_process_behind() -> None:
    # Compared with the children from before: other tests in this process (a pytest-xdist
    # worker runs many files) may have left helpers running, such as multiprocessing's
    # resource tracker, so "no child at all" would depend on which tests ran first.
    before = _children()
    results = forkpool.map_forked(_square_with_pid, range(1000), 2)
    first = next(results)
    assert _children() - before, "the pool's workers are this process's children"
    results.close()
    assert first[0] == 0
    assert _children() <= before  # every worker was reaped


def test_the_runner_gives_the_same_reports_with_either_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--jobs 2`` forks its workers here; the process pool used elsewhere reports the same."""
    import orjson

    from atif_spec.datasets import runner
    from atif_spec.validation.pipeline import Options
    from tests.support.documents import minimal_atif

    monkeypatch.setattr(runner, "PIECE_BYTES", 600)
    bad = minimal_atif("v1.7")
    bad["steps"][0]["step_id"] = 3
    rows = [orjson.dumps(bad if i % 5 == 0 else minimal_atif("v1.7")) for i in range(40)]
    f = tmp_path / "docs.jsonl"
    f.write_bytes(b"\n".join(rows) + b"\n\n{\n")

    def reports() -> list[dict[str, object]]:
        out: list[dict[str, object]] = []
        runner.run_validation([str(f)], Options(), jobs=2, sink=out.append, progress=False)
        return out

    forked = reports()
    monkeypatch.setattr(forkpool, "available", lambda: False)
    pooled = reports()
    assert forked == pooled and len(forked) == 41
    assert sum(not r["valid"] for r in forked) == 9


def test_several_jobs_over_no_file_validate_nothing() -> None:
    """An empty folder lists no file: nothing to warm up on, nothing to hand out."""
    from atif_spec.datasets import runner
    from atif_spec.validation.pipeline import Options

    seen: list[object] = []
    summary = runner.run_validation([], Options(), jobs=2, sink=seen.append, progress=False)
    assert summary.documents == 0 and seen == []
