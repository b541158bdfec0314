"""Conversion benchmark: every lens direction (run by `nox -s bench`; not a test).

Prints, for bench-corpus v1.7 trajectories of several sizes, the CPU time of `atif_spec.convert`
in each direction through ATIF as a ratio to `orjson.loads` of the input plus `orjson.dumps` of
the output (parse + dump), median (min-max) of interleaved rounds. Issue 30's goal: a lens conversion <= 5x either way.
The first row of each size is the floor of a Python mapping: one walk that rebuilds every object
and array of the ATIF document and does nothing else (the driver runs at least three: forward,
backward and the diff).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).parent))
import corpus
import timing

import atif_spec
from atif_spec.jsonio import jsontext
from atif_spec.jsonio.jsonequal import same_json
from atif_spec.transforms.stash import detach, holder

FORMATS = ("tao@v0.2.0", "step-substep@v1.0", "trajectory-sdk@v0.4")
SIZES = (5, 100, 600)


def dumps(doc: Any) -> bytes:
    return jsontext.dumps(doc)


def directions(steps: int) -> list[tuple[str, bytes, str]]:
    """(name, input bytes, target) for each direction at one size; round trips checked."""
    atif = corpus.trajectory(steps, output_lines=8, version="v1.7")
    rows = []
    for target in FORMATS:
        other, _ = atif_spec.convert(atif, to=target)
        back, _ = atif_spec.convert(other, to="atif@v1.7")
        assert same_json(back, atif), f"atif -> {target} -> atif is not exact"
        rows.append((f"atif@v1.7 -> {target}", dumps(atif), target))
        native, _ = detach(other, holder(target))  # as a native producer wrote it: no stash
        rows.append((f"{target} -> atif@v1.7", dumps(native), "atif@v1.7"))
    return rows


def rebuilt(value: Any) -> Any:
    """``value`` with every object and array rebuilt (one Python walk)."""
    if type(value) is dict:
        return {key: rebuilt(item) for key, item in value.items()}
    if type(value) is list:
        return [rebuilt(item) for item in value]
    return value


def walk_floor(steps: int, runs: int) -> str:
    """One rebuilding walk of the ATIF document as a ratio to its parse + dump."""
    data = dumps(corpus.trajectory(steps, output_lines=8, version="v1.7"))
    doc = orjson.loads(data)
    fns: dict[str, Callable[[], object]] = {
        "base": lambda: orjson.dumps(orjson.loads(data)),
        "walk": lambda: rebuilt(doc),
    }
    times = timing.interleaved(fns, runs, timing.calls_for(fns["walk"]), time.process_time)
    return timing.spread(timing.ratios(times, "walk", "base"))


def measure(data: bytes, target: str, runs: int) -> str:
    out = atif_spec.convert(orjson.loads(data), to=target)[0]
    fns: dict[str, Callable[[], object]] = {
        "base": lambda: (orjson.loads(data), orjson.dumps(out)),
        "convert": lambda: dumps(atif_spec.convert(orjson.loads(data), to=target)[0]),
    }
    times = timing.interleaved(fns, runs, timing.calls_for(fns["convert"]), time.process_time)
    return timing.spread(timing.ratios(times, "convert", "base"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES, help="agent steps")
    args = parser.parse_args()
    print(
        "\nConversions: bench-corpus v1.7 trajectories; CPU time of convert as a ratio to parse of"
        f" the input + dump of the output, median (min-max) of {args.runs} interleaved rounds"
    )
    for steps in args.sizes:
        floor = walk_floor(steps, args.runs)
        print(f"  {steps:>4} steps {'':>9}  {'one Python walk (the floor)':<40} {floor}")
        for name, data, target in directions(steps):
            ratio = measure(data, target, args.runs)
            print(f"  {steps:>4} steps {len(data) / 1e3:7.0f}KB  {name:<40} {ratio}")


if __name__ == "__main__":
    main()
