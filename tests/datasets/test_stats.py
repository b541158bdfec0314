"""``atif stats``: the per-document numbers, adding up, the output formats and the schema."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from atif_spec.cli import main
from atif_spec.datasets import stats
from atif_spec.validation.reader import RawDocument
from tests.support import ROOT

SCHEMA = orjson.loads((ROOT / "spec/atif-spec/v1/dataset-stats.schema.json").read_bytes())


def _doc(**extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "coder", "version": "1", "model_name": "m-1"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "go", "timestamp": "2026-01-01T00:00:00Z"},
            {
                "step_id": 2,
                "source": "agent",
                "message": "",
                "timestamp": "2026-01-01T00:00:30Z",
                "tool_calls": [
                    {"tool_call_id": "a", "function_name": "bash", "arguments": {}},
                    {"tool_call_id": "b", "function_name": "read", "arguments": {}},
                ],
                "metrics": {
                    "prompt_tokens": 100,
                    "completion_tokens": 10,
                    "cached_tokens": 40,
                    "cost_usd": 0.1,
                },
            },
            {
                "step_id": 3,
                "source": "agent",
                "message": "copied",
                "is_copied_context": True,
                "metrics": {"prompt_tokens": 1000, "completion_tokens": 1000},
            },
            {
                "step_id": 4,
                "source": "agent",
                "message": "no call",
                "llm_call_count": 0,
                "timestamp": "2026-01-01T00:01:00Z",
            },
        ],
    }
    doc.update(extra)
    return doc


def _raw(doc: Any, name: str = "t.json") -> RawDocument:
    return RawDocument(name, orjson.dumps(doc))


def test_document_numbers_follow_the_totals_definition() -> None:
    record = stats.document_stats(_raw(_doc()))
    assert record["valid"] is True, record["findings"]
    assert record["version"] == "atif@v1.7"
    assert (record["model"], record["agent"]) == ("m-1", "coder")
    assert (record["steps"], record["agent_steps"]) == (4, 3)
    assert record["tool_calls"] == {"bash": 1, "read": 1}
    # The copied-context step's 1000 + 1000 tokens do not count (RFC.md §2.4).
    assert (record["prompt_tokens"], record["completion_tokens"]) == (100, 10)
    assert (record["cached_tokens"], record["tokens"]) == (40, 110)
    assert record["cost_usd"] == pytest.approx(0.1)
    assert record["duration_sec"] == 60.0
    assert (record["copied_context_steps"], record["zero_call_steps"]) == (1, 1)


def test_embedded_subagents_count() -> None:
    sub = _doc(trajectory_id="sub-1")
    record = stats.document_stats(_raw(_doc(subagent_trajectories=[sub])))
    assert record["steps"] == 8 and record["subagents"] == 1
    assert record["tool_calls"] == {"bash": 2, "read": 2}
    assert record["prompt_tokens"] == 200


def test_unreadable_and_invalid_documents_are_counted_with_findings() -> None:
    group = stats.Stats()
    group.add(stats.document_stats(RawDocument("bad.json", b"{not json")))
    group.add(stats.document_stats(_raw(_doc(steps="nope"))))
    out = group.to_dict()["total"]
    assert (out["documents"], out["valid"], out["invalid"]) == (2, 0, 2)
    assert out["findings"]["input:invalid-json"] == {"findings": 1, "documents": 1}
    assert any(c.startswith("schema:") for c in out["findings"])
    assert out["distributions"]["tokens"] is None


def test_other_formats_are_counted_through_atif() -> None:
    tao = next((ROOT / "conformance/tao/v0.2.0/valid").glob("*.json"))
    record = stats.document_stats(RawDocument(str(tao), tao.read_bytes(), None, tao))
    assert record["format"] == "tao" and record["counted"] is True
    assert record["steps"] > 0


def test_percentiles_are_exact_nearest_rank() -> None:
    values = list(range(1, 11))
    assert stats.percentile(values, 50) == 5
    assert stats.percentile(values, 90) == 9
    assert stats.percentile([7], 90) == 7
    assert stats.percentile([1, 2, 3], 50) == 2


def test_parts_merge_to_the_same_result_in_any_order() -> None:
    records = [
        stats.document_stats(_raw(_doc(agent={"name": f"a{i % 3}", "version": "1"})))
        for i in range(9)
    ]
    records[4]["cost_usd"] = 0.3
    whole = stats.Stats("agent")
    for r in records:
        whole.add(r)
    parts = [stats.Stats("agent") for _ in range(3)]
    for i, r in enumerate(reversed(records)):
        parts[i % 3].add(r)
    merged = stats.Stats("agent")
    for part in reversed(parts):
        merged.merge(stats.Stats.from_part(orjson.loads(orjson.dumps(part.to_part()))))
    assert merged.to_dict() == whole.to_dict()
    assert sorted(whole.to_dict()["groups"]) == ["a0", "a1", "a2"]


def _cli(*args: str) -> str:
    result = CliRunner().invoke(main, ["stats", *args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("by", [None, "model", "agent", "version", "format"])
def test_json_output_matches_its_schema(by: str | None) -> None:
    args = [str(ROOT / "conformance/atif/v1.7"), str(ROOT / "conformance/tao"), "--format", "json"]
    data = json.loads(_cli(*args, *(["--by", by] if by else [])))
    Draft202012Validator(SCHEMA).validate(data)
    assert data["by"] == by
    assert data["total"]["documents"] > 100 and data["total"]["invalid"] > 0
    if by:
        assert sum(g["documents"] for g in data["groups"].values()) == data["total"]["documents"]


def test_jsonl_dataset_and_csv(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(_doc()) for _ in range(3)) + b"\n{bad\n")
    rows = list(csv.DictReader(io.StringIO(_cli(str(path), "--format", "csv"))))
    assert rows[0]["group"] == "all"
    assert (rows[0]["documents"], rows[0]["invalid"], rows[0]["steps"]) == ("4", "1", "12")
    assert rows[0]["tool_calls"] == "bash=3;read=3"
    text = _cli(str(path))
    assert "prompt tokens" in text and "300" in text and "bash" in text


HOSTILE = ("\x1b]0;pwned\x07", "\x1b[2J", "a\rb", "x\n1 forged line", "\u202eevil")
"""Names that would change the terminal's title, clear it, overwrite or forge a line, reorder."""


@pytest.mark.parametrize("by", [None, "model", "agent"])
@pytest.mark.parametrize("fmt", ["text", "csv"])
def test_names_from_documents_are_escaped(tmp_path: Path, by: str | None, fmt: str) -> None:
    """Was: tool names, and model names with --by model, were printed raw."""
    path = tmp_path / "data.jsonl"
    docs = []
    for i, name in enumerate(HOSTILE):
        doc = _doc()
        doc["agent"] |= {"name": name, "model_name": name}
        doc["steps"][1]["tool_calls"][0]["function_name"] = name
        doc["session_id"] = f"s{i}"
        docs.append(orjson.dumps(doc))
    path.write_bytes(b"\n".join(docs) + b"\n")
    out = _cli(str(path), "--format", fmt, *(["--by", by] if by else []))
    for raw in ("\x1b", "\x07", "\r", "\u202e"):
        assert raw not in out, repr(out)
    assert "\\x1b]0;pwned\\x07" in out and "x\\n1 forged line" in out
    assert not any(line.startswith("1 forged line") for line in out.splitlines())
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(out)))
        assert len(rows) == 2 + (len(HOSTILE) if by else 0)
        assert all("\n" not in cell for row in rows for cell in row)


def test_parquet_input(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "data.parquet"
    pq.write_table(pa.table({"trajectory": [orjson.dumps(_doc()).decode()] * 2}), path)
    data = json.loads(_cli(str(path), "--format", "json"))
    assert data["total"]["documents"] == 2 and data["total"]["steps"] == 8


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["stats", str(tmp_path / "nope.json")])
    assert result.exit_code == 2
    assert "no such file" in result.output


def test_ray_engine_without_ray_is_a_usage_error_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util
    import sys

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a)
    )
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as if not installed
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_doc()), encoding="utf-8")
    result = CliRunner().invoke(main, ["stats", "--engine", "ray", str(path)])
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)  # a usage error, not a traceback
    errors = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert errors == [
        "Error: Invalid value for '--engine': the Ray engine is not installed: "
        "it needs the 'ray' extra (docs/USAGE.md, Optional extras)"
    ]
    assert "Traceback" not in result.output


def test_run_local_counts_its_documents_on_the_progress_line(tmp_path: Path) -> None:
    from atif_spec.datasets.progress import Progress, Total

    for name in ("a.json", "b.json"):
        (tmp_path / name).write_bytes(orjson.dumps(_doc()))
    screen = io.StringIO()
    files = [str(tmp_path / "a.json"), str(tmp_path / "b.json")]
    with Progress(True, "counted", Total(2), stream=screen) as bar:
        result = stats.run_local(files, progress=bar)
        assert result.to_dict()["total"]["documents"] == 2
        assert "counted 1/2 documents" in screen.getvalue()


CLAUDE_SESSION = (
    ROOT
    / "conformance/native/claude-code/task-subagent-session"
    / "7c41d2e8-0b9a-4f63-a5d1-2e8f4c9b1a70.jsonl"
)


def test_a_provider_stream_is_converted_in_memory_and_counted(tmp_path: Path) -> None:
    # validate recognizes it as one run (input:provider-stream); stats reads it as convert does.
    out = _cli(str(CLAUDE_SESSION))
    assert "empty document" not in out
    assert "1 provider stream(s) converted in memory" in out
    data = orjson.loads(_cli("--format", "json", str(CLAUDE_SESSION)))["total"]
    written = tmp_path / "converted.json"
    result = CliRunner().invoke(
        main, ["convert", str(CLAUDE_SESSION), "--to", "atif@v1.8", "-o", str(written)]
    )
    assert result.exit_code == 0, result.output
    converted = orjson.loads(written.read_bytes())
    assert data["documents"] == data["valid"] == data["counted"] == 1
    assert data["steps"] == converted["final_metrics"]["total_steps"] == 3
    assert data["tokens"]["prompt"] == converted["final_metrics"]["total_prompt_tokens"]
    assert data["findings"]["input:provider-stream"] == {"findings": 1, "documents": 1}


def test_a_stream_that_is_not_json_after_its_start_is_one_finding(tmp_path: Path) -> None:
    # Recognized from its first 50 lines; the 61st line is cut off.
    head = CLAUDE_SESSION.read_bytes().splitlines()[0]
    broken = tmp_path / "s.jsonl"
    broken.write_bytes((head + b"\n") * 60 + b"{cut\n")
    raw = next(iter(stats.read_documents(str(broken))))
    doc, report = stats.load(raw)
    assert doc is None and [f.code for f in report.findings] == ["input:invalid-json"]
    assert "line 61" in report.findings[0].message


def test_an_atof_stream_is_one_document_counted_through_its_lens() -> None:
    """An ATOF stream is a document itself (no provider-stream note): its steps, calls and tokens
    are those of its ATIF (the lens, spec/atof/MAPPING.md)."""
    path = ROOT / "conformance" / "atof" / "v0.1" / "valid" / "tool-calling-agent.jsonl"
    data = orjson.loads(_cli("--format", "json", str(path)))["total"]
    assert data["documents"] == data["valid"] == data["counted"] == 1
    assert data["steps"] == 4
    assert data["tokens"]["prompt"] == 40 + 70
    assert "input:provider-stream" not in data["findings"]
