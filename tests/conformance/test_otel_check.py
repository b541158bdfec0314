"""conformance/otel_check.py: the strict OTLP/JSON line check and the span tree (issue 32)."""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from opentelemetry.proto.trace.v1.trace_pb2 import TracesData

from conformance.otel_check import (
    Node,
    compare,
    line_problems,
    parse,
    render,
    span_tree,
    strict_lines,
    to_json_line,
)
from tests.support import ROOT

TRACE = "5b8efff798038103d269b633813fc60c"
ROOT_SPAN, CHILD_SPAN = "eee19b7ec3c1b174", "eee19b7ec3c1b173"


def attribute(key: str, value: Any) -> dict[str, Any]:
    kind = "intValue" if isinstance(value, int) else "stringValue"
    return {"key": key, "value": {kind: str(value) if isinstance(value, int) else value}}


def traces(trace: str = TRACE) -> dict[str, Any]:
    """One valid TracesData: an invoke_agent span and a chat span under it."""
    agent = {
        "traceId": trace,
        "spanId": ROOT_SPAN,
        "name": "invoke_agent helper",
        "kind": 1,
        "startTimeUnixNano": "1000",
        "endTimeUnixNano": "5000",
        "attributes": [attribute("gen_ai.operation.name", "invoke_agent")],
        "status": {"code": 1},
    }
    chat = {
        "traceId": trace,
        "spanId": CHILD_SPAN,
        "parentSpanId": ROOT_SPAN,
        "name": "chat test",
        "kind": 3,
        "startTimeUnixNano": "2000",
        "endTimeUnixNano": "3000",
        "attributes": [
            attribute("gen_ai.operation.name", "chat"),
            attribute("gen_ai.usage.input_tokens", 51),
            attribute("gen_ai.usage.output_tokens", 4),
        ],
        "links": [{"traceId": TRACE, "spanId": ROOT_SPAN}],
    }
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [agent, chat]}]}]}


def write(tmp_path: Path, *documents: dict[str, Any]) -> Path:
    path = tmp_path / "traces.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
    return path


OTHER_TRACE = "0af7651916cd43dd8448eb211c80319c"


def test_a_valid_file_has_no_problem(tmp_path: Path) -> None:
    assert strict_lines(write(tmp_path, traces(), traces(OTHER_TRACE))) == []


def test_a_span_whose_ids_come_again_is_a_problem(tmp_path: Path) -> None:
    problems = strict_lines(write(tmp_path, traces(), traces(OTHER_TRACE), traces()))
    assert problems == [
        "line 3: span 'invoke_agent helper': its ids repeat a span of line 1",
        "line 3: span 'chat test': its ids repeat a span of line 1",
    ]


def chat_span(data: dict[str, Any]) -> dict[str, Any]:
    span: dict[str, Any] = data["resourceSpans"][0]["scopeSpans"][0]["spans"][1]
    return span


BASE64_TRACE = base64.b64encode(bytes.fromhex(TRACE)).decode()


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("traceId", BASE64_TRACE, "traceId"),  # proto3 JSON's bytes, not OTLP's hex
        ("traceId", TRACE + "00" * 8, "24 bytes, not 16"),
        ("spanId", "ab" * 9, "9 bytes, not 8"),
        ("parentSpanId", base64.b64encode(bytes.fromhex(ROOT_SPAN)).decode(), "parentSpanId"),
        ("spanId", "00" * 8, "all zeros"),
        ("kind", "SPAN_KIND_CLIENT", "kind 'SPAN_KIND_CLIENT' is not an integer"),
        ("status", {"code": "STATUS_CODE_OK"}, "status.code 'STATUS_CODE_OK' is not an integer"),
        ("trace_id", TRACE, "proto field name"),
    ],
)
def test_each_deviation_from_the_otlp_json_encoding_is_a_problem(
    tmp_path: Path, field: str, value: Any, expected: str
) -> None:
    data = traces()
    chat_span(data)[field] = value
    problems = strict_lines(write(tmp_path, traces(OTHER_TRACE), data))
    assert len(problems) == 1, problems
    assert problems[0].startswith("line 2: ") and expected in problems[0]


def test_a_link_with_a_base64_id_is_a_problem() -> None:
    data = traces()
    chat_span(data)["links"][0]["traceId"] = BASE64_TRACE
    assert ["link: traceId" in p for p in line_problems(json.dumps(data))] == [True]


def test_the_proto3_parser_alone_accepts_what_the_check_refuses() -> None:
    """Why the check exists: json_format reads hex as base64 (24 bytes) and enum names."""
    data = traces()
    chat_span(data).update(kind="SPAN_KIND_CLIENT")
    parsed = json_format.Parse(json.dumps(data), TracesData())
    span = parsed.resource_spans[0].scope_spans[0].spans[1]
    assert len(span.trace_id) == 24 and span.kind == 3
    assert line_problems(json.dumps(data)) != []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"resourceSpans": 3}', "does not parse into TracesData"),
    ],
)
def test_a_line_that_is_no_traces_data_is_a_problem(text: str, expected: str) -> None:
    problems = line_problems(text)
    assert len(problems) == 1 and expected in problems[0]


def test_a_file_without_lines_or_unreadable_is_a_problem(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    assert strict_lines(empty) == [f"{empty}: no line"]
    assert "cannot read" in strict_lines(tmp_path / "missing.jsonl")[0]


def test_the_span_tree_keeps_names_kinds_parents_and_the_facts_that_matter() -> None:
    data = traces()
    openinference = copy.deepcopy(chat_span(data))
    openinference.update(
        spanId="0000000000000001",
        name="lookup",
        kind=1,
        startTimeUnixNano="2500",
        attributes=[
            attribute("openinference.span.kind", "TOOL"),
            attribute("tool.name", "lookup"),
            attribute("llm.token_count.prompt", 7),
        ],
    )
    data["resourceSpans"][0]["scopeSpans"][0]["spans"].insert(0, openinference)
    (root,) = span_tree([json.dumps(data)])
    chat = Node(
        "chat test",
        "CLIENT",
        (("operation", "chat"), ("input_tokens", 51), ("output_tokens", 4)),
    )
    tool = Node(
        "lookup",
        "INTERNAL",
        (("openinference_kind", "TOOL"), ("tool_name", "lookup"), ("input_tokens", 7)),
    )
    assert root == Node(
        "invoke_agent helper", "INTERNAL", (("operation", "invoke_agent"),), (chat, tool)
    )
    assert (
        render([root]).splitlines()[1]
        == "  chat test [CLIENT] operation=chat input_tokens=51 output_tokens=4"
    )


def test_every_committed_producer_file_is_read() -> None:
    """The real producers' files of conformance/otel: pydantic-ai's are valid OTLP/JSON and
    hold a tree with chat and tool spans; harbor-atif2otel's break the encoding (enum names)."""
    folder = ROOT / "conformance" / "otel"
    pydantic_ai = sorted(folder.glob("pydantic-ai*.jsonl"))
    atif2otel = sorted(folder.glob("harbor-atif2otel*.jsonl"))
    assert pydantic_ai and atif2otel
    for path in pydantic_ai:
        assert strict_lines(path) == [], path
        nodes = [n for root in span_tree(path.read_text().splitlines()) for _, n in root.walk()]
        operations = {dict(n.facts).get("operation") for n in nodes}
        assert {"invoke_agent", "chat", "execute_tool"} <= operations, path
    for path in atif2otel:
        problems = strict_lines(path)
        assert any("'SPAN_KIND_INTERNAL' is not an integer" in p for p in problems), path


def phoenix_like(nodes: list[Node], kinds: dict[str, str]) -> list[Node]:
    """The tree as a receiver returns it: OpenInference kinds in place of OTel kinds."""
    return [
        Node(
            n.name,
            kinds.get(n.name, "UNKNOWN"),
            n.facts,
            tuple(phoenix_like(list(n.children), kinds)),
        )
        for n in nodes
    ]


KINDS = {"invoke_agent helper": "AGENT", "chat test": "LLM"}


def test_a_receivers_tree_with_the_expected_kinds_and_facts_compares_equal() -> None:
    sent = span_tree([json.dumps(traces())])
    result = compare(sent, phoenix_like(sent, KINDS))
    assert (
        result.ok and result.kinds == (2, 2) and result.tokens == (2, 2) and result.tools == (0, 0)
    )


def test_a_wrong_kind_a_lost_token_count_or_a_lost_span_fails_the_comparison() -> None:
    sent = span_tree([json.dumps(traces())])
    wrong_kind = compare(sent, phoenix_like(sent, {**KINDS, "chat test": "CHAIN"}))
    assert not wrong_kind.ok and wrong_kind.kinds == (1, 2)
    assert wrong_kind.problems == ("chat test: kind 'CHAIN', expected 'LLM'",)
    (root,) = phoenix_like(sent, KINDS)
    chat = root.children[0]
    fewer = Node(chat.name, chat.kind, (("operation", "chat"), ("input_tokens", 51)))
    lost_tokens = compare(sent, [Node(root.name, root.kind, root.facts, (fewer,))])
    assert lost_tokens.tree and lost_tokens.tokens == (1, 2) and not lost_tokens.ok
    lost_span = compare(sent, [Node(root.name, root.kind, root.facts)])
    assert not lost_span.tree and not lost_span.ok


def test_to_json_line_writes_hex_ids_and_integer_enums_that_read_back_the_same() -> None:
    line = to_json_line(parse(traces()))  # TracesData in memory (bytes ids, enum numbers)
    assert line_problems(line) == []
    span = chat_span(json.loads(line))
    assert span["traceId"] == TRACE and span["links"][0]["traceId"] == TRACE and span["kind"] == 3
    assert span_tree([line]) == span_tree([json.dumps(traces())])
