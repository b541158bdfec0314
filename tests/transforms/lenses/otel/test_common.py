from __future__ import annotations

import pytest
from hypothesis import given

from atif_spec.jsonio.jsonequal import same_json
from atif_spec.transforms.lenses.otel import common as c
from tests.support.strategies import json_values


@given(json_values)
def test_any_value_codec_keeps_json(value: object) -> None:
    if value is None or (isinstance(value, float) and value != value):
        return
    assert same_json(c.decode(c.encode(value)), value)


@pytest.mark.parametrize(
    ("text", "nanos"),
    [
        ("2025-10-11T10:30:00Z", 1760178600 * 10**9),
        ("2025-10-11T10:30:00.123456789Z", 1760178600 * 10**9 + 123456789),
        ("2025-10-11T12:30:00.5+02:00", 1760178600 * 10**9 + 500_000_000),
        ("2025-10-11T10:30:00", 1760178600 * 10**9),
    ],
)
def test_timestamps_to_nanoseconds(text: str, nanos: int) -> None:
    assert c.nanos(text) == nanos
    assert c.nanos(c.iso(nanos)) == nanos


def test_unreadable_timestamps_are_none() -> None:
    assert c.nanos("yesterday") is None
    assert c.nanos(None) is None


def test_json_attributes_are_text_and_read_back() -> None:
    attrs = {c.TOOL_ARGUMENTS: {"a": [1, 2]}, c.TOOL_NAME: "f", "n": 3, "skip": None}
    out = c.attributes_out(attrs)
    assert out[0] == {"key": c.TOOL_ARGUMENTS, "value": {"stringValue": '{"a":[1,2]}'}}
    assert [kv["key"] for kv in out] == [c.TOOL_ARGUMENTS, c.TOOL_NAME, "n"]
    assert c.attributes_in(out) == {c.TOOL_ARGUMENTS: {"a": [1, 2]}, c.TOOL_NAME: "f", "n": 3}


def test_ids_have_their_lengths_and_depend_on_the_pointer() -> None:
    key = c.document_key({"a": 1})
    assert len(c.trace_id(key)) == 32
    assert len(c.span_id(key, "/steps/0")) == 16
    assert c.span_id(key, "/steps/0") != c.span_id(key, "/steps/1")
