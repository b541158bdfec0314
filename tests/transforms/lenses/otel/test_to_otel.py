from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from atif_spec.formats import otel
from atif_spec.formats.totals import trajectory_totals
from atif_spec.jsonio.jsonequal import difference, same_json
from atif_spec.transforms.lenses import convert
from atif_spec.transforms.lenses.otel import common as c
from atif_spec.transforms.migrations import migrate
from atif_spec.validation.pipeline import validate_document
from tests.support.documents import minimal_atif
from tests.transforms.lenses.otel.support import (
    ATIF_FIXTURES,
    attrs,
    fixture_id,
    load,
    strict,
    to_otel,
    usage,
)


@pytest.mark.parametrize("path", ATIF_FIXTURES, ids=fixture_id)
def test_every_fixture_is_strict_otlp_json_and_comes_back_the_same(path: Path) -> None:
    doc = load(path)
    out, _ = to_otel(doc)
    assert validate_document(out).errors == []
    strict(out)
    version = doc["schema_version"].removeprefix("ATIF-")
    back, _ = convert(out, f"atif@{version}", session_ref_path="{session_id}.json")
    migrated = doc
    if "ref-session-id-only" in path.name:  # the migration's policy adds the path: compare to it
        migrated, _ = migrate(doc, version, session_ref_path="{session_id}.json")
    assert same_json(back, migrated), difference(back, migrated)


@pytest.mark.parametrize("path", [p for p in ATIF_FIXTURES if "/v1.8/" in str(p)], ids=fixture_id)
def test_usage_equals_atif_totals(path: Path) -> None:
    doc = load(path)
    out, _ = to_otel(doc, drop=True)
    totals = trajectory_totals(doc)
    assert usage(out, "gen_ai.usage.input_tokens") == totals.prompt_tokens
    assert usage(out, "gen_ai.usage.output_tokens") == totals.completion_tokens
    assert usage(out, "gen_ai.usage.cache_read.input_tokens") == totals.cached_tokens


def _steps(*steps: dict[str, Any]) -> dict[str, Any]:
    doc = minimal_atif("v1.8")
    doc["steps"] = [{"step_id": i + 1, **s} for i, s in enumerate(steps)]
    return doc


def _spans(doc: dict[str, Any]) -> list[dict[str, Any]]:
    out, _ = to_otel(doc)
    return otel.spans(out)


def test_copied_context_and_dispatch_steps_carry_no_usage() -> None:
    metrics = {"prompt_tokens": 10, "completion_tokens": 2}
    doc = _steps(
        {"source": "agent", "message": "old", "is_copied_context": True, "metrics": metrics},
        {"source": "agent", "message": "ls", "llm_call_count": 0},
        {"source": "agent", "message": "new", "metrics": metrics},
    )
    spans = _spans(doc)
    names = [s["name"] for s in spans]
    assert names[1:] == [c.STEP_SPAN, c.STEP_SPAN, "chat"]
    assert [s["kind"] for s in spans[1:]] == [1, 1, 3]
    assert [attrs(s).get("gen_ai.usage.input_tokens") for s in spans[1:]] == [None, None, 10]


def test_only_new_messages_go_into_a_chat_span() -> None:
    doc = _steps(
        {"source": "system", "message": "be brief"},
        {"source": "user", "message": "hi"},
        {"source": "agent", "message": "hello"},
        {"source": "user", "message": "bye"},
        {"source": "agent", "message": "ciao"},
        {"source": "user", "message": "left over"},
    )
    spans = _spans(doc)
    inputs = [attrs(s).get(c.INPUT_MESSAGES) for s in spans[1:]]
    assert [[m["role"] for m in i] for i in inputs] == [["system", "user"], ["user"]]
    assert attrs(spans[0])[c.A_MESSAGES][0]["parts"][0]["content"] == "left over"


def test_ids_are_deterministic_and_unique() -> None:
    doc = load(
        next(p for p in ATIF_FIXTURES if p.name == "trajectory-id-reused-across-levels.json")
    )
    first, _ = to_otel(doc)
    again, _ = to_otel(doc)
    assert same_json(first, again)
    ids = [s["spanId"] for s in otel.spans(first)]
    assert len(ids) == len(set(ids)) > 3
    assert len({s["traceId"] for s in otel.spans(first)}) == 1
    other, _ = to_otel({**doc, "notes": "edited"})
    assert otel.spans(other)[0]["traceId"] != otel.spans(first)[0]["traceId"]


def test_provider_rule() -> None:
    assert c.provider("anthropic/claude-sonnet-4-5") == "anthropic"
    assert c.provider("gpt-4o") == c.UNKNOWN
    assert c.provider(None) == c.UNKNOWN


def test_synthesized_times_are_marked() -> None:
    doc = _steps(
        {"source": "agent", "message": "a"},
        {"source": "agent", "message": "b", "timestamp": "2025-01-01T00:00:01Z"},
        {"source": "agent", "message": "c"},
    )
    spans = _spans(doc)[1:]
    second = 1735689601 * 10**9
    assert [int(s["startTimeUnixNano"]) for s in spans] == [second - c.MS, second, second + c.MS]
    assert [attrs(s).get(c.A_SYNTHESIZED) for s in spans] == [True, None, True]
    assert [int(s["endTimeUnixNano"]) for s in spans] == [second, second + c.MS, second + c.MS]


def test_a_subagent_is_a_child_of_the_tool_span_that_launched_it() -> None:
    doc = load(
        next(p for p in ATIF_FIXTURES if str(p).endswith("v1.8/valid/embedded-subagent.json"))
    )
    out, _ = to_otel(doc)
    spans = otel.spans(out)
    by_id = {s["spanId"]: s for s in spans}
    subs = [s for s in spans[1:] if attrs(s).get(c.OPERATION) == c.INVOKE_AGENT]
    assert subs
    for sub in subs:
        assert attrs(by_id[sub["parentSpanId"]]).get(c.OPERATION) == c.EXECUTE_TOOL


def test_the_stash_is_the_root_span_attribute() -> None:
    doc = load(next(p for p in ATIF_FIXTURES if str(p).endswith("v1.8/valid/rich.json")))
    out, report = to_otel(doc)
    root = otel.spans(out)[0]
    assert "parentSpanId" not in root
    assert c.STASH_ATTRIBUTE in attrs(root)
    assert report.stashed
    dropped, _ = to_otel(doc, drop=True)
    assert c.STASH_ATTRIBUTE not in attrs(otel.spans(dropped)[0])
