"""opentraces TAO trace records: schemas, detection, rules, content_hash, conformance cases."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from atif_spec.formats import all_formats, tao
from atif_spec.validation.findings import Level
from atif_spec.validation.rules import REGISTRY
from atif_spec.validation.rules.engine import run_rules
from tests.support import ROOT
from tests.support.documents import ATIF_VERSIONS, minimal_atif

SPEC = ROOT / "spec"
SUITE = ROOT / "conformance" / "tao"
SCHEMA_FILES = {v: SPEC / "tao" / v / "trace-record.schema.json" for v in tao.VERSIONS}
VECTOR = {
    "trace_id": "00000000-0000-4000-8000-000000000000",
    "session_id": "sess-1",
    "agent": {"name": "claude-code"},
}
TAO_RULES = [r for r in REGISTRY if r.format == "tao"]


def _registry() -> Registry[Any]:
    resources = []
    for path in SPEC.glob("**/*.schema.json"):
        contents = json.loads(path.read_text(encoding="utf-8"))
        resources.append((contents["$id"], Resource.from_contents(contents)))
    return Registry().with_resources(resources)


REGISTRY_OFFLINE = _registry()


def _validator(version: str) -> Draft202012Validator:
    contents = json.loads(SCHEMA_FILES[version].read_text(encoding="utf-8"))
    return Draft202012Validator(contents, registry=REGISTRY_OFFLINE)


def findings_of(doc: Any, version: str) -> list[tuple[str, str]]:
    """Schema and rule findings, as ``(code, pointer)`` pairs."""
    from atif_spec.schemas.catalog import load_catalog
    from atif_spec.schemas.compiled import rs_validator
    from atif_spec.validation.schema_findings import findings_from_errors

    entry = load_catalog().find(f"tao@{version}")
    found = [
        (f.code, f.pointer) for f in findings_from_errors(rs_validator(entry.id).iter_errors(doc))
    ]
    found.extend((f.code, f.pointer) for f in run_rules(doc, "tao", version))
    return found


def _cases() -> list[tuple[str, dict[str, Any], Path]]:
    out = []
    for manifest_path in sorted(SUITE.glob("*/manifest.json")):
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        for case in manifest["cases"]:
            out.append((manifest["version"], case, manifest_path.parent / case["path"]))
    return out


CASES = _cases()
CASE_IDS = [c["id"] for _, c, _ in CASES]


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _case(case_id: str) -> Any:
    for _, case, path in CASES:
        if case["id"] == case_id:
            return _load(path)
    raise KeyError(case_id)


# --- schemas -------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", tao.VERSIONS)
def test_schema_passes_metaschema(version: str) -> None:
    """Each schema is a valid draft 2020-12 schema with the pinned $id."""
    contents = json.loads(SCHEMA_FILES[version].read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(contents)
    assert contents["$id"] == (
        f"https://atif-spec.org/schemas/tao/{version}/trace-record.schema.json"
    )


def _objects(contents: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [("#", contents), *((f"#/$defs/{k}", v) for k, v in contents["$defs"].items())]


@pytest.mark.parametrize("version", tao.VERSIONS)
def test_every_object_and_field_is_documented(version: str) -> None:
    """Every object and field has a title and a description; optional fields have a default
    that the description also states, required fields have none."""
    contents = json.loads(SCHEMA_FILES[version].read_text(encoding="utf-8"))
    for where, node in _objects(contents):
        assert node.get("title") and node.get("description"), where
        required = set(node.get("required", []))
        for name, prop in node["properties"].items():
            assert prop.get("title") and prop.get("description"), f"{where}.{name}"
            if name in required:
                assert "default" not in prop, f"{where}.{name}"
                assert "Required" in prop["description"], f"{where}.{name}"
            else:
                assert "default" in prop, f"{where}.{name}"
                assert re.search(r"[Dd]efault", prop["description"]), f"{where}.{name}"


def test_version_delta_is_exactly_the_documented_one() -> None:
    """0.2.0 adds execution_context and three outcome fields and drops attribution.version."""
    old = json.loads(SCHEMA_FILES["v0.1.0"].read_text(encoding="utf-8"))
    new = json.loads(SCHEMA_FILES["v0.2.0"].read_text(encoding="utf-8"))

    def fields(contents: dict[str, Any]) -> set[str]:
        return {
            f"{where}.{name}" for where, node in _objects(contents) for name in node["properties"]
        }

    assert fields(new) - fields(old) == {
        "#.execution_context",
        "#/$defs/Outcome.terminal_state",
        "#/$defs/Outcome.reward",
        "#/$defs/Outcome.reward_source",
    }
    assert fields(old) - fields(new) == {"#/$defs/Attribution.version"}


@pytest.mark.parametrize("version", tao.VERSIONS)
def test_objects_are_open(version: str) -> None:
    """Unknown keys are accepted by the schema, as by upstream readers (TAO501 warns instead)."""
    doc = dict(VECTOR, agent={"name": "x", "nickname": "y"}, extra_root_key=1)
    assert list(_validator(version).iter_errors(doc)) == []


# --- conformance cases ---------------------------------------------------------------------------


def test_suite_has_cases_for_every_version() -> None:
    """Every version has valid, invalid and warning cases."""
    seen = {(v, c["category"]) for v, c, _ in CASES}
    for version in tao.VERSIONS:
        for category in ("valid", "invalid", "warning"):
            assert (version, category) in seen


@pytest.mark.parametrize("version", tao.VERSIONS)
def test_manifest_follows_the_manifest_schema(version: str) -> None:
    """Each TAO manifest validates against the suite's manifest schema and names its folder."""
    manifest = _load(SUITE / version / "manifest.json")
    schema = _load(SPEC / "atif-spec" / "v1" / "conformance-manifest.schema.json")
    assert list(Draft202012Validator(schema, registry=REGISTRY_OFFLINE).iter_errors(manifest)) == []
    assert (manifest["format"], manifest["version"]) == ("tao", version)
    for case in manifest["cases"]:
        assert case["id"] == f"tao-{version}-{case['path'].removesuffix('.json').replace('/', '-')}"


@pytest.mark.parametrize("version", tao.VERSIONS)
def test_every_fixture_is_listed_once(version: str) -> None:
    """Every JSON file below a version folder is exactly one case of its manifest."""
    folder = SUITE / version
    files = sorted(str(p.relative_to(folder)) for p in folder.glob("*/**/*.json") if p.is_file())
    listed = sorted(case["path"] for v, case, _ in CASES if v == version)
    assert files == listed


@pytest.mark.parametrize(("version", "case", "path"), CASES, ids=CASE_IDS)
def test_case_detected_as_its_version(version: str, case: dict[str, Any], path: Path) -> None:
    """Every case document is detected as TAO of the manifest's version."""
    assert tao.detect(_load(path)) == version


@pytest.mark.parametrize(("version", "case", "path"), CASES, ids=CASE_IDS)
def test_case_findings(version: str, case: dict[str, Any], path: Path) -> None:
    """Each case produces exactly its expected multiset of (code, pointer) findings; valid
    cases pass the schema and every rule."""
    got = findings_of(_load(path), version)
    expected = [(e["code"], e["pointer"]) for e in case.get("expected", [])]
    assert Counter(got) == Counter(expected)


@pytest.mark.parametrize(("version", "case", "path"), CASES, ids=CASE_IDS)
def test_case_category_matches_levels(version: str, case: dict[str, Any], path: Path) -> None:
    """invalid cases raise at least one error; warning cases only warnings; valid ones nothing."""
    doc = _load(path)
    schema_errors = list(_validator(version).iter_errors(doc))
    levels = {f.level for f in run_rules(doc, "tao", version)}
    if case["category"] == "valid":
        assert not schema_errors and not levels
    elif case["category"] == "warning":
        assert not schema_errors and levels == {Level.WARNING}
    else:
        assert schema_errors or Level.ERROR in levels


# one failing case (firing the rule alone or with listed companions) and one near-boundary
# valid case per rule
RULE_CASES = {
    "TAO101": ("tao-v0.2.0-warning-duplicate-step-index", "tao-v0.2.0-valid-step-index-gaps"),
    "TAO102": ("tao-v0.2.0-invalid-parent-step-self", "tao-v0.2.0-valid-parent-step-just-before"),
    "TAO103": (
        "tao-v0.2.0-warning-subagent-without-parent",
        "tao-v0.2.0-valid-parent-step-just-before",
    ),
    "TAO104": (
        "tao-v0.2.0-invalid-unknown-system-prompt-hash",
        "tao-v0.2.0-valid-no-system-prompts",
    ),
    "TAO201": ("tao-v0.2.0-invalid-dangling-observation", "tao-v0.2.0-valid-runtime-episode"),
    "TAO301": ("tao-v0.2.0-warning-total-steps-mismatch", "tao-v0.2.0-valid-metrics-session-only"),
    "TAO401": (
        "tao-v0.2.0-invalid-content-hash-stale",
        "tao-v0.2.0-valid-content-hash-ignores-trace-id",
    ),
    "TAO501": ("tao-v0.2.0-warning-security-tier", "tao-v0.2.0-valid-free-form-objects"),
    "TAO105": ("tao-v0.6.0-invalid-patch-unknown-tool-call", "tao-v0.6.0-valid-devtime-patches"),
}


def test_every_rule_has_cases() -> None:
    """Each registered TAO rule has a failing and a near-boundary case listed here."""
    assert sorted(RULE_CASES) == sorted(r.code for r in TAO_RULES)


@pytest.mark.parametrize("code", sorted(RULE_CASES))
def test_rule_fires_alone(code: str) -> None:
    """The rule's failing case yields findings of that rule only; its boundary case none."""
    failing, boundary = RULE_CASES[code]
    for case_id, expected in ((failing, {code}), (boundary, set())):
        version = case_id.split("-")[1]
        assert {f.code for f in run_rules(_case(case_id), "tao", version)} == expected


# --- detection -----------------------------------------------------------------------------------


NOT_ATIF = {"v1.7/invalid/continuation-not-atif-followed/trajectory.cont-1.json"}
"""Files of the ATIF suite that are TAO records on purpose (a continuation that is not ATIF,
ATIF704)."""


def _atif_documents() -> list[Any]:
    docs: list[Any] = [minimal_atif(v) for v in ATIF_VERSIONS]
    root = ROOT / "conformance" / "atif"
    for path in sorted(root.glob("**/*.json")):
        if path.name != "manifest.json" and path.relative_to(root).as_posix() not in NOT_ATIF:
            docs.append(_load(path))
    return docs


@pytest.mark.parametrize("doc", _atif_documents())
def test_atif_documents_are_never_tao(doc: Any) -> None:
    """ATIF documents (fixtures and minimal documents of every version) are not TAO."""
    assert tao.detect(doc) is None


def test_atif_without_version_is_not_tao() -> None:
    """An ATIF-shaped document without schema_version is not TAO either (its steps are ATIF's)."""
    doc = minimal_atif("v1.7")
    del doc["schema_version"]
    assert tao.detect(doc) is None


SDK_DOC = {
    "task": {"id": "example:conv_1", "data_source": "example", "conversation_id": "conv_1"},
    "steps": [{"messages": [{"role": "user", "content": "What's the weather in SF?"}]}],
    "reward": None,
    "metrics": {"steps": 1},
    "telemetry": {"source": "example", "data": {}},
    "trace_id": None,
    "model_id": None,
}
RUN_LOG_DOC = {
    "run_id": "run-7",
    "provider": "codex",
    "steps": [
        {
            "step_id": "S1",
            "step_index": 1,
            "provider": "codex",
            "message_role": "assistant",
            "message_text": "Listed files.",
            "substeps": [],
        }
    ],
}


@pytest.mark.parametrize(
    "doc",
    [
        SDK_DOC,
        dict(SDK_DOC, steps=[]),
        RUN_LOG_DOC,
        {"run_id": "r", "steps": [{"step_index": 1, "role": "agent"}]},
        {"schema_version": "0.2.0"},
        {"trace_id": "t"},
        [VECTOR],
        "0.2.0",
        None,
    ],
    ids=[
        "trajectory-sdk",
        "trajectory-sdk-no-steps",
        "step-substep",
        "no-root-marker",
        "version-only",
        "trace-id-only",
        "array",
        "string",
        "null",
    ],
)
def test_other_documents_are_not_tao(doc: Any) -> None:
    """trajectory-sdk documents, run logs and non-records are not TAO."""
    assert tao.detect(doc) is None


@pytest.mark.parametrize(
    ("doc", "version"),
    [
        (dict(VECTOR, schema_version="0.2.0"), "v0.2.0"),
        (dict(VECTOR, schema_version="0.1.0"), "v0.1.0"),
        (dict(VECTOR, schema_version="0.1.1"), "v0.1.0"),
        (dict(VECTOR, schema_version="0.1.0", execution_context="runtime"), "v0.1.0"),
        (dict(VECTOR, schema_version="0.8.0"), "unknown"),
        (dict(VECTOR, schema_version="0.9.0"), "v0.9.0"),
        (dict(VECTOR, schema_version="0.7.0", environment={"arch": "x"}), "v0.7.0"),
        (dict(VECTOR, execution_context=None), "v0.2.0"),
        (dict(VECTOR, git_links=[], outcome={"reward": 1.0}), "v0.3.0"),
        (dict(VECTOR, task={"repository_url": None}), "v0.3.0"),
        (dict(VECTOR, metrics={"total_cache_creation_tokens": 0}), "v0.3.0"),
        (dict(VECTOR, lifecycle="final", patches=[]), "v0.6.0"),
        (
            dict(VECTOR, steps=[{"step_index": 0, "role": "user", "context_node_id": None}]),
            "v0.6.0",
        ),
        (dict(VECTOR, context_tree_summary={}, environment={"interpreter": None}), "v0.9.0"),
        (dict(VECTOR, outcome={"reward": 1.0}), "v0.2.0"),
        (dict(VECTOR, attribution={"version": "0.1.1"}), "v0.1.0"),
        (dict(VECTOR, attribution={"version": "0.1.0"}, execution_context="devtime"), "v0.2.0"),
        (VECTOR, "v0.2.0"),
        (dict(VECTOR, schema_version=2), "v0.2.0"),
        ({"session_id": "s", "steps": [{"step_index": 0, "role": "user"}]}, "v0.2.0"),
        ({"schema_version": "0.1.0", "trace_id": "t"}, "v0.1.0"),
    ],
    ids=[
        "declared-0.2.0",
        "declared-0.1.0",
        "declared-0.1.1",
        "declaration-wins",
        "unsupported-version",
        "declared-0.9.0",
        "declaration-wins-over-0.9.0-field",
        "v02-root-field",
        "v03-root-field",
        "v03-task-field",
        "v03-metrics-field",
        "v06-root-field",
        "v06-step-field",
        "v09-environment-field",
        "v02-outcome-field",
        "v01-attribution-version",
        "both-newest",
        "nothing-newest",
        "mistyped-version-fields",
        "steps-shape",
        "declared-partial-record",
    ],
)
def test_detect_version(doc: Any, version: str) -> None:
    """The declared version wins, then the newest version whose own fields appear, then 0.2.0."""
    assert tao.detect(doc) == version


def test_format_record() -> None:
    """The format record spells versions as written in schema_version and runs after ATIF."""
    spec = all_formats()["tao"]
    assert spec.versions == ("v0.1.0", "v0.2.0", "v0.3.0", "v0.6.0", "v0.7.0", "v0.9.0")
    assert spec.version_field == "schema_version"
    assert spec.version_spelling is not None
    assert spec.version_spelling("v0.2.0") == "0.2.0"
    assert spec.priority > all_formats()["atif"].priority


def test_versionless_record_with_steps_detected_as_tao_overall() -> None:
    """The package-wide detector reads a versionless trace record with steps as TAO."""
    from atif_spec.formats import detect

    doc = _case("tao-v0.2.0-valid-coding-session")
    del doc["schema_version"]
    assert detect(doc) == ("tao", "v0.2.0")


# --- content_hash --------------------------------------------------------------------------------

# Written out by hand from the definition (sheet §7): the 0.2.0 model of the test-vector record,
# every default filled, trace_id and content_hash left out, keys sorted, ", " and ": " separators.
HAND_CANONICAL_020 = (
    '{"agent": {"model": null, "name": "claude-code", "version": null}, "attribution": null, '
    '"dependencies": [], "environment": {"language_ecosystem": [], "os": null, "shell": null, '
    '"vcs": {"base_commit": null, "branch": null, "diff": null, "type": "none"}}, '
    '"execution_context": null, "metadata": {}, "metrics": {"cache_hit_rate": null, '
    '"estimated_cost_usd": null, "total_duration_s": null, "total_input_tokens": 0, '
    '"total_output_tokens": 0, "total_steps": 0}, "outcome": {"commit_sha": null, '
    '"committed": false, "description": null, "patch": null, "reward": null, '
    '"reward_source": null, "signal_confidence": "derived", "signal_source": "deterministic", '
    '"success": null, "terminal_state": null}, "schema_version": "0.2.0", "security": '
    '{"classifier_version": null, "flags_reviewed": 0, "redactions_applied": 0, '
    '"scanned": false}, "session_id": "sess-1", "steps": [], "system_prompts": {}, "task": '
    '{"base_commit": null, "description": null, "repository": null, "source": null}, '
    '"timestamp_end": null, "timestamp_start": null, "tool_definitions": []}'
)
VECTOR_020 = "b9d4db456dc116f5ada6cc29d3bce82bb849cf95350838ee122804c9965e07ff"
VECTOR_010 = "0823ac396fd402fa7c967a71bd506fde027f3b1ef26ca79b4e932bbf7774b28f"


def test_hand_derived_canonical_form() -> None:
    """The canonical text matches the hand-written one, and its SHA-256 the sheet's vector."""
    assert tao.canonical_json(VECTOR, "v0.2.0") == HAND_CANONICAL_020
    assert hashlib.sha256(HAND_CANONICAL_020.encode()).hexdigest() == VECTOR_020
    assert tao.content_hash(VECTOR, "v0.2.0") == VECTOR_020


def test_hash_test_vectors() -> None:
    """The sheet's vectors for 0.1.0 and 0.2.0: the field set of the version decides."""
    assert tao.content_hash(VECTOR, "v0.1.0") == VECTOR_010
    assert tao.content_hash(dict(VECTOR, schema_version="0.1.0"), "v0.1.0") == VECTOR_010


def test_hash_ignores_trace_id_unknown_keys_and_explicit_defaults() -> None:
    """trace_id, keys the model drops and defaults written out do not change the hash."""
    doc = dict(
        VECTOR,
        trace_id="another",
        content_hash="stale",
        security={"tier": 2, "scanned": False},
        steps=[],
    )
    assert tao.content_hash(doc, "v0.2.0") == VECTOR_020


def test_hash_coerces_numbers_and_escapes_non_ascii() -> None:
    """Integral floats in integer fields hash as ints, ints in float fields as floats,
    non-ASCII as \\u escapes."""
    doc = dict(
        VECTOR,
        task={"description": "café"},
        metrics={"total_steps": 0.0, "total_duration_s": 3},
        outcome={"reward": 1},
    )
    text = tao.canonical_json(doc, "v0.2.0")
    assert '"description": "caf\\u00e9"' in text
    assert '"total_steps": 0}' in text
    assert '"total_duration_s": 3.0' in text
    assert '"reward": 1.0' in text


@pytest.mark.parametrize(
    "doc",
    [
        {"trace_id": "t", "session_id": "s"},
        dict(VECTOR, task=None),
        dict(VECTOR, steps=[{"step_index": "0", "role": "user"}]),
        dict(VECTOR, metrics={"cache_hit_rate": 2}),
        dict(VECTOR, steps=[{"step_index": 0, "role": "assistant"}]),
        dict(VECTOR, metrics={"total_steps": 1.5}),
    ],
    ids=["no-agent", "null-task", "string-index", "out-of-range", "bad-enum", "fractional-int"],
)
def test_unloadable_records_are_rejected(doc: Any) -> None:
    """Records the upstream model would reject have no hash."""
    with pytest.raises(tao.UnloadableRecordError):
        tao.normalize(doc, "v0.2.0")


def test_normalize_fills_and_drops() -> None:
    """normalize fills nested defaults and keeps free-form objects whole."""
    doc = dict(
        VECTOR,
        steps=[
            {
                "step_index": 0,
                "role": "agent",
                "tool_calls": [
                    {
                        "tool_call_id": "a",
                        "tool_name": "Bash",
                        "input": {"any": {"deep": 1}},
                        "x": 1,
                    }
                ],
            }
        ],
    )
    out = tao.normalize(doc, "v0.1.0")
    call = out["steps"][0]["tool_calls"][0]
    assert call == {
        "tool_call_id": "a",
        "tool_name": "Bash",
        "input": {"any": {"deep": 1}},
        "duration_ms": None,
    }
    assert out["steps"][0]["token_usage"]["cache_write_tokens"] == 0
    assert "execution_context" not in out
    assert out["environment"]["vcs"]["type"] == "none"


def test_content_hash_rule_uses_declared_version() -> None:
    """A 0.1.0 record with the 0.2.0 hash is flagged under v0.1.0, not under v0.2.0."""
    doc = dict(VECTOR, content_hash=VECTOR_020)
    assert [f.code for f in run_rules(doc, "tao", "v0.1.0")] == ["TAO401"]
    assert run_rules(doc, "tao", "v0.2.0") == []


# --- rule behaviour ------------------------------------------------------------------------------


def _with_steps(*steps: dict[str, Any]) -> dict[str, Any]:
    return dict(copy.deepcopy(VECTOR), schema_version="0.2.0", steps=list(steps))


def test_observation_on_another_step_names_that_step() -> None:
    """TAO201's message points at the step that made the call."""
    doc = _with_steps(
        {"step_index": 0, "role": "agent", "tool_calls": [{"tool_call_id": "c", "tool_name": "t"}]},
        {"step_index": 1, "role": "agent", "observations": [{"source_call_id": "c"}]},
    )
    (finding,) = run_rules(doc, "tao", "v0.2.0")
    assert finding.pointer == "/steps/1/observations/0/source_call_id"
    assert "step 0" in finding.message


def test_malformed_tool_calls_skip_the_step() -> None:
    """With tool_calls of the wrong type, the step's observations are not judged."""
    doc = _with_steps(
        {
            "step_index": 0,
            "role": "agent",
            "tool_calls": "c",
            "observations": [{"source_call_id": "c"}],
        },
    )
    assert [f.code for f in run_rules(doc, "tao", "v0.2.0")] == []


def test_parent_step_messages() -> None:
    """TAO102: a later parent is fine (the Claude Code parser writes sub-agent steps before their
    launching step); a missing parent or the step itself is not."""
    doc = _with_steps(
        {"step_index": 0, "role": "agent", "parent_step": 1, "call_type": "subagent"},
        {"step_index": 1, "role": "agent", "parent_step": 5, "call_type": "subagent"},
        {"step_index": 2, "role": "agent", "parent_step": 2, "call_type": "subagent"},
    )
    findings = [f for f in run_rules(doc, "tao", "v0.2.0") if f.code == "TAO102"]
    assert [f.pointer for f in findings] == ["/steps/1/parent_step", "/steps/2/parent_step"]
    assert "no step of this record" in findings[0].message
    assert "the step itself" in findings[1].message


def test_token_total_with_mistyped_usage_is_not_checked() -> None:
    """A token total is left alone when a step's usage has the wrong type."""
    doc = _with_steps(
        {"step_index": 0, "role": "agent", "token_usage": {"input_tokens": 5}},
        {"step_index": 1, "role": "agent", "token_usage": {"input_tokens": "7"}},
    )
    doc["metrics"] = {"total_input_tokens": 99}
    assert run_rules(doc, "tao", "v0.2.0") == []
    doc["steps"][1]["token_usage"]["input_tokens"] = 7
    assert [f.pointer for f in run_rules(doc, "tao", "v0.2.0")] == ["/metrics/total_input_tokens"]


def test_unknown_field_pointer_is_escaped() -> None:
    """TAO501 pointers escape '/' and '~' in key names."""
    doc = dict(VECTOR, **{"a/b": 1, "c~d": 2})
    pointers = sorted(f.pointer for f in run_rules(doc, "tao", "v0.2.0"))
    assert pointers == ["/a~1b", "/c~0d"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "steps",
                    "step_index",
                    "role",
                    "parent_step",
                    "call_type",
                    "tool_calls",
                    "observations",
                    "tool_call_id",
                    "source_call_id",
                    "error",
                    "system_prompts",
                    "system_prompt_hash",
                    "metrics",
                    "total_steps",
                    "total_input_tokens",
                    "token_usage",
                    "input_tokens",
                    "content_hash",
                    "agent",
                    "name",
                    "trace_id",
                    "session_id",
                    "outcome",
                    "attribution",
                    "x",
                ]
            ),
            inner,
            max_size=6,
        )
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(doc=json_values)
def test_rules_never_raise(doc: Any) -> None:
    """Every TAO rule tolerates any JSON value."""
    for version in tao.VERSIONS:
        run_rules(doc, "tao", version)


@settings(max_examples=200, deadline=None)
@given(doc=json_values)
def test_detect_never_raises(doc: Any) -> None:
    """Detection returns a version, 'unknown' or None for any JSON value."""
    assert tao.detect(doc) in (*tao.VERSIONS, "unknown", None)


def test_rules_on_wrong_types_everywhere() -> None:
    """A record whose every field has the wrong type yields no rule finding and no crash."""
    doc = {
        "trace_id": 1,
        "session_id": [],
        "agent": "x",
        "content_hash": 5,
        "system_prompts": [],
        "steps": [
            {
                "step_index": True,
                "role": 3,
                "parent_step": "2",
                "call_type": 4,
                "tool_calls": {},
                "observations": "x",
                "system_prompt_hash": 7,
                "token_usage": [],
            },
            "not a step",
        ],
        "metrics": {"total_steps": "3", "total_input_tokens": None},
        "outcome": [],
    }
    for version in tao.VERSIONS:
        assert run_rules(doc, "tao", version) == []


# --- registry ------------------------------------------------------------------------------------


def test_registry_entries() -> None:
    """TAO codes are unique and sorted, names kebab-case, versions known, docs complete."""
    codes = [r.code for r in TAO_RULES]
    assert codes == sorted(set(codes))
    assert all(re.fullmatch(r"TAO\d{3}", c) for c in codes)
    assert len({r.name for r in TAO_RULES}) == len(TAO_RULES)
    for r in TAO_RULES:
        assert re.fullmatch(r"[a-z]+(-[a-z0-9]+)*", r.name), r.name
        assert set(r.versions) <= set(tao.VERSIONS) and r.versions
        for heading in ("What it checks:", "Why:", "Example:", "Valid instead:", "Spec:"):
            assert heading in r.doc, (r.code, heading)
        assert r.section and r.summary and not r.needs_file


def test_fill_writes_a_record_as_opentraces_does_and_leaves_its_input() -> None:
    """`fill` of a record opentraces 0.2.1 wrote, its nulls, empty lists and hash taken out,
    gives the producer's bytes back (compact) as a new record; `twins` pairs the objects."""
    import orjson

    from atif_spec.formats.tao import fill, twins

    path = ROOT / "conformance/tao/v0.2.0/valid/opentraces-edit-with-thinking.json"
    written = json.loads(path.read_text(encoding="utf-8"))
    sparse = copy.deepcopy(written)
    del sparse["content_hash"], sparse["system_prompts"], sparse["security"]
    for step in sparse["steps"]:
        for key in [k for k, v in step.items() if v in (None, [])]:
            del step[key]
    before = orjson.dumps(sparse)
    filled = fill(sparse, "v0.2.0")
    assert orjson.dumps(filled) == orjson.dumps(written)
    assert orjson.dumps(sparse) == before
    pairs = {id(b): a for b, a in twins(sparse, filled)}
    assert pairs[id(sparse)] is filled
    assert pairs[id(sparse["steps"][0])] is filled["steps"][0]
    assert "security" not in sparse and id(filled["security"]) not in {
        id(a) for a in pairs.values()
    }
