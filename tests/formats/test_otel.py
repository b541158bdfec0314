from __future__ import annotations

from typing import Any

import pytest

from atif_spec.formats import detect, otel
from atif_spec.validation.pipeline import validate_document


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
