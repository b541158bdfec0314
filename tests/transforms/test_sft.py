"""SFT export: golden examples, the target/context rules, the example schema, the CLI, memory."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from atif_spec.cli.sft import export, export_sft
from atif_spec.transforms.sft import examples, is_target, pairing_problems, timeline
from atif_spec.validation.reader import LINE_BUFFER, read_file
from tests.support import ROOT
from tests.support.strategies import VERSIONS, json_values, trajectories

GOLDEN = ROOT / "conformance" / "sft"
CASES = sorted(p.name.removesuffix(".atif.json") for p in GOLDEN.glob("*.atif.json"))
SCHEMA = json.loads((ROOT / "spec/atif-spec/v1/sft-example.schema.json").read_text())
VALIDATOR = Draft202012Validator(SCHEMA)
ATIF_FIXTURES = sorted(
    p
    for p in (ROOT / "conformance" / "atif").glob("*/*/*.json")
    if p.parent.name in ("valid", "warning") and not p.name.startswith("large-")
)


def load(case: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / f"{case}.atif.json").read_text())
    return data


def roles(example: dict[str, Any]) -> list[str]:
    return [m["role"] for m in example["messages"]]


def schema_errors(example: Any) -> list[str]:
    return [e.message for e in VALIDATOR.iter_errors(example)]


@pytest.mark.parametrize("case", CASES)
def test_golden_examples(case: str) -> None:
    lines = (GOLDEN / f"{case}.examples.jsonl").read_text().splitlines()
    assert list(examples(load(case))) == [json.loads(line) for line in lines]


def test_golden_cases_cover_the_issue() -> None:
    assert {
        "copied-context",
        "deterministic-dispatch",
        "replace-boundary",
        "mid-run-system",
    } <= set(CASES)


def test_copied_context_is_context_never_a_target() -> None:
    out = list(examples(load("copied-context")))
    assert [e["metadata"]["pointer"] for e in out] == ["/steps/4", "/steps/5"]
    first = out[0]
    assert roles(first) == ["system", "user", "assistant", "tool", "user", "assistant"]
    assert first["messages"][2]["tool_calls"][0] == {
        "id": "c1",
        "type": "function",
        "function": {"name": "shell", "arguments": '{"cmd":"ls /data | wc -l"}'},
    }
    assert first["messages"][-1]["reasoning_content"] == "A glob on *.csv is enough."
    assert first["tools"][0]["function"]["name"] == "shell"


def test_deterministic_dispatch_is_context_never_a_target() -> None:
    out = list(examples(load("deterministic-dispatch")))
    # step 2 and step 5 have llm_call_count 0; step 4 aggregates two calls and is a target
    assert [e["metadata"]["step_id"] for e in out] == [3, 4]
    assert roles(out[0]) == ["user", "assistant", "tool", "assistant"]
    assert out[0]["messages"][1]["tool_calls"][0]["function"]["name"] == "lookup_city"
    assert "tools" not in out[0]


def test_replace_boundary_restarts_the_context() -> None:
    out = list(examples(load("replace-boundary")))
    assert [e["metadata"]["step_id"] for e in out] == [3, 4, 6, 7]
    after = out[2]
    assert after["messages"][0] == {
        "role": "system",
        "content": "Summary: the user asked to fix a failing test; add() in utils.py "
        "subtracts instead of adding.",
    }
    assert roles(after) == ["system", "assistant"]
    assert all(m.get("content") != "Context compacted." for e in out for m in e["messages"])
    assert roles(out[3]) == ["system", "assistant", "tool", "assistant"]


def test_mid_run_system_message_stays_in_place() -> None:
    out = list(examples(load("mid-run-system")))
    assert roles(out[1]) == ["system", "user", "assistant", "system", "user", "assistant"]
    assert out[1]["messages"][3]["content"] == "From now on, answer in French."


def test_subagents_give_their_own_examples_and_parts_are_kept() -> None:
    out = list(examples(load("subagent-and-images")))
    assert [e["metadata"]["pointer"] for e in out] == [
        "/steps/1",
        "/steps/2",
        "/subagent_trajectories/0/steps/1",
    ]
    assert out[0]["messages"][0]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "https://example.org/images/cat.png"},
    }
    # a result without source_call_id is not a chat message
    assert roles(out[1]) == ["user", "assistant", "tool", "assistant"]
    assert list(examples(load("subagent-and-images"), subagents=False)) == out[:2]


@pytest.mark.parametrize("case", CASES)
def test_golden_examples_match_the_schema(case: str) -> None:
    for example in examples(load(case)):
        assert schema_errors(example) == []
        assert pairing_problems(example["messages"]) == []


@pytest.mark.parametrize("path", ATIF_FIXTURES, ids=lambda p: "/".join(p.parts[-3:]))
def test_fixture_examples_match_the_schema(path: Path) -> None:
    doc = json.loads(path.read_text())
    for example in examples(doc):
        assert schema_errors(example) == []
        assert pairing_problems(example["messages"]) == []


def _learnable(step: dict[str, Any]) -> bool:
    """Written out again here, not taken from the exporter: a target has content or calls."""
    calls = step.get("tool_calls")
    return step.get("message") not in ("", [], None) or (isinstance(calls, list) and calls != [])


def _targets(doc: dict[str, Any]) -> int:
    own = sum(1 for s in doc["steps"] if is_target(s) and _learnable(s))
    subs = doc.get("subagent_trajectories")
    return own + sum(_targets(s) for s in subs) if isinstance(subs, list) else own


@settings(max_examples=150, suppress_health_check=list(HealthCheck), deadline=None)
@given(st.sampled_from(VERSIONS).flatmap(lambda v: trajectories(v)))
def test_one_valid_example_per_target(doc: dict[str, Any]) -> None:
    out = list(examples(doc))
    assert len(out) == _targets(doc)
    for example in out:
        assert example["messages"][-1]["role"] == "assistant"
        assert schema_errors(example) == []
        assert pairing_problems(example["messages"]) == []


@settings(max_examples=200, suppress_health_check=list(HealthCheck), deadline=None)
@given(st.dictionaries(st.sampled_from(["steps", "agent", "x"]), json_values) | json_values)
def test_never_raises_on_any_json(value: Any) -> None:
    list(examples(value))
    list(timeline(value))


def test_timeline_kinds() -> None:
    kinds = [(t.kind, t.index, t.trainable) for t in timeline(load("replace-boundary"))]
    assert kinds == [
        ("system", 0, False),
        ("user", 1, False),
        ("agent", 2, True),
        ("tool", 2, False),
        ("agent", 3, True),
        ("reset", 4, False),
        ("agent", 5, True),
        ("tool", 5, False),
        ("agent", 6, True),
    ]


# --- the CLI -----------------------------------------------------------------------------------


def test_cli_exports_files(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    inputs = [str(GOLDEN / f"{case}.atif.json") for case in CASES]
    result = CliRunner().invoke(export_sft, [*inputs, "-o", str(out)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    expected = sum(1 for case in CASES for _ in examples(load(case)))
    assert len(lines) == expected
    assert all(schema_errors(line) == [] for line in lines)
    assert lines[0]["metadata"]["source"].endswith("copied-context.atif.json")
    assert result.stderr.startswith(
        f"Exported {len(CASES)} of {len(CASES)} documents to {out}: {expected} examples ("
    )
    assert result.stderr.endswith("); 0 skipped.\n")
    assert len(result.stderr.splitlines()) == 1  # no line per document by default


def test_cli_verbose_prints_a_line_per_document_and_quiet_nothing_on_success(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out.jsonl"
    inputs = [str(GOLDEN / f"{case}.atif.json") for case in CASES]
    verbose = CliRunner().invoke(export_sft, [*inputs, "-o", str(out), "-v"])
    assert verbose.exit_code == 0, verbose.output
    *each, last = verbose.stderr.splitlines()
    assert [line.split(": ")[0] for line in each] == inputs
    assert all(line.split(": ")[1].split(" ")[1] in ("example", "examples") for line in each)
    assert last.startswith("Exported ")
    quiet = CliRunner().invoke(export_sft, [*inputs, "-o", str(out), "-q"])
    assert quiet.exit_code == 0 and quiet.stderr == ""
    assert out.read_bytes().count(b"\n") == sum(1 for case in CASES for _ in examples(load(case)))


def test_cli_quiet_prints_only_the_skipped_documents(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(orjson.dumps(load("mid-run-system")) + b"\nnot json\n")
    result = CliRunner().invoke(export_sft, [str(src), "-o", str(tmp_path / "o.jsonl"), "-q"])
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"{src}:2: skipped: ")


def test_cli_skips_invalid_documents_and_reads_jsonl(tmp_path: Path) -> None:
    good = load("mid-run-system")
    bad = {"schema_version": "ATIF-v1.7", "agent": {"name": "a"}, "steps": []}
    src = tmp_path / "in.jsonl"
    src.write_bytes(orjson.dumps(good) + b"\n" + orjson.dumps(bad) + b"\nnot json\n")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(export_sft, [str(src), "-o", str(out)])
    assert result.exit_code == 1
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["metadata"]["line"] for line in lines] == [1, 1]
    assert f"{src}:2: skipped" in result.stderr
    assert f"{src}:3: skipped" in result.stderr


def test_cli_converts_other_formats(tmp_path: Path) -> None:
    sdk = ROOT / "conformance/trajectory-sdk/v0.4/valid/weather-example.json"
    result = CliRunner().invoke(export_sft, [str(sdk), "-o", "-"])
    assert result.exit_code == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines and all(schema_errors(line) == [] for line in lines)
    assert lines[-1]["messages"][-1]["role"] == "assistant"


def test_cli_missing_input_leaves_no_output(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(export_sft, [str(tmp_path / "nope.json"), "-o", str(out)])
    assert result.exit_code == 2
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_export_streams_in_bounded_memory(tmp_path: Path) -> None:
    record = load("copied-context")
    record["steps"][0]["message"] = "x" * 2000
    line = orjson.dumps(record) + b"\n"
    src = tmp_path / "big.jsonl"
    count = 2000
    with src.open("wb") as fh:
        for _ in range(count):
            fh.write(line)
    size = src.stat().st_size
    written = 0

    def sink(data: bytes) -> None:
        nonlocal written
        written += len(data)

    warm = tmp_path / "warm.jsonl"
    warm.write_bytes(line * 3)
    export(read_file(str(warm)), lambda _: None, validate=False)  # imports and caches first
    tracemalloc.start()
    try:
        summary = export(read_file(str(src)), sink, validate=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert summary.examples == 2 * count
    assert written > size  # the output is larger than the input ...
    # ... yet neither was ever held in memory: the reader's fixed line buffer and a little more
    assert peak < LINE_BUFFER + size / 8


def test_export_sft_is_capped_by_default_and_0_lifts_the_cap(tmp_path: Path) -> None:
    """Was: gigabytes by default, a warning and on (issues 35, 36); the cap and its default are
    the ones `atif convert --to trajectory-sdk@v0.4` has."""
    from atif_spec.cli.options import DEFAULT_MAX_BYTES_OUT

    cap = next(p for p in export_sft.params if p.name == "max_bytes_out")
    assert cap.default == DEFAULT_MAX_BYTES_OUT
    source = ROOT / "conformance" / "atif" / "v1.7" / "valid" / "rich.json"
    out = tmp_path / "sft.jsonl"
    capped = CliRunner().invoke(export_sft, [str(source), "-o", str(out), "--max-bytes-out", "10"])
    assert capped.exit_code == 1 and "stopped at --max-bytes-out 10" in capped.output
    lifted = CliRunner().invoke(export_sft, [str(source), "-o", str(out), "--max-bytes-out", "0"])
    assert lifted.exit_code == 0, lifted.output
    assert out.read_bytes().count(b"\n") >= 1
