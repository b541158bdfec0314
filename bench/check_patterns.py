"""Every pattern of spec/ means the same and stays fast in three regex dialects (a check with a
time bound, run by `nox -s consumers` and `nox -s bench`; exit status 1 on a failure).

Dialects: Python ``re`` (python-jsonschema, check-jsonschema), ECMA-262 (Ajv, VS Code; Node's
``RegExp`` with the ``u`` flag) and Rust (jsonschema-rs, our validator). Inputs
(``tests/support/pattern_inputs.py``): matching examples with line breaks around them, and worst-case
inputs for backtracking engines (tens of thousands of characters). Each dialect runs in its own
process with a timeout, so a catastrophic pattern fails the check instead of hanging it. Fails
when two dialects disagree on an input, when one input takes longer than ``--bound`` seconds in
any dialect, or when a dialect's process times out.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.support.pattern_inputs import (  # noqa: E402
    Input,
    PatternNode,
    dialect_cases,
    expand,
    pattern_nodes,
    worst_cases,
)

DIALECTS = ("python", "ecma", "rust")


def inputs_of(node: PatternNode) -> list[Input]:
    """The dialect cases and the worst cases of a node."""
    return [(t, "", 0, "") for t in dialect_cases(node.pattern)] + worst_cases(node.pattern)


def _time_each(check: Any, inputs: list[Input]) -> dict[str, Any]:
    verdicts, worst, total = [], 0.0, 0.0
    for item in inputs:
        text = expand(item)
        start = time.perf_counter()
        verdicts.append(bool(check(text)))
        spent = time.perf_counter() - start
        worst, total = max(worst, spent), total + spent
    return {"verdicts": verdicts, "max_seconds": worst, "total_seconds": total}


def worker(dialect: str, request: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Verdicts and timings of one in-process dialect (python or rust)."""
    out = []
    for item in request:
        node = PatternNode(item["pattern"], item["guard"], ())
        inputs = [tuple(i) for i in item["inputs"]]
        if dialect == "python":
            check = node.python_accepts
        else:
            import jsonschema_rs

            check = jsonschema_rs.validator_for(node.schema).is_valid
            re.compile(node.pattern)  # the same pattern is valid Python too
        out.append(_time_each(check, inputs))  # type: ignore[arg-type]
    return out


def run_dialect(dialect: str, request: list[dict[str, Any]], timeout: float) -> Any:
    """Run one dialect in a child process; its answer, or an error string."""
    if dialect == "ecma":
        cmd = ["node", str(ROOT / "tests" / "consumers" / "regex.mjs")]
    else:
        cmd = [sys.executable, __file__, "--worker", dialect]
    try:
        done = subprocess.run(
            cmd,
            input=json.dumps(request),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:.0f} s"
    if done.returncode != 0:
        return f"exit {done.returncode}: {done.stderr.strip()[-500:]}"
    return json.loads(done.stdout)


def check(bound: float, timeout: float) -> int:
    """Run every dialect over every node; print a table; the number of problems."""
    nodes = pattern_nodes()
    request = [{"pattern": n.pattern, "guard": n.guard, "inputs": inputs_of(n)} for n in nodes]
    answers = {d: run_dialect(d, request, timeout) for d in DIALECTS}
    problems = [f"{d}: {a}" for d, a in answers.items() if isinstance(a, str)]
    if problems:
        print("\n".join(problems))
        return len(problems)
    print(f"{'pattern':58} {'inputs':>6} " + " ".join(f"{d + ' ms':>10}" for d in DIALECTS))
    for i, (node, item) in enumerate(zip(nodes, request, strict=True)):
        results = {d: answers[d][i] for d in DIALECTS}
        worst = {d: r["max_seconds"] for d, r in results.items()}
        label = node.pattern if len(node.pattern) <= 56 else node.pattern[:55] + "…"
        print(
            f"{label:58} {len(item['inputs']):>6} "
            + " ".join(f"{worst[d] * 1000:>10.2f}" for d in DIALECTS)
        )
        for d, seconds in worst.items():
            if seconds > bound:
                problems.append(f"{node.pattern!r}: {d} took {seconds:.3f} s on one input")
        for k, inp in enumerate(item["inputs"]):
            said = {d: results[d]["verdicts"][k] for d in DIALECTS}
            if len(set(said.values())) > 1:
                text = expand(inp)
                shown = text if len(text) < 60 else text[:30] + "…" + text[-20:]
                problems.append(f"{node.pattern!r} on {shown!r}: {said}")
    total = sum(len(r["inputs"]) for r in request)
    print(f"{len(nodes)} pattern nodes, {total} inputs, 3 dialects; bound {bound} s per input")
    print("\n".join(problems) if problems else "patterns OK: every dialect agrees on every input")
    return len(problems)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bound", type=float, default=0.25, help="seconds per input")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per dialect")
    parser.add_argument("--worker", choices=("python", "rust"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        json.dump(worker(args.worker, json.load(sys.stdin)), sys.stdout)
        return 0
    start = time.perf_counter()
    failed = check(args.bound, args.timeout)
    print(f"wall time {time.perf_counter() - start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
