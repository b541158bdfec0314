"""Step-substep lens benchmark (run by `nox -s bench`; not a test).

Both directions of ATIF v1.7 <-> step-substep run log v1.0 on the bench corpus's trajectories, as
ratios to orjson.loads + orjson.dumps of the input and of the output in the same run (CPU time,
interleaved rounds; issue 30's speed goal: a lens conversion at most 5x either way).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).parent))
import corpus
import timing

import atif_spec
from atif_spec.jsonio import jsontext

SIZES = (5, 20, 100)
RUNS = 5
SSL = "step-substep@v1.0"


def main() -> None:
    print("\nstep-substep lens: ratios to orjson.loads + dumps of input and output (CPU time)")
    print(f"  {'document':<12} {'ATIF KB':>8} {'run log KB':>10}  {'ATIF -> run log':<18} back")
    for steps in SIZES:
        atif = orjson.dumps(corpus.trajectory(steps, output_lines=42, version="v1.7"))
        run_log = jsontext.dumps(atif_spec.convert(orjson.loads(atif), to=SSL)[0])
        back = jsontext.dumps(atif_spec.convert(orjson.loads(run_log), to="atif@v1.7")[0])
        run_log_doc, back_doc = orjson.loads(run_log), orjson.loads(back)
        fns = {
            "base_to": lambda a=atif, d=run_log_doc: (orjson.loads(a), orjson.dumps(d)),
            "to": lambda a=atif: jsontext.dumps(atif_spec.convert(orjson.loads(a), to=SSL)[0]),
            "base_back": lambda s=run_log, d=back_doc: (orjson.loads(s), orjson.dumps(d)),
            "back": lambda s=run_log: jsontext.dumps(
                atif_spec.convert(orjson.loads(s), to="atif@v1.7")[0]
            ),
        }
        times = timing.interleaved(fns, RUNS, timing.calls_for(fns["base_to"]), time.process_time)
        print(
            f"  {steps:>5} steps {len(atif) / 1e3:8.0f} {len(run_log) / 1e3:10.0f}"
            f"  {timing.spread(timing.ratios(times, 'to', 'base_to')):<18}"
            f" {timing.spread(timing.ratios(times, 'back', 'base_back'))}"
        )


if __name__ == "__main__":
    main()
