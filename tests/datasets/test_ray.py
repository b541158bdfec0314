"""The Ray engine against the local engine on a generated dataset (``nox -s ray``).

A local Ray cluster with two worker CPUs (so at least two worker processes) is started once for
the module, listening on 127.0.0.1 only. The dataset (bench/dataset.py) holds 20 000+
trajectories in JSON Lines and Parquet files: every ATIF version, sibling formats, invalid
documents and unparseable rows. Both engines must produce the same summary, line for line.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator

from tests.support import ROOT

# Read by Ray when it is imported: no usage statistics; the node on the loopback interface only.
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
ray = pytest.importorskip("ray", reason="Ray is not installed (the 'ray' extra; run `nox -s ray`)")
pytest.importorskip("ray.data", reason="Ray Data is not installed (pip install 'ray[data]')")

from atif_spec.datasets import ray as ray_engine  # noqa: E402
from atif_spec.datasets.engines import Result, Task, local  # noqa: E402
from atif_spec.datasets.engines.sources import expand  # noqa: E402
from atif_spec.validation.reader import UnreadablePath  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
import dataset  # noqa: E402

DOCUMENTS = 20_000
SUMMARY_SCHEMA = orjson.loads((ROOT / "spec/atif-spec/v1/dataset-summary.schema.json").read_bytes())


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """A local two-CPU Ray cluster (loopback only, no usage statistics)."""
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    folder = tmp_path_factory.mktemp("dataset")
    written = dataset.generate(folder, documents=DOCUMENTS)
    return folder, written["documents"]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A smaller dataset of the same kinds, for the command-line runs."""
    folder = tmp_path_factory.mktemp("small")
    dataset.generate(folder, documents=2_000)
    return folder


def both(task: Task, folder: Path) -> tuple[Any, Any, list[dict[str, Any]], list[dict[str, Any]]]:
    """Summaries and per-document reports of the local engine (2 processes) and Ray."""
    files = expand([str(folder)])
    mine: list[dict[str, Any]] = []
    theirs: list[dict[str, Any]] = []
    here = local.run(task, files, jobs=2, sink=lambda r: mine.append(r.report))
    there = ray_engine.run(task, files, sink=lambda r: theirs.append(r.report))
    return here, there, mine, theirs


def test_cluster_has_two_worker_processes(cluster: None) -> None:
    """Two tasks that wait for each other can only finish in two worker processes at once."""

    @ray.remote(num_cpus=0)
    class Barrier:
        def __init__(self) -> None:
            self.arrived = 0

        def arrive(self) -> None:
            self.arrived += 1

        def count(self) -> int:
            return self.arrived

    @ray.remote(num_cpus=1)
    def meet(barrier: Any) -> int:
        import time

        ray.get(barrier.arrive.remote())
        for _ in range(600):
            if ray.get(barrier.count.remote()) >= 2:
                return os.getpid()
            time.sleep(0.1)
        raise TimeoutError("the other task never ran alongside this one")

    assert ray.cluster_resources()["CPU"] >= 2
    assert {n["NodeManagerAddress"] for n in ray.nodes()} == {"127.0.0.1"}
    barrier = Barrier.remote()  # type: ignore[attr-defined]
    pids = ray.get([meet.remote(barrier), meet.remote(barrier)])
    assert len(set(pids)) == 2 and os.getpid() not in pids


def test_validate_summaries_are_identical(cluster: None, data: tuple[Path, int]) -> None:
    folder, count = data
    here, there, mine, theirs = both(Task("validate"), folder)
    assert there.to_json().decode().splitlines() == here.to_json().decode().splitlines()
    assert mine == theirs  # the same reports, in the same (input) order
    out = there.to_dict()
    Draft202012Validator(SUMMARY_SCHEMA).validate(out)
    assert out["documents"] == count >= DOCUMENTS
    assert out["failed"] > 0 and out["with_warnings"] > 0
    assert {"unknown", "atif@v1.0", "atif@v1.8", "tao@v0.2.0"} <= set(out["by_version"])
    codes = set(out["by_code"])
    assert {"input:invalid-json", "input:byte-order-mark", "schema:required"} <= codes
    sources = {d["source"] for d in out["failed_documents"]}
    assert any(s.endswith(".parquet") for s in sources)
    assert any(s.endswith(".jsonl") for s in sources)


@pytest.mark.parametrize(
    "task",
    [Task("migrate", to="v1.6"), Task("convert", to="atif@v1.6")],
    ids=["migrate", "convert"],
)
def test_transform_summaries_and_documents_are_identical(
    cluster: None, data: tuple[Path, int], task: Task
) -> None:
    folder, count = data
    files = expand([str(folder)])
    mine: list[Result] = []
    theirs: list[Result] = []
    here = local.run(task, files, jobs=2, sink=mine.append)
    there = ray_engine.run(task, files, sink=theirs.append)
    assert there.to_json().decode().splitlines() == here.to_json().decode().splitlines()
    assert here.documents == count and here.passed > 0 and here.failed > 0
    assert [(r.report, r.document) for r in mine] == [(r.report, r.document) for r in theirs]
    Draft202012Validator(SUMMARY_SCHEMA).validate(there.to_dict())


def test_distributed_summary_without_sink(cluster: None, data: tuple[Path, int]) -> None:
    """Summaries computed batch by batch on the cluster and merged match the local ones."""
    folder, _ = data
    files = expand([str(folder)])
    task = Task("validate")
    assert ray_engine.run(task, files).to_json() == local.run(task, files).to_json()


def test_results_written_and_read_back(cluster: None, small: Path, tmp_path: Path) -> None:
    folder = small
    count = local.run(Task("validate"), expand([str(folder)])).documents
    task = Task("migrate", to="v1.4")
    out = tmp_path / "results"
    summary = ray_engine.run(task, [str(folder)], output=str(out))
    table = ray.data.read_parquet(str(out))
    assert set(table.columns()) == {"source", "line", "passed", "report", "document"}
    assert table.count() == count == summary.documents
    assert ray_engine.summarize(table, task).to_json() == summary.to_json()
    batch = table.select_columns(["passed", "document"]).take_batch(100)
    first = next(d for p, d in zip(batch["passed"], batch["document"], strict=True) if p)
    assert orjson.loads(first)["schema_version"] == "ATIF-v1.4"


def test_apply_to_a_users_parquet_dataset(cluster: None, small: Path) -> None:
    """Any dataset with a JSON column works: here one read by Ray's own Parquet reader."""
    folder = small
    parquet = sorted(str(p) for p in folder.glob("*.parquet"))
    task = Task("validate")
    users = ray.data.read_parquet(str(folder), file_extensions=["parquet"])
    ds = ray_engine.apply(users, task, column="trajectory")
    assert {"id", "trajectory", "report", "passed"} <= set(ds.columns())
    theirs = ray_engine.summarize(ds, task).to_dict()
    mine = local.run(task, parquet).to_dict()
    for key in ("documents", "passed", "failed", "errors", "warnings", "by_version", "by_code"):
        assert theirs[key] == mine[key], key
    assert {d["source"] for d in theirs["failed_documents"]} == {"<dataset>"}


def test_missing_inputs_are_refused_before_work(cluster: None, tmp_path: Path) -> None:
    with pytest.raises(UnreadablePath, match="no such file"):
        ray_engine.run(Task("validate"), [str(tmp_path / "missing.jsonl")])
    with pytest.raises(UnreadablePath, match="local engine only"):
        ray_engine.run(Task("validate"), ["-"])


def test_missing_parquet_column_fails_the_run(cluster: None, data: tuple[Path, int]) -> None:
    folder, _ = data
    parquet = sorted(str(p) for p in folder.glob("*.parquet"))[:1]
    with pytest.raises(Exception, match="no column 'doc'"):
        ray_engine.run(Task("validate"), parquet, column="doc")


# --- the command line ------------------------------------------------------------------------


def _cli() -> Any:
    from atif_spec.cli import main

    return main


@pytest.mark.parametrize("command", ["validate", "migrate", "convert"])
def test_cli_engines_agree(cluster: None, small: Path, tmp_path: Path, command: str) -> None:
    from click.testing import CliRunner

    main = _cli()
    folder = small
    extra = {"validate": ["--format", "json"], "migrate": ["--to", "v1.6", "--report", "json"]}
    extra["convert"] = ["--to", "atif@v1.6", "--report", "json"]
    runs = {}
    for engine in ("local", "ray"):
        summary = tmp_path / f"{command}-{engine}.json"
        args = [
            command,
            str(folder),
            *extra[command],
            "--engine",
            engine,
            "--summary",
            str(summary),
        ]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        runs[engine] = (result.exit_code, result.stdout, summary.read_text())
    assert runs["local"][0] == runs["ray"][0] == 1  # the dataset holds invalid documents
    assert runs["ray"][2].splitlines() == runs["local"][2].splitlines()
    if command == "validate":
        assert runs["ray"][1] == runs["local"][1]  # the same report lines, in the same order


def test_cli_missing_path_exits_2(cluster: None, tmp_path: Path) -> None:
    from click.testing import CliRunner

    main = _cli()
    result = CliRunner().invoke(main, ["validate", "--engine", "ray", str(tmp_path / "nope")])
    assert result.exit_code == 2


def test_stats_are_the_same_on_both_engines(cluster: None, data: tuple[Path, int]) -> None:
    """``atif stats``: one pure function, the same output from both engines."""
    from atif_spec.datasets import stats

    folder, count = data
    files = expand([str(folder)])
    here = stats.run_local(files, "version").to_dict()
    there = stats.run_ray(files, "version").to_dict()
    assert there == here
    assert here["total"]["documents"] == count
    assert here["total"]["invalid"] > 0 and here["total"]["steps"] > count
    assert len(here["groups"]) > 5
    schema = orjson.loads((ROOT / "spec/atif-spec/v1/dataset-stats.schema.json").read_bytes())
    Draft202012Validator(schema).validate(here)
