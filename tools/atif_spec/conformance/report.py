"""The conformance report: JSON Lines (``conformance-report.schema.json``) and readable text.

Pure functions from run results to report lines and strings; writing files and printing
belong to the CLI.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from atif_spec import __version__
from atif_spec.conformance.grading import (
    ERRORED,
    FAILED,
    INFORMATIONAL,
    OUTCOMES,
    PASSED,
    SKIPPED,
    CaseResult,
)
from atif_spec.conformance.protocol import PROTOCOL_VERSION
from atif_spec.conformance.runner import RunResult
from atif_spec.conformance.suite import PROFILES
from atif_spec.jsonio import jsontext
from atif_spec.jsonio.textsafety import escape


@dataclass(frozen=True, slots=True)
class SuiteInfo:
    """Where the fixtures came from."""

    root: str
    commit: str | None
    version: str = __version__


def header(
    run: RunResult, suite: SuiteInfo, started: str, only: Sequence[str], skip_file: str | None
) -> dict[str, Any]:
    """The first report line."""
    return {
        "type": "header",
        "protocol": run.capabilities.protocol if run.capabilities else PROTOCOL_VERSION,
        "runner": {"name": "atif-spec", "version": __version__},
        "suite": {
            "version": suite.version,
            "commit": suite.commit,
            "root": suite.root,
            "cases": len(run.results),
        },
        "implementation": run.capabilities.raw if run.capabilities else None,
        "command": run.command,
        "started": started,
        "filters": {"only": list(only), "skip_file": skip_file},
    }


def _summary(scope: str, name: str, outcomes: Iterable[str]) -> dict[str, Any]:
    counts = dict.fromkeys(OUTCOMES, 0)
    for outcome in outcomes:
        counts[outcome] += 1
    total = sum(counts.values())
    ran = total - counts[SKIPPED] - counts[INFORMATIONAL]
    if not counts[INFORMATIONAL]:
        del counts[INFORMATIONAL]  # protocol-1 report lines stay as they were
    return {
        "type": "summary",
        "scope": scope,
        "name": name,
        "total": total,
        **counts,
        "pass_rate": counts[PASSED] / ran if ran else None,
    }


def summaries(results: Sequence[CaseResult]) -> list[dict[str, Any]]:
    """Summary lines: per profile, per target (suite order), then the total."""
    lines = [
        _summary("profile", p, (r.outcome for r in results if p in r.case.profiles))
        for p in PROFILES
        if any(p in r.case.profiles for r in results)
    ]
    targets = list(dict.fromkeys(r.case.suite_target for r in results))
    lines += [
        _summary("target", t, (r.outcome for r in results if r.case.suite_target == t))
        for t in targets
    ]
    lines.append(_summary("total", "all", (r.outcome for r in results)))
    return lines


def report_lines(run: RunResult, head: dict[str, Any]) -> list[dict[str, Any]]:
    """Every line of the JSON Lines report, in order."""
    return [head, *(r.to_dict() for r in run.results), *summaries(run.results)]


def dumps_lines(lines: Iterable[dict[str, Any]]) -> str:
    """JSON Lines text."""
    return "".join(jsontext.dumps(line).decode() + "\n" for line in lines)


def failed(results: Sequence[CaseResult]) -> bool:
    """True when any case failed or errored (the run's exit status is then non-zero)."""
    return any(r.outcome in (FAILED, ERRORED) for r in results)


def _rate(summary: dict[str, Any]) -> str:
    rate = summary["pass_rate"]
    return "-" if rate is None else f"{100 * rate:.1f}%"


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def render_text(lines: Sequence[dict[str, Any]], verbose: bool = False, quiet: bool = False) -> str:
    """The readable summary of a report: who ran, per-target and per-profile counts, and every
    failed or errored case (none with ``quiet``; skipped ones too with ``verbose``)."""
    head = lines[0]
    cases = [line for line in lines if line["type"] == "case"]
    sums = [line for line in lines if line["type"] == "summary"]
    impl = head["implementation"]
    out = []
    if impl:
        i = impl["implementation"]
        out.append(
            f"implementation: {i['name']} {i['version']}"
            f" (profiles: {', '.join(impl['profiles'])};"
            f" findings: {'compared' if impl['findings'] else 'not reported'})"
        )
    else:
        out.append(f"implementation: did not start ({' '.join(head['command'])})")
    suite = head["suite"]
    commit = (suite["commit"] or "unknown commit")[:12]
    out.append(f"suite: atif-spec {suite['version']} @ {commit}, {suite['cases']} cases")
    shown = (FAILED, ERRORED, SKIPPED) if verbose else (FAILED, ERRORED)
    listed = [] if quiet else [c for c in cases if c["outcome"] in shown]
    if listed:
        out.append("")
    for c in listed:
        out.append(f"{c['outcome'].upper():<8} {c['id']}: {c['reason']}")
        out.extend(
            f"         missing    {f['code']} at {f['pointer'] or '(root)'}" for f in c["missing"]
        )
        out.extend(
            f"         unexpected {f['code']} at {f['pointer'] or '(root)'}"
            for f in c["unexpected"]
        )
        out.extend(f"         | {m}" for m in c["messages"][:5])
    rows = [["", "passed", "failed", "errored", "skipped", "pass rate"]]
    for s in sums:
        label = s["name"] if s["scope"] != "profile" else f"profile {s['name']}"
        if s["scope"] == "total":
            label = "total"
        rows.append(
            [
                label,
                str(s["passed"]),
                str(s["failed"]),
                str(s["errored"]),
                str(s["skipped"]),
                _rate(s),
            ]
        )
    out.append("")
    out.extend(_table(rows))
    total = sums[-1]
    bad = total["failed"] + total["errored"]
    verdict = "FAIL" if bad else "PASS"
    out.append("")
    counts = ", ".join(f"{total[k]} {k}" for k in ("passed", "failed", "errored", "skipped"))
    out.append(f"{verdict}: {counts} (skipped cases never count as passed)")
    return "\n".join(out)


def parse_report(text: str) -> list[dict[str, Any]]:
    """The lines of a JSON Lines report."""
    return [orjson.loads(line) for line in text.splitlines() if line.strip()]


def compare(reports: Sequence[Sequence[dict[str, Any]]]) -> str:
    """Per-target pass rates of several reports side by side (one column per implementation)."""
    names, by_report = [], []
    for lines in reports:
        impl = lines[0]["implementation"]
        names.append(
            escape(f"{impl['implementation']['name']} {impl['implementation']['version']}")
            if impl
            else "?"
        )
        by_report.append(
            {s["name"]: s for s in lines if s["type"] == "summary" and s["scope"] != "profile"}
        )
    targets = list(dict.fromkeys(t for sums in by_report for t in sums if t != "all"))
    rows = [["target", *names]]
    for t in [*targets, "all"]:
        cells = []
        for sums in by_report:
            s = sums.get(t)
            ran = 0 if s is None else s["total"] - s["skipped"]
            cells.append(
                "-" if s is None else f"{_rate(s)} ({s['passed']}/{ran}, {s['skipped']} skipped)"
            )
        rows.append(["total" if t == "all" else escape(t), *cells])
    return "\n".join(_table(rows))
