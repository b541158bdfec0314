"""Offline invariants of the ATIF conformance fixtures (the fixture linter).

Each test states one invariant in its docstring. Nothing here runs the validator: the
fixtures are checked against the manifest schema, the version schemas and themselves.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.support import ROOT

SPEC = ROOT / "spec"
SUITE = ROOT / "conformance" / "atif"
MANIFEST_SCHEMA_ID = "https://atif-spec.org/schemas/atif-spec/v1/conformance-manifest.schema.json"
VERSIONS = ("v1.0", "v1.1", "v1.2", "v1.3", "v1.4", "v1.5", "v1.6", "v1.7", "v1.8")
ID_PATTERN = re.compile(r"^atif-v1\.[0-8]-(valid|invalid|warning)-[a-z0-9-]+$")
VERSION_CODES = ("input:missing-schema-version", "input:unknown-schema-version")
RULE_PROFILES = {
    "ATIF101": "must",
    "ATIF102": "should",
    "ATIF103": "should",
    "ATIF104": "should",
    "ATIF201": "must",
    "ATIF202": "should",
    "ATIF203": "should",
    "ATIF301": "should",
    "ATIF302": "should",
    "ATIF303": "should",
    "ATIF304": "should",
    "ATIF305": "should",
    "ATIF306": "should",
    "ATIF401": "files",
    "ATIF402": "files",
    "ATIF501": "must",
    "ATIF502": "should",
    "ATIF601": "should",
    "ATIF602": "should",
    "ATIF701": "files",
    "ATIF702": "files",
    "ATIF703": "files",
    "ATIF704": "files",
    "ATIF705": "files",
}
FILE_WARNINGS = {"ATIF402", "ATIF702"}
"""Rules of the `files` profile at warning level: a path outside the folder is valid, not read
(DECISIONS.md D-13)."""


@functools.cache
def registry() -> Registry[Any]:
    """Every ``spec/**/*.schema.json``, registered under its ``$id`` (no network)."""
    resources: list[tuple[str, Resource[Any]]] = []
    for path in sorted(SPEC.rglob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(schema, dict) and isinstance(schema.get("$id"), str):
            resources.append((schema["$id"], DRAFT202012.create_resource(schema)))
    return Registry().with_resources(resources)


@functools.cache
def validator(schema_id: str) -> Draft202012Validator:
    """A draft 2020-12 validator for the schema with this ``$id``."""
    schema = registry().contents(schema_id)
    return Draft202012Validator(schema, registry=registry())


def version_schema_id(version: str) -> str:
    return f"https://atif-spec.org/schemas/atif/{version}/trajectory.schema.json"


@dataclass(frozen=True)
class Case:
    version: str
    manifest: Path
    entry: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.entry["id"])

    @property
    def document(self) -> Path:
        return self.manifest.parent / str(self.entry["path"])

    @property
    def folder(self) -> Path | None:
        """The case's own folder, for folder cases."""
        return self.document.parent if self.entry["path"].endswith("/trajectory.json") else None

    @property
    def expected(self) -> list[dict[str, str]]:
        return list(self.entry.get("expected", []))

    def load(self) -> Any:
        return json.loads(self.document.read_text(encoding="utf-8"))


def manifests() -> list[Path]:
    return [SUITE / v / "manifest.json" for v in VERSIONS]


def load_manifest(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def all_cases() -> list[Case]:
    out: list[Case] = []
    for path in manifests():
        if path.is_file():
            out.extend(
                Case(path.parent.name, path, e) for e in load_manifest(path).get("cases", [])
            )
    return out


CASES = all_cases()


def cases_where(pred: Any) -> list[Any]:
    return [pytest.param(c, id=c.id) for c in CASES if pred(c)]


def resolve(doc: Any, ptr: str) -> bool:
    """True when the RFC 6901 pointer names a value inside ``doc``."""
    if ptr == "":
        return True
    node = doc
    for raw in ptr.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif (
            isinstance(node, list)
            and re.fullmatch(r"0|[1-9][0-9]*", token)
            and int(token) < len(node)
        ):
            node = node[int(token)]
        else:
            return False
    return True


def is_version_case(case: Case) -> bool:
    """Cases about a missing, unknown or mismatching ``schema_version``."""
    return any(
        f["code"] in VERSION_CODES
        or (f["code"] == "schema:const" and f["pointer"] == "/schema_version")
        or (f["code"] == "schema:required" and f["pointer"] == "/schema_version")
        for f in case.expected
    )


# ---------------------------------------------------------------- suite-level invariants


def test_every_version_has_a_manifest() -> None:
    """Every ATIF version v1.0-v1.8 has a ``manifest.json`` with at least one case per category."""
    for path in manifests():
        assert path.is_file(), path
        categories = {c["category"] for c in load_manifest(path)["cases"]}
        assert categories == {"valid", "invalid", "warning"}, path


def test_manifest_schema_is_a_valid_2020_12_schema() -> None:
    """The manifest schema itself conforms to the draft 2020-12 meta-schema."""
    Draft202012Validator.check_schema(registry().contents(MANIFEST_SCHEMA_ID))


def test_every_validation_code_can_be_expected_in_a_manifest() -> None:
    """A manifest can expect every code ``atif validate`` reports: registry rules, ``input:*``
    (``input:invalid-utf8`` has a digit) and ``schema:*`` (was: ``input:`` took letters only)."""
    from atif_spec.validation.codes import INPUT_CODES, SCHEMA_CODES
    from atif_spec.validation.rules import REGISTRY

    check = validator(MANIFEST_SCHEMA_ID)
    codes = [r.code for r in REGISTRY] + [c.code for c in INPUT_CODES + SCHEMA_CODES]
    refused = [
        code
        for code in codes
        if not check.is_valid(
            {
                "format": "atif",
                "version": "v1.0",
                "cases": [
                    {
                        "id": "atif-v1.0-invalid-x",
                        "path": "invalid/x.json",
                        "category": "invalid",
                        "description": "x",
                        "decided_by": "RFC.md §4.2",
                        "profiles": ["schema"],
                        "expected": [{"code": code, "pointer": ""}],
                    }
                ],
            }
        )
    ]
    assert refused == []


@pytest.mark.parametrize("path", manifests(), ids=lambda p: p.parent.name)
def test_manifest_validates_against_manifest_schema(path: Path) -> None:
    """Every manifest validates against the conformance-manifest schema."""
    errors = [
        f"{list(e.absolute_path)}: {e.message}"
        for e in validator(MANIFEST_SCHEMA_ID).iter_errors(load_manifest(path))
    ]
    assert errors == []


@pytest.mark.parametrize("path", manifests(), ids=lambda p: p.parent.name)
def test_manifest_names_its_folder_version(path: Path) -> None:
    """A manifest's ``format`` is ``atif`` and its ``version`` is the folder it sits in."""
    data = load_manifest(path)
    assert (data["format"], data["version"]) == ("atif", path.parent.name)


@pytest.mark.parametrize("path", manifests(), ids=lambda p: p.parent.name)
def test_every_file_listed_exactly_once(path: Path) -> None:
    """Every file under a version folder (except the manifest) belongs to exactly one case:
    it is a case's document, or lies inside a folder case's folder."""
    root = path.parent
    cases = [Case(root.name, path, e) for e in load_manifest(path)["cases"]]
    owners: Counter[Path] = Counter()
    files = sorted(p for p in root.rglob("*") if p.is_file() and p != path)
    for f in files:
        for c in cases:
            if f == c.document or (c.folder is not None and c.folder in f.parents):
                owners[f] += 1
    problems = {str(f.relative_to(root)): owners[f] for f in files if owners[f] != 1}
    assert problems == {}
    documents = Counter(c.document for c in cases)
    assert [d for d, n in documents.items() if n > 1] == []
    assert [str(c.document) for c in cases if not c.document.is_file()] == []


def test_ids_unique_across_suite() -> None:
    """Case ids are unique across the whole suite."""
    counts = Counter(c.id for c in CASES)
    assert [i for i, n in counts.items() if n > 1] == []


@pytest.mark.parametrize("path", manifests(), ids=lambda p: p.parent.name)
def test_descriptions_unique_within_manifest(path: Path) -> None:
    """Case descriptions are unique within a manifest."""
    counts = Counter(c["description"] for c in load_manifest(path)["cases"])
    assert [d for d, n in counts.items() if n > 1] == []


# ---------------------------------------------------------------- per-case invariants


@pytest.mark.parametrize("case", cases_where(lambda c: True))
def test_id_matches_pattern_version_and_category(case: Case) -> None:
    """An id matches ``^atif-v1\\.[0-8]-(valid|invalid|warning)-[a-z0-9-]+$`` and names the
    case's version and category; the path lies in the category's folder."""
    assert ID_PATTERN.fullmatch(case.id)
    assert case.id.startswith(f"atif-{case.version}-{case.entry['category']}-")
    assert case.entry["path"].split("/")[0] == case.entry["category"]


@pytest.mark.parametrize("path", manifests(), ids=lambda p: p.parent.name)
def test_every_json_file_parses(path: Path) -> None:
    """Every ``.json`` file under a version folder is well-formed UTF-8 JSON."""
    bad = []
    for f in sorted(path.parent.rglob("*.json")):
        try:
            json.loads(f.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            bad.append(f"{f}: {exc}")
    assert bad == []


@pytest.mark.parametrize("case", cases_where(lambda c: not is_version_case(c)))
def test_document_declares_folder_version(case: Case) -> None:
    """Every document declares the version of its folder, except cases that test a missing,
    unknown or mismatching ``schema_version``; those name the folder's version as ``target``
    whenever the declared version is a known one."""
    doc = case.load()
    assert isinstance(doc, dict)
    assert doc.get("schema_version") == f"ATIF-{case.version}"
    assert case.entry.get("target") in (None, f"atif@{case.version}")


@pytest.mark.parametrize("case", cases_where(is_version_case))
def test_version_cases_declare_no_folder_version(case: Case) -> None:
    """A case expecting a schema_version finding does not declare its folder's version, and a
    ``schema:*`` finding on ``/schema_version`` comes with a ``target`` naming the folder."""
    doc = case.load()
    assert doc.get("schema_version") != f"ATIF-{case.version}"
    if any(f["code"].startswith("schema:") for f in case.expected):
        assert case.entry.get("target") == f"atif@{case.version}"


LATER_FIELDS = {"trajectory_id", "subagent_trajectories", "llm_call_count", "extra"}


def without_null_later_fields(value: Any) -> Any:
    """``value`` without the null-valued keys of DECISIONS.md D-15's fixture (fields of v1.7)."""
    if isinstance(value, dict):
        return {
            k: without_null_later_fields(v)
            for k, v in value.items()
            if not (v is None and k in LATER_FIELDS)
        }
    if isinstance(value, list):
        return [without_null_later_fields(v) for v in value]
    return value


@pytest.mark.parametrize("case", cases_where(lambda c: c.entry["category"] in ("valid", "warning")))
def test_valid_and_warning_documents_pass_schema(case: Case) -> None:
    """Every valid or warning document passes its version's JSON Schema; an embedded subagent
    newer than its parent (DECISIONS.md D-14) passes the schema of the version it declares
    instead, and the parent passes without it."""
    doc = case.load()
    if "D-15" in case.entry["decided_by"]:  # null fields of later versions: the validator's
        doc = without_null_later_fields(doc)  # dispatch tolerates them, not the schema
    parts = [(case.version, doc)]
    subs = doc.get("subagent_trajectories") or []
    newer = [
        s for s in subs if VERSIONS.index(s["schema_version"][5:]) > VERSIONS.index(case.version)
    ]
    if newer:
        parts = [
            (case.version, {**doc, "subagent_trajectories": [s for s in subs if s not in newer]}),
            *((s["schema_version"][5:], s) for s in newer),
        ]
    errors = [
        e
        for version, part in parts
        for e in validator(version_schema_id(version)).iter_errors(part)
    ]
    assert [f"/{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in errors] == []


@pytest.mark.parametrize(
    "case",
    cases_where(
        lambda c: (
            c.entry["category"] == "invalid"
            and any(f["code"].startswith("schema:") for f in c.expected)
        )
    ),
)
def test_invalid_schema_cases_fail_schema(case: Case) -> None:
    """Every invalid case whose expected findings include a ``schema:*`` code fails the JSON
    Schema of the version it is validated as."""
    target = case.entry.get("target", f"atif@{case.version}")
    version = target.split("@", 1)[1]
    assert not validator(version_schema_id(version)).is_valid(case.load())


@pytest.mark.parametrize(
    "case",
    cases_where(
        lambda c: (
            c.entry["category"] == "invalid"
            and not any(f["code"].startswith(("schema:", "input:")) for f in c.expected)
        )
    ),
)
def test_rule_only_invalid_cases_pass_schema(case: Case) -> None:
    """An invalid case that expects only rule findings passes the JSON Schema (the rule alone
    makes it invalid)."""
    assert validator(version_schema_id(case.version)).is_valid(case.load())


@pytest.mark.parametrize("case", cases_where(lambda c: c.entry["category"] == "invalid"))
def test_invalid_cases_expect_an_error(case: Case) -> None:
    """An invalid case expects at least one error: a schema or input finding, or an
    error-level rule."""
    assert any(
        f["code"].startswith(("schema:", "input:"))
        or (RULE_PROFILES.get(f["code"]) in ("must", "files") and f["code"] not in FILE_WARNINGS)
        for f in case.expected
    )


@pytest.mark.parametrize("case", cases_where(lambda c: c.entry["category"] == "warning"))
def test_warning_cases_expect_only_warnings(case: Case) -> None:
    """A warning case expects only warning-level rule findings."""
    from atif_spec.validation.rules import REGISTRY

    levels = {r.code: str(r.level) for r in REGISTRY}
    assert [f["code"] for f in case.expected if levels.get(f["code"]) != "warning"] == []


@pytest.mark.parametrize("case", cases_where(lambda c: bool(c.expected)))
def test_expected_pointers_resolve(case: Case) -> None:
    """Every expected pointer resolves in the document; for ``schema:required`` (a missing
    property) its parent does."""
    doc = case.load()
    bad = []
    for f in case.expected:
        ptr = f["pointer"]
        if f["code"] == "schema:required":
            assert ptr, "schema:required names the missing property"
            ok = resolve(doc, ptr.rsplit("/", 1)[0]) and not resolve(doc, ptr)
        else:
            ok = resolve(doc, ptr)
        if not ok:
            bad.append(f)
    assert bad == []


@pytest.mark.parametrize("case", cases_where(lambda c: bool(c.expected)))
def test_expected_codes_are_known_and_profiled(case: Case) -> None:
    """Every expected code is a schema/input code or a registered rule code, and the case lists
    the profile that produces it."""
    profiles = set(case.entry["profiles"])
    assert "schema" in profiles
    for f in case.expected:
        code = f["code"]
        if code.startswith(("schema:", "input:")):
            continue
        assert code in RULE_PROFILES, code
        assert RULE_PROFILES[code] in profiles, code


@pytest.mark.parametrize(
    "case",
    cases_where(
        lambda c: (
            c.folder is not None
            and not any(f["code"] in ("ATIF701", "ATIF702") for f in c.expected)
        )
    ),
)
def test_folder_cases_hold_referenced_siblings(case: Case) -> None:
    """In a folder case, every relative ``trajectory_path`` and ``continued_trajectory_ref``
    names an existing sibling file (except in the cases about missing or escaping references)."""
    doc = case.load()
    refs: list[str] = []
    if isinstance(doc.get("continued_trajectory_ref"), str):
        refs.append(doc["continued_trajectory_ref"])
    for step in doc.get("steps", []):
        for res in (step.get("observation") or {}).get("results") or []:
            refs.extend(
                r["trajectory_path"]
                for r in res.get("subagent_trajectory_ref") or []
                if r.get("trajectory_path")
            )
    local = [r for r in refs if "://" not in r]
    assert [r for r in local if not (case.document.parent / r).is_file()] == []


def failing_keywords(schema_id: str, doc: Any) -> set[tuple[str, str]]:
    """``(schema:<keyword>, pointer)`` of every failing keyword, ``anyOf`` branches included,
    with required/additionalProperties placed at the missing or unexpected property."""
    out: set[tuple[str, str]] = set()

    def ptr(parts: Any) -> str:
        return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)

    def walk(errors: Any) -> None:
        for e in errors:
            base = ptr(e.absolute_path)
            if e.validator == "required":
                missing = [
                    p
                    for p in e.validator_value
                    if isinstance(e.instance, dict) and p not in e.instance
                ]
                out.update(("schema:required", f"{base}/{p}") for p in missing)
            elif e.validator == "additionalProperties" and isinstance(e.instance, dict):
                allowed = set(e.schema.get("properties", {}))
                out.update(
                    ("schema:additionalProperties", f"{base}/{k}")
                    for k in e.instance
                    if k not in allowed
                )
            else:
                out.add((f"schema:{e.validator}", base))
            walk(e.context or [])

    walk(validator(schema_id).iter_errors(doc))
    return out


@pytest.mark.parametrize(
    "case",
    cases_where(lambda c: any(f["code"].startswith("schema:") for f in c.expected)),
)
def test_expected_schema_findings_name_failing_keywords(case: Case) -> None:
    """Every expected ``schema:<keyword>`` finding names a keyword that really fails at that
    pointer under the schema the case is validated as."""
    version = case.entry.get("target", f"atif@{case.version}").split("@", 1)[1]
    failing = failing_keywords(version_schema_id(version), case.load())
    missing = [
        (f["code"], f["pointer"])
        for f in case.expected
        if f["code"].startswith("schema:") and (f["code"], f["pointer"]) not in failing
    ]
    assert missing == []
