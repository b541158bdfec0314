"""Dataset throughput of the engines (run by `nox -s bench`, which installs the ray extra).

Generates the deterministic dataset of bench/dataset.py (JSON Lines and Parquet, every ATIF
version, invalid and unparseable records) and validates it with the local engine (--jobs 1,
--jobs 2) and on a local Ray cluster of --ray-cpus CPUs, printing documents per second. The
summaries of all runs must be identical. The Ray cluster's start-up is timed separately; the
first Ray run also warms its worker processes, so the best of --runs is reported.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import dataset

from atif_spec.datasets.engines import Task, local
from atif_spec.datasets.engines.sources import expand


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--ray-cpus", type=int, default=2)
    parser.add_argument("--operation", choices=["validate", "migrate"], default="validate")
    args = parser.parse_args()
    task = Task("validate") if args.operation == "validate" else Task("migrate", to="v1.6")
    with tempfile.TemporaryDirectory(prefix="atif-bench-ray-") as tmp:
        folder = Path(tmp)
        written = dataset.generate(folder, documents=args.documents)
        files = expand([str(folder)])
        size = sum(Path(f).stat().st_size for f in files)
        print(
            f"\nDataset: {written['documents']} documents in {len(files)} files "
            f"({size / 1e6:.0f} MB), {args.operation}, best of {args.runs}"
        )
        summaries: dict[str, bytes] = {}
        rates: dict[str, float] = {}
        for jobs in (1, 2):
            name = f"local --jobs {jobs}"
            best, summaries[name] = _best(lambda j=jobs: local.run(task, files, jobs=j), args.runs)
            rates[name] = written["documents"] / best
            print(f"  {name:<22} {best:7.2f} s  {rates[name]:9.0f} documents/s")
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        from atif_spec.datasets import ray as ray_engine

        start = time.perf_counter()
        ray_engine.connect(num_cpus=args.ray_cpus)
        print(
            f"  (Ray cluster of {args.ray_cpus} CPUs started in {time.perf_counter() - start:.1f} s)"
        )
        name = f"ray ({args.ray_cpus} CPUs)"
        best, summaries[name] = _best(lambda: ray_engine.run(task, files), args.runs)
        rates[name] = written["documents"] / best
        print(f"  {name:<22} {best:7.2f} s  {rates[name]:9.0f} documents/s")
        same = len(set(summaries.values())) == 1
        print(f"  summaries identical across engines: {same}")
        print(json.dumps({k: round(v) for k, v in rates.items()}))
        if not same:
            sys.exit(1)


def _best(run: object, runs: int) -> tuple[float, bytes]:
    best = float("inf")
    summary = b""
    for _ in range(runs):
        start = time.perf_counter()
        summary = run().to_json()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best, summary


if __name__ == "__main__":
    main()
