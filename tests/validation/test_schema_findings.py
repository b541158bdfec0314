"""Schema findings of values nested too deeply for the schema engine (issue #36).

jsonschema-rs checks any depth, but cannot describe a value it refuses that is nested more than
255 levels deep (``ValueError: Recursion limit reached`` from ``iter_errors``):
``schema_findings.findings_of`` turns that into ``input:too-deep`` at the value's pointer. The
property test at the end feeds such values to every command that reads documents.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path
from typing import Any

import jsonschema_rs
import orjson
import pytest
from click.testing import CliRunner, Result

from atif_spec import validate
from atif_spec.cli import main
from atif_spec.jsonio.jsontext import dumps
from atif_spec.schemas.catalog import load_catalog
from atif_spec.schemas.compiled import rs_validator
from atif_spec.validation.schema_findings import CUT_DEPTH, findings_of
from tests.support import ROOT
from tests.support.documents import minimal_atif
from tests.support.schema_places import field_places, plantings


def deep(levels: int, kind: str = "array") -> Any:
    """A value ``levels`` containers deep (arrays, or objects of one member)."""
    value: Any = [] if kind == "array" else {}
    for _ in range(levels - 1):
        value = [value] if kind == "array" else {"a": value}
    return value


def fixture(path: str) -> Any:
    return orjson.loads((ROOT / "conformance" / path).read_bytes())


def _atif(where: str, value: Any) -> tuple[Any, str]:
    doc = minimal_atif("v1.7")
    step = doc["steps"][0]
    if where == "session_id":
        doc["session_id"] = value
        return doc, "/session_id"
    if where == "message":
        step["message"] = value
        return doc, "/steps/0/message"
    if where == "content":
        step["observation"] = {"results": [{"content": value}]}
        return doc, "/steps/0/observation/results/0/content"
    doc["steps"].append(value)
    return doc, "/steps/1"


def _tao(value: Any) -> tuple[Any, str]:
    doc = fixture("tao/v0.2.0/valid/minimal.json")
    doc["session_id"] = value
    return doc, "/session_id"


def _run_log(value: Any) -> tuple[Any, str]:
    doc = fixture("step-substep/v1.0/valid/tool-lifecycle.json")
    doc["steps"][0]["substeps"][0]["text"] = value
    return doc, "/steps/0/substeps/0/text"


PLACES = {
    "atif session_id": lambda v: _atif("session_id", v),
    "atif step message": lambda v: _atif("message", v),
    "atif observation content": lambda v: _atif("content", v),
    "atif steps item": lambda v: _atif("step", v),
    "tao session_id": _tao,
    "step-substep substep text": _run_log,
}


@pytest.mark.parametrize("kind", ["array", "object"])
@pytest.mark.parametrize("place", sorted(PLACES))
def test_deep_value_at_a_refused_place_is_input_too_deep(place: str, kind: str) -> None:
    """Was: ``ValueError: Recursion limit reached`` from the schema engine."""
    doc, ptr = PLACES[place](deep(300, kind))
    report = validate(doc)
    assert report.format is not None and report.version is not None
    entry = load_catalog().find(f"{report.format}@{report.version}")
    with pytest.raises(ValueError, match="Recursion limit reached"):
        rs_validator(entry.id).iter_errors(doc)  # what findings_of works around
    deep_ones = [f for f in report.findings if f.code == "input:too-deep"]
    assert deep_ones, report.findings
    assert all(f.pointer == ptr or f.pointer.startswith(ptr + "/") for f in deep_ones)
    assert all(f"over {CUT_DEPTH} levels" in f.message for f in deep_ones)


def test_too_deep_finding_quotes_the_schema() -> None:
    doc, _ = _atif("session_id", deep(300))
    [finding] = validate(doc).findings
    assert (finding.code, finding.pointer) == ("input:too-deep", "/session_id")
    assert finding.message.endswith("expected string or null, got array")


def test_deep_nesting_the_schema_accepts_stays_valid() -> None:
    doc = minimal_atif("v1.7")
    doc["extra"] = {"deep": deep(400), "deeper": deep(400, "object")}
    assert validate(doc).valid
    del doc["agent"]  # now the root, which holds the deep values, is refused
    assert [(f.code, f.pointer) for f in validate(doc).findings] == [("schema:required", "/agent")]


def test_findings_of_a_document_built_in_python_come_in_document_order() -> None:
    """The engine reports an object's unknown keys after its fields, in an order that changes
    between its releases; a document with no text to place findings by keeps its own order (a
    missing member after the object's own, ties by pointer and code)."""
    doc = {
        "steps": [{"zzz": 1, "step_id": "a", "source": "agent", "message": 5}],
        "bogus": 1,
        "agent": {"version": "1"},
        "session_id": 3,
        "schema_version": "ATIF-v1.7",
    }
    assert [(f.pointer, f.code) for f in validate(doc).findings] == [
        ("/steps/0/zzz", "schema:additionalProperties"),
        ("/steps/0/step_id", "schema:type"),
        ("/steps/0/message", "schema:type"),
        ("/bogus", "schema:additionalProperties"),
        ("/agent/name", "schema:required"),
        ("/session_id", "schema:type"),
    ]


def test_a_refused_value_below_the_cut_is_reported_at_the_base() -> None:
    """When the cut copy shows nothing, the whole instance is named."""
    arrays = {
        "$defs": {"a": {"type": "array", "items": {"$ref": "#/$defs/a"}}},
        "$ref": "#/$defs/a",
    }
    validator = jsonschema_rs.validator_for(arrays)
    instance = deep(CUT_DEPTH + 10)
    node = instance
    for _ in range(CUT_DEPTH + 8):
        node = node[0]
    node.append(deep(300, "object"))  # refused (not an array), far below the cut
    assert not validator.is_valid(instance)
    [finding] = findings_of(validator, instance, "/base")
    assert (finding.code, finding.pointer) == ("input:too-deep", "/base")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_deep_record_in_json_lines_does_not_stop_the_run(tmp_path: Path, jobs: str) -> None:
    """Was: one such record aborted the whole run, with or without ``--jobs 2``."""
    bad, _ = _atif("session_id", deep(300))
    good = dumps(minimal_atif("v1.7"))
    data = tmp_path / "runs.jsonl"
    data.write_bytes(b"\n".join([good, dumps(bad), good]) + b"\n")
    result = CliRunner().invoke(main, ["validate", "--format", "json", "--jobs", jobs, str(data)])
    assert result.exit_code == 1, result.output
    reports = [orjson.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert [r["valid"] for r in reports] == [True, False, True]
    assert [(e["code"], e["pointer"]) for e in reports[1]["errors"]] == [
        ("input:too-deep", "/session_id")
    ]


# --- property test: deep nesting at every refused place, through every command ---------------

DEPTHS = (200, 400)
"""Nesting depths of the planted values (inclusive), drawn per document."""


def _seeds(fmt: str, version: str, schema_id: str) -> list[Any]:
    """The format's valid and warning fixtures the schema accepts (those under 100 kB)."""
    validator = rs_validator(schema_id)
    found = []
    for category in ("valid", "warning"):
        for path in sorted((ROOT / "conformance" / fmt / version / category).glob("*.json")):
            if path.stat().st_size < 100_000:
                doc = orjson.loads(path.read_bytes())
                if validator.is_valid(doc):
                    found.append(doc)
    return found


def _targets() -> list[tuple[str, str, str]]:
    """``(format, version, schema $id)`` of each document schema that has seed fixtures."""
    entries = [e for e in load_catalog() if e.kind == "document"]
    return [(e.format, e.version, e.id) for e in entries if _seeds(e.format, e.version, e.id)]


@functools.cache
def refused_places(fmt: str, version: str, schema_id: str) -> list[tuple[str, str, bytes]]:
    """``(pointer, pointer of the seed value kept above it, JSON text)``: for each path the schema names (:func:`field_places`) and each
    kind of container, a seed with a value 200 to 400 levels deep there that the schema refuses
    (the first planting refused; paths where every planting is accepted are left out)."""
    seeds = _seeds(fmt, version, schema_id)
    validator = rs_validator(schema_id)
    draw = random.Random(schema_id)
    out = []
    for path in field_places(schema_id):
        for kind in ("array", "object"):
            value = deep(draw.randint(*DEPTHS), kind)
            for doc, ptr, kept in plantings(seeds, path, value):
                if not validator.is_valid(doc):
                    out.append((ptr, kept, dumps(doc)))
                    break
    return out


TARGETS = _targets()


def _related(finding: dict[str, Any], ptr: str, kept: str) -> bool:
    """Whether a finding is about the value at ``ptr`` or what holds it, or inside the seed
    value ``kept`` above it: a member beside it (a conditional such as ``source`` deciding which
    members may be set) or one missing from the objects made to hold it."""
    at: str = finding["pointer"]
    return at.startswith(kept + "/") or ptr.startswith(at + "/")


def _check_validate(result: Result, places: list[tuple[str, str, bytes]], _: Path) -> None:
    assert result.exit_code == 1
    reports = [orjson.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert len(reports) == len(places)
    for report, (ptr, kept, _text) in zip(reports, places, strict=True):
        assert not report["valid"], ptr
        assert any(_related(e, ptr, kept) for e in report["errors"]), (ptr, report["errors"])
    assert any(e["code"] == "input:too-deep" for r in reports for e in r["errors"])


def _check_transform(result: Result, places: list[tuple[str, str, bytes]], _: Path) -> None:
    assert result.exit_code in (0, 1)
    assert f" of {len(places)} document" in result.output


def _check_stats(result: Result, places: list[tuple[str, str, bytes]], _: Path) -> None:
    assert result.exit_code == 0
    total = orjson.loads(result.output)["total"]
    assert (total["documents"], total["invalid"]) == (len(places), len(places))


def _check_view(result: Result, places: list[tuple[str, str, bytes]], out: Path) -> None:
    assert result.exit_code == 0
    assert (out / "page.html").read_bytes().startswith(b"<!DOCTYPE html>")


def _check_sft(result: Result, places: list[tuple[str, str, bytes]], _: Path) -> None:
    assert result.exit_code in (0, 1)
    assert f" of {len(places)} document" in result.output


COMMANDS = {
    "validate": (lambda f, fmt, version, out: ["validate", "--format", "json", f], _check_validate),
    "validate --jobs 2": (
        lambda f, fmt, version, out: ["validate", "--format", "json", "--jobs", "2", f],
        _check_validate,
    ),
    "migrate": (
        lambda f, fmt, version, out: [
            "migrate",
            f,
            "--to",
            "v1.0" if version != "v1.0" else "v1.8",
            "-o",
            f"{out}/migrated.jsonl",
        ],
        _check_transform,
    ),
    "convert": (
        lambda f, fmt, version, out: [
            "convert",
            f,
            "--to",
            "tao@v0.2.0" if fmt == "atif" else "atif@v1.8",
            "-o",
            f"{out}/converted.jsonl",
        ],
        _check_transform,
    ),
    "stats": (lambda f, fmt, version, out: ["stats", "--format", "json", f], _check_stats),
    "view": (lambda f, fmt, version, out: ["view", f, "-o", f"{out}/page.html"], _check_view),
    "export-sft": (
        lambda f, fmt, version, out: ["export-sft", f, "-o", f"{out}/sft.jsonl"],
        _check_sft,
    ),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("target", TARGETS, ids=[f"{fmt}@{v}" for fmt, v, _ in TARGETS])
def test_deep_nesting_at_every_refused_place_through_every_command(
    target: tuple[str, str, str], command: str, tmp_path: Path
) -> None:
    """Every place a document schema names (read from the schema by ``field_places``: 44 to
    158 paths per schema), planted with an array and with an object nested 200 to 400 levels
    deep (drawn per document, seeded), each kept where the schema refuses it: 1 824 documents
    over the 13 document schemas that have fixtures (the legacy turn event, a line of a stream,
    has none), one JSON Lines file per schema, fed to validate (also with ``--jobs 2``),
    migrate, convert, stats, view and export-sft: 91 runs, no traceback, each with its
    documented exit status. About 20 s in all."""
    places = refused_places(*target)
    assert len(places) > 40
    data = tmp_path / "deep.jsonl"
    data.write_bytes(b"\n".join(text for _, _, text in places) + b"\n")
    build, check = COMMANDS[command]
    fmt, version, _ = target
    result = CliRunner().invoke(main, build(str(data), fmt, version, str(tmp_path)))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    check(result, places, tmp_path)
