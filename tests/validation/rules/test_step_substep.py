"""Step/substep run-log schemas, conformance fixtures, detection and the SSL rule registry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
import pytest

from atif_spec.formats import detect, get_format
from atif_spec.validation.rules import REGISTRY
from atif_spec.validation.rules.engine import run_rules
from atif_spec.validation.schema_findings import findings_from_errors
from tests.support import ROOT
from tests.support.documents import minimal_atif

SPEC = ROOT / "spec" / "step-substep" / "v1.0"
SUITE = ROOT / "conformance" / "step-substep" / "v1.0"
MANIFEST = json.loads((SUITE / "manifest.json").read_text())
RUN_LOG = json.loads((SPEC / "run-log.schema.json").read_text())
LEGACY_EVENT = json.loads((SPEC / "legacy-turn-event.schema.json").read_text())
RUN_LOG_VALIDATOR = jsonschema_rs.validator_for(RUN_LOG)


def findings(doc: Any) -> list[tuple[str, str]]:
    """Schema findings plus rule findings, as the validation pipeline reports them."""
    found = findings_from_errors(RUN_LOG_VALIDATOR.iter_errors(doc))
    found += run_rules(doc, "step-substep", "v1.0")
    return sorted((f.code, f.pointer) for f in found)


@pytest.mark.parametrize("schema", [RUN_LOG, LEGACY_EVENT], ids=["run-log", "legacy-turn-event"])
def test_schema_is_valid_2020_12(schema: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"].startswith("https://atif-spec.org/schemas/step-substep/v1.0/")


def _objects_and_fields(node: Any, path: str = "#") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    if isinstance(node, dict):
        if node.get("type") == "object" or "properties" in node:
            out.append((path, node))
        for key, value in node.get("properties", {}).items():
            out.append((f"{path}/properties/{key}", value))
        for key, value in node.items():
            if key in ("properties", "enum", "const", "required"):
                if key == "properties":
                    for name, sub in value.items():
                        out.extend(_objects_and_fields(sub, f"{path}/properties/{name}")[1:])
                continue
            out.extend(_objects_and_fields(value, f"{path}/{key}"))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            out.extend(_objects_and_fields(item, f"{path}/{i}"))
    return out


@pytest.mark.parametrize("schema", [RUN_LOG, LEGACY_EVENT], ids=["run-log", "legacy-turn-event"])
def test_every_object_and_field_has_title_and_description(schema: dict[str, Any]) -> None:
    missing = []
    for where, node in _objects_and_fields(schema):
        target = node
        if "$ref" in node and "title" not in node:
            target = schema["$defs"][node["$ref"].split("/")[-1]]
        if not ("title" in target and "description" in target):
            missing.append(where)
    assert missing == []


CASES = MANIFEST["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_conformance_case(case: dict[str, Any]) -> None:
    doc = json.loads((SUITE / case["path"]).read_text())
    if "target" not in case:  # a case with a target is validated as that, not detected
        assert detect(doc) == ("step-substep", "v1.0")
    expected = sorted((e["code"], e["pointer"]) for e in case.get("expected", []))
    assert findings(doc) == expected


def test_manifest_follows_the_manifest_schema() -> None:
    schema = json.loads((ROOT / "spec/atif-spec/v1/conformance-manifest.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(MANIFEST)


def test_every_fixture_file_is_one_case() -> None:
    listed = sorted(c["path"] for c in CASES)
    files = sorted(
        str(p.relative_to(SUITE))
        for d in ("valid", "invalid", "warning")
        for p in (SUITE / d).iterdir()
    )
    assert listed == files
    assert len({c["id"] for c in CASES}) == len(CASES)


def test_invalid_cases_have_an_error_and_warning_cases_none() -> None:
    errors = {r.code for r in REGISTRY if r.level == "error"}
    for case in CASES:
        codes = {e["code"] for e in case.get("expected", [])}
        has_error = any(c.startswith("schema:") or c in errors for c in codes)
        assert has_error == (case["category"] == "invalid"), case["id"]


SSL_RULES = [r for r in REGISTRY if r.format == "step-substep"]


def test_ssl_rules_are_registered_sorted_and_documented() -> None:
    codes = [r.code for r in SSL_RULES]
    assert codes == sorted(codes) and len(set(codes)) == len(codes)
    assert codes[0] == "SSL101"
    for r in SSL_RULES:
        for heading in ("What it checks", "Why", "Example", "Valid instead", "Spec"):
            assert heading + ":" in r.doc, (r.code, heading)
        assert r.versions == ("v1.0",)


@pytest.mark.parametrize("r", SSL_RULES, ids=[r.code for r in SSL_RULES])
def test_each_rule_has_a_failing_fixture(r: Any) -> None:
    assert any(e["code"] == r.code for c in CASES for e in c.get("expected", []))


GARBAGE = [
    None,
    1,
    "x",
    [],
    {},
    {"steps": 3},
    {"steps": [1, None, {"substeps": "x"}]},
    {"steps": [{"step_index": True, "step_id": 3, "substeps": [{"payload": 5}]}]},
    {"steps": [{"started_at": "2026-02-26T10:00:00Z", "completed_at": 5}]},
]


@pytest.mark.parametrize("doc", GARBAGE)
def test_rules_never_raise(doc: Any) -> None:
    run_rules(doc, "step-substep", "v1.0")


def test_detection_tells_run_logs_from_other_formats() -> None:
    spec = get_format("step-substep")
    assert spec.priority == 70
    assert spec.detect({"run_id": "r", "provider": "codex", "steps": []}) == "v1.0"
    assert spec.detect(minimal_atif("v1.7")) is None
    assert spec.detect({"run_id": "r", "steps": [], "schema_version": "x"}) is None
    assert spec.detect({"run_id": "r", "steps": [{"messages": []}]}) is None
    assert spec.detect([{"run_id": "r", "steps": []}]) is None
    assert detect(minimal_atif("v1.7")) == ("atif", "v1.7")


def test_legacy_event_schema_accepts_the_fixture_and_rejects_bad_ids() -> None:
    validator = jsonschema.Draft202012Validator(LEGACY_EVENT)
    lines = (SUITE / "legacy" / "legacy-turn-events.jsonl").read_text().splitlines()
    for line in lines:
        validator.validate(json.loads(line))
    bad = {"legacy_event_id": "13", "kind": "message"}
    assert [e.validator for e in validator.iter_errors(bad)] == ["pattern"]
    bad = {"legacy_event_id": "T1.1", "kind": "turn"}
    assert [e.validator for e in validator.iter_errors(bad)] == ["enum"]


def test_pipeline_when_the_catalog_lists_the_format() -> None:
    from atif_spec import validate
    from atif_spec.schemas.catalog import load_catalog

    assert any(e.format == "step-substep" for e in load_catalog())
    for case in CASES:
        doc = json.loads((SUITE / case["path"]).read_text())
        report = validate(doc, as_target=case.get("target"))
        got = sorted((f.code, f.pointer) for f in report.findings)
        assert got == sorted((e["code"], e["pointer"]) for e in case.get("expected", []))


def test_schema_files_are_packaged_next_to_the_ddl() -> None:
    names = sorted(p.name for p in SPEC.iterdir())
    assert names == [
        "legacy-turn-event.schema.json",
        "run-log.schema.json",
        "store.postgres.sql",
        "store.sqlite.sql",
    ]
    assert Path(SPEC / "store.sqlite.sql").read_text().count("CREATE TABLE") == 3


def test_every_pin_in_decisions_exists() -> None:
    import re

    text = (ROOT / "spec" / "step-substep" / "DECISIONS.md").read_text()
    pins = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", text)
    assert pins
    for module, name in pins:
        assert f"def {name}(" in (ROOT / module).read_text(), (module, name)
    ids = {c["path"].removesuffix(".json") for c in CASES}
    for pin in re.findall(r"`((?:valid|invalid|warning)/[a-z0-9-]+)`", text):
        assert pin in ids, pin
    for pin in re.findall(r"`(tests/[\w/]+\.py)`", text):
        assert (ROOT / pin).is_file(), pin
