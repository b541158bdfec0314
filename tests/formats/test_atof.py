"""ATOF 0.1: the event schema against nat's models, detection, and a stream as one document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

import atif_spec
from atif_spec.cli import main
from atif_spec.datasets import runner
from atif_spec.formats import atof, detect
from atif_spec.formats.streams import sniff_stream
from atif_spec.validation.rules import REGISTRY
from tests.support import ROOT

SCHEMA_FILE = ROOT / "spec" / "atof" / "v0.1" / "event.schema.json"
SUITE = ROOT / "conformance" / "atof" / "v0.1"
AGENT = SUITE / "valid" / "tool-calling-agent.jsonl"


def _schema() -> dict[str, Any]:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _lines(events: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(e) + "\n" for e in events)


def test_schema_passes_metaschema() -> None:
    contents = _schema()
    Draft202012Validator.check_schema(contents)
    assert contents["$id"] == "https://atif-spec.org/schemas/atof/v0.1/event.schema.json"


FORBIDDEN_ON_MARK = {"scope_category", "attributes"}
"""Properties the mark definition lists only to refuse them (nat: ``_reject_scope_only_fields``)."""


@pytest.mark.parametrize(
    ("model", "definition"), [("ScopeEvent", "ScopeEvent"), ("MarkEvent", "MarkEvent")]
)
def test_schema_fields_are_nats_model_fields(model: str, definition: str) -> None:
    """Every field of ``nat.atof``'s model is a property of the definition and no other; the
    required ones are the model's fields without a default, and each default is the model's
    (``kind`` too: the union ``Event`` requires it, as nat's discriminator does)."""
    events = pytest.importorskip(
        "nat.atof.events", reason="nvidia-nat-atif is not installed (nox -s atof)"
    )
    fields = getattr(events, model).model_fields
    node = _schema()["$defs"][definition]
    properties = set(node["properties"]) - (FORBIDDEN_ON_MARK if model == "MarkEvent" else set())
    assert properties == set(fields)
    required = {name for name, f in fields.items() if f.is_required()}
    assert set(node["required"]) == required
    for name, f in fields.items():
        if name in required:
            continue
        default = f.get_default(call_default_factory=True)
        assert node["properties"][name].get("default") == default, name


def test_nat_accepts_every_valid_fixture_and_refuses_schema_invalid_events() -> None:
    """nat's own reader agrees with the schema on the suite: the valid and warning streams load;
    each event the schema refuses, nat's models refuse too."""
    io = pytest.importorskip("nat.atof.io", reason="nvidia-nat-atif is not installed (nox -s atof)")
    adapter = io._event_adapter
    for path in sorted(SUITE.glob("*/*.jsonl")):
        report = atif_spec.validate(path)
        refused = {
            int(f.pointer.split("/")[1]) for f in report.findings if f.code.startswith("schema:")
        }
        for index, event in enumerate(_events(path)):
            try:
                adapter.validate_python(event)
                accepted = True
            except ValueError:
                accepted = False
            assert accepted == (index not in refused), (path.name, index)


def test_a_list_of_events_is_atof_and_one_event_is_no_document() -> None:
    events = _events(AGENT)
    assert detect(events) == ("atof", "v0.1")
    assert detect(events[0]) is None
    assert detect([{"kind": "message", "legacy_event_id": "T1.1"}]) is None
    assert atof.detect([]) is None


def test_sniff_tells_an_atof_stream_even_with_a_broken_line() -> None:
    text = AGENT.read_bytes()
    assert sniff_stream(text) == "atof"
    lines = text.split(b"\n")
    lines[2] = lines[2][:40]
    assert sniff_stream(b"\n".join(lines)) == "atof"
    assert sniff_stream(b'{"kind": "message", "legacy_event_id": "T1.1"}\n') == "legacy"


def test_timestamps_compare_as_instants() -> None:
    assert atof.micros("1970-01-01T00:00:01Z") == 1_000_000
    assert atof.micros("1970-01-01T01:00:01+01:00") == 1_000_000
    assert atof.micros(5) == 5
    assert atof.micros(True) is None
    assert atof.micros("1970-01-01T00:00:01") is None


def _validate(path: Path, *args: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(main, ["validate", str(path), "--format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    return [json.loads(line) for line in result.output.splitlines()]


def test_a_stream_is_one_document_with_findings_at_lines(tmp_path: Path) -> None:
    events = _events(AGENT)
    events[4]["timestamp"] = "2026-01-01T00:00:02Z"  # the tool ends before it starts
    events[6]["category_profile"] = "gpt-4o"  # not an object
    path = tmp_path / "events.atof.jsonl"
    path.write_text(_lines(events), encoding="utf-8")
    (report,) = _validate(path)
    assert (report["format"], report["version"], report["line"]) == ("atof", "v0.1", None)
    found = {(e["code"], e["pointer"], e["line"]) for e in report["errors"]}
    assert found == {("ATOF104", "/4/timestamp", 5), ("schema:type", "/6/category_profile", 7)}
    text = path.read_text(encoding="utf-8").splitlines()[4]
    column = next(e["column"] for e in report["errors"] if e["code"] == "ATOF104")
    assert text[column - 1 :].startswith('"2026-01-01T00:00:02Z"')


def test_jobs_never_split_a_stream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With pieces of 1 KiB, a 100 KiB JSON Lines file of documents would go out in ranges;
    a stream goes out whole, and its repeated scopes are found across the whole file."""
    monkeypatch.setattr(runner, "PIECE_BYTES", 1024)
    events = _events(AGENT) * 40  # 320 lines, every scope repeated
    path = tmp_path / "long.jsonl"
    path.write_text(_lines(events), encoding="utf-8")
    assert len(list(runner.pieces([str(path)], None))) == 1
    for jobs in ("1", "2"):
        reports = _validate(path, "-j", jobs)
        assert len(reports) == 1
        assert {e["code"] for e in reports[0]["errors"]} == {"ATOF103"}


def test_a_broken_line_is_a_finding_at_its_line(tmp_path: Path) -> None:
    lines = AGENT.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3][:50]
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (report,) = _validate(path)
    assert [(e["code"], e["line"]) for e in report["errors"]] == [("input:invalid-json", 4)]
    assert report["format"] is None


def test_the_api_reads_a_stream_file_and_a_list_alike() -> None:
    by_path = atif_spec.validate(SUITE / "invalid" / "end-without-start.jsonl")
    by_list = atif_spec.validate(_events(SUITE / "invalid" / "end-without-start.jsonl"))
    assert [(f.code, f.pointer) for f in by_path.findings] == [("ATOF101", "/3/uuid")]
    assert [(f.code, f.pointer) for f in by_list.findings] == [("ATOF101", "/3/uuid")]
    assert by_path.findings[0].line == 4


def test_forcing_atof_on_an_object_says_it_is_no_stream() -> None:
    report = atif_spec.validate(_events(AGENT)[0], as_target="atof@v0.1")
    assert [f.code for f in report.findings] == ["input:not-a-stream"]


@pytest.mark.parametrize("rule", [r for r in REGISTRY if r.format == "atof"], ids=lambda r: r.code)
def test_every_rule_is_documented_and_has_a_fixture(rule: Any) -> None:
    for heading in ("What it checks", "Why", "Example", "Valid instead", "Spec"):
        assert f"*{heading}*" in rule.doc, heading
    manifest = json.loads((SUITE / "manifest.json").read_text(encoding="utf-8"))
    expected = {e["code"] for case in manifest["cases"] for e in case.get("expected", [])}
    assert rule.code in expected
