from __future__ import annotations

from atif_spec.formats import otel
from atif_spec.jsonio.jsonequal import difference, same_json
from atif_spec.transforms.lenses import convert
from atif_spec.transforms.lenses.otel import common as c
from atif_spec.transforms.lenses.otel.openinference import (
    KIND,
    from_openinference,
    to_openinference,
)
from tests.transforms.lenses.otel.support import ATIF_FIXTURES, load, strict, to_otel


def _rich() -> dict:
    return load(next(p for p in ATIF_FIXTURES if str(p).endswith("v1.8/valid/rich.json")))


def test_round_trip_in_openinference() -> None:
    doc = _rich()
    out, _ = to_otel(doc, otel_convention="openinference")
    strict(out)
    kinds = {c.attributes_in(s["attributes"]).get(KIND) for s in otel.spans(out)}
    assert {"AGENT", "LLM", "TOOL"} <= kinds
    names = {k for s in otel.spans(out) for k in c.attributes_in(s["attributes"])}
    # OpenInference has no agent version: that one GenAI attribute stays
    assert {k for k in names if k.startswith("gen_ai.")} == {c.AGENT_VERSION}
    back, _ = convert(out, "atif@v1.8", otel_convention="openinference")
    assert same_json(back, doc), difference(back, doc)


def test_read_without_the_option_the_convention_is_named_and_written_again() -> None:
    out, _ = to_otel(_rich(), otel_convention="openinference", drop=True)
    atif, report = convert(out, "atif@v1.8")
    assert atif["extra"][c.CONVENTION_KEY] == "openinference"
    assert f"/extra/{c.CONVENTION_KEY}" in [i.to for i in report.named]
    again, _ = convert(atif, "otel")
    assert same_json(again, out), difference(again, out)


def test_the_attributes_come_back_from_openinference() -> None:
    attrs = {
        c.OPERATION: c.CHAT,
        c.REQUEST_MODEL: "m",
        "gen_ai.usage.input_tokens": 5,
        c.INPUT_MESSAGES: [{"role": "user", "parts": [{"type": "text", "content": "hi"}]}],
        c.OUTPUT_MESSAGES: [
            {
                "role": "assistant",
                "parts": [{"type": "tool_call", "id": "t", "name": "f", "arguments": {"a": 1}}],
            }
        ],
        c.A_COST: 0.5,
    }
    oi = to_openinference(attrs)
    assert oi[KIND] == "LLM"
    assert oi["llm.input_messages.0.message.content"] == "hi"
    assert oi["llm.output_messages.0.message.tool_calls.0.tool_call.function.name"] == "f"
    assert from_openinference(oi, "chat m") == attrs
    flat_only = {k: v for k, v in oi.items() if not k.startswith(("input.", "output."))}
    read = from_openinference(flat_only, "chat m")
    assert read[c.INPUT_MESSAGES] == attrs[c.INPUT_MESSAGES]
    assert read[c.OUTPUT_MESSAGES][0]["parts"] == attrs[c.OUTPUT_MESSAGES][0]["parts"]
