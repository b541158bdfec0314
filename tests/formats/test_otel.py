from __future__ import annotations

from typing import Any

import pytest

from atif_spec.formats import detect, otel
from atif_spec.validation.pipeline import validate_document
from tests.support.otlp import TRACE_A, TRACE_B, block, span, traces


def test_the_version_is_the_pinned_semconv_release() -> None:
    assert otel.VERSIONS == ("v1.41.0",)
    assert otel.SCHEMA_URL == "https://opentelemetry.io/schemas/1.41.0"


def _doc(**span: Any) -> dict[str, Any]:
    base = {
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": "b7ad6b7169203331",
        "name": "x",
    }
    return {"resourceSpans": [{"scopeSpans": [{"spans": [{**base, **span}]}]}]}


def test_detect() -> None:
    assert detect(_doc()) == ("otel", "v1.41.0")
    assert otel.detect({"resourceSpans": {}}) is None
    assert otel.spans(_doc(kind=1))[0]["kind"] == 1


@pytest.mark.parametrize(
    ("span", "where"),
    [
        ({"traceId": "b7ad6b7169203331"}, "traceId"),
        ({"spanId": "0af7651916cd43dd8448eb211c80319c"}, "spanId"),
        ({"spanId": "0000000000000000"}, "spanId"),
        ({"parentSpanId": "xyz"}, "parentSpanId"),
        ({"kind": "SPAN_KIND_INTERNAL"}, "kind"),
        ({"status": {"code": "STATUS_CODE_OK"}}, "code"),
        ({"start_time_unix_nano": "1"}, ""),
        ({"attributes": [{"key": "a", "value": {"stringValue": "x", "intValue": 1}}]}, "value"),
    ],
)
def test_ids_enum_names_and_snake_case_are_findings(span: dict[str, Any], where: str) -> None:
    assert validate_document(_doc()).errors == []
    errors = validate_document(_doc(**span)).errors
    assert errors and where in errors[0].pointer


def test_a_document_is_split_by_trace_each_span_under_its_own_blocks() -> None:
    doc = traces(
        block([span(TRACE_A, 1), span(TRACE_B, 2)], service="one"),
        block([span(TRACE_B, 3)], service="two", scope="other"),
        block([span(TRACE_A.upper(), 4)], service="three"),  # either case is one trace
    )
    parts = otel.by_trace(doc)
    assert parts is not None
    assert list(parts) == [TRACE_A, TRACE_B]  # order of first appearance
    assert parts[TRACE_A] == traces(
        block([span(TRACE_A, 1)], service="one"),
        block([span(TRACE_A.upper(), 4)], service="three"),
    )
    assert parts[TRACE_B] == traces(
        block([span(TRACE_B, 2)], service="one"), block([span(TRACE_B, 3)], "two", "other")
    )


@pytest.mark.parametrize(
    "doc",
    [traces(), traces(block([])), traces(block([{**span(TRACE_A, 1), "traceId": 7}]))],
    ids=["no-resource", "no-span", "trace-id-not-text"],
)
def test_a_document_without_spans_or_with_an_id_that_is_not_text_is_not_split(doc: Any) -> None:
    assert otel.by_trace(doc) is None


def test_joining_merges_equal_blocks_and_keeps_different_ones_apart() -> None:
    parts = [
        traces(block([span(TRACE_A, 1)])),
        traces(block([span(TRACE_A, 2)], service="other")),
        traces(block([span(TRACE_A, 3)]), block([span(TRACE_A, 4)], scope="lib2")),
    ]
    assert otel.joined(parts) == {
        "resourceSpans": [
            {
                **block([]),
                "scopeSpans": [
                    {"scope": {"name": "lib"}, "spans": [span(TRACE_A, 1), span(TRACE_A, 3)]},
                    {"scope": {"name": "lib2"}, "spans": [span(TRACE_A, 4)]},
                ],
            },
            block([span(TRACE_A, 2)], service="other"),
        ]
    }


def test_the_parts_of_a_split_document_join_into_it() -> None:
    doc = traces(block([span(TRACE_A, n) for n in range(1, 6)]))
    lines = [
        traces(block([span(TRACE_A, 1), span(TRACE_A, 2)])),
        traces(block([span(TRACE_A, 3)])),
        traces(block([span(TRACE_A, 4), span(TRACE_A, 5)])),
    ]
    assert otel.joined(lines) == doc
