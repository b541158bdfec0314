"""Where each finding is in the file: the line and column of its pointer's value, and the
findings of a document in the order they occur in it (RFC.md §4.2).

Computed only for a document that has findings, over its bytes already in memory
(:func:`atif_spec.jsonio.locate.value_offsets`): a valid document costs nothing. A finding that
already has a place (where the parser stopped) keeps it. The line of a JSON Lines record's
finding is the file's line; a Parquet row's findings are ordered the same way but get no line
or column (the report's ``line`` is the row; the JSON text of a cell is no place an editor
shows).
"""

from __future__ import annotations

from dataclasses import replace

from atif_spec.jsonio.locate import line_columns, value_offsets
from atif_spec.jsonio.pointers import parse_pointer
from atif_spec.validation.findings import Finding, Report
from atif_spec.validation.reader import RawDocument, event_lines, is_parquet


def _order(finding: Finding) -> tuple[int, int]:
    """Document order; a finding with no place comes first (it is about the whole input)."""
    return (finding.line or 0, finding.column or 0)


def place(report: Report, raw: RawDocument) -> Report:
    """``report`` with each finding's ``line`` and ``column`` in ``raw`` set, where they can be
    known, and its findings sorted into document order (stable: findings at the same place,
    and findings with no place, keep their order)."""
    if not report.findings or not raw.data:
        return report
    if raw.stream is not None:
        report.findings = sorted(_in_stream(report.findings, raw.data), key=_order)
        return report
    unplaced = {f.pointer for f in report.findings if f.line is None}
    offsets = value_offsets(raw.data, unplaced) if unplaced else {}
    at = line_columns(raw.data, offsets.values())
    findings = [
        replace(f, line=at[offsets[f.pointer]][0], column=at[offsets[f.pointer]][1])
        if f.line is None and f.pointer in offsets
        else f
        for f in report.findings
    ]
    findings.sort(key=_order)
    if is_parquet(raw.source):
        findings = [replace(f, line=None, column=None) for f in findings]
    elif raw.line is not None and raw.line > 1:  # a JSON Lines record: the file's line
        shift = raw.line - 1
        findings = [f if f.line is None else replace(f, line=f.line + shift) for f in findings]
    report.findings = findings
    return report


def _in_stream(findings: list[Finding], data: bytes) -> list[Finding]:
    """Findings of an event stream placed in its file: ``/i/...`` is on the ``i``-th non-blank
    line, at the column of the value within it; a finding about the whole stream keeps no place."""
    lines = event_lines(data)
    placed: list[Finding] = []
    for f in findings:
        parts = parse_pointer(f.pointer) if f.line is None and f.pointer else []
        if not parts or not parts[0].isdigit() or int(parts[0]) >= len(lines):
            placed.append(f)
            continue
        number, text = lines[int(parts[0])]
        rest = f.pointer[len(parts[0]) + 1 :]
        offsets = value_offsets(text, {rest})
        column = line_columns(text, offsets.values())[offsets[rest]][1] if rest in offsets else 1
        placed.append(replace(f, line=number, column=column))
    return placed
