"""Findings placed in the file (line and column) and in document order:
``validation.locations`` through ``validate_raw``."""

from __future__ import annotations

from typing import Any

from atif_spec.validation.findings import Finding, Level, Report
from atif_spec.validation.locations import place
from atif_spec.validation.pipeline import validate_raw
from atif_spec.validation.reader import RawDocument

# Two errors in step 2 and one at the agent, written after the steps: document order is not
# the order the checks find them in (schema findings, then rules), nor errors before warnings.
_TEXT = """{"schema_version": "ATIF-v1.7",
 "steps": [{"step_id": 1, "source": "user", "message": "hi"},
   {"step_id": 3, "source": "bogus", "message": "é"}],
 "agent": {"name": "a"}}
"""


def _places(report: Report) -> list[tuple[str, str, int | None, int | None]]:
    return [(f.code, f.pointer, f.line, f.column) for f in report.findings]


def test_findings_of_a_file_have_line_and_column_in_document_order() -> None:
    report = validate_raw(RawDocument("t.json", _TEXT.encode()))
    assert _places(report) == [
        ("ATIF102", "", 1, 1),  # about the whole document: its first character
        ("ATIF101", "/steps/1/step_id", 3, 16),
        ("schema:enum", "/steps/1/source", 3, 29),
        ("schema:required", "/agent/version", 4, 11),  # missing: where its object starts
    ]
    as_dict = report.to_dict()
    assert [f["line"] for f in as_dict["errors"]] == [3, 3, 4]
    assert as_dict["warnings"][0] | {"message": ""} == {
        "code": "ATIF102",
        "name": "missing-root-session-id",
        "level": "warning",
        "pointer": "",
        "message": "",
        "line": 1,
        "column": 1,
    }


def test_a_json_lines_records_findings_carry_the_files_line() -> None:
    text = "  " + _TEXT.replace("\n", " ")
    report = validate_raw(RawDocument("t.jsonl", text.encode(), 7))
    assert {f.line for f in report.findings} == {7}
    starts = ["{", '3, "source"', '"bogus"', '{"name"']  # columns count code points (é)
    assert [f.column for f in report.findings] == [text.index(s) + 1 for s in starts]


def test_a_parquet_rows_findings_are_ordered_but_have_no_place() -> None:
    report = validate_raw(RawDocument("data/t.parquet", _TEXT.encode(), 4))
    assert report.line == 4
    assert [(f.line, f.column) for f in report.findings] == [(None, None)] * 4
    assert [f.code for f in report.findings] == [
        "ATIF102",
        "ATIF101",
        "schema:enum",
        "schema:required",
    ]


def test_text_that_is_not_json_is_placed_where_the_parser_stopped() -> None:
    bad = validate_raw(RawDocument("t.json", '{"é": [1,\n  2,,]}'.encode()))
    assert _places(bad) == [("input:invalid-json", "", 2, 5)]
    utf8 = validate_raw(RawDocument("t.json", b'{"a":\n "\xc3\xa9\xff"}'))
    assert _places(utf8) == [("input:invalid-utf8", "", 2, 4)]
    record = validate_raw(RawDocument("t.jsonl", b'{"a": ]}\n', 12))
    assert _places(record) == [("input:invalid-json", "", 12, 7)]
    # the parser's own place counts within the record: not in the message
    assert (
        record.findings[0].message == "not valid JSON: unexpected character, expected a JSON value"
    )


def test_a_byte_order_mark_is_not_a_column() -> None:
    report = validate_raw(RawDocument("t.json", b"\xef\xbb\xbf" + _TEXT.encode()))
    assert _places(report)[:2] == [("input:byte-order-mark", "", 1, 1), ("ATIF102", "", 1, 1)]


def test_a_valid_document_and_a_document_without_text_are_left_alone() -> None:
    finding = Finding("input:too-large", "too-large", Level.ERROR, "", "big")
    report = Report("t.json", findings=[finding])
    assert place(report, RawDocument("t.json", b"", oversize=10)).findings == [finding]
    valid = Report("t.json")
    assert place(valid, RawDocument("t.json", b"{}")) is valid
    assert valid.findings == []


def test_findings_at_one_place_and_findings_without_a_place_keep_their_order() -> None:
    def finding(code: str, ptr: str, line: int | None = None) -> Finding:
        return Finding(code, "x", Level.ERROR, ptr, "", line, None if line is None else 1)

    findings = [finding("B", "/a"), finding("A", "/a"), finding("C", "/b", 1)]
    report = place(Report("t.json", findings=findings), RawDocument("t.json", b'{\n"a": 1}'))
    places: list[Any] = [(f.code, f.line) for f in report.findings]
    assert places == [("C", 1), ("B", 2), ("A", 2)]
