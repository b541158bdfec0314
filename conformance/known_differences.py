#!/usr/bin/env python3
"""Regenerate the case list of ``conformance/KNOWN-DIFFERENCES.md`` from a harbor report.

    python conformance/known_differences.py REPORT.jsonl          # rewrite the list
    python conformance/known_differences.py REPORT.jsonl --check  # exit 1 if it would change

Every failed or errored case of the report must belong to one of the groups below, each
explained in prose in KNOWN-DIFFERENCES.md; an unexplained case is an error (exit 1).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

DOC = Path(__file__).with_name("KNOWN-DIFFERENCES.md")
BEGIN = "<!-- BEGIN GENERATED: harbor-differences (python conformance/known_differences.py) -->"
END = "<!-- END GENERATED: harbor-differences -->"

GROUPS: list[tuple[str, str]] = [
    # (group anchor in KNOWN-DIFFERENCES.md, regex over the case name after the category)
    ("missing-schema-version", r"missing-schema-version(-forced-target)?"),
    ("declared-version-not-checked", r"schema-version-other-constant"),
    ("fields-of-later-versions", r"field-from-v1-\d+"),
    ("pre-v17-requirements-dropped", r"missing-session-id|ref-without-session-id"),
    ("v17-ref-rule-applied-to-old-versions", r"ref-session-id-only"),
    ("timestamp-syntax", r"timestamp-space-separator|timestamp-date-only"),
    ("embedded-subagent-versions", r"embedded-subagent-(newer-version|pre-v1-7)"),
    ("embedded-subagent-schema-version-defaulted", r"embedded-subagent-missing-schema-version"),
    ("empty-trajectory-id", r"trajectory-id-empty"),
    ("audio-media-type-alias", r"audio-media-type-alias"),
    ("schema-url-key", r"schema-url(-null)?"),
]


def group_of(case_id: str) -> str | None:
    name = case_id.split("-", 3)[3]
    for anchor, pattern in GROUPS:
        if re.fullmatch(pattern, name):
            return anchor
    return None


def render(lines: list[dict[str, Any]]) -> tuple[str, list[str]]:
    head = lines[0]
    impl = head["implementation"]["implementation"]
    total = lines[-1]
    cases = [x for x in lines if x["type"] == "case" and x["outcome"] in ("failed", "errored")]
    out = [
        BEGIN,
        f"Report of {impl['name']} {impl['version']} on atif-spec {head['suite']['version']}: "
        f"{total['passed']} passed, {total['failed']} failed, {total['errored']} errored, "
        f"{total['skipped']} skipped.",
        "",
        "| Case | Suite | Harbor | Group |",
        "|---|---|---|---|",
    ]
    unexplained = []
    for c in cases:
        group = group_of(c["id"])
        if group is None:
            unexplained.append(c["id"])
        suite = "invalid" if c["category"] == "invalid" else "valid"
        said = c["outcome"] if c["valid"] is None else ("valid" if c["valid"] else "invalid")
        out.append(f"| `{c['id']}` | {suite} | {said} | [{group}](#{group}) |")
    out.append(END)
    return "\n".join(out), unexplained


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    lines = [json.loads(x) for x in args.report.read_text(encoding="utf-8").splitlines() if x]
    block, unexplained = render(lines)
    text = DOC.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    new = text[:start] + block + text[end:]
    for case_id in unexplained:
        print(f"unexplained difference: {case_id}", file=sys.stderr)
    if args.check:
        if new != text:
            print(f"{DOC} is out of date: rerun without --check", file=sys.stderr)
            return 1
    else:
        DOC.write_text(new, encoding="utf-8")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
