"""`atif render` and `atif convert` (legacy turn logs to step-substep) from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from atif_spec.cli import main
from atif_spec.jsonio.atomic import write_atomic
from tests.support import ROOT

LEGACY = ROOT / "conformance" / "step-substep" / "v1.0" / "legacy"
CASES = json.loads((LEGACY / "index.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_convert_legacy_matches_golden_run_log(case: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    result = CliRunner().invoke(
        main, ["convert", str(LEGACY / case["input"]), "--to", "step-substep@v1.0", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == (LEGACY / case["run_log"]).read_bytes()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_render_matches_golden_timelines(case: dict[str, str]) -> None:
    for flag, key in (([], "compact"), (["--verbose"], "verbose")):
        result = CliRunner().invoke(main, ["render", str(LEGACY / case["input"]), *flag])
        assert result.exit_code == 0, result.output
        assert result.output == (LEGACY / case[key]).read_text()


def test_render_atif_trajectory(tmp_path: Path) -> None:
    doc = ROOT / "conformance" / "atif" / "v1.5" / "warning" / "rfc-example.json"
    result = CliRunner().invoke(main, ["render", str(doc), "--verbose"])
    assert result.exit_code == 0, result.output
    assert "S2" in result.output and "S2.1" in result.output


def test_convert_reports_a_refused_document(tmp_path: Path) -> None:
    """A conversion refused is refused per document (exit 1, reported, not written): here a TAO
    0.9.0 record whose pins 0.1.0 cannot hold, with --fail-on-loss."""
    doc = ROOT / "conformance" / "tao" / "v0.9.0" / "valid" / "environment-pins.json"
    out = tmp_path / "out.json"
    args = ["convert", str(doc), "--to", "tao@v0.1.0", "--fail-on-loss", "-o", str(out)]
    result = CliRunner().invoke(main, [*args, "--report", "json"])
    assert result.exit_code == 1
    report = json.loads(result.output.splitlines()[0])
    assert report["ok"] is False and report["errors"][0]["code"] == "convert:would-lose-data"
    assert not out.exists()


def test_convert_atif_to_atif_migrates(tmp_path: Path) -> None:
    doc = ROOT / "conformance" / "atif" / "v1.5" / "warning" / "rfc-example.json"
    out = tmp_path / "out.json"
    result = CliRunner().invoke(main, ["convert", str(doc), "--to", "atif@v1.8", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["schema_version"] == "ATIF-v1.8"


def test_render_unreadable_and_unrenderable(tmp_path: Path) -> None:
    assert CliRunner().invoke(main, ["render", str(tmp_path / "missing.json")]).exit_code == 2
    junk = tmp_path / "junk.json"
    junk.write_text('{"hello": 1}')
    result = CliRunner().invoke(main, ["render", str(junk)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.count("\n") == 1 and "not a run log, legacy log or ATIF" in result.output


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("x.jsonl", b'{"hello": 1}\n{"hello": 2}\n', "record 1 is neither an ATIF trajectory"),
        ("x.jsonl", b'{"hello": 1}\n{oops\n', "line 2 is not JSON"),
        ("x.json", b"\x00 neither JSON nor JSON Lines", "not JSON or JSON Lines"),
        ("x.jsonl", b"\n\n", "no documents and no legacy log events"),
    ],
)
def test_render_of_an_input_that_is_nothing_it_knows_is_one_line_and_exit_2(
    tmp_path: Path, name: str, data: bytes, says: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["render", str(path)])
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and says in result.output, result.output


def test_render_json_lines_of_atif_documents_shows_each_with_its_subagents(
    tmp_path: Path,
) -> None:
    """Was: "not a legacy log" (exit 1); embedded subagents were not shown."""
    nested = ROOT / "conformance" / "atif" / "v1.8" / "valid" / "embedded-subagent-two-levels.json"
    older = ROOT / "conformance" / "atif" / "v1.5" / "warning" / "rfc-example.json"
    docs = [json.loads(p.read_text()) for p in (nested, older)]
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    result = CliRunner().invoke(main, ["render", str(path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line.split("]")[0] for line in lines if line.startswith("[Document")] == [
        "[Document 1",
        "[Document 2",
    ]
    assert "  [Subagent explore-1] ATIF-v1.8 " in result.output
    assert "      [Subagent callers-1] ATIF-v1.8 " in result.output
    alone = CliRunner().invoke(main, ["render", str(nested)])
    assert alone.exit_code == 0 and "[Subagent callers-1]" in alone.output


def test_write_atomic_keeps_the_original_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.json"
    target.write_bytes(b"original")

    def broken_fsync(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("os.fsync", broken_fsync)
    with pytest.raises(OSError):
        write_atomic(target, b"new contents")
    assert target.read_bytes() == b"original"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
    monkeypatch.undo()
    write_atomic(target, b"new contents")
    assert target.read_bytes() == b"new contents"


def test_convert_legacy_log_onward_to_atif(tmp_path: Path) -> None:
    """A legacy stream goes to a run log first, then through the run-log lens to ATIF."""
    out = tmp_path / "atif.json"
    case = CASES[0]
    result = CliRunner().invoke(
        main, ["convert", str(LEGACY / case["input"]), "--to", "atif@v1.7", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["schema_version"] == "ATIF-v1.7"
    from atif_spec import validate

    assert validate(doc).valid


def test_convert_atif_to_trajectory_sdk_and_back(tmp_path: Path) -> None:
    """ATIF -> trajectory-sdk (written in pieces) -> ATIF gives the original document back."""
    source = ROOT / "conformance" / "atif" / "v1.7" / "valid"
    doc_path = sorted(source.glob("*.json"))[0]
    sdk, back = tmp_path / "sdk.json", tmp_path / "back.json"
    first = CliRunner().invoke(
        main, ["convert", str(doc_path), "--to", "trajectory-sdk@v0.4", "-o", str(sdk)]
    )
    assert first.exit_code == 0, first.output
    second = CliRunner().invoke(main, ["convert", str(sdk), "--to", "atif@v1.7", "-o", str(back)])
    assert second.exit_code == 0, second.output
    assert json.loads(back.read_text()) == json.loads(doc_path.read_text())


def test_convert_counts_what_went_to_extra(tmp_path: Path) -> None:
    """Issue 18: the report said "0 stashed" while usage vanished; now each extra key counts."""
    src = LEGACY / "repro-claude-usage.jsonl"
    out = tmp_path / "run.json"
    result = CliRunner().invoke(
        main,
        ["convert", str(src), "--to", "step-substep@v1.0", "-o", str(out), "--report", "json"],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output.splitlines()[0])
    pointers = [item["pointer"] for item in report["stashed"]]
    assert "/steps/0/extra/usage" in pointers and "/extra/final_metrics" in pointers
    onward = tmp_path / "atif.json"
    result = CliRunner().invoke(main, ["convert", str(src), "--to", "atif@v1.8", "-o", str(onward)])
    assert result.exit_code == 0, result.output
    atif = json.loads(onward.read_text())
    assert atif["steps"][0]["extra"]["usage"]["input_tokens"] == 10  # the provider's own counts
    # ... and ATIF's own fields, as a native producer writes them (issue 18 item 3)
    metrics = atif["steps"][0]["metrics"]
    assert (metrics["prompt_tokens"], metrics["completion_tokens"]) == (10, 5)
    assert "metrics" not in atif["steps"][0]["extra"]
    final = atif["final_metrics"]
    assert (final["total_prompt_tokens"], final["total_completion_tokens"]) == (10, 5)
    assert "final_metrics" not in {k for k in atif["extra"] if k != "_atif_stash"}
    result = CliRunner().invoke(main, ["validate", str(onward), "--format", "json"])
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.output.splitlines()[0])
    assert verdict["valid"] and verdict["errors"] == [] and verdict["warnings"] == []
    # the way back restores the run log byte for byte (the lifts are value-less moved entries)
    back = tmp_path / "back.json"
    result = CliRunner().invoke(
        main, ["convert", str(onward), "--to", "step-substep@v1.0", "-o", str(back)]
    )
    assert result.exit_code == 0, result.output
    assert back.read_bytes() == out.read_bytes()


TARGETS = ["atif@v1.6", "tao@v0.2.0", "trajectory-sdk@v0.4", "step-substep@v1.0"]
RICH = ROOT / "conformance" / "atif" / "v1.7" / "valid"


@pytest.mark.parametrize("target", TARGETS)
def test_json_lines_output_is_one_compact_document_per_line(target: str, tmp_path: Path) -> None:
    """A `.jsonl` destination, and several inputs on stdout, get one compact line per document
    for every target format (a TAO result was once indented across hundreds of lines)."""
    inputs = sorted(RICH.glob("*.json"))[:3]
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(main, ["convert", str(inputs[0]), "--to", target, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert len(out.read_bytes().splitlines()) == 1
    result = CliRunner().invoke(main, ["convert", *map(str, inputs), "--to", target])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == len(inputs)
    assert all(isinstance(json.loads(line), dict) for line in lines)
    legacy = LEGACY / CASES[0]["input"]
    result = CliRunner().invoke(main, ["convert", str(legacy), "--to", target, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert len(out.read_bytes().splitlines()) == 1
    # JSON Lines on stdin, JSON Lines on stdout: one compact line per document
    lines_in = "".join(json.dumps(json.loads(p.read_text(encoding="utf-8"))) + "\n" for p in inputs)
    result = CliRunner().invoke(main, ["convert", "-", "--to", target], input=lines_in)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == len(inputs)
    assert all(isinstance(json.loads(line), dict) for line in lines)


@pytest.mark.parametrize(
    "path",
    [
        "conformance/tao/v0.9.0/valid/coverage-list-values.json",
        "conformance/tao/v0.2.0/valid/coding-session.json",
        "conformance/trajectory-sdk/v0.4/valid/airline-rebooking-multi-turn.json",
        "conformance/atof/v0.1/valid/opaque-function-with-marks.jsonl",
    ],
)
def test_render_shows_other_formats_as_the_atif_they_convert_to(path: str) -> None:
    result = CliRunner().invoke(main, ["render", str(ROOT / path)])
    assert result.exit_code == 0, result.output
    assert "converted in memory" in result.stderr
    assert result.stdout.startswith("[Step S1]")
