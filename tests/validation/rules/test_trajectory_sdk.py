"""trajectory-sdk v0.4: schema, detection, rules and conformance fixtures."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import referencing
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, ValidationError

from atif_spec.formats import detect, get_format
from atif_spec.formats.trajectory_sdk import detect as sdk_detect
from atif_spec.schemas.catalog import load_catalog
from atif_spec.validation.findings import Level
from atif_spec.validation.rules import REGISTRY
from atif_spec.validation.rules.engine import run_rules
from atif_spec.validation.rules.registry import RuleContext
from tests.support import ROOT

SPEC = ROOT / "spec"
SCHEMA_PATH = SPEC / "trajectory-sdk" / "v0.4" / "trajectory.schema.json"
SCHEMA_ID = "https://atif-spec.org/schemas/trajectory-sdk/v0.4/trajectory.schema.json"
SUITE = ROOT / "conformance" / "trajectory-sdk" / "v0.4"
MANIFEST = json.loads((SUITE / "manifest.json").read_text())
CASES = MANIFEST["cases"]
FMT, VERSION = "trajectory-sdk", "v0.4"
SDK_RULES = [r for r in REGISTRY if r.format == FMT]
HEADINGS = ("*What it checks*", "*Why*", "*Example*", "*Valid instead*", "*Spec*")


def load(case: dict[str, Any]) -> Any:
    return json.loads((SUITE / case["path"]).read_text())


def registry() -> referencing.Registry[Any]:
    """Every schema below spec/, by $id; nothing is fetched."""
    resources = []
    for path in SPEC.rglob("*.schema.json"):
        schema = json.loads(path.read_text())
        if "$id" in schema:
            resources.append((schema["$id"], referencing.Resource.from_contents(schema)))
    return referencing.Registry().with_resources(resources)


SCHEMA = json.loads(SCHEMA_PATH.read_text())
VALIDATOR = Draft202012Validator(SCHEMA, registry=registry())


def by_category(*categories: str) -> list[Any]:
    return [pytest.param(c, id=c["id"]) for c in CASES if c["category"] in categories]


def expected(case: dict[str, Any], schema: bool | None = None) -> Counter[tuple[str, str]]:
    return Counter(
        (e["code"], e["pointer"])
        for e in case.get("expected", [])
        if schema is None or e["code"].startswith("schema:") == schema
    )


def rule_findings(doc: Any) -> Counter[tuple[str, str]]:
    return Counter((f.code, f.pointer) for f in run_rules(doc, FMT, VERSION))


def _ptr(path: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def schema_findings(error: ValidationError) -> list[tuple[str, str]]:
    """(code, pointer) for one python-jsonschema error, in the project's conventions."""
    where = _ptr(error.absolute_path)
    inst = error.instance
    if error.validator == "required" and isinstance(inst, dict):
        return [("schema:required", f"{where}/{n}") for n in error.validator_value if n not in inst]
    if error.validator == "additionalProperties" and isinstance(inst, dict):
        known = error.schema.get("properties", {})
        return [("schema:additionalProperties", f"{where}/{k}") for k in inst if k not in known]
    if error.validator == "anyOf" and inst is not None:
        # [X, null] with a non-null value: report the errors of the X branch.
        inner = [e for e in error.context or [] if e.schema_path and e.schema_path[0] == 0]
        if inner:
            return [f for e in inner for f in schema_findings(e)]
    if error.validator == "$ref":
        return [f for e in error.context or [] for f in schema_findings(e)]
    return [(f"schema:{error.validator}", where)]


def schema_result(doc: Any) -> Counter[tuple[str, str]]:
    return Counter(f for e in VALIDATOR.iter_errors(doc) for f in schema_findings(e))


# --- schema ------------------------------------------------------------------------------------


def test_schema_passes_metaschema() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$id"] == SCHEMA_ID


def test_every_object_and_property_has_title_and_description() -> None:
    missing: list[str] = []

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            is_object = node.get("type") == "object" or "properties" in node
            if is_object and not ("title" in node and "description" in node):
                missing.append(where)
            for name, prop in node.get("properties", {}).items():
                if not ("title" in prop and "description" in prop):
                    missing.append(f"{where}/properties/{name}")
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}/{i}")

    walk(SCHEMA, "#")
    assert missing == []


def test_schema_is_self_contained() -> None:
    refs = re.findall(r'"\$ref":\s*"([^"]+)"', SCHEMA_PATH.read_text())
    assert refs and all(r.startswith("#/$defs/") for r in refs)


@pytest.mark.parametrize("case", by_category("valid", "warning"))
def test_valid_and_warning_fixtures_pass_the_schema(case: dict[str, Any]) -> None:
    assert schema_result(load(case)) == Counter()


@pytest.mark.parametrize("case", by_category("invalid"))
def test_invalid_fixtures_fail_the_schema_exactly_as_expected(case: dict[str, Any]) -> None:
    assert schema_result(load(case)) == expected(case, schema=True)


def test_null_written_for_every_optional_key_is_accepted() -> None:
    doc = load(next(c for c in CASES if c["id"].endswith("valid-weather-example")))
    assert doc["reference_trajectory"] is None and doc["idx"] is None
    assert all(m["trainable_status"] == "not_trainable" for m in doc["steps"][2]["messages"])
    assert VALIDATOR.is_valid(doc)


def test_usage_with_nested_provider_details_is_valid() -> None:
    doc = load(next(c for c in CASES if c["id"].endswith("valid-weather-example")))
    usage = doc["steps"][2]["messages"][4]["usage"]
    usage["prompt_tokens_details"] = {"cached_tokens": 128}
    assert VALIDATOR.is_valid(doc)


def test_tuple_range_must_be_two_numbers() -> None:
    doc = load(next(c for c in CASES if c["id"].endswith("valid-weather-example")))
    doc["reward"]["components"][0]["range"] = [0.0]
    assert schema_result(doc) == Counter({("schema:minItems", "/reward/components/0/range"): 1})


# --- manifest ----------------------------------------------------------------------------------


def test_manifest_matches_manifest_schema() -> None:
    path = SPEC / "atif-spec" / "v1" / "conformance-manifest.schema.json"
    if not path.exists():
        pytest.skip("the conformance manifest schema is not in this tree")
    Draft202012Validator(json.loads(path.read_text())).validate(MANIFEST)


def test_manifest_lists_every_fixture_once() -> None:
    listed = [c["path"] for c in CASES]
    on_disk = sorted(
        str(p.relative_to(SUITE)) for p in SUITE.rglob("*.json") if p.name != "manifest.json"
    )
    assert sorted(listed) == on_disk
    assert len({c["id"] for c in CASES}) == len(CASES)
    assert len({c["description"] for c in CASES}) == len(CASES)
    assert all(
        c["id"] == f"trajectory-sdk-v0.4-{c['category']}-{Path(c['path']).stem}" for c in CASES
    )


@pytest.mark.parametrize("case", by_category("valid", "invalid", "warning"))
def test_expected_levels_match_category(case: dict[str, Any]) -> None:
    levels = {r.code: r.level for r in SDK_RULES}
    codes = [e["code"] for e in case.get("expected", [])]
    errors = [c for c in codes if c.startswith("schema:") or levels.get(c) is Level.ERROR]
    if case["category"] == "invalid":
        assert errors
    elif case["category"] == "warning":
        assert codes and not errors
    else:
        assert codes == []


# --- detection ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case",
    # a case with a target is validated as that target (a file without steps has no SDK shape)
    [p for p in by_category("valid", "invalid", "warning") if "target" not in p.values[0]],
)
def test_detection_fires_on_every_fixture(case: dict[str, Any]) -> None:
    doc = load(case)
    assert sdk_detect(doc) == VERSION
    assert detect(doc) == (FMT, VERSION)


def _atif_docs() -> list[Any]:
    docs: list[Any] = []
    for v in ("v1.0", "v1.5", "v1.7", "v1.8"):
        docs.append(
            {
                "schema_version": f"ATIF-{v}",
                "session_id": "s-1",
                "agent": {"name": "terminus-2", "version": "1.0.0"},
                "steps": [
                    {"step_id": 1, "source": "user", "message": "List files"},
                    {
                        "step_id": 2,
                        "source": "agent",
                        "message": "",
                        "tool_calls": [
                            {"tool_call_id": "c1", "function_name": "ls", "arguments": {}}
                        ],
                        "observation": {"results": [{"source_call_id": "c1", "content": "a.txt"}]},
                    },
                ],
            }
        )
    docs.append({"agent": {"name": "x", "version": "1"}, "steps": [{"step_id": 1}]})
    return docs


def _tao_docs() -> list[Any]:
    step = {"step_index": 0, "role": "user", "content": "Fix the failing test", "tool_calls": []}
    record = {
        "schema_version": "0.2.0",
        "trace_id": "0b9c5a2e-4f7d-4c1e-9a53-1f6f1b0d7e21",
        "session_id": "sess-42",
        "task": {"description": "Fix the failing test", "source": "user_prompt"},
        "agent": {"name": "claude-code", "version": "1.0.3", "model": "anthropic/claude-sonnet-4"},
        "steps": [step],
        "outcome": {},
        "metrics": {},
    }
    no_version = {k: v for k, v in record.items() if k != "schema_version"}
    bare = {"trace_id": "t", "session_id": "s", "steps": [step]}
    return [record, no_version, bare, {**no_version, "steps": []}]


def _run_logs() -> list[Any]:
    return [
        {
            "run_id": "task-17",
            "provider": "codex",
            "steps": [
                {
                    "step_id": "S1",
                    "step_index": 1,
                    "provider": "codex",
                    "message_role": "assistant",
                    "message_text": None,
                    "summary": "Pre-message tool activity",
                    "substeps": [{"substep_id": "S1.1", "type": "tool_call", "source": "provider"}],
                }
            ],
        },
        {"steps": [{"step_id": "S1", "message_text": "Listed files.", "substeps": []}]},
    ]


def _other_fixture_docs(fmt: str) -> list[Any]:
    docs: list[Any] = []
    for path in sorted((ROOT / "conformance" / fmt).rglob("*.json")):
        if path.name == "manifest.json":
            continue
        try:
            docs.append(json.loads(path.read_text()))
        except (ValueError, UnicodeDecodeError):
            continue
    return docs


@pytest.mark.parametrize(
    "doc",
    [
        *_atif_docs(),
        *_tao_docs(),
        *_run_logs(),
        *_other_fixture_docs("atif"),
        *_other_fixture_docs("tao"),
        *_other_fixture_docs("step-substep"),
    ],
)
def test_detection_never_fires_on_other_formats(doc: Any) -> None:
    assert sdk_detect(doc) is None


@pytest.mark.parametrize(
    "doc",
    [None, [], "steps", 3, {}, {"steps": {}}, {"task": {}}, {"steps": [1, "a"]}, {"steps": []}],
)
def test_detection_rejects_non_sdk_values(doc: Any) -> None:
    assert sdk_detect(doc) is None


def test_detection_accepts_empty_steps_with_sdk_task() -> None:
    assert sdk_detect({"task": {"conversation_id": "c"}, "steps": []}) == VERSION


def test_format_record() -> None:
    spec = get_format(FMT)
    assert spec.versions == (VERSION,)
    assert spec.version_field is None
    assert spec.priority == 60


# --- rules -------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", by_category("valid", "invalid", "warning"))
def test_rules_report_exactly_the_expected_findings(case: dict[str, Any]) -> None:
    assert rule_findings(load(case)) == expected(case, schema=False)


def test_every_rule_has_a_failing_fixture() -> None:
    fired = {e["code"] for c in CASES for e in c.get("expected", [])}
    assert {r.code for r in SDK_RULES} <= fired


@pytest.mark.parametrize("rule", SDK_RULES, ids=lambda r: r.code)
def test_each_rule_fires_alone_on_some_fixture(rule: Any) -> None:
    alone = [
        c for c in CASES if c.get("expected") and {e["code"] for e in c["expected"]} == {rule.code}
    ]
    assert alone, f"no fixture where {rule.code} is the only finding"
    for case in alone:
        got = rule_findings(load(case))
        assert set(code for code, _ in got) == {rule.code}


def test_registry_entries_are_well_formed() -> None:
    codes = [r.code for r in SDK_RULES]
    assert codes == sorted(codes) and len(set(codes)) == len(codes)
    assert all(re.fullmatch(r"TSDK[1-9]\d\d", c) for c in codes)
    names = [r.name for r in SDK_RULES]
    assert len(set(names)) == len(names)
    for r in SDK_RULES:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", r.name), r.name
        assert r.versions == (VERSION,)
        assert r.summary and r.section
        positions = [r.doc.find(h) for h in HEADINGS]
        assert all(p >= 0 for p in positions) and positions == sorted(positions), r.code


# Hand-made cases for the prefix logic.


def _m(role: str, content: str | None = None, **kw: Any) -> dict[str, Any]:
    return {"role": role, "content": content, **kw}


def _doc(*snapshots: list[dict[str, Any]]) -> dict[str, Any]:
    return {"task": {}, "steps": [{"messages": copy.deepcopy(s)} for s in snapshots]}


def _codes(doc: Any) -> list[tuple[str, str]]:
    return sorted((f.code, f.pointer) for f in run_rules(doc, FMT, VERSION))


CALL = _m("assistant", None, tool_calls=[{"name": "f", "arguments": {}, "id": "c1"}])
RESULT = _m("tool", "ok", tool_response={"id": "c1", "name": "f", "arguments": {}})


def test_run_of_system_messages_replaces_prefix() -> None:
    u, a = _m("user", "q"), _m("assistant", "a")
    s0, s1 = [_m("system", "A"), u], [_m("system", "A"), u, a]
    s2 = [_m("system", "B"), _m("system", "C"), u, a, _m("user", "q2"), CALL, RESULT]
    assert _codes(_doc(s0, s1, s2)) == []


def test_system_prefix_may_appear_without_an_initial_system_prompt() -> None:
    u, a = _m("user", "q"), _m("assistant", "a")
    assert _codes(_doc([u], [u, a], [_m("system", "B"), u, a, _m("user", "q2"), a])) == []


def test_broken_body_after_swap_points_past_new_prefix() -> None:
    u, a = _m("user", "q"), _m("assistant", "a")
    s2 = [_m("system", "B"), _m("system", "C"), u, _m("assistant", "other"), _m("assistant", "x")]
    got = _codes(_doc([_m("system", "A"), u], [_m("system", "A"), u, a], s2))
    assert got == [("TSDK101", "/steps/2/messages/3")]


def test_dropping_the_system_prefix_is_not_a_replacement() -> None:
    u, a = _m("user", "q"), _m("assistant", "a")
    got = _codes(_doc([_m("system", "A"), u], [u, a]))
    assert got == [("TSDK101", "/steps/1/messages/0")]


def test_swap_that_adds_nothing_is_reported() -> None:
    u, a = _m("user", "q"), _m("assistant", "a")
    got = _codes(_doc([_m("system", "A"), u], [_m("system", "A"), u, a], [_m("system", "B"), u, a]))
    assert got == [("TSDK104", "/steps/2/messages")]


def test_empty_tool_calls_counts_as_no_tool_calls() -> None:
    u = _m("user", "q")
    ends = _m("assistant", "a", tool_calls=[])
    assert _codes(_doc([u], [u, ends], [u, ends, _m("user", "q2")])) == []


def test_prefix_check_is_skipped_around_steps_without_messages() -> None:
    u = _m("user", "q")
    doc = _doc([u], [u, _m("assistant", "a")])
    doc["steps"].insert(1, {"messages": "not a list"})
    assert _codes(doc) == []


def test_embedded_base_prefixes_pointers() -> None:
    u = _m("user", "q")
    doc = _doc([u], [_m("user", "other"), _m("assistant", "a")])
    rule = next(r for r in SDK_RULES if r.code == "TSDK101")
    ctx = RuleContext(doc, "/items/0", VERSION, False)
    assert [p for p, _ in rule.check(ctx)] == ["/items/0/steps/1/messages/0"]


def test_long_conversation_has_no_findings() -> None:
    transcript = [_m("system", "s"), _m("user", "go")]
    snapshots = [list(transcript)]
    for i in range(150):
        calls = [{"name": "f", "arguments": {"i": i}, "id": f"c{i}"}]
        call = _m("assistant", None, tool_calls=calls)
        result = _m("tool", str(i), tool_response={"id": f"c{i}", "name": "f", "arguments": {}})
        transcript += [call, result]
        snapshots.append(list(transcript))
    doc = _doc(*snapshots)
    doc["metrics"] = {"steps": 151, "num_tool_calls": 150, "num_tool_failures": 0}
    assert _codes(doc) == []


# Rules never raise.

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "steps",
                    "messages",
                    "role",
                    "tool_calls",
                    "tool_response",
                    "id",
                    "name",
                    "task",
                    "metrics",
                    "telemetry",
                    "data",
                    "error",
                    "content",
                    "num_tool_calls",
                    "tool_error_rate",
                    "num_tool_failures",
                    "source",
                    "conversation_id",
                ]
            )
            | st.text(max_size=3),
            children,
            max_size=5,
        )
    ),
    max_leaves=30,
)
ROLES = st.sampled_from(["system", "user", "assistant", "tool", None, 1, [], {}])


def _run_every_rule(doc: Any) -> None:
    ctx = RuleContext(doc, "", VERSION, True)
    for r in SDK_RULES:
        for ptr, message in r.check(ctx):
            assert isinstance(ptr, str) and isinstance(message, str)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_rules_never_raise_on_any_json(doc: Any) -> None:
    _run_every_rule(doc)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(
            st.fixed_dictionaries(
                {"role": ROLES},
                optional={"tool_calls": JSON, "tool_response": JSON, "content": JSON},
            ),
            max_size=4,
        ),
        max_size=4,
    ),
    JSON,
)
def test_rules_never_raise_on_snapshot_shaped_garbage(snapshots: Any, metrics: Any) -> None:
    doc = {
        "task": metrics,
        "metrics": metrics,
        "telemetry": {"data": metrics},
        "steps": [{"messages": s} for s in snapshots],
    }
    _run_every_rule(doc)


def test_rules_never_raise_on_huge_numbers() -> None:
    doc = load(next(c for c in CASES if c["id"].endswith("valid-weather-example")))
    doc["metrics"].update(num_tool_calls=1, num_tool_failures=10**400, tool_error_rate=10**400)
    _run_every_rule(doc)


def test_full_pipeline_matches_manifest() -> None:
    """Once the catalog lists the schema, the validator reports exactly the expected findings."""
    assert FMT in load_catalog().formats
    from atif_spec.validation.pipeline import Options, validate_document

    for case in CASES:
        options = Options(as_target=case.get("target"))
        got = Counter(
            (f.code, f.pointer) for f in validate_document(load(case), options=options).findings
        )
        assert got == expected(case), case["id"]
