#!/usr/bin/env python3
"""Regenerate ``conformance/KNOWN-DIFFERENCES.md`` (groups and cases) from a harbor report.

    python conformance/known_differences.py REPORT.jsonl          # rewrite the generated region
    python conformance/known_differences.py REPORT.jsonl --check  # exit 1 if it would change

The groups are the ones of ``conformance/known-differences/harbor.toml`` that hold for the
report's harbor release (``harbor-<version>`` in ``peers``, or no ``peers``), the single source
the interop report (``nox -s interop``) uses too (format: ``atif_spec.conformance.differences``).
Every failed or errored case of the report must match a group's patterns (an unexplained case
is an error, exit 1), and every group with suite-case patterns must explain at least one case
(a stale group is an error); groups about documents atif-spec writes or producers' outputs
(``written:``/``produce:``/``lens:`` patterns only) are the interop report's to check.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from atif_spec.conformance import differences
from atif_spec.jsonio.atomic import write_atomic

ROOT = Path(__file__).resolve().parents[1]
DOC = Path(__file__).with_name("KNOWN-DIFFERENCES.md")
GROUPS = Path(__file__).with_name("known-differences") / "harbor.toml"
BEGIN = "<!-- BEGIN GENERATED: harbor-differences (python conformance/known_differences.py) -->"
END = "<!-- END GENERATED: harbor-differences -->"
INTEROP_ONLY = ("written:", "produce:", "lens:")


def suite_groups(groups: list[differences.Group]) -> list[differences.Group]:
    """The groups with at least one pattern over suite case ids."""
    return [g for g in groups if any(not p.startswith(INTEROP_ONLY) for p in g.patterns)]


def render(lines: list[dict[str, Any]], groups: list[differences.Group]) -> tuple[str, list[str]]:
    """The generated region, and the problems (unexplained cases, stale groups)."""
    head = lines[0]
    impl = head["implementation"]["implementation"]
    total = lines[-1]
    cases = [x for x in lines if x["type"] == "case" and x["outcome"] in ("failed", "errored")]
    by_case, unexplained, stale = differences.explain(groups, [c["id"] for c in cases])
    out = [
        BEGIN,
        f"Report of {impl['name']} {impl['version']} on atif-spec {head['suite']['version']}: "
        f"{total['passed']} passed, {total['failed']} failed, {total['errored']} errored, "
        f"{total['skipped']} skipped. Groups: [known-differences/harbor.toml]"
        "(known-differences/harbor.toml).",
        "",
    ]
    for g in groups:
        n = sum(1 for group in by_case.values() if group == g.name)
        patterns = "`, `".join(p for p in g.patterns if not p.startswith(INTEROP_ONLY))
        out += [
            f"### `{g.name}`",
            "",
            f"*Cases:* {n} (`{patterns}`)."
            f" *Side:* {g.side}. *Decided by:* {g.rfc}. *Fixture:* `{g.fixture}`."
            + (f" *Harbor source:* `{g.source}`." if g.source else ""),
            "",
            g.explanation,
            "",
        ]
    out += ["## Every differing case", "", "| Case | Suite | Harbor | Group |", "|---|---|---|---|"]
    for c in cases:
        group = by_case.get(c["id"])
        suite = "invalid" if c["category"] == "invalid" else "valid"
        said = c["outcome"] if c["valid"] is None else ("valid" if c["valid"] else "invalid")
        out.append(f"| `{c['id']}` | {suite} | {said} | [{group}](#{group}) |")
    out.append(END)
    problems = [f"unexplained difference: {case_id}" for case_id in unexplained]
    problems += [f"stale group (explains no case): {name}" for name in stale]
    return "\n".join(out), problems


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    lines = [json.loads(x) for x in args.report.read_text(encoding="utf-8").splitlines() if x]
    impl = lines[0]["implementation"]["implementation"]
    peer = f"{impl['name']}-{impl['version']}"  # the interop peer of that release (peers.toml)
    block, problems = render(lines, suite_groups(differences.load(GROUPS, ROOT, peer=peer)))
    text = DOC.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    new = text[:start] + block + text[end:]
    for problem in problems:
        print(problem, file=sys.stderr)
    if args.check:
        if new != text:
            print(f"{DOC} is out of date: rerun without --check", file=sys.stderr)
            return 1
    else:
        write_atomic(DOC, new.encode("utf-8"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
