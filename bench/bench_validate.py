"""Validation benchmark (run by `nox -s bench`; not a test).

Prints, measured in this run on this machine: orjson.loads alone, our full validation (parse +
schema + rules), the reference implementation's Pydantic validation (harbor, Python 3.12, when
--harbor-python is given) and python-jsonschema, as ratios to orjson.loads; JSON Lines
throughput with --jobs 1 and --jobs 2; a folder of 20,000 small files with every --jobs count up to
the cores (speed-up and per-core efficiency); and the wall time of `atif validate` on one small
file.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).parent))
import corpus
from timing import best_of, calls_for, interleaved, ratios, row, spread

import atif_spec
from atif_spec.validation import pipeline as validation
from atif_spec.validation.pipeline import validate_raw
from atif_spec.validation.reader import RawDocument
from atif_spec.validation.typed.atif import clean_version

WORK = Path(".bench")
HARBOR_SCRIPT = """
import sys, time
from harbor.models.trajectories import Trajectory
data = open(sys.argv[1], "rb").read()
best = float("inf")
for _ in range(int(sys.argv[2])):
    t = time.perf_counter(); Trajectory.model_validate_json(data); best = min(best, time.perf_counter() - t)
print(best)
"""


HARBOR_SWEEP = """
import json, sys, time
import orjson
from harbor.models.trajectories import Trajectory
runs, out = int(sys.argv[1]), {}
for name in sys.argv[2:]:
    data = open(name, "rb").read()
    try:
        Trajectory.model_validate_json(data)
    except Exception as exc:
        out[name] = type(exc).__name__
        continue
    t = time.perf_counter(); orjson.loads(data); once = time.perf_counter() - t
    calls = max(1, min(5000, round(0.02 / max(once, 1e-7))))
    out[name] = []
    for _ in range(runs):
        t = time.process_time()
        for _ in range(calls): orjson.loads(data)
        base = time.process_time() - t
        t = time.process_time()
        for _ in range(calls): Trajectory.model_validate_json(data)
        out[name].append((time.process_time() - t) / base)
print(json.dumps(out))
"""
SWEEP_STEPS = (1, 5, 20, 100, 2000)
BIG = 2**70
"""An integer orjson cannot hold (it parses integers of 2^64 and more as floats)."""


def sweep_documents() -> list[tuple[str, bytes]]:
    """``(label, bytes)`` of the size sweep: the corpus trajectory at 1 to 2 000 agent steps,
    and one at 20 steps whose tool calls carry an integer of 2^70."""
    docs = [
        (f"{steps} steps", orjson.dumps(corpus.trajectory(steps, output_lines=42)))
        for steps in SWEEP_STEPS
    ]
    big = corpus.trajectory(20, output_lines=42)
    for step in big["steps"][2:]:
        step["tool_calls"][0]["arguments"]["seed"] = "BIG-INTEGER"
    docs.insert(3, ("20 steps, int 2^70", orjson.dumps(big).replace(b'"BIG-INTEGER"', b"%d" % BIG)))
    return docs


def harbor_sweep(python: str, files: list[Path], runs: int) -> dict[str, list[float] | str]:
    """Harbor's ``model_validate_json`` over orjson.loads, round by round, in its own venv."""
    out = subprocess.run(
        [python, "-c", HARBOR_SWEEP, str(runs), *map(str, files)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, list[float] | str] = json.loads(out.stdout)
    return result


def reference_path(raw: RawDocument) -> object:
    """``validate_raw`` with the typed decode off: parse, screen, schema, rules."""
    validation.TYPED = False
    try:
        return validate_raw(raw)
    finally:
        validation.TYPED = True


def size_sweep(args: argparse.Namespace) -> None:
    """Full validation against orjson.loads at every document size, with Harbor beside it."""
    docs = sweep_documents()
    files = []
    for label, data in docs:
        files.append(
            WORK / f"sweep-{label.replace(' ', '-').replace(',', '').replace('^', '')}.json"
        )
        files[-1].write_bytes(data)
        report = validate_raw(RawDocument("<bench>", data))
        assert report.valid and not report.findings, (label, report.findings[:3])
        assert clean_version(data) is not None, f"{label} does not take the typed decode"
    print(
        f"\nSize sweep: ratios to orjson.loads (CPU time), median (min-max) of {args.sweep_runs}"
        " interleaved rounds\n  dict = atif_spec.validate(orjson.loads(raw)); bytes = validate_raw(raw), as"
        " the runner does (typed decode first); reference = validate_raw without the typed decode;"
        "\n  harbor = Trajectory.model_validate_json(raw) (Python 3.12)"
    )
    harbor = harbor_sweep(args.harbor_python, files, args.sweep_runs) if args.harbor_python else {}
    print(
        f"  {'document':<20} {'size':>9} {'loads':>10}  {'dict':<18} {'bytes':<18}"
        f" {'reference':<18} harbor"
    )
    for (label, data), path in zip(docs, files, strict=True):
        raw = RawDocument("<bench>", data)
        fns = {
            "loads": lambda data=data: orjson.loads(data),
            "dict": lambda data=data: atif_spec.validate(orjson.loads(data)),
            "bytes": lambda raw=raw: validate_raw(raw),
            "reference": lambda raw=raw: reference_path(raw),
        }
        times = interleaved(fns, args.sweep_runs, calls_for(fns["loads"]), time.process_time)
        theirs = harbor.get(str(path))
        shown = (
            "not measured"
            if theirs is None
            else (f"rejects ({theirs})" if isinstance(theirs, str) else spread(theirs))
        )
        print(
            f"  {label:<20} {len(data) / 1e3:7.0f}KB {min(times['loads']) * 1e6:8.0f}us"
            f"  {spread(ratios(times, 'dict', 'loads')):<18}"
            f" {spread(ratios(times, 'bytes', 'loads')):<18}"
            f" {spread(ratios(times, 'reference', 'loads')):<18} {shown}"
        )
    print("  targets: <= 2.0x at 5-25 KB, <= 1.3x from 100 KB, and below harbor at every size")


def loads_gc_paused(data: bytes) -> object:
    """orjson.loads with the cyclic GC paused, as ``validate_raw`` runs it on large documents."""
    gc.disable()
    try:
        return orjson.loads(data)
    finally:
        gc.enable()


def single_document(args: argparse.Namespace) -> None:
    doc = corpus.trajectory(2000, output_lines=42)
    data = orjson.dumps(doc)
    path = WORK / "trajectory-2000-steps.json"
    path.write_bytes(data)
    raw = RawDocument(str(path), data)
    report = validate_raw(raw)
    assert report.valid and not report.findings, report.findings[:3]
    from atif_spec.schemas.catalog import load_catalog
    from atif_spec.validation.rules.screen import screen_validator

    entry = load_catalog().find("atif@v1.7")
    screen = screen_validator("atif", entry.id)
    assert screen is not None and screen.is_valid(doc), "the corpus should take the quick pass"
    print(
        f"\n9 MB trajectory: {len(data) / 1e6:.1f} MB, {len(doc['steps'])} steps"
        f" ({args.runs} interleaved rounds; best and median)"
    )
    times = interleaved(
        {
            "loads": lambda: orjson.loads(data),
            "ours": lambda: validate_raw(raw),
            "loads, GC paused": lambda: loads_gc_paused(data),
        },
        args.runs,
    )
    base, ours = min(times["loads"]), min(times["ours"])
    median_ratio = statistics.median(times["ours"]) / statistics.median(times["loads"])
    row("orjson.loads (baseline)", base, base)
    row(
        "atif_spec full validation (parse+schema+rules)",
        ours,
        base,
        f"target <= 1.3x (medians: {median_ratio:.2f}x)",
    )
    paused = min(times["loads, GC paused"])
    row(
        "orjson.loads with the GC paused, as ours is",
        paused,
        base,
        f"ours is {ours / paused:.2f}x this (medians:"
        f" {statistics.median(times['ours']) / statistics.median(times['loads, GC paused']):.2f}x)",
    )
    if args.harbor_python:
        out = subprocess.run(
            [args.harbor_python, "-c", HARBOR_SCRIPT, str(path), str(max(3, args.runs // 4))],
            check=True,
            capture_output=True,
            text=True,
        )
        harbor = float(out.stdout.strip())
        row(
            "harbor 0.25.0 Trajectory.model_validate_json", harbor, base, "reference implementation"
        )
    else:
        print("  harbor: not measured (run through `nox -s bench`, which passes --harbor-python)")
    import jsonschema

    from atif_spec.schemas.catalog import schema_by_id
    from atif_spec.schemas.compiled import referencing_registry

    validator = jsonschema.Draft202012Validator(
        schema_by_id(entry.id), registry=referencing_registry()
    )
    slow = best_of(lambda: list(validator.iter_errors(orjson.loads(data))), 1)
    row(
        "python-jsonschema (parse + iter_errors)",
        slow,
        base,
        f"ours is {slow / ours:.0f}x faster (target >= 25x)",
    )


MIXED_STEPS = (1, 2, 3, 5, 8, 13, 20, 40, 100)
"""Agent steps of the records of the mixed JSON Lines corpus, in turn (5 KB to 454 KB)."""
PARSE_LOOP = """
import sys, orjson
with open(sys.argv[1], "rb") as fh:
    for line in fh:
        orjson.loads(line)
"""
BUFFERED_LOOP = PARSE_LOOP.replace('"rb"', '"rb", buffering=1 << 20')
"""The same loop reading through a 1 MiB buffer, as ``atif validate`` does (reader.LINE_BUFFER):
with the default 8 KiB one, ``readline`` on records of 5 to 454 KB is about a quarter of the
loop's time."""


def mixed_corpus(path: Path, count: int) -> None:
    """``count`` records of the sizes ``MIXED_STEPS`` in turn (rewritten only when changed)."""
    lines = [orjson.dumps(corpus.trajectory(s, output_lines=42)) + b"\n" for s in MIXED_STEPS]
    size = sum(len(lines[i % len(lines)]) for i in range(count))
    if path.exists() and path.stat().st_size == size:
        return
    with path.open("wb") as fh:
        for i in range(count):
            fh.write(lines[i % len(lines)])


MEASURE = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
"""


def cached_bytecode() -> dict[str, str]:
    """The environment for timed commands: bytecode cached (in ``.bench/pycache``), as an
    installed package has it, even where ``PYTHONDONTWRITEBYTECODE`` is set."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str((WORK / "pycache").absolute())
    return env


def measured(cmd: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system, the process and its workers) and peak RSS in
    MB of one command, whose output is thrown away.

    A small interpreter starts the command: a child's peak RSS counts from its parent's size
    at the fork, which would be this benchmark's own.
    """
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *cmd],
        check=True,
        capture_output=True,
        text=True,
        env=cached_bytecode(),
    )
    wall = time.perf_counter() - start
    code, cpu, rss = out.stdout.split()
    assert code == "0", (cmd, code)
    return wall, float(cpu), int(rss) // 1024


def jsonl_throughput(args: argparse.Namespace) -> None:
    """`atif validate -q` on a mixed-size JSON Lines file against a plain orjson.loads loop."""
    path = WORK / "mixed.jsonl"
    mixed_corpus(path, args.documents)
    small = WORK / "mixed-quarter.jsonl"
    mixed_corpus(small, args.documents // 4)
    atif = [sys.executable, "-m", "atif_spec.cli", "validate", "-q"]
    commands = {
        "loop": [sys.executable, "-c", PARSE_LOOP, str(path)],
        "loop 1 MiB": [sys.executable, "-c", BUFFERED_LOOP, str(path)],
        "jobs 1": [*atif, "--jobs", "1", str(path)],
        "jobs 2": [*atif, "--jobs", "2", str(path)],
    }
    runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name in commands}
    for _ in range(args.jsonl_runs):
        for name, cmd in commands.items():
            runs[name].append(measured(cmd))
    wall = {name: [r[0] for r in rs] for name, rs in runs.items()}
    cpu = {name: [r[1] for r in rs] for name, rs in runs.items()}
    print(
        f"\nJSON Lines: {args.documents} records of {MIXED_STEPS[0]} to {MIXED_STEPS[-1]} agent"
        f" steps ({path.stat().st_size / 1e6:.0f} MB), {args.jsonl_runs} interleaved runs;"
        " median (min-max)"
    )
    print(f"  {'':<28} {'wall s':>8} {'CPU s':>8} {'peak RSS':>9}")
    for name in commands:
        rss = max(r[2] for r in runs[name])
        label = (
            f"orjson.loads {name}"
            if name.startswith("loop")
            else f"atif validate -q --{name.replace(' ', ' ')}"
        )
        print(
            f"  {label:<28} {statistics.median(wall[name]):8.2f} {statistics.median(cpu[name]):8.2f}"
            f" {rss:6d} MB"
        )
    print(
        f"  --jobs 1 / loop: CPU {spread(ratios(cpu, 'jobs 1', 'loop'))},"
        f" wall {spread(ratios(wall, 'jobs 1', 'loop'))} (target <= 1.3x)"
    )
    print(
        f"  --jobs 1 / loop with a 1 MiB buffer (the same reading as ours):"
        f" CPU {spread(ratios(cpu, 'jobs 1', 'loop 1 MiB'))},"
        f" wall {spread(ratios(wall, 'jobs 1', 'loop 1 MiB'))}"
    )
    speedup = [a / b for a, b in zip(wall["jobs 1"], wall["jobs 2"], strict=True)]
    print(
        f"  --jobs 2 speed-up (wall): {spread(speedup)} (target >= 1.8x on an idle 2-core machine);"
        f" CPU --jobs 2 / --jobs 1: {spread(ratios(cpu, 'jobs 2', 'jobs 1'))}"
    )
    one = WORK / "mixed-one.jsonl"
    mixed_corpus(one, 1)
    start = {
        name: statistics.median(measured([*cmd[:-1], str(one)])[1] for _ in range(3))
        for name, cmd in commands.items()
        if name != "jobs 2"
    }
    steady = (statistics.median(cpu["jobs 1"]) - start["jobs 1"]) / (
        statistics.median(cpu["loop"]) - start["loop"]
    )
    print(
        f"  start-up (one record): atif {start['jobs 1']:.2f} s CPU, loop {start['loop']:.2f} s;"
        f" without it, --jobs 1 / loop: {steady:.2f}x (CPU medians)"
    )
    work = statistics.median(cpu["jobs 1"]) - start["jobs 1"]
    print(
        "  --jobs 2 bound on 2 idle cores with the start-up serial (start + work) /"
        f" (start + work / 2): {(start['jobs 1'] + work) / (start['jobs 1'] + work / 2):.2f}x"
    )
    for jobs in ("1", "2"):
        quarter = measured([*atif, "--jobs", jobs, str(small)])[2]
        full = max(r[2] for r in runs[f"jobs {jobs}"])
        print(
            f"  peak RSS --jobs {jobs}: {quarter} MB for {args.documents // 4} records,"
            f" {full} MB for {args.documents} (flat in the record count)"
        )


LARGE_FIXTURE = Path("conformance/atif/v1.8/valid/large-3000-steps.json")
SMALL_STEPS = 9
"""Steps of :data:`LARGE_FIXTURE` in each small file: about 6.3 KB indented, valid and clean
(a trajectory that the typed fast path answers, as most of a Harbor jobs tree's are)."""


def small_trajectory() -> bytes:
    """The first :data:`SMALL_STEPS` steps of the large conformance fixture, without its
    ``final_metrics`` (the totals of its 3,000 steps)."""
    doc = orjson.loads(LARGE_FIXTURE.read_bytes())
    doc["steps"] = doc["steps"][:SMALL_STEPS]
    del doc["final_metrics"]
    data = orjson.dumps(doc, option=orjson.OPT_INDENT_2)
    assert clean_version(data) is not None, "the small trajectory takes the typed fast path"
    return data


def small_files(folder: Path, count: int) -> int:
    """``count`` copies of :func:`small_trajectory`, one per file (the shape of a Harbor jobs
    tree), in subfolders of 1,000; rewritten only when the count or the first file changed.
    Returns a file's size in bytes."""
    data = small_trajectory()
    first = folder / "000" / "000000.json"
    if len(list(folder.rglob("*.json"))) != count or first.read_bytes() != data:
        for i in range(count):
            sub = folder / f"{i // 1000:03d}"
            sub.mkdir(parents=True, exist_ok=True)
            (sub / f"{i:06d}.json").write_bytes(data)
    return len(data)


def folder_scaling(args: argparse.Namespace) -> None:
    """`atif validate -q --jobs N` on a folder of many small files, for every N up to the
    machine's cores, in interleaved runs: median wall time (and its spread), CPU time (the
    process and its workers: more than --jobs 1's is work that the workers repeat or the
    messages cost), speed-up over --jobs 1 and per-core efficiency (speed-up / N)."""
    folder = WORK / f"small-files-{args.small_files}"
    size = small_files(folder, args.small_files)
    cores = os.cpu_count() or 1
    atif = [sys.executable, "-m", "atif_spec.cli", "validate", "-q"]
    jobs = list(range(1, cores + 1))
    wall: dict[int, list[float]] = {n: [] for n in jobs}
    cpu: dict[int, list[float]] = {n: [] for n in jobs}
    for _ in range(args.folder_runs):
        for n in jobs:
            seconds, used, _ = measured([*atif, "--jobs", str(n), str(folder)])
            wall[n].append(seconds)
            cpu[n].append(used)
    print(
        f"\nFolder: {args.small_files} valid trajectories of {size / 1000:.1f} kB (the first"
        f" {SMALL_STEPS} steps of {LARGE_FIXTURE.name}), {args.folder_runs} interleaved runs;"
        " median (min-max)"
    )
    print(
        f"  {'':<10} {'wall s':>16} {'CPU s':>6} {'files/s':>8}"
        f"  {'speed-up over --jobs 1':<22} {'per-core':>8}"
    )
    for n in jobs:
        speedup = [a / b for a, b in zip(wall[1], wall[n], strict=True)]
        median = statistics.median(wall[n])
        print(
            f"  {'--jobs ' + str(n):<10} {median:6.2f} ({min(wall[n]):.2f}-{max(wall[n]):.2f})"
            f" {statistics.median(cpu[n]):6.2f} {args.small_files / median:8.0f}"
            f"  {spread(speedup):<22} {statistics.median(speedup) / n:8.2f}"
        )
    print("  (target: --jobs 2 >= 1.6x on an idle 2-core machine)")


def startup(args: argparse.Namespace) -> None:
    small = WORK / "small.json"
    small.write_bytes(orjson.dumps(corpus.trajectory(1, output_lines=1)))
    cmd = [str(Path(sys.executable).with_name("atif")), "validate", str(small)]
    env = cached_bytecode()
    best = best_of(lambda: subprocess.run(cmd, check=True, capture_output=True, env=env), 7)
    print(f"\n`atif validate` on one small file: {best * 1000:.0f} ms wall (target < 300 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--harbor-python", help="Python 3.12 interpreter with harbor installed")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--sweep-runs", type=int, default=7, help="rounds per sweep size (>= 5)")
    parser.add_argument("--documents", type=int, default=2700, help="JSON Lines corpus size")
    parser.add_argument("--jsonl-runs", type=int, default=5, help="runs of each JSON Lines command")
    parser.add_argument("--small-files", type=int, default=20_000, help="folder size")
    parser.add_argument("--folder-runs", type=int, default=5, help="runs of each --jobs count")
    parser.add_argument(
        "--sections",
        default="sweep,single,jsonl,folder,startup",
        help="comma-separated sections to run (sweep, single, jsonl, folder, startup)",
    )
    args = parser.parse_args()
    WORK.mkdir(exist_ok=True)
    sections = {
        "sweep": size_sweep,
        "single": single_document,
        "jsonl": jsonl_throughput,
        "folder": folder_scaling,
        "startup": startup,
    }
    for name in args.sections.split(","):
        sections[name](args)
    print(json.dumps({"python": sys.version.split()[0]}))


if __name__ == "__main__":
    main()
