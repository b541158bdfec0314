"""One raw document transformed: the trajectory-sdk output cap (issue 36)."""

from __future__ import annotations

from typing import Any

import pytest

from atif_spec.jsonio import jsontext
from atif_spec.transforms import document
from atif_spec.transforms.document import MigrateOptions, migrate_raw
from atif_spec.transforms.lenses.trajectory_sdk import json_chunks
from atif_spec.validation.reader import RawDocument
from tests.support.otlp import gathered_from


def _conversation(turns: int) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    for i in range(turns):
        steps.append({"step_id": 2 * i + 1, "source": "user", "message": f"question {i} " * 8})
        steps.append({"step_id": 2 * i + 2, "source": "agent", "message": f"answer {i} " * 8})
    return {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "a", "version": "1"},
        "steps": steps,
    }


def _raw(doc: dict[str, Any]) -> RawDocument:
    return RawDocument("t.json", jsontext.dumps(doc), None, None)


def test_a_trajectory_sdk_output_over_the_cap_is_refused_before_it_is_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raw = _raw(_conversation(60))
    allowed = migrate_raw(raw, MigrateOptions("trajectory-sdk@v0.4", convert=True))
    size = sum(map(len, allowed.chunks()))
    assert size > 20 * len(raw.data)  # quadratic: 120 steps, each snapshot repeats the rest

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the output was checked (built whole) although it is refused")

    monkeypatch.setattr(document, "validate_document", never)
    refused = migrate_raw(
        raw, MigrateOptions("trajectory-sdk@v0.4", convert=True, max_bytes_out=size - 1)
    )
    assert not refused.writable
    (error,) = refused.report["errors"]
    assert error["code"] == "convert:output-too-large"
    assert f"would be {size} bytes, over --max-bytes-out {size - 1}" in error["message"]


def test_the_projected_size_is_the_written_size() -> None:
    raw = _raw(_conversation(30))
    outcome = migrate_raw(raw, MigrateOptions("trajectory-sdk@v0.4", convert=True))
    assert outcome.streamed is not None
    assert sum(map(len, json_chunks(outcome.streamed))) == len(b"".join(outcome.chunks()))


def test_a_large_output_under_the_cap_is_named_with_its_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(document, "LARGE_OUTPUT", 1000)
    outcome = migrate_raw(
        _raw(_conversation(60)), MigrateOptions("trajectory-sdk@v0.4", convert=True)
    )
    assert outcome.writable
    (warning,) = [w for w in outcome.report["warnings"] if w["code"] == "convert:large-output"]
    assert f"is {len(b''.join(outcome.chunks()))} bytes" in warning["message"]


@pytest.mark.parametrize("valid", [True, False], ids=["converted", "refused"])
def test_the_report_of_a_document_from_several_lines_names_them_in_a_warning(valid: bool) -> None:
    doc = _conversation(1) if valid else {"not": "a document"}
    raw = RawDocument("t.jsonl", jsontext.dumps(doc), 2, None, lines=(2, 5, 9))
    report = migrate_raw(raw, MigrateOptions("atif@v1.8", convert=True)).report
    assert report["ok"] is valid and report["line"] == 2
    assert report["warnings"][0]["code"] == "convert:otel-trace-lines"
    assert gathered_from(report) == [2, 5, 9]
    one = migrate_raw(raw._replace(lines=None), MigrateOptions("atif@v1.8", convert=True))
    assert gathered_from(one.report) is None
