"""`atif validate` on provider streams: one warning per file, never one finding per line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from atif_spec.cli import main
from atif_spec.formats.streams import converted_note, sniff_stream
from atif_spec.validation.reader import read_file
from tests.support import ROOT

LEGACY = ROOT / "conformance" / "step-substep" / "v1.0" / "legacy"


@pytest.mark.parametrize(
    ("name", "provider"),
    [
        ("gza-renderer-codex.jsonl", "Codex"),
        ("gza-renderer-claude.jsonl", "Claude Code"),
        ("gza-renderer-gemini.jsonl", "Gemini CLI"),
    ],
)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_one_warning_per_stream_file(name: str, provider: str, jobs: str) -> None:
    path = str(LEGACY / name)
    result = CliRunner().invoke(main, ["validate", path, "--format", "json", "-j", jobs])
    assert result.exit_code == 0, result.output
    reports = [json.loads(line) for line in result.output.splitlines()]
    assert len(reports) == 1
    (warning,) = reports[0]["warnings"]
    assert warning["code"] == "input:provider-stream"
    assert provider in warning["message"]
    assert f"atif convert {path} --to step-substep@v1.0" in warning["message"]
    strict = CliRunner().invoke(main, ["validate", path, "--strict"])
    assert strict.exit_code == 1


def test_atif_jsonl_is_not_a_stream(tmp_path: Path) -> None:
    doc = json.loads((ROOT / "conformance/atif/v1.5/warning/rfc-example.json").read_text())
    line = json.dumps(doc).encode()
    assert sniff_stream(line + b"\n" + line + b"\n") is None
    assert sniff_stream(b'{"type": "assistant"}\nnot json\n') is None
    assert sniff_stream(b'{"hello": 1}\n') is None
    assert sniff_stream(b"") is None


def test_stream_on_stdin_and_unrelated_typed_lines(tmp_path: Path) -> None:
    data = (LEGACY / "gza-renderer-gemini.jsonl").read_text()
    result = CliRunner().invoke(main, ["validate", "-", "--format", "json"], input=data)
    (report,) = [json.loads(line) for line in result.output.splitlines()]
    assert [w["code"] for w in report["warnings"]] == ["input:provider-stream"]
    assert "atif convert FILE.jsonl --to step-substep@v1.0" in report["warnings"][0]["message"]
    assert (
        sniff_stream(b'{"type": "note"}\n{"type": "message", "role": "user"}\n{"type": "x"}\n')
        is None
    )


def test_a_stream_is_read_whole_with_its_kind_and_size_checked(tmp_path: Path) -> None:
    source = ROOT / "conformance/native/claude-code/task-subagent-session"
    session = next(source.glob("*.jsonl"))
    (raw,) = read_file(str(session))
    assert raw.stream == "claude" and raw.data == session.read_bytes() and raw.line is None
    (big,) = read_file(str(session), max_bytes=100)
    assert big.stream == "claude" and big.data == b"" and big.oversize == session.stat().st_size


def test_converted_note_names_the_stream_and_the_conversion() -> None:
    note = converted_note("codex")
    assert note.startswith("a Codex exec --json provider stream, converted in memory")
    assert "atif@v1.8" in note
