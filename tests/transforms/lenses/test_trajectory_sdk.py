"""ATIF ↔ trajectory-sdk conversion: round trips, the mapping's choices, refusals, the rules."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atif_spec.jsonio.jsonequal import difference, same_json
from atif_spec.jsonio.pointers import parse_pointer
from atif_spec.transforms.lenses import ConversionError, convert
from atif_spec.transforms.lenses.trajectory_sdk import (
    SUBAGENTS,
    TO_ATIF,
    TO_SDK,
    content_hash,
    cut,
    json_chunks,
)
from atif_spec.transforms.stash import STASH_KEY
from atif_spec.validation.pipeline import Options, validate_document
from tests.support import ROOT
from tests.support.documents import dispatch_only
from tests.support.strategies import VERSIONS, free_objects, text, trajectories

SDK_DIR = ROOT / "conformance" / "trajectory-sdk" / "v0.4"
SDK_FIXTURES = sorted(p for p in SDK_DIR.glob("*/*.json") if p.parent.name != "invalid")
ATIF_FIXTURES = sorted(
    p
    for p in (ROOT / "conformance" / "atif").glob("*/*/*.json")
    if p.parent.name in ("valid", "warning")
    and not p.name.startswith("large-")
    and not dispatch_only(p)
)
GOLDEN = sorted((ROOT / "conformance" / "sft").glob("*.atif.json"))


def ids(p: Path) -> str:
    return "/".join(p.parts[-3:])


def dumps(doc: Any) -> bytes:
    return orjson.dumps(doc)


def errors(doc: Any) -> list[tuple[str, str]]:
    report = validate_document(doc, options=Options(check_files=False))
    return [(f.code, f.pointer) for f in report.errors]


def atif_version(doc: dict[str, Any]) -> str:
    return "atif@" + str(doc["schema_version"]).removeprefix("ATIF-")


def at(doc: Any, pointer: str) -> Any:
    for token in parse_pointer(pointer):
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


def paths(layer: dict[str, Any]) -> set[str]:
    """The paths of a stash layer's patch operations (other than tests)."""
    return {op["path"] for op in layer.get("patch", []) if op["op"] != "test"}


@pytest.mark.parametrize("path", [*ATIF_FIXTURES, *GOLDEN], ids=ids)
def test_atif_round_trip_is_identity(path: Path) -> None:
    doc = json.loads(path.read_text())
    before = dumps(doc)
    # v1.6 session-only references need an explicit policy on the way up to v1.7
    sdk, _ = convert(doc, "trajectory-sdk@v0.4", session_ref_path="atif-session://{session_id}")
    assert dumps(doc) == before  # the input is untouched
    assert errors(sdk) == []
    # the way back (SDK → ATIF of a converted file) writes no named key: nothing for the patch
    # to take away again in an `extra`
    layers = sdk["telemetry"]["data"].get(STASH_KEY, {}).get("layers", [{}])
    ops = layers[-1].get("patch", [])
    assert not [op for op in ops if op["op"] == "remove" and "extra" in op["path"].split("/")]
    back, back_report = convert(sdk, atif_version(doc), fail_on_decision=True)
    assert difference(doc, back) is None  # RFC.md §4.6
    assert back_report.stashed == [] and back_report.dropped == []


@pytest.mark.parametrize("path", SDK_FIXTURES, ids=ids)
def test_sdk_round_trip_is_identity(path: Path) -> None:
    doc = json.loads(path.read_text())
    before = dumps(doc)
    atif, _ = convert(doc, "atif@v1.7")
    assert dumps(doc) == before  # the input is untouched
    assert errors(atif) == []
    back, back_report = convert(atif, "trajectory-sdk@v0.4")
    assert difference(doc, back) is None  # RFC.md §4.6
    assert back_report.stashed == [] and back_report.decided == []
    # through another ATIF version as well
    atif8, _ = convert(doc, "atif@v1.8")
    assert same_json(convert(atif8, "trajectory-sdk@v0.4")[0], doc)


def test_weather_example_becomes_atif_steps() -> None:
    doc = json.loads((SDK_DIR / "valid" / "weather-example.json").read_text())
    atif, report = convert(doc, "atif@v1.7")
    steps = atif["steps"]
    assert [s["source"] for s in steps] == ["system", "user", "agent", "agent"]
    call = steps[2]["tool_calls"][0]
    assert steps[2]["observation"]["results"][0]["source_call_id"] == call["tool_call_id"]
    assert atif["agent"]["name"] == "unknown"
    decided = {i.pointer for i in report.decided}
    assert {"/agent/name", "/agent/version"} <= decided
    layer = atif["extra"][STASH_KEY]["layers"][-1]
    assert layer["by"] == TO_ATIF
    # reward, task data and finish reasons are named keys, read back only where the layer's
    # `wrote` list (RFC.md §4.5) names them
    assert atif["extra"]["task"] == doc["task"]
    assert atif["extra"]["execution_metrics"] == doc["execution_metrics"]
    assert steps[3]["extra"]["finish_reason"] == "stop"
    assert {"/extra/task", "/steps/3/extra/finish_reason"} <= set(layer["wrote"])
    assert [i.to for i in report.named] == layer["wrote"]
    moved = {i.to: i.pointer for i in report.named}
    assert moved["/extra/task"] == "/task"
    assert moved["/steps/3/extra/finish_reason"].endswith("/finish_reason")
    assert "patch" not in layer  # the way back alone rebuilds the file


def test_tool_errors_are_named_and_producer_keys_never_misread() -> None:
    doc = json.loads((SDK_DIR / "valid" / "airline-rebooking-multi-turn.json").read_text())
    atif, _ = convert(doc, "atif@v1.7")
    errors = [
        r["extra"]["error"]
        for s in atif["steps"]
        for r in s.get("observation", {}).get("results", [])
        if "error" in r.get("extra", {})
    ]
    assert errors and all(isinstance(e, str) and e for e in errors)
    # a producer's own metadata key at a named place is kept, and its SDK field stashed
    last = doc["steps"][-1]["messages"]
    message = next(
        m for m in last if m["role"] == "assistant" and m["finish_reason"] and m["content"]
    )
    message["metadata"] = {"finish_reason": "producer's own"}
    for step in doc["steps"]:
        for m in step["messages"]:
            if m["content"] == message["content"] and m["role"] == "assistant":
                m["metadata"] = message["metadata"]
    atif, _ = convert(doc, "atif@v1.7")
    step = next(s for s in atif["steps"] if s.get("message") == message["content"])
    assert step["extra"]["finish_reason"] == "producer's own"
    # the producer's member is no named key (not in `wrote`): never read back; the SDK field
    # travels in the patch
    layer = atif["extra"][STASH_KEY]["layers"][-1]
    own = f"/steps/{step['step_id'] - 1}/extra/finish_reason"
    assert own not in layer["wrote"]
    assert any(p.endswith("/finish_reason") for p in paths(layer))
    back, _ = convert(atif, "trajectory-sdk@v0.4")
    assert same_json(back, doc)
    # an ATIF producer's own `extra.reward` is not read back as the SDK reward
    atif2 = json.loads(
        (ROOT / "conformance" / "atif" / "v1.7" / "valid" / "minimal.json").read_text()
    )
    atif2["extra"] = {"reward": {"aggregated_value": 9}}
    sdk, _ = convert(atif2, "trajectory-sdk@v0.4")
    assert sdk["reward"] is None
    again, _ = convert(sdk, "atif@v1.7")
    assert again == atif2


def test_the_way_back_writes_in_the_file_writers_style() -> None:
    """DECISIONS D25: the SDK's own writer (every key) and a writer that leaves out null and
    default members are both rebuilt without stash entries; what is left is the one value ATIF
    has no place for (the own id of a response to an id-less call)."""

    def layer(name: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        doc = json.loads((SDK_DIR / "valid" / name).read_text())
        atif, _ = convert(doc, "atif@v1.7")
        return doc, atif, atif["extra"][STASH_KEY]["layers"][-1]

    for name in ("weather-example.json", "airline-rebooking-multi-turn.json", "minimal.json"):
        assert "patch" not in layer(name)[2], name
    doc, atif, top = layer("keys-omitted-call-without-id.json")
    # the one message, repeated by two snapshots of the file, is replaced at both places
    assert [(op["op"], op["path"]) for op in top["patch"] if op["op"] != "test"] == [
        ("replace", "/steps/1/messages/2/tool_response/id"),
        ("replace", "/steps/2/messages/2/tool_response/id"),
    ]
    assert atif["steps"][1]["tool_calls"][0]["tool_call_id"] == "tsdk-1-0"  # decided
    del top["patch"]  # the inverse mapping alone
    back, _ = convert(atif, "trajectory-sdk@v0.4")
    assert back["steps"][1]["messages"][1]["tool_calls"] == [
        {"name": "convert", "arguments": {"value": 3, "from": "mi", "to": "km"}}
    ]
    response = back["steps"][2]["messages"][2]["tool_response"]
    assert response == {**doc["steps"][2]["messages"][2]["tool_response"], "id": "tsdk-1-0"}
    for i in (1, 2):
        back["steps"][i]["messages"][2]["tool_response"]["id"] = "convert-0"
    assert same_json(back, doc)


def test_a_system_prefix_replaced_by_an_equal_one_round_trips() -> None:
    """A later system step equal to the first one replaces the prefix with an equal message,
    which the way back cannot tell from no replacement: no named key is written on it (the
    way back would never read it), so both round trips hold without a layer left over."""
    extra = {"a": {"b": [False, None]}}
    system = {"source": "system", "message": "", "timestamp": "1970-01-01T00:00:01Z"}
    doc = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "a", "version": "1"},
        "steps": [
            {"step_id": 1, **system, "extra": extra},
            {"step_id": 2, "source": "user", "message": "hi"},
            {"step_id": 3, **system, "extra": extra},
        ],
    }
    sdk, _ = convert(doc, "trajectory-sdk@v0.4")
    back, _ = convert(sdk, "atif@v1.7")
    assert same_json(back, doc)
    again, _ = convert(back, "trajectory-sdk@v0.4")
    assert same_json(again, sdk)


def test_snapshots_are_cut_as_the_sdk_code_does() -> None:
    """ref §5 worked example: system, user, assistant(call), tool, assistant → 2, 4, 5."""
    doc = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "a", "version": "1"},
        "steps": [
            {"step_id": 1, "source": "system", "message": "sys"},
            {"step_id": 2, "source": "user", "message": "hi"},
            {
                "step_id": 3,
                "source": "agent",
                "message": "",
                "tool_calls": [{"tool_call_id": "c", "function_name": "f", "arguments": {}}],
                "observation": {"results": [{"source_call_id": "c", "content": "r"}]},
            },
            {"step_id": 4, "source": "agent", "message": "done"},
        ],
    }
    sdk, _ = convert(doc, "trajectory-sdk@v0.4")
    assert [len(s["messages"]) for s in sdk["steps"]] == [2, 4, 5]
    assert sdk["steps"][1]["messages"][2]["content"] is None  # "" with tool calls
    assert sdk["steps"][1]["messages"][3]["tool_response"] == {
        "id": "c",
        "name": "f",
        "arguments": {},
        "response": "r",
        "error": None,
        "metadata": None,
    }
    assert sdk["task"] == {
        "id": "atif:s",
        "data_source": "atif",
        "conversation_id": "s",
        "num_turns": 1,
        "num_steps": 3,
        "total_tokens": None,
        "total_cost": None,
    }
    assert sdk["telemetry"]["data"]["idempotency_key"] == (
        "atif:s:" + sdk["telemetry"]["data"]["content_hash"]
    )
    # snapshots share message objects: memory stays linear
    assert sdk["steps"][2]["messages"][0] is sdk["steps"][0]["messages"][0]


def test_training_targets_follow_atif_rules() -> None:
    copied = json.loads((ROOT / "conformance/sft/copied-context.atif.json").read_text())
    sdk, _ = convert(copied, "trajectory-sdk@v0.4")
    last = sdk["steps"][-1]["messages"]
    assistants = [m["trainable_status"] for m in last if m["role"] == "assistant"]
    assert assistants == ["not_trainable", "trainable", "trainable"]
    dispatch = json.loads((ROOT / "conformance/sft/deterministic-dispatch.atif.json").read_text())
    sdk, _ = convert(dispatch, "trajectory-sdk@v0.4")
    last = sdk["steps"][-1]["messages"]
    assistants = [m["trainable_status"] for m in last if m["role"] == "assistant"]
    assert assistants == ["not_trainable", "trainable", "trainable", "not_trainable"]
    assert sdk["steps"][0]["trainable_status"] == "not_trainable"


def test_replace_boundary_restarts_the_snapshots() -> None:
    doc = json.loads((ROOT / "conformance/sft/replace-boundary.atif.json").read_text())
    sdk, _ = convert(doc, "trajectory-sdk@v0.4")
    statuses = [s["trainable_status"] for s in sdk["steps"]]
    assert statuses == [
        "not_trainable",
        "trainable",
        "summarization_boundary",
        "trainable",
        "trainable",
    ]
    restart = sdk["steps"][3]["messages"]
    assert restart[0]["role"] == "system"
    assert restart[0]["content"].startswith("Summary:")
    assert [m["role"] for m in restart] == ["system", "assistant", "tool"]
    # all five tool calls of the transcript are counted across the restart
    assert sdk["metrics"]["num_tool_calls"] == 2
    report = validate_document(sdk, options=Options(check_files=False))
    assert report.errors == [] and report.warnings == []
    # a raw SDK file with a restart becomes a compaction boundary
    bare = json.loads(json.dumps(sdk))
    del bare["telemetry"]["data"][STASH_KEY]
    atif, atif_report = convert(bare, "atif@v1.7")
    boundary = [s for s in atif["steps"] if s.get("extra", {}).get("context_management")]
    assert len(boundary) == 1
    assert boundary[0]["observation"]["results"][0]["content"].startswith("Summary:")
    assert any(i.pointer.endswith("/extra/context_management") for i in atif_report.decided)


def test_mid_run_system_message_replaces_the_prefix() -> None:
    doc = json.loads((ROOT / "conformance/sft/mid-run-system.atif.json").read_text())
    sdk, _ = convert(doc, "trajectory-sdk@v0.4")
    firsts = [s["messages"][0]["content"] for s in sdk["steps"]]
    assert firsts[0] == "You are a helpful assistant."
    assert firsts[-1] == "From now on, answer in French."
    report = validate_document(sdk, options=Options(check_files=False))
    assert report.errors == [] and report.warnings == []


def test_drop_writes_no_stash_and_reports_every_item() -> None:
    doc = json.loads((ROOT / "conformance/sft/copied-context.atif.json").read_text())
    sdk, report = convert(doc, "trajectory-sdk@v0.4", drop=True)
    assert STASH_KEY not in sdk["telemetry"]["data"]
    assert report.stashed == []
    dropped = {i.pointer for i in report.dropped}
    assert "/steps/0/is_copied_context" in dropped
    # a named key is not a loss: written, reported as named, no stash entry
    assert sdk["telemetry"]["data"]["agent_name"] == doc["agent"]["name"]
    assert "/agent/name" in {i.pointer for i in report.named} and "/agent/name" not in dropped
    with pytest.raises(ConversionError) as info:
        convert(doc, "trajectory-sdk@v0.4", fail_on_loss=True)
    assert info.value.report.errors[0].code == "convert:would-lose-data"


def test_stash_layer_shape() -> None:
    doc = json.loads((ROOT / "conformance/sft/copied-context.atif.json").read_text())
    sdk, report = convert(doc, "trajectory-sdk@v0.4")
    assert set(sdk["telemetry"]["data"][STASH_KEY]) == {"version", "layers"}
    layer = sdk["telemetry"]["data"][STASH_KEY]["layers"][-1]
    assert layer["by"] == TO_SDK and set(layer) == {"by", "wrote", "patch"}
    # the agent's name is a named key of telemetry.data, read back because `wrote` lists it
    assert "/agent/name" not in paths(layer)
    assert "/telemetry/data/agent_name" in layer["wrote"]
    assert sdk["telemetry"]["data"]["agent_name"] == "terminus-2"
    assert {"op": "add", "path": "/steps/0/is_copied_context", "value": True} in layer["patch"]
    assert {i.pointer for i in report.stashed} == paths(layer)
    assert all(i.stash == "/telemetry/data" for i in report.stashed)


def test_unlinked_tool_response_is_refused() -> None:
    doc = json.loads((SDK_DIR / "invalid" / "tool-response-without-call.json").read_text())
    with pytest.raises(ConversionError) as info:
        convert(doc, "atif@v1.7")
    assert info.value.report.errors[0].code == "convert:unlinked-tool-response"


def test_broken_prefix_is_refused() -> None:
    doc = json.loads((SDK_DIR / "invalid" / "broken-prefix.json").read_text())
    with pytest.raises(ConversionError) as info:
        convert(doc, "atif@v1.7")
    assert info.value.report.errors[0].code == "convert:broken-prefix"


def test_restart_needs_a_summarization_boundary() -> None:
    good = json.loads((SDK_DIR / "valid" / "restart-after-summarization-boundary.json").read_text())
    assert errors(good) == []
    bad = json.loads(
        (SDK_DIR / "invalid" / "restart-without-summarization-boundary.json").read_text()
    )
    assert errors(bad) == [("TSDK101", "/steps/3/messages/1")]


def test_json_chunks_and_content_hash() -> None:
    doc = json.loads((ROOT / "conformance/sft/replace-boundary.atif.json").read_text())
    sdk, _ = convert(doc, "trajectory-sdk@v0.4")
    assert orjson.loads(b"".join(json_chunks(sdk))) == orjson.loads(dumps(sdk))

    def canon(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: canon(x) for k, x in v.items() if x is not None and k != "idx"}
        return [canon(x) for x in v] if isinstance(v, list) else v

    reduced = {k: sdk[k] for k in ("task", "steps", "reward", "metrics", "execution_metrics")}
    reduced["model_id"] = sdk["model_id"]
    expected = hashlib.sha256(
        json.dumps(
            canon(reduced), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode()
    ).hexdigest()
    assert content_hash(sdk) == expected == sdk["telemetry"]["data"]["content_hash"]


# --- properties --------------------------------------------------------------------------------


@settings(max_examples=150, suppress_health_check=list(HealthCheck), deadline=None)
@given(st.sampled_from(VERSIONS).flatmap(lambda v: trajectories(v)))
def test_atif_round_trip_property(doc: dict[str, Any]) -> None:
    before = dumps(doc)
    sdk, _ = convert(doc, "trajectory-sdk@v0.4", session_ref_path="atif-session://{session_id}")
    assert errors(sdk) == []
    converted = dumps(sdk)
    back, report = convert(sdk, atif_version(doc))
    assert difference(doc, back) is None  # RFC.md §4.6
    assert report.stashed == []
    assert (dumps(doc), dumps(sdk)) == (before, converted)  # the mappings share, never modify


def _msg(role: str, draw: Any, omit: bool, **fields: Any) -> dict[str, Any]:
    m: dict[str, Any] = {"role": role, "content": fields.pop("content", draw(text))}
    for key in ("tool_calls", "tool_response", "usage", "finish_reason", "metadata", "reasoning"):
        value = fields.get(key)
        if key == "metadata" and draw(st.booleans()):
            value = draw(free_objects)
        if key == "finish_reason" and role == "assistant" and draw(st.booleans()):
            value = "stop"
        if value is not None or not (omit and draw(st.booleans())):
            m[key] = value
    if not omit:
        m["trainable_status"] = draw(st.sampled_from(("not_trainable", "trainable")))
    return m


@st.composite
def sdk_documents(draw: Any) -> dict[str, Any]:
    """A valid trajectory-sdk file: a random conversation cut as the builder cuts it."""
    omit = draw(st.booleans())
    items: list[tuple[str, Any]] = [("message", _msg("system", draw, omit))]
    n_calls = 0
    for _ in range(draw(st.integers(1, 4))):
        items.append(("message", _msg("user", draw, omit)))
        for _ in range(draw(st.integers(0, 2))):
            calls = []
            for _ in range(draw(st.integers(1, 2))):
                n_calls += 1
                cid = None if draw(st.integers(0, 4)) == 0 else f"call_{n_calls}"
                calls.append({"name": f"f{n_calls}", "arguments": draw(free_objects), "id": cid})
            usage = {"prompt_tokens": 3, "completion_tokens": 2} if draw(st.booleans()) else None
            items.append(
                (
                    "message",
                    _msg("assistant", draw, omit, content=None, tool_calls=calls, usage=usage),
                )
            )
            for c in calls:
                response = {"id": c["id"] or "x", "name": c["name"], "arguments": {}}
                if draw(st.booleans()):
                    response["error"] = draw(st.sampled_from(("", "boom")))
                items.append(("message", _msg("tool", draw, omit, tool_response=response)))
        items.append(("message", _msg("assistant", draw, omit)))
        if draw(st.integers(0, 5)) == 0:
            items.append(("message", _msg("system", draw, omit)))
    steps = cut(items)
    for step in steps:
        step["messages"] = [dict(m) for m in step["messages"]]
        if omit:
            step.pop("trainable_status")
            step.pop("info")
        if draw(st.booleans()):
            step["reward"] = {"aggregated_value": 1.0, "aggregation_method": "identity"}
    doc: dict[str, Any] = {
        "task": {"id": "src:c", "data_source": "src", "conversation_id": "c"},
        "steps": steps,
    }
    if draw(st.booleans()):
        doc["reward"] = {"aggregated_value": 0.5, "components": [{"name": "score", "value": 0.5}]}
    if draw(st.booleans()):
        doc["telemetry"] = {"source": "src", "data": draw(free_objects)}
    if draw(st.booleans()):
        doc["model_id"] = draw(text)
    return doc


@settings(max_examples=150, suppress_health_check=list(HealthCheck), deadline=None)
@given(sdk_documents())
def test_sdk_round_trip_property(doc: dict[str, Any]) -> None:
    assert errors(doc) == []
    before = dumps(doc)
    atif, _ = convert(doc, "atif@v1.7")
    assert errors(atif) == []
    converted = dumps(atif)
    back, report = convert(atif, "trajectory-sdk@v0.4")
    assert difference(doc, back) is None  # RFC.md §4.6
    assert report.stashed == [] and report.decided == []
    assert (dumps(doc), dumps(atif)) == (before, converted)  # the mappings share, never modify


def test_atif_meaning_is_named_in_the_sdk_file() -> None:
    path = ROOT / "conformance" / "atif" / "v1.7" / "valid" / "context-compaction-replace.json"
    doc = json.loads(path.read_text())
    sdk, report = convert(doc, "trajectory-sdk@v0.4")
    boundary = next(s for s in doc["steps"] if "context_management" in s.get("extra", {}))
    metadata = [m["metadata"] or {} for st in sdk["steps"] for m in st["messages"]]
    policies = [m["context_management"] for m in metadata if "context_management" in m]
    assert policies and all(p == boundary["extra"]["context_management"] for p in policies)
    assert sdk["telemetry"]["data"]["agent_name"] == doc["agent"]["name"]
    stamps = {m["timestamp"] for m in metadata if "timestamp" in m}
    assert stamps and stamps <= {s.get("timestamp") for s in doc["steps"]}
    assert "/telemetry/data/agent_name" in {i.to for i in report.named}
    back, back_report = convert(sdk, "atif@v1.7")
    assert same_json(back, doc)
    assert not any(i.pointer.endswith("/context_management") for i in back_report.decided)
    # a producer's own key at a named place is never overwritten nor read back as the field
    own = json.loads(path.read_text())
    user = next(s for s in own["steps"] if s["source"] == "user" and "timestamp" in s)
    user["extra"] = {"timestamp": "producer's"}
    sdk, _ = convert(own, "trajectory-sdk@v0.4")
    kept = [m["metadata"] for st in sdk["steps"] for m in st["messages"] if m["metadata"]]
    assert {"timestamp": "producer's"} in kept
    layer = sdk["telemetry"]["data"][STASH_KEY]["layers"][-1]
    stamps = [p for p in layer["wrote"] if p.endswith("/metadata/timestamp")]
    assert stamps and all(at(sdk, p) != "producer's" for p in stamps)
    assert f"/steps/{user['step_id'] - 1}/timestamp" in paths(layer)
    again, _ = convert(sdk, "atif@v1.7")
    assert again == own


def test_embedded_subagents_become_sdk_trajectories() -> None:
    for name in ("embedded-subagent.json", "embedded-subagent-two-levels.json"):
        path = ROOT / "conformance" / "atif" / "v1.7" / "valid" / name
        doc = json.loads(path.read_text())
        sdk, report = convert(doc, "trajectory-sdk@v0.4")
        data = sdk["telemetry"]["data"]
        inner = data["subagent_trajectories"]
        assert len(inner) == len(doc["subagent_trajectories"])
        for sub, atif_sub in zip(inner, doc["subagent_trajectories"], strict=True):
            # a whole SDK trajectory, valid on its own, that names its ATIF identity
            assert errors(sub) == []
            assert sub["telemetry"]["data"]["trajectory_id"] == atif_sub["trajectory_id"]
            assert sub["telemetry"]["data"]["agent_name"] == atif_sub["agent"]["name"]
            texts = {m["content"] for m in sub["steps"][-1]["messages"]}
            assert {s["message"] for s in atif_sub["steps"]} <= texts
        # the subagent's own messages stay out of the parent's snapshots
        own = {s["message"] for s in doc["steps"]} | {
            r["content"] for s in doc["steps"] for r in s.get("observation", {}).get("results", [])
        }
        only_sub = {m["content"] for m in inner[0]["steps"][-1]["messages"]} - own
        assert only_sub and not only_sub & {m["content"] for m in sdk["steps"][-1]["messages"]}
        refs = [
            m["tool_response"]["metadata"]["subagent_trajectory_ref"]
            for m in sdk["steps"][-1]["messages"]
            if m["role"] == "tool"
            and (m["tool_response"]["metadata"] or {}).get("subagent_trajectory_ref")
        ]
        assert refs and all(
            r[0]["trajectory_id"] in {s["telemetry"]["data"]["trajectory_id"] for s in inner}
            for r in refs
        )
        layer = data[STASH_KEY]["layers"][-1]
        # no subagent travels whole in the stash (at most values ATIF→SDK drops)
        whole = {"/subagent_trajectories"} | {
            f"/subagent_trajectories/{i}" for i in range(len(inner))
        }
        assert not paths(layer) & whole
        assert any(p.startswith(f"{SUBAGENTS}/0/") for p in layer["wrote"])
        assert "/subagent_trajectories" in {i.pointer for i in report.named}
        back, _ = convert(sdk, "atif@v1.7")
        assert same_json(back, doc)
        # a producer's own `telemetry.data.subagent_trajectories` is not read as subagents
        native = json.loads((SDK_DIR / "valid" / "weather-example.json").read_text())
        native["telemetry"]["data"]["subagent_trajectories"] = [{"not": "a subagent"}]
        atif, _ = convert(native, "atif@v1.7")
        assert "subagent_trajectories" not in atif
        assert convert(atif, "trajectory-sdk@v0.4")[0] == native
