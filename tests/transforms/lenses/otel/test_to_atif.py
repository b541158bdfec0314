from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from atif_spec.formats import otel
from atif_spec.formats.totals import trajectory_totals
from atif_spec.jsonio.jsonequal import difference, same_json
from atif_spec.transforms.lenses import ConversionError, convert
from atif_spec.transforms.lenses.otel import common as c
from atif_spec.validation.pipeline import validate_document
from tests.transforms.lenses.otel.support import (
    OTEL_FIXTURES,
    attrs,
    fixture_id,
    load,
    strict,
    tree,
    usage,
)


def _fixture(name: str) -> dict[str, Any]:
    return load(next(p for p in OTEL_FIXTURES if p.name == name))


def _convention(path: Path) -> str:
    return "openinference" if "openinference" in path.name else "gen_ai"


@pytest.mark.parametrize("path", OTEL_FIXTURES, ids=fixture_id)
def test_otel_comes_back_the_same_json_through_atif(path: Path) -> None:
    doc = load(path)
    atif, _ = convert(doc, "atif@v1.8")
    assert validate_document(atif).errors == []
    back, _ = convert(atif, "otel")
    strict(back)
    assert same_json(back, doc), difference(back, doc)


@pytest.mark.parametrize("path", OTEL_FIXTURES, ids=fixture_id)
def test_without_the_stash_the_span_tree_and_token_totals_are_kept(path: Path) -> None:
    doc = load(path)
    atif, _ = convert(doc, "atif@v1.8", drop=True)
    back, _ = convert(atif, "otel", drop=True, otel_convention=_convention(path))
    strict(back)
    assert tree(back) == tree(doc)
    totals = trajectory_totals(atif)
    for field, attr in c.USAGE:
        assert usage(back, attr) == usage(doc, attr) == getattr(totals, field)


def test_repeated_history_is_read_once() -> None:
    atif, _ = convert(_fixture("gen-ai-full-history.json"), "atif@v1.8")
    steps = atif["steps"]
    assert [s["source"] for s in steps] == ["system", "user", "agent", "agent"]
    assert steps[2]["tool_calls"][0]["tool_call_id"] == "call_w1"
    assert steps[2]["observation"]["results"] == [
        {"source_call_id": "call_w1", "content": "18 C, cloudy"}
    ]
    assert steps[2]["model_name"] == "gpt-4o-2024-08-06"
    assert steps[2]["metrics"] == {
        "prompt_tokens": 120,
        "completion_tokens": 18,
        "cached_tokens": 64,
    }
    assert steps[3]["metrics"]["extra"] == {"reasoning_tokens": 4}
    assert atif["final_metrics"] == {"total_prompt_tokens": 270, "total_completion_tokens": 30}


def test_unplaced_spans_are_kept() -> None:
    atif, report = convert(_fixture("gen-ai-full-history.json"), "atif@v1.8")
    kept = atif["extra"][c.UNPLACED_KEY]
    assert [s["name"] for s in kept] == ["running tools"]
    assert f"/extra/{c.UNPLACED_KEY}" in [i.to for i in report.named]
    assert report.stashed  # the span ids and times no member holds


def test_unread_attributes_are_named_and_kept_without_the_stash() -> None:
    doc = _fixture("gen-ai-full-history.json")
    atif, report = convert(doc, "atif@v1.8", drop=True)
    kept = atif["steps"][2]["extra"][c.KEPT_KEY]
    assert kept["gen_ai.request.temperature"] == "0.2"  # the fixture writes it as text
    assert kept[c.PROVIDER] == "openai"  # not what the model name gives: kept
    assert "/steps/2/extra/otel_attributes" in [i.to for i in report.named]
    # no stash layer lists the named key, so the way back does not read it (RFC.md §4.5.5):
    # it stays in the step's extra, on the span as `atif.extra`
    back, _ = convert(atif, "otel", drop=True)
    chat = next(s for s in otel.spans(back) if s["name"].startswith("chat"))
    assert attrs(chat)[c.A_EXTRA][c.KEPT_KEY] == kept
    # with the stash, the named key is read back onto the span itself
    with_stash, _ = convert(doc, "atif@v1.8")
    edited = {**with_stash, "notes": "edited"}  # an edit: the way back maps, then patches
    again, _ = convert(edited, "otel")
    chat = next(s for s in otel.spans(again) if s["name"].startswith("chat"))
    assert attrs(chat)["gen_ai.request.temperature"] == "0.2"
    assert attrs(chat)[c.PROVIDER] == "openai"


def test_a_child_agent_under_a_tool_span_is_an_embedded_subagent() -> None:
    atif, _ = convert(_fixture("gen-ai-subagent.json"), "atif@v1.8")
    (sub,) = atif["subagent_trajectories"]
    assert sub["trajectory_id"] == "reader-1"
    assert sub["agent"]["name"] == "reader"
    result = atif["steps"][1]["observation"]["results"][0]
    assert result["subagent_trajectory_ref"] == [{"trajectory_id": "reader-1"}]
    assert [s["source"] for s in sub["steps"]] == ["user", "agent"]


def test_a_tool_span_without_a_call_joins_the_last_agent_step() -> None:
    atif, _ = convert(_fixture("openinference-tools.json"), "atif@v1.8")
    calls = atif["steps"][2]["tool_calls"]
    assert [call["function_name"] for call in calls] == ["send_reset", "audit_log"]
    assert calls[1]["arguments"] == {"event": "reset"}
    results = atif["steps"][2]["observation"]["results"]
    assert [r["content"] for r in results] == ["sent", "ok"]


def test_spans_of_one_trace_under_two_resources_keep_their_own() -> None:
    doc = _fixture("gen-ai-subagent.json")  # the sub-agent's spans from another service
    resource = doc["resourceSpans"][0]
    spans = resource["scopeSpans"][0]["spans"]
    service = [{"key": "service.name", "value": {"stringValue": "reader-service"}}]
    other = {"resource": {"attributes": service}, "scopeSpans": [{"scope": {"name": "sub"}}]}
    other["scopeSpans"][0]["spans"] = spans[3:]
    two = {"resourceSpans": [{**resource, "scopeSpans": [{"spans": spans[:3]}]}, other]}
    atif, report = convert(two, "atif@v1.8")
    plain, _ = convert(doc, "atif@v1.8", drop=True)
    dropped, _ = convert(two, "atif@v1.8", drop=True)
    assert dropped == plain  # the spans are read the same wherever they are
    assert "/resourceSpans/1" in [i.pointer for i in report.stashed]  # its resource, scope
    back, _ = convert(atif, "otel")
    assert same_json(back, two), difference(back, two)


def _trace(*trace_ids: str) -> dict[str, Any]:
    spans = [
        {"traceId": t, "spanId": f"{i + 1:016x}", "name": "x", "kind": 1}
        for i, t in enumerate(trace_ids)
    ]
    return {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}


def test_several_traces_are_refused() -> None:
    with pytest.raises(ConversionError) as caught:
        convert(_trace("1" * 32, "2" * 32), "atif@v1.8")
    assert caught.value.report.errors[0].code == "convert:otel-several-traces"


def test_no_span_is_refused() -> None:
    with pytest.raises(ConversionError) as caught:
        convert({"resourceSpans": []}, "atif@v1.8")
    assert caught.value.report.errors[0].code == "convert:otel-no-spans"


def test_an_enum_name_is_refused_as_invalid_source() -> None:
    doc = _trace("1" * 32)
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["kind"] = "SPAN_KIND_INTERNAL"
    with pytest.raises(ConversionError) as caught:
        convert(doc, "atif@v1.8")
    assert caught.value.report.errors[0].code == "convert:invalid-source"


def test_a_trace_without_agent_span_is_one_document() -> None:
    atif, _ = convert(_trace("1" * 32), "atif@v1.8")
    assert atif["agent"] == {"name": c.UNKNOWN, "version": c.UNKNOWN}
    assert [s["name"] for s in atif["extra"][c.UNPLACED_KEY]] == ["x"]
