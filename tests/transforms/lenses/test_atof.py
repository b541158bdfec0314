"""ATOF → ATIF: nvidia-nat-atif's own converter as the oracle, the stash, and the routes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import atif_spec
from atif_spec.cli import main
from atif_spec.conformance.suite import read_document
from atif_spec.jsonio.jsonequal import same_json
from atif_spec.transforms import driver
from atif_spec.transforms.lenses import ConversionError, convert
from atif_spec.transforms.lenses.atof import LENS, timestamp, tool_calls, usage
from atif_spec.transforms.stash import apply, detach, holder
from tests.support import ROOT

SUITE = ROOT / "conformance" / "atof" / "v0.1"
STEPLESS = {"single-mark.jsonl"}
"""A stream with no event that is a step: refused (ATIF needs a step; nat writes none: ATOF-L3)."""
FIXTURES = sorted(
    p for p in SUITE.glob("*/*.jsonl") if p.parent.name != "invalid" and p.name not in STEPLESS
)
INT_TIMES = {"parallel-tools-int-timestamps.jsonl"}
"""Streams with integer timestamps, which nat's own ATIF ``Step`` refuses (DECISIONS ATOF-L2)."""


def _view(doc: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What the oracle comparison looks at: each step's source and message, its tool calls
    (id, name, arguments) and its observation results (call id, content)."""
    return [
        (
            s["source"],
            s.get("message"),
            [
                (c["tool_call_id"], c["function_name"], c["arguments"])
                for c in s.get("tool_calls") or []
            ],
            [
                (r.get("source_call_id"), r.get("content"))
                for r in (s.get("observation") or {}).get("results", [])
            ],
        )
        for s in doc["steps"]
    ]


def _ours(path: Path) -> dict[str, Any]:
    out, _ = convert(read_document(path), to="atif@v1.7")
    return out


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_nat_converter_agrees_on_steps_tool_calls_and_results(path: Path) -> None:
    """On every valid and warning fixture our ATIF and nat's ``convert_file`` have the same steps,
    tool calls and results. Token usage: nat writes none; we write each response's ``usage`` as
    the step's ``metrics`` (ATOF-L1). Integer timestamps: nat's converter fails on its own ATIF
    model; we write RFC 3339 (ATOF-L2)."""
    nat = pytest.importorskip(
        "nat.atof.scripts.atof_to_atif_converter",
        reason="nvidia-nat-atif[full] is not installed (nox -s atof)",
    )
    ours = _ours(path)
    if path.name in INT_TIMES:
        with pytest.raises(ValueError, match="timestamp"):
            nat.convert_file(path)
        assert all(isinstance(s["timestamp"], str) for s in ours["steps"])
        return
    theirs = nat.convert_file(path).model_dump(exclude_none=True, mode="json")
    assert _view(ours) == _view(theirs)
    assert (ours["session_id"], ours["agent"]) == (theirs["session_id"], theirs["agent"])
    assert not any("metrics" in s for s in theirs["steps"])
    written = [s["metrics"] for s in ours["steps"] if "metrics" in s]
    ends = [
        e
        for e in read_document(path)
        if e.get("category") == "llm" and e.get("scope_category") == "end"
    ]
    assert written == [usage(e["data"]) for e in ends if usage(e["data"])]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_atif_is_valid_and_its_stash_gives_the_stream_back(path: Path) -> None:
    """ATOF → ATIF is lossless: the ATIF validates, and the stash (RFC.md §4.5) undone by the
    inverse step gives back the same events, byte for byte as JSON values."""
    events = read_document(path)
    out, report = convert(events, to="atif@v1.7")
    assert atif_spec.validate(out).valid
    assert not report.dropped
    source, layers = detach(out, holder("atif@v1.7"))
    (layer,) = layers
    assert layer["by"] == "atof@v0.1->atif@v1.7"
    rebuilt = LENS.backward(source, driver.Context(LENS.inverse.name, "convert"))
    back, conflicts = apply(rebuilt, layer["patch"])
    assert not conflicts
    assert same_json(back, events)


def test_a_stream_without_steps_is_refused_where_nat_writes_no_step() -> None:
    path = SUITE / "valid" / "single-mark.jsonl"
    with pytest.raises(ConversionError) as caught:
        convert(read_document(path), to="atif@v1.7")
    assert [f.code for f in caught.value.report.errors] == ["convert:no-steps"]
    nat = pytest.importorskip("nat.atof.scripts.atof_to_atif_converter")
    assert nat.convert_file(path).steps == []


def test_converts_on_to_every_atif_version_and_never_out_of_atif() -> None:
    events = read_document(SUITE / "valid" / "tool-calling-agent.jsonl")
    latest, _ = convert(events, to="atif@v1.8")
    assert latest["schema_version"] == "ATIF-v1.8"
    assert atif_spec.validate(latest).valid
    with pytest.raises(ConversionError, match="no conversion from atif to atof"):
        convert(_ours(SUITE / "valid" / "tool-calling-agent.jsonl"), to="atof@v0.1")


def test_cli_converts_a_stream_file(tmp_path: Path) -> None:
    out = tmp_path / "trajectory.json"
    source = SUITE / "valid" / "parallel-tools-int-timestamps.jsonl"
    result = CliRunner().invoke(main, ["convert", str(source), "--to", "atif@v1.8", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert atif_spec.validate(out).valid


def test_payload_shapes() -> None:
    flat = {"tool_calls": [{"id": "c", "name": "f", "arguments": '{"a": 1}'}]}
    nested = {
        "choices": [
            {"message": {"tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "x"}}]}}
        ]
    }
    assert tool_calls(flat) == [{"tool_call_id": "c", "function_name": "f", "arguments": {"a": 1}}]
    assert tool_calls(nested) == [
        {"tool_call_id": "c", "function_name": "f", "arguments": {"raw": "x"}}
    ]
    assert usage({"usage": {"input_tokens": 3, "output_tokens": 4}}) == {
        "prompt_tokens": 3,
        "completion_tokens": 4,
    }
    assert usage({"usage": {"total": 7}}) is None
    assert timestamp(1_767_225_600_001_000) == "2026-01-01T00:00:00.001000Z"
