"""Run log (step-substep@v1.0) ↔ ATIF v1.7: round trips, native mapping, reports, refusals."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atif_spec.formats import detect
from atif_spec.jsonio.jsonequal import difference, same_json
from atif_spec.transforms.lenses import ConversionError, convert
from atif_spec.transforms.lenses.step_substep import (
    NO_MESSAGE_SUMMARY,
    TO_ATIF,
    TO_SSL,
    adopted_call_ids,
    interleave,
)
from atif_spec.transforms.stash import STASH_KEY
from atif_spec.validation.pipeline import Options, validate_document
from tests.support import ROOT
from tests.support.documents import ATIF_VERSIONS, dispatch_only
from tests.support.strategies import (
    free_objects,
    json_values,
    nonempty,
    shuffled,
    text,
    trajectories,
)

SSL = "step-substep@v1.0"
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SSL_DIR = ROOT / "conformance" / "step-substep" / "v1.0"


def _cases(fmt: str, version: str) -> list[Path]:
    """Valid and warning fixtures of a format version, from its manifest."""
    base = ROOT / "conformance" / fmt / version
    manifest = json.loads((base / "manifest.json").read_text())
    return [
        base / case["path"]
        for case in manifest["cases"]
        if case["category"] in ("valid", "warning")
    ]


SSL_FIXTURES = _cases("step-substep", "v1.0") + sorted((SSL_DIR / "legacy").glob("*.run-log.json"))
ATIF_FIXTURES = [p for v in ATIF_VERSIONS for p in _cases("atif", v) if not dispatch_only(p)]


def _load(path: Path) -> Any:
    return json.loads(path.read_text())


def _errors(doc: Any, target: str) -> list[str]:
    """Error findings of ``doc`` validated as ``target`` (schema and rules)."""
    report = validate_document(doc, options=Options(as_target=target, check_files=False))
    return [f"{f.code} {f.pointer}" for f in report.findings if f.level.value == "error"]


def _text(doc: Any) -> bytes:
    return orjson.dumps(doc)


def _layers(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The layers of the root stash (none without one), each checked to be a version-2 layer
    ``{by, wrote?, patch?}`` (RFC.md §4.5)."""
    extra = doc.get("extra")
    if not isinstance(extra, dict) or STASH_KEY not in extra:
        return []
    stash = extra[STASH_KEY]
    assert stash["version"] == 2
    for layer in stash["layers"]:
        assert isinstance(layer["by"], str) and set(layer) <= {"by", "wrote", "patch"}
    return list(stash["layers"])


def _patched(doc: dict[str, Any]) -> list[str]:
    """The paths of the patch operations (not ``test``) of every layer of the root stash."""
    return [
        op["path"] for layer in _layers(doc) for op in layer.get("patch", []) if op["op"] != "test"
    ]


def _stash_ok(doc: dict[str, Any]) -> None:
    _layers(doc)


def _round_trip_run_log(doc: dict[str, Any], **options: Any) -> dict[str, Any]:
    before = _text(doc)
    atif, _ = convert(doc, "atif@v1.7", **options)
    assert _text(doc) == before, "the lens changed its input"
    assert _errors(atif, "atif@v1.7") == []
    _stash_ok(atif)
    back, _ = convert(atif, SSL, **options)
    assert _errors(back, SSL) == []
    return back


SESSION_POLICY = "atif-session://{session_id}"
"""v1.6 session-only references need an explicit policy on the way up to v1.7."""


def _round_trip_atif(doc: dict[str, Any]) -> dict[str, Any]:
    found = detect(doc)
    assert found is not None and found[0] == "atif"
    before = _text(doc)
    run_log, _ = convert(doc, SSL, session_ref_path=SESSION_POLICY)
    assert _text(doc) == before, "the lens changed its input"
    assert _errors(run_log, SSL) == []
    _stash_ok(run_log)
    back, _ = convert(run_log, f"atif@{found[1]}")
    return back


# --- fixtures ---------------------------------------------------------------------------------


def test_fixture_lists_are_not_empty() -> None:
    assert len(SSL_FIXTURES) >= 10
    assert len(ATIF_FIXTURES) >= 100


@pytest.mark.parametrize("path", SSL_FIXTURES, ids=lambda p: str(p.relative_to(SSL_DIR)))
def test_run_log_fixture_to_atif_and_back_is_identical(path: Path) -> None:
    doc = _load(path)
    assert difference(doc, _round_trip_run_log(doc)) is None  # RFC.md §4.6


@pytest.mark.parametrize(
    "path", ATIF_FIXTURES, ids=lambda p: str(p.relative_to(ROOT / "conformance" / "atif"))
)
def test_atif_fixture_to_run_log_and_back_is_identical(path: Path) -> None:
    doc = _load(path)
    assert difference(doc, _round_trip_atif(doc)) is None  # RFC.md §4.6


def test_run_log_through_an_older_atif_version_and_back() -> None:
    doc = _load(SSL_DIR / "valid" / "tool-lifecycle.json")
    old, report = convert(doc, "atif@v1.5")
    assert old["schema_version"] == "ATIF-v1.5"
    assert _errors(old, "atif@v1.5") == []
    assert {i.step for i in report.stashed + report.named} >= {TO_ATIF, "atif@v1.7->atif@v1.6"}
    back, _ = convert(old, SSL)
    assert same_json(back, doc)


# --- the native mapping -----------------------------------------------------------------------


def test_run_log_steps_map_to_native_atif_fields() -> None:
    doc = _load(SSL_DIR / "valid" / "tool-lifecycle.json")
    atif, _ = convert(doc, "atif@v1.7")
    assert atif["session_id"] == "run-1"
    assert atif["agent"]["name"] == "codex"
    assert [s["step_id"] for s in atif["steps"]] == [1, 2, 3]
    assert [s["source"] for s in atif["steps"]] == ["agent", "agent", "agent"]
    first, second = atif["steps"][0], atif["steps"][1]
    assert first["message"] == ""
    assert first["timestamp"] == "2026-02-26T10:00:00Z"
    stamp = {"timestamp": "2026-02-26T10:00:00Z"}
    assert first["tool_calls"] == [
        {
            "tool_call_id": "c1",
            "function_name": "Bash",
            "arguments": {"command": "ls"},
            "extra": {**stamp, "command": "ls"},
        }
    ]
    assert first["observation"] == {
        "results": [
            {"source_call_id": "c1", "content": "README.md", "extra": {**stamp, "exit_code": 0}}
        ]
    }
    assert first["extra"] == {
        "completed_at": "2026-02-26T10:00:02Z",
        "outcome": "completed",
        "summary": "Pre-message tool activity",
        "legacy_turn_id": "T1",
    }
    assert second["message"] == "Running the tests now."
    assert [c["tool_call_id"] for c in second["tool_calls"]] == ["c2", "c3"]
    assert second["tool_calls"][0]["extra"]["sandbox"] == "workspace-write"
    assert second["tool_calls"][0]["extra"]["legacy_event_id"] == "T1.21"
    assert second["tool_calls"][1]["extra"]["retry_of_call_id"] == "c2"  # the retry, readable
    results = second["observation"]["results"]
    assert [(r["source_call_id"], r["content"], r["extra"]["exit_code"]) for r in results] == [
        ("c2", "1 failed", 1),
        ("c3", "1 passed", 0),
    ]
    # the retry marker, the status note and the artifact, as the run log has them
    kept = second["extra"]["run_log_substeps"]
    assert [(s["type"], s["substep_id"]) for s in kept] == [
        ("tool_retry", "S2.3"),
        ("status_update", "S2.6"),
        ("artifact", "S2.7"),
    ]
    assert second["model_name"] == "gpt-5.2-codex"  # lifted from the step's extra.model
    assert "model" not in second.get("extra", {})
    assert atif["extra"]["task_prompt"] == "fix the failing test"


def _usage_run_log(*, total_prompt: int = 10, user_metrics: bool = False) -> dict[str, Any]:
    """A run log as the provider-stream reader writes it: usage in named ``extra`` keys."""
    metrics = {"prompt_tokens": 10, "completion_tokens": 5}
    step = {
        "step_id": "S1",
        "step_index": 1,
        "provider": "claude",
        "message_role": "assistant",
        "message_text": "hi",
        "started_at": None,
        "completed_at": None,
        "outcome": None,
        "summary": None,
        "legacy_turn_id": None,
        "legacy_event_id": None,
        "substeps": [],
        "extra": {"message_ids": ["m1"], "model": "opus", "metrics": metrics, "usage": {}},
    }
    user = {**copy.deepcopy(step), "step_id": "S2", "step_index": 2, "message_role": "user"}
    user["extra"] = {"metrics": metrics} if user_metrics else {}
    final = {"total_prompt_tokens": total_prompt, "total_completion_tokens": 5}
    return {
        "run_id": "r1",
        "provider": "claude",
        "steps": [step, user],
        "extra": {"session_id": "r1", "model": "opus", "final_metrics": final},
    }


def test_run_log_usage_goes_to_atif_fields_and_back() -> None:
    """Issue 18 item 3: usage in named extra keys lands in ATIF's own fields. A lift is a field
    mapping both ways (the way back writes the same keys): the stash records nothing for it,
    and the way back restores the run log exactly."""
    doc = _usage_run_log()
    atif, report = convert(doc, "atif@v1.7")
    step = atif["steps"][0]
    assert step["metrics"] == {"prompt_tokens": 10, "completion_tokens": 5}
    assert step["model_name"] == "opus"
    assert step["extra"] == {"message_ids": ["m1"], "usage": {}}
    assert atif["agent"]["model_name"] == "opus"
    assert atif["final_metrics"] == {"total_prompt_tokens": 10, "total_completion_tokens": 5}
    assert validate_document(atif, options=Options(check_files=False)).findings == []
    assert report.stashed == report.named == []
    assert _layers(atif) == []
    assert same_json(_round_trip_run_log(doc), doc)


def test_lifted_and_named_keys_of_one_extra_leave_nothing_to_patch() -> None:
    """A step ``extra`` holding usage keys beside the producer's own keys, and receiving named
    keys (legacy ids): the lifts and the named keys come back without a patch."""
    doc = _usage_run_log()
    doc["steps"][0]["extra"] = {"model": "opus", "metrics": {"prompt_tokens": 1}, "cwd": "/x"}
    doc["steps"][0]["legacy_turn_id"] = "T1"
    atif, _ = convert(doc, "atif@v1.7")
    step = atif["steps"][0]
    assert step["model_name"] == "opus" and step["metrics"] == {"prompt_tokens": 1}
    assert step["extra"] == {"cwd": "/x", "legacy_turn_id": "T1"}
    assert _layers(atif) == [{"by": TO_ATIF, "wrote": ["/steps/0/extra/legacy_turn_id"]}]
    assert same_json(_round_trip_run_log(doc), doc)


def test_native_producer_rules_of_ssl_28() -> None:
    """SSL-28: the schema reference names the target's schema, images and the trajectory's id
    and agent settings are named keys of the run log, and the label of a step without text is
    not named on the way back: none of them leaves a patch operation."""
    atif_dir = ROOT / "conformance" / "atif" / "v1.7" / "valid"

    doc = json.loads((atif_dir / "schema-url.json").read_text())
    run_log, _ = convert(doc, SSL)
    assert run_log["$schema"] == (
        "https://atif-spec.org/schemas/step-substep/v1.0/run-log.schema.json"
    )
    assert "/$schema" not in _patched(run_log)
    assert same_json(_round_trip_atif(doc), doc)

    doc = json.loads((atif_dir / "rich.json").read_text())
    run_log, _ = convert(doc, SSL)
    assert run_log["extra"]["trajectory_id"] == doc["trajectory_id"]
    assert run_log["extra"]["agent_extra"] == doc["agent"]["extra"]
    assert run_log["steps"][1]["extra"]["message_parts"] == doc["steps"][1]["message"]
    assert run_log["steps"][1]["message_text"].startswith("Create a file")
    left = _patched(run_log)
    named = ("/trajectory_id", "/agent/extra", "/steps/1/message")
    assert not [p for p in left if p.startswith(named)], left
    assert same_json(_round_trip_atif(doc), doc)

    doc = json.loads((atif_dir / "empty-message.json").read_text())
    run_log, _ = convert(doc, SSL)
    assert run_log["steps"][3]["summary"] == "Tool activity without a message"
    assert _patched(run_log) == []
    atif, _ = convert(run_log, "atif@v1.7")
    assert "summary" not in atif["steps"][3].get("extra", {})
    # a run log's own such step keeps its label without a named key either
    run_log = json.loads((SSL_DIR / "valid" / "minimal.json").read_text())
    run_log["steps"][0]["message_text"] = None
    run_log["steps"][0]["summary"] = "Tool activity without a message"
    run_log["steps"][0]["substeps"] = [
        {
            "substep_id": "S1.1",
            "substep_index": 1,
            "type": "tool_call",
            "source": "provider",
            "call_id": "c1",
            "payload": {"tool_name": "ls", "tool_input": {}},
            "timestamp": None,
            "legacy_turn_id": None,
            "legacy_event_id": None,
        }
    ]
    atif, _ = convert(run_log, "atif@v1.7")
    assert "summary" not in atif["steps"][0].get("extra", {})
    assert same_json(_round_trip_run_log(run_log), run_log)


def test_atif_tool_step_with_usage_and_no_message_round_trips_through_a_run_log() -> None:
    """Harbor's Claude Code / Codex steps: an agent step with a model, metrics, an ``extra`` and
    tool calls but an empty message. The run log gets a synthesized summary and the usage keys
    beside the step's own ``extra`` keys; the way back gives the same ATIF document with no
    stash left."""
    doc = {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "a", "version": "1"},
        "steps": [
            {
                "step_id": 1,
                "source": "agent",
                "model_name": "m",
                "message": "",
                "tool_calls": [{"tool_call_id": "c1", "function_name": "Edit", "arguments": {}}],
                "metrics": {"prompt_tokens": 10},
                "extra": {"cwd": "/x"},
            }
        ],
    }
    run_log, _ = convert(doc, SSL)
    assert run_log["steps"][0]["summary"] == NO_MESSAGE_SUMMARY
    assert run_log["steps"][0]["extra"] == {
        "cwd": "/x",
        "model": "m",
        "metrics": {"prompt_tokens": 10},
    }
    back, report = convert(run_log, "atif@v1.7")
    assert same_json(back, doc)
    assert report.stashed == []


def test_usage_that_atif_would_flag_stays_in_extra() -> None:
    """Metrics on a non-agent step (ATIF forbids them) and totals that disagree with the steps
    (rule ATIF306) are not lifted; the run log still round-trips."""
    doc = _usage_run_log(total_prompt=11, user_metrics=True)
    atif, _ = convert(doc, "atif@v1.7")
    assert "metrics" not in atif["steps"][1]
    assert atif["steps"][1]["extra"]["metrics"]["prompt_tokens"] == 10
    assert "final_metrics" not in atif
    assert atif["extra"]["final_metrics"]["total_prompt_tokens"] == 11
    assert _errors(atif, "atif@v1.7") == []
    assert same_json(_round_trip_run_log(doc), doc)


def test_atif_usage_goes_to_named_run_log_extra_keys() -> None:
    """ATIF's own model names, metrics and totals become the run-log ``extra`` keys the
    provider-stream readers use (SSL-17), which the run-log→ATIF lens lifts back: a field
    mapping, with nothing stashed; a producer's own ATIF ``extra`` key at that name is left
    alone and the ATIF value is stashed."""
    atif, _ = convert(_usage_run_log(), "atif@v1.7")
    del atif["extra"]
    run_log, report = convert(atif, SSL)
    assert run_log["steps"][0]["extra"]["metrics"] == {"prompt_tokens": 10, "completion_tokens": 5}
    assert run_log["steps"][0]["extra"]["model"] == "opus"
    assert run_log["extra"]["model"] == "opus"
    assert run_log["extra"]["final_metrics"]["total_prompt_tokens"] == 10
    assert report.named == [] and report.stashed == []
    assert STASH_KEY not in json.dumps(run_log)
    assert same_json(_round_trip_atif(atif), atif)
    own = {**atif, "steps": [{**atif["steps"][0], "extra": {"metrics": {"prompt_tokens": 1}}}]}
    run_log, report = convert(own, SSL)
    assert run_log["steps"][0]["extra"]["metrics"] == {"prompt_tokens": 1}  # the producer's
    assert "/steps/0/metrics" not in {i.pointer for i in report.named}
    assert any(i.pointer.startswith("/steps/0/metrics") for i in report.stashed)
    assert same_json(_round_trip_atif(own), own)


def test_a_producers_own_atif_extra_keys_are_never_read_as_run_log_fields() -> None:
    """An ATIF ``extra.outcome`` no layer lists stays an ``extra`` key of the run log;
    a run-log ``extra.outcome`` (a producer's) makes the lens stash the step's outcome."""
    atif = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "a", "version": "1"},
        "steps": [{"step_id": 1, "source": "agent", "message": "hi", "extra": {"outcome": "x"}}],
    }
    run_log, _ = convert(atif, SSL)
    assert run_log["steps"][0]["outcome"] is None
    assert run_log["steps"][0]["extra"]["outcome"] == "x"
    doc = _load(SSL_DIR / "valid" / "minimal.json")
    doc["steps"][0]["extra"] = {"outcome": "mine"}
    out, report = convert(doc, "atif@v1.7")
    assert out["steps"][0]["extra"]["outcome"] == "mine"
    assert "/steps/0/outcome" in {i.pointer for i in report.stashed}
    assert "/steps/0/outcome" not in {i.pointer for i in report.named}
    assert same_json(_round_trip_run_log(doc), doc)


def test_a_producers_key_at_a_named_place_is_not_read_back() -> None:
    """The layer lists the named keys it wrote (``wrote``); a producer's own key of the same name
    at another step is not listed and never read back as the run log's field."""
    doc = _load(SSL_DIR / "valid" / "minimal.json")
    second = {**copy.deepcopy(doc["steps"][0]), "step_id": "S2", "step_index": 2}
    second["extra"] = {"outcome": "the producer's"}
    doc["steps"].append(second)
    atif, report = convert(doc, "atif@v1.7")
    layer = _layers(atif)[-1]
    assert "/steps/0/extra/outcome" in layer["wrote"]
    assert "/steps/1/extra/outcome" not in layer["wrote"]
    assert atif["steps"][1]["extra"]["outcome"] == "the producer's"
    assert "/steps/1/outcome" in {i.pointer for i in report.stashed}  # the run log's own value
    assert [i.to for i in report.named if i.pointer.endswith("/outcome")] == [
        "/steps/0/extra/outcome"
    ]
    assert same_json(_round_trip_run_log(doc), doc)
    del atif["extra"]  # without the layer, no extra key is a named key
    run_log, _ = convert(atif, SSL)
    assert [s["outcome"] for s in run_log["steps"]] == [None, None]


def test_an_edited_run_log_keeps_its_meaning_on_the_way_back() -> None:
    """A run log made from ATIF and then edited (an outcome set) still names the outcome in
    ATIF, and the named key comes back as the run log's field."""
    atif = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "a", "version": "1", "model_name": "m"},
        "steps": [{"step_id": 1, "source": "agent", "message": "hi", "reasoning_content": "r"}],
    }
    run_log, _ = convert(atif, SSL)
    run_log["steps"][0]["outcome"] = "failed"
    again, report = convert(run_log, "atif@v1.7")
    assert again["steps"][0]["extra"] == {"outcome": "failed"}
    assert again["steps"][0]["reasoning_content"] == "r"
    assert ("/steps/0/outcome", "/steps/0/extra/outcome") in {
        (i.pointer, i.to) for i in report.named
    }
    back, _ = convert(again, SSL)
    assert same_json(back, run_log)


def test_claude_content_parts_stay_native() -> None:
    doc = _load(SSL_DIR / "valid" / "claude-content-results.json")
    atif, _ = convert(doc, "atif@v1.7")
    results = atif["steps"][0]["observation"]["results"]
    assert results[0]["content"] == [{"type": "text", "text": "print('hi')"}]
    assert results[1]["content"] == "exit status 1"


def test_atif_steps_map_to_native_run_log_fields() -> None:
    doc = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s-9",
        "agent": {"name": "claude", "version": "2.1"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "list files"},
            {
                "step_id": 2,
                "timestamp": "2026-03-01T09:00:00Z",
                "source": "agent",
                "message": "",
                "tool_calls": [
                    {"tool_call_id": "a", "function_name": "Bash", "arguments": {"cmd": "ls"}},
                    {"tool_call_id": "b", "function_name": "Read", "arguments": {"p": "x"}},
                ],
                "observation": {
                    "results": [
                        {"source_call_id": "a", "content": "x"},
                        {"source_call_id": "b", "content": "hello"},
                    ]
                },
            },
        ],
    }
    run_log, _ = convert(doc, SSL)
    assert (run_log["run_id"], run_log["provider"]) == ("s-9", "claude")
    user, agent = run_log["steps"]
    assert (user["step_id"], user["message_role"], user["message_text"]) == (
        "S1",
        "user",
        "list files",
    )
    assert user["substeps"] == []
    assert agent["message_role"] == "assistant"
    assert agent["started_at"] == "2026-03-01T09:00:00Z"
    assert agent["summary"] == NO_MESSAGE_SUMMARY
    assert [(s["substep_id"], s["type"], s["call_id"]) for s in agent["substeps"]] == [
        ("S2.1", "tool_call", "a"),
        ("S2.2", "tool_output", "a"),
        ("S2.3", "tool_call", "b"),
        ("S2.4", "tool_output", "b"),
    ]
    assert agent["substeps"][0]["payload"] == {"tool_name": "Bash", "tool_input": {"cmd": "ls"}}
    assert agent["substeps"][3]["payload"] == {"content": "hello"}
    assert _errors(run_log, SSL) == []


def test_interleave_keeps_both_orders() -> None:
    def cid(x: tuple[str, str]) -> str:
        return x[1]

    calls = [("call", "a"), ("call", "b")]
    assert interleave(calls, [("res", "b"), ("res", "a")], cid) == [
        ("call", "a"),
        ("call", "b"),
        ("res", "b"),
        ("res", "a"),
    ]
    assert interleave(calls, [("res", "a"), ("res", "z"), ("res", "b")], cid) == [
        ("call", "a"),
        ("res", "a"),
        ("call", "b"),
        ("res", "z"),
        ("res", "b"),
    ]


# --- reports ----------------------------------------------------------------------------------


def test_report_of_a_minimal_run_log() -> None:
    doc = _load(SSL_DIR / "valid" / "minimal.json")
    atif, report = convert(doc, "atif@v1.7")
    assert (report.from_, report.to) == (SSL, "atif@v1.7")
    assert report.stashed == []
    assert {(i.pointer, i.to) for i in report.named} == {
        ("/steps/0/completed_at", "/steps/0/extra/completed_at"),
        ("/steps/0/outcome", "/steps/0/extra/outcome"),
    }
    assert all(i.step == TO_ATIF and not i.loss for i in report.named)
    assert atif["steps"][0]["extra"] == {
        "completed_at": "2026-02-26T10:00:03Z",
        "outcome": "completed",
    }
    assert [(i.pointer, i.value) for i in report.decided] == [("/agent/version", "unknown")]
    assert report.dropped == []
    # the named keys it wrote, and nothing to patch
    assert _layers(atif) == [
        {"by": TO_ATIF, "wrote": ["/steps/0/extra/completed_at", "/steps/0/extra/outcome"]}
    ]


def test_report_of_retries_status_notes_and_artifacts() -> None:
    doc = _load(SSL_DIR / "valid" / "tool-lifecycle.json")
    _, report = convert(doc, "atif@v1.7")
    named = {i.pointer: i.to for i in report.named}
    assert named["/steps/0/summary"] == "/steps/0/extra/summary"  # the synthetic step's label
    assert named["/steps/1/legacy_event_id"] == "/steps/1/extra/legacy_event_id"
    # retry marker, status note and artifact have no ATIF event: kept whole, in order
    assert named["/steps/1/substeps/2"] == "/steps/1/extra/run_log_substeps/0"
    assert named["/steps/1/substeps/6"] == "/steps/1/extra/run_log_substeps/2"
    assert named["/steps/0/substeps/0/payload/command"] == "/steps/0/tool_calls/0/extra/command"
    assert named["/steps/1/substeps/1/payload/exit_code"] == (
        "/steps/1/observation/results/0/extra/exit_code"
    )
    assert report.stashed == []  # a null message_text is what the way back writes for "" (SSL-27)
    assert ("/steps/0/message", "") in {(i.pointer, i.value) for i in report.decided}


def test_an_empty_atif_message_is_a_null_text() -> None:
    """SSL-27: no text is ``""`` in ATIF and null in a run log, both ways, with no stash."""
    atif = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "a", "version": "1"},
        "steps": [{"step_id": 1, "source": "agent", "message": ""}],
    }
    run_log, report = convert(atif, SSL)
    assert run_log["steps"][0]["message_text"] is None
    assert ("/steps/0/message_text", None) in [(i.pointer, i.value) for i in report.decided]
    assert report.stashed == []
    assert same_json(_round_trip_atif(atif), atif)


def test_report_of_an_atif_document_with_agent_only_fields() -> None:
    doc = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "a", "version": "1", "model_name": "m"},
        "steps": [
            {
                "step_id": 1,
                "source": "agent",
                "message": "hi",
                "reasoning_content": "think",
                "metrics": {"prompt_tokens": 3},
            }
        ],
    }
    run_log, report = convert(doc, SSL)
    named = {i.pointer: i.to for i in report.named}
    assert named == {"/steps/0/reasoning_content": "/steps/0/extra/reasoning_content"}
    assert run_log["extra"]["model"] == "m"  # the run log's usage keys (SSL-17): a mapping
    assert run_log["extra"]["agent_version"] == "1"
    assert run_log["steps"][0]["extra"] == {
        "reasoning_content": "think",
        "metrics": {"prompt_tokens": 3},
    }
    assert all(i.step == TO_SSL for i in report.stashed + report.named)
    decided = {i.pointer: i.value for i in report.decided}
    assert decided["/steps/0/outcome"] is None
    assert decided["/steps/0/started_at"] is None
    assert run_log["extra"][STASH_KEY]["layers"][-1]["by"] == TO_SSL
    back, back_report = convert(run_log, "atif@v1.7")
    assert same_json(back, doc)
    assert back_report.stashed == []
    assert back_report.decided == []  # agent.version "unknown" was undone by the stash


def test_drop_discards_instead_of_stashing() -> None:
    doc = _load(SSL_DIR / "valid" / "minimal.json")
    doc["steps"][0]["provider"] = "other"  # no ATIF field, no named key: stashed or dropped
    atif, report = convert(doc, "atif@v1.7", drop=True)
    assert STASH_KEY not in json.dumps(atif)
    assert report.stashed == []
    assert {i.pointer for i in report.dropped} == {"/steps/0/provider"}
    assert atif["steps"][0]["extra"]["outcome"] == "completed"  # named values stay readable
    back, _ = convert(atif, SSL)
    assert back["steps"][0]["outcome"] is None  # but are not read back without the stash
    assert back["steps"][0]["provider"] == "codex"


def test_fail_on_loss_and_on_decision_refuse() -> None:
    doc = _load(SSL_DIR / "valid" / "minimal.json")
    convert(doc, "atif@v1.7", fail_on_loss=True)  # named values are not lost (RFC §4.5.3 item 6)
    doc["steps"][0]["provider"] = "other"
    with pytest.raises(ConversionError) as loss:
        convert(doc, "atif@v1.7", fail_on_loss=True)
    assert loss.value.report.errors[0].code == "convert:would-lose-data"
    with pytest.raises(ConversionError) as decision:
        convert(doc, "atif@v1.7", fail_on_decision=True)
    assert decision.value.report.errors[0].code == "convert:needs-decision"


def test_empty_run_gets_a_placeholder_step_that_goes_away() -> None:
    doc = _load(SSL_DIR / "valid" / "empty-run.json")
    atif, report = convert(doc, "atif@v1.7")
    assert len(atif["steps"]) == 1
    assert "/steps/0" in {i.pointer for i in report.decided}
    assert "extra" not in atif  # the way back reads the placeholder as an empty run: no stash
    back, back_report = convert(atif, SSL)
    assert same_json(back, doc)
    assert [(i.pointer, i.value) for i in back_report.decided] == [("/steps", [])]
    # an ATIF trajectory whose only step is that placeholder is an empty run (SSL-26)
    run_log, report = convert({**atif, "session_id": "s"}, SSL)
    assert run_log["steps"] == [] and STASH_KEY not in json.dumps(run_log)
    assert ("/steps", []) in [(i.pointer, i.value) for i in report.decided]
    other = {**atif, "steps": [{**atif["steps"][0], "message": "hi"}]}
    assert len(convert(other, SSL)[0]["steps"]) == 1  # any other lone step is a step


# --- refusals ---------------------------------------------------------------------------------


def test_schema_invalid_source_is_refused() -> None:
    doc = _load(SSL_DIR / "invalid" / "unknown-outcome.json")
    with pytest.raises(ConversionError) as exc:
        convert(doc, "atif@v1.7")
    codes = [f.code for f in exc.value.report.errors]
    assert codes[0] == "convert:invalid-source"
    assert "schema:enum" in codes


def test_foreign_data_under_the_stash_key_is_refused() -> None:
    doc = copy.deepcopy(_load(SSL_DIR / "valid" / "minimal.json"))
    doc["extra"] = {STASH_KEY: "not a stash"}
    with pytest.raises(ConversionError) as exc:
        convert(doc, "atif@v1.7")
    assert exc.value.report.errors[0].code == "convert:stash-collision"


# --- properties -------------------------------------------------------------------------------

timestamps = st.builds(
    lambda d, h, s, frac, t, off: f"2026-02-{d:02d}{t}{h:02d}:15:{s:02d}{frac}{off}",
    st.integers(1, 28),
    st.integers(0, 23),
    st.integers(0, 60),
    st.sampled_from(["", ".25"]),
    st.sampled_from(["T", "t"]),
    st.sampled_from(["Z", "z", "+00:00", "-05:30"]),
)
maybe_time = st.none() | timestamps
legacy_turn = st.none() | st.integers(0, 99).map(lambda k: f"T{k}")
legacy_event = st.none() | st.tuples(st.integers(0, 9), st.integers(0, 99)).map(
    lambda kj: f"T{kj[0]}.{kj[1]}"
)
parts = st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": text}), max_size=2)


def _put(draw: Any, obj: dict[str, Any], key: str, values: st.SearchStrategy[Any]) -> None:
    if draw(st.booleans()):
        obj[key] = draw(values)


@st.composite
def substeps(draw: Any, sid: str) -> list[dict[str, Any]]:
    """Substeps of one step: calls, their results, retries, status notes and artifacts."""
    out: list[dict[str, Any]] = []
    calls: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["call", "result", "retry", "status", "artifact"]))
        call_id: Any = None
        if kind == "call":
            call_id = draw(st.none() | nonempty)
            payload: dict[str, Any] = {"tool_name": draw(text)}
            _put(draw, payload, "command", text)
            _put(draw, payload, "tool_input", free_objects | json_values)
            type_ = "tool_call"
            if isinstance(call_id, str):
                calls.append(call_id)
        elif kind == "result":
            call_id = draw(st.sampled_from(calls)) if calls and draw(st.booleans()) else None
            type_ = draw(st.sampled_from(["tool_output", "tool_error"]))
            if draw(st.booleans()):
                payload = {"exit_code": draw(st.integers(0, 3)), "output": draw(text)}
            else:
                payload = {
                    "content": draw(text | parts | json_values),
                    "is_error": draw(st.booleans()),
                }
        elif kind == "retry":
            type_, call_id = "tool_retry", draw(st.none() | nonempty)
            payload = {"retry_of_call_id": draw(st.none() | nonempty)}
        elif kind == "status":
            type_, payload = "status_update", {"message": draw(text)}
        else:
            type_, payload = "artifact", {"path": draw(text)}
        m = len(out) + 1
        sub: dict[str, Any] = {
            "substep_id": f"{sid}.{m}",
            "substep_index": m,
            "type": type_,
            "source": draw(st.sampled_from(["runner", "provider", "tool"])),
        }
        if call_id is not None or draw(st.booleans()):
            sub["call_id"] = call_id
        sub["payload"] = shuffled(draw, payload)
        sub["timestamp"] = draw(maybe_time)
        _put(draw, sub, "legacy_turn_id", legacy_turn)
        _put(draw, sub, "legacy_event_id", legacy_event)
        _put(draw, sub, "extra", usage_extras(("timestamp", "exit_code")))
        out.append(shuffled(draw, sub))
    return out


counts = st.integers(0, 50)
usage_values = {
    # named keys the lenses write: a producer's own value at that name is a collision
    "outcome": json_values,
    "completed_at": json_values,
    "timestamp": json_values,
    "exit_code": json_values,
    "run_log_substeps": json_values,
    "agent_version": text | json_values,
    "model": text | json_values,
    "metrics": st.fixed_dictionaries(
        {}, optional={"prompt_tokens": counts, "completion_tokens": counts}
    )
    | json_values,
    "final_metrics": st.fixed_dictionaries(
        {}, optional={"total_prompt_tokens": counts, "total_steps": st.integers(0, 4)}
    )
    | json_values,
}


@st.composite
def usage_extras(draw: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    """Free ``extra`` objects that sometimes hold the usage keys the lens lifts (§2.1)."""
    extra: dict[str, Any] = draw(free_objects)
    for key in keys:
        _put(draw, extra, key, usage_values[key])
    return shuffled(draw, extra)


@st.composite
def run_logs(draw: Any) -> dict[str, Any]:
    """Rule-valid run logs with every optional field sometimes absent, null or set."""
    provider = draw(nonempty)
    steps = []
    for n in range(1, draw(st.integers(0, 4)) + 1):
        sid = f"S{n}"
        step: dict[str, Any] = {
            "step_id": sid,
            "step_index": n,
            "provider": draw(st.just(provider) | nonempty),
            "message_role": draw(st.sampled_from(["assistant", "user", "system", "runner"])),
        }
        _put(draw, step, "message_text", st.none() | text)
        step["started_at"] = draw(maybe_time)
        _put(draw, step, "completed_at", maybe_time)
        step["outcome"] = draw(
            st.sampled_from([None, "completed", "failed", "interrupted", "timeout"])
        )
        _put(draw, step, "summary", st.none() | text)
        _put(draw, step, "legacy_turn_id", legacy_turn)
        _put(draw, step, "legacy_event_id", legacy_event)
        step["substeps"] = draw(substeps(sid))
        _put(draw, step, "extra", usage_extras(("model", "metrics", "outcome", "run_log_substeps")))
        blank = not (step.get("message_text") or "").strip()
        if blank and not (step.get("summary") or "").strip() and step["substeps"]:
            step["summary"] = "Pre-message tool activity"
        steps.append(shuffled(draw, step))
    doc: dict[str, Any] = {"run_id": draw(nonempty), "provider": provider, "steps": steps}
    _put(draw, doc, "extra", usage_extras(("model", "agent_version", "final_metrics")))
    return shuffled(draw, doc)


@SETTINGS
@given(run_logs())
def test_any_run_log_round_trips_through_atif(doc: dict[str, Any]) -> None:
    assert _errors(doc, SSL) == []  # the strategy draws valid run logs
    assert difference(doc, _round_trip_run_log(doc)) is None  # RFC.md §4.6


@SETTINGS
@given(st.sampled_from(ATIF_VERSIONS).flatmap(trajectories))
def test_any_atif_document_round_trips_through_a_run_log(doc: dict[str, Any]) -> None:
    assert difference(doc, _round_trip_atif(doc)) is None  # RFC.md §4.6


@SETTINGS
@given(trajectories("v1.7"))
def test_dropping_gives_valid_run_logs_without_a_stash(doc: dict[str, Any]) -> None:
    run_log, report = convert(doc, SSL, drop=True)
    assert _errors(run_log, SSL) == []
    assert STASH_KEY not in json.dumps(run_log)
    assert report.stashed == []


def test_tool_output_substeps_have_source_tool() -> None:
    """The run log's sources: a call is the provider's, its output the tool's."""
    doc = json.loads((ROOT / "conformance" / "atif" / "v1.7" / "valid" / "rich.json").read_text())
    run_log, _ = convert(doc, SSL)
    subs = [s for step in run_log["steps"] for s in step.get("substeps", [])]
    assert {(s["type"], s["source"]) for s in subs} == {
        ("tool_call", "provider"),
        ("tool_output", "tool"),
    }


def test_a_call_takes_the_id_of_the_result_that_answers_it() -> None:
    """gza's Gemini run logs put the call id on the output only (DECISIONS SSL-29)."""
    run_log = _load(SSL_DIR / "warning" / "call-ids-on-outputs-only.json")
    atif, report = convert(run_log, "atif@v1.7")
    step = atif["steps"][0]
    ids = ["shell_1", "grep_1", "read_1"]  # one after its call, then two after two calls
    assert [c["tool_call_id"] for c in step["tool_calls"]] == ids
    assert [r["source_call_id"] for r in step["observation"]["results"]] == ids
    adopted = [i for i in report.decided if i.reason.startswith("no call_id: the call_id")]
    assert [i.pointer for i in adopted] == [
        f"/steps/0/tool_calls/{k}/tool_call_id" for k in range(3)
    ]
    patched = _patched(atif)
    # a call and the output right after it come back in place: the patch keeps the call's
    # missing id and the output's own event time only (the two calls made at once come back
    # each followed by its output, so their order is restored by the patch, MAPPING.md §6)
    first = sorted(
        p for p in patched if p.startswith(("/steps/0/substeps/0/", "/steps/0/substeps/1/"))
    )
    assert first == ["/steps/0/substeps/0/call_id", "/steps/0/substeps/1/payload/timestamp"]
    assert same_json(_round_trip_run_log(run_log), run_log)


def test_ids_are_adopted_only_from_results_that_name_no_call() -> None:
    def subs(*events: tuple[str, str | None]) -> list[tuple[int, dict[str, Any]]]:
        return [(j, {"type": kind, "call_id": cid}) for j, (kind, cid) in enumerate(events)]

    # "a" answers the first call, and the later error naming "a" answers the same call; "b"
    # names a call; so the last call has no result of its own and keeps its substep id
    found = subs(
        ("tool_call", None),
        ("tool_output", "a"),
        ("tool_call", "b"),
        ("tool_output", "b"),
        ("tool_call", None),
        ("tool_error", "a"),
    )
    assert adopted_call_ids(found) == {0: "a"}
    assert adopted_call_ids(subs(("tool_output", "x"), ("tool_call", None))) == {}
