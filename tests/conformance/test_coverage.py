"""Coverage of the conformance suite: schema keyword outcomes and registry rules.

Schema coverage (``tests/support/schema_coverage.py``): every ``required`` property is both
missing from and present in some evaluated object, every ``enum`` value is used, every ``const``
is both satisfied and violated, every ``if`` goes both ways and every ``anyOf``/``oneOf`` branch
matches, over all fixtures. Rule coverage: every registry rule has a case that fails by that
rule alone and a valid case on its boundary (``boundary_of`` in the manifest).
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import tests.support.schema_coverage as coverage
from atif_spec.conformance.suite import Case, load_suite
from atif_spec.schemas.compiled import rs_validator
from atif_spec.validation.rules import REGISTRY
from atif_spec.validation.schema_findings import findings_from_errors
from tests.support import ROOT
from tests.support.schema_coverage import Obligation

SUITE = ROOT / "conformance"
LEGACY_EVENTS = SUITE / "step-substep" / "v1.0" / "legacy"
BASE = "https://atif-spec.org/schemas/"

EXEMPT: dict[tuple[str, str], str] = {}
"""Obligations no fixture may fulfil yet, with the reason (relative to ``BASE``)."""


def _exempt(o: Obligation) -> bool:
    return (o.location.removeprefix(BASE), o.outcome) in EXEMPT


@functools.cache
def cases() -> tuple[Case, ...]:
    return tuple(load_suite(SUITE))


def legacy_event_cases() -> list[dict[str, Any]]:
    data: dict[str, Any] = json.loads((LEGACY_EVENTS / "event-cases.json").read_text())
    return [{"schema": data["schema"], **case} for case in data["cases"]]


def legacy_documents() -> list[tuple[str, Any]]:
    """Legacy events: every line of the normalized legacy log, and every event case."""
    schema = legacy_event_cases()[0]["schema"]
    lines = (LEGACY_EVENTS / "legacy-turn-events.jsonl").read_text().splitlines()
    return [(schema, json.loads(line)) for line in lines if line.strip()] + [
        (c["schema"], c["event"]) for c in legacy_event_cases()
    ]


@functools.cache
def suite_coverage() -> coverage.Coverage:
    return coverage.measure([*coverage.suite_documents(cases()), *legacy_documents()])


def _report(obligations: list[Obligation]) -> str:
    return "\n".join(f"  {o.location.removeprefix(BASE)}: {o.outcome}" for o in obligations)


# ---------------------------------------------------------------- the tracer itself


def test_tracer_records_both_sides_of_required_and_const() -> None:
    """The tracer sees a present and a missing property, and a satisfied and a violated
    ``const`` (so the coverage test cannot pass vacuously)."""
    sid = f"{BASE}atif/v1.7/trajectory.schema.json"
    doc = {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "a", "version": "1"},
        "steps": [{"step_id": 1, "source": "user", "message": "hi"}],
    }
    hits = coverage.trace(sid, doc)
    assert Obligation(f"{sid}#/required", 'present "steps"') in hits
    assert Obligation(f"{sid}#/required", 'absent "steps"') not in hits
    assert Obligation(f"{sid}#/properties/schema_version/const", "satisfied") in hits
    broken = coverage.trace(sid, {**doc, "schema_version": "ATIF-v1.6"})
    assert Obligation(f"{sid}#/properties/schema_version/const", "violated") in broken
    del doc["agent"]
    assert Obligation(f"{sid}#/required", 'absent "agent"') in coverage.trace(sid, doc)


def test_obligations_count_a_def_once_and_every_branch() -> None:
    """A ``$defs`` entry yields its obligations once, and each anyOf branch is one obligation."""
    schema = {
        "$defs": {"A": {"type": "object", "required": ["x"]}},
        "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/A"}},
        "anyOf": [{"enum": [1, "one"]}, {"type": "object"}],
    }
    got = {str(o) for o in coverage.obligations("s", schema)}
    assert got == {
        's#/$defs/A/required: present "x"',
        's#/$defs/A/required: absent "x"',
        "s#/anyOf/0/enum: value 1",
        's#/anyOf/0/enum: value "one"',
        "s#/anyOf/0: matched",
        "s#/anyOf/1: matched",
    }


# ---------------------------------------------------------------- schema coverage


def test_every_document_schema_has_obligations_and_fixtures() -> None:
    """Every document schema of the catalog yields obligations, and some fixture reaches each."""
    cov = suite_coverage()
    for sid, _schema in coverage.document_schemas():
        mine = {o for o in cov.required if o.location.startswith(f"{sid}#")}
        assert mine, sid
        assert mine & cov.fulfilled, f"no fixture is evaluated against {sid}"


def test_every_schema_keyword_outcome_is_exercised() -> None:
    """Every required property (missing and present), enum value, const (kept and broken),
    if (both ways) and anyOf/oneOf branch of every document schema is reached by a fixture."""
    missing = [o for o in suite_coverage().missing if not _exempt(o)]
    assert not missing, f"{len(missing)} schema keyword outcomes no fixture exercises:\n" + _report(
        missing
    )


def test_exemptions_are_real_and_still_needed() -> None:
    """Every exemption names an existing obligation that no fixture fulfils yet (remove it once
    a fixture does)."""
    cov = suite_coverage()
    names = {(o.location.removeprefix(BASE), o.outcome) for o in cov.required}
    assert sorted(set(EXEMPT) - names) == []
    done = [o for o in cov.fulfilled if _exempt(o)]
    assert not done, "exemptions no longer needed:\n" + _report(sorted(done))


@pytest.mark.parametrize("case", legacy_event_cases(), ids=lambda c: str(c["description"]))
def test_legacy_event_case_has_its_findings(case: dict[str, Any]) -> None:
    """Each legacy event case gives exactly its expected schema findings."""
    errors = rs_validator(case["schema"]).iter_errors(case["event"])
    got = Counter((f.code, f.pointer) for f in findings_from_errors(errors))
    assert got == Counter((e["code"], e["pointer"]) for e in case["expected"])


# ---------------------------------------------------------------- rule coverage


def _applies(rule_format: str, versions: tuple[str, ...], case: Case) -> bool:
    return case.format == rule_format and case.version in versions


@pytest.mark.parametrize("rule", REGISTRY, ids=lambda r: r.code)
def test_every_rule_fails_a_fixture_alone(rule: Any) -> None:
    """Every registry rule has an invalid (error rules) or warning (warning rules) case whose
    findings all come from that rule."""
    category = "invalid" if str(rule.level) == "error" else "warning"
    alone = [
        c.id
        for c in cases()
        if _applies(rule.format, rule.versions, c)
        and c.category == category
        and c.expected
        and {code for code, _ in c.expected} == {rule.code}
    ]
    assert alone, f"{rule.code} ({rule.name}) has no {category} case failing by it alone"


@pytest.mark.parametrize("rule", REGISTRY, ids=lambda r: r.code)
def test_every_rule_has_a_valid_boundary_fixture(rule: Any) -> None:
    """Every registry rule has a valid case that names it in ``boundary_of``: the document comes
    as close to breaking the rule as it can (the expectation tests check it stays valid)."""
    near = [
        c.id
        for c in cases()
        if _applies(rule.format, rule.versions, c)
        and c.category == "valid"
        and rule.code in c.boundary_of
    ]
    assert near, f"{rule.code} ({rule.name}) has no valid case with it in boundary_of"


def test_boundary_codes_name_rules_of_the_case() -> None:
    """``boundary_of`` appears only on valid cases and names rules of the case's format and
    version, and a case that needs files lists the files profile."""
    rules = {r.code: r for r in REGISTRY}
    bad = []
    for c in cases():
        for code in c.boundary_of:
            rule = rules.get(code)
            if (
                c.category != "valid"
                or rule is None
                or not _applies(rule.format, rule.versions, c)
                or (rule.needs_file and "files" not in c.profiles)
            ):
                bad.append((c.id, code))
    assert bad == []


def test_cases_with_options_are_files_cases() -> None:
    """Only cases of the files profile carry ``options`` (an implementation without the option
    skips them by leaving the profile out)."""
    assert [c.id for c in cases() if c.options and "files" not in c.profiles] == []
    assert any(c.options.get("follow_refs") for c in cases())


def test_suite_documents_are_paths_below_the_suite() -> None:
    """Coverage reads every case document from the suite (no document is skipped silently
    except those an input finding says cannot be identified)."""
    evaluated = sum(1 for c in cases() if coverage.schema_of(c) is not None)
    unidentified = [c for c in cases() if coverage.schema_of(c) is None]
    assert evaluated + len(unidentified) == len(cases())
    assert all(any(code.startswith("input:") for code, _ in c.expected) for c in unidentified)
    assert all(Path(c.document).is_relative_to(SUITE) for c in cases())
