"""What checking the schema definitions costs the generated Pydantic models.

The models check their input against their schema definition (the conditionals that field types
cannot express; ``atif_spec.bindings.models_base.StrictModel``). This times ``model_validate`` with that
check and without it (the check switched off in-process), interleaved, best of N rounds, on
synthetic v1.7 trajectories and a few conformance fixtures (CPU time of this process, which
other processes on a busy machine do not inflate).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from corpus import trajectory
from timing import best, calls_for, interleaved, ratios, spread

from atif_spec.bindings import models_io
from atif_spec.bindings.models_base import StrictModel

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = (
    "conformance/atif/v1.8/valid/rich.json",
    "conformance/atif/v1.8/valid/embedded-subagent-older-version.json",
    "conformance/atif/v1.7/valid/deterministic-dispatch.json",
    "conformance/atif/v1.7/valid/minimal.json",
)


def documents() -> dict[str, tuple[type[Any], Any]]:
    """``{name: (model class, document)}`` of every timed case."""
    cases: dict[str, tuple[type[Any], Any]] = {}
    for steps in (5, 100):
        doc = trajectory(steps - 2)
        cases[f"v1.7, {steps} steps ({len(json.dumps(doc)) // 1024} KB)"] = (
            models_io.model_class("atif", "v1.7"),
            doc,
        )
    for rel in FIXTURES:
        path = ROOT / rel
        if path.is_file():
            doc = models_io.parse(path)
            cases[rel] = (models_io.model_class("atif", path.parts[-3]), doc)
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    checked = StrictModel.__dict__["_check_schema"]
    print("model_validate with the schema-definition check vs without (best of rounds):")
    for name, (model, doc) in documents().items():
        model.model_validate(doc)  # compile the validator once, outside the timing

        def without(model: type[Any] = model, doc: Any = doc) -> None:
            StrictModel._check_schema = classmethod(lambda cls, data, m: None)  # type: ignore[method-assign,assignment]
            try:
                model.model_validate(doc)
            finally:
                StrictModel._check_schema = checked  # type: ignore[method-assign]

        def with_check(model: type[Any] = model, doc: Any = doc) -> None:
            model.model_validate(doc)

        fns: dict[str, Callable[[], object]] = {"without": without, "with": with_check}
        times = interleaved(fns, args.runs, calls_for(with_check), clock=time.process_time)
        fastest = best(times)
        print(
            f"  {name:<58} without {fastest['without'] * 1000:8.3f} ms   "
            f"with {fastest['with'] * 1000:8.3f} ms   "
            f"{fastest['with'] / fastest['without']:.2f}x  "
            f"(per round {spread(ratios(times, 'with', 'without'))})"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
