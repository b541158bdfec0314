"""Timelines: compact and verbose labels, run logs, legacy logs and ATIF trajectories."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest
from rich.console import Console

from atif_spec.stepsubstep.api import is_legacy_log, render, render_plain, to_run_log
from atif_spec.stepsubstep.render import UnrenderableError, render_lines, substep_detail
from tests.support import ROOT
from tests.support.documents import minimal_atif

SUITE = ROOT / "conformance" / "step-substep" / "v1.0"
STEP = re.compile(r"^\[Step S[1-9][0-9]*\]( |$)")
SUBSTEP = re.compile(r"^  \[S[1-9][0-9]*\.[1-9][0-9]*\] ")


def lifecycle() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((SUITE / "valid" / "tool-lifecycle.json").read_text())
    return doc


def test_compact_has_only_step_anchors() -> None:
    lines = render_lines(lifecycle())
    assert lines == [
        "[Step S1] Pre-message tool activity",
        "[Step S2] Running the tests now.",
        "[Step S3] Writing the summary.",
    ]
    assert all(STEP.match(line) for line in lines)


def test_verbose_lists_every_substep_with_its_label() -> None:
    lines = render_lines(lifecycle(), verbose=True)
    subs = [line for line in lines if not STEP.match(line)]
    assert all(SUBSTEP.match(line) for line in subs)
    assert len(subs) == sum(len(s["substeps"]) for s in lifecycle()["steps"])
    assert lines[3:11] == [
        "[Step S2] Running the tests now.",
        "  [S2.1] tool_call Bash pytest -q",
        "  [S2.2] tool_error 1 failed",
        '  [S2.3] tool_retry {"retry_of_call_id": "c2"}',
        "  [S2.4] tool_call Bash pytest -q",
        "  [S2.5] tool_output 1 passed",
        "  [S2.6] status_update tests green",
        "  [S2.7] artifact reports/junit.xml",
    ]
    assert not any(re.search(r"\bT[0-9]+\.[0-9]+\b", line) for line in lines)


def test_message_text_wins_over_summary_and_empty_steps_keep_their_anchor() -> None:
    doc = {
        "run_id": "r",
        "provider": "p",
        "steps": [
            {
                "step_id": "S1",
                "step_index": 1,
                "message_text": "  Hi  ",
                "summary": "s",
                "substeps": [],
            },
            {
                "step_id": "S2",
                "step_index": 2,
                "message_text": None,
                "summary": None,
                "substeps": [],
            },
        ],
    }
    assert render_lines(doc) == ["[Step S1] Hi", "[Step S2]"]


@pytest.mark.parametrize(
    ("type_", "payload", "detail"),
    [
        ("tool_call", {"tool_name": "Bash", "tool_input": {"command": "rg -n foo"}}, "rg -n foo"),
        ("tool_call", {"tool_name": "Bash", "command": "ls -la"}, "Bash ls -la"),
        (
            "tool_call",
            {"tool_name": "Grep", "tool_input": {"pattern": "x", "path": "src"}},
            "Grep x [src]",
        ),
        (
            "tool_call",
            {"tool_name": "TodoWrite", "tool_input": {"todos": [1, 2]}},
            "TodoWrite 2 todos",
        ),
        ("tool_call", {"tool_name": "WebFetch", "tool_input": {}}, "WebFetch"),
        ("tool_output", {"content": "a\\nb", "is_error": False}, "a\nb"),
        ("tool_output", {"content": [{"t": 1}], "is_error": False}, '[{"t": 1}]'),
        ("tool_output", {"exit_code": 0, "output": "x" * 130}, "x" * 117 + "..."),
        ("tool_error", {"message": "denied"}, "denied"),
        ("tool_error", {"code": 3}, '{"code": 3}'),
        ("tool_call", {"tool_name": "Bash", "command": "y" * 120}, "Bash " + "y" * 97 + "..."),
    ],
)
def test_substep_details_follow_gza(type_: str, payload: Any, detail: str) -> None:
    assert substep_detail(type_, payload) == detail


def test_atif_trajectory_renders_steps_with_tool_substeps() -> None:
    doc = minimal_atif("v1.7")
    doc["steps"] = [
        {"step_id": 1, "source": "user", "message": "List the files"},
        {
            "step_id": 2,
            "source": "agent",
            "message": "Listing.",
            "tool_calls": [
                {"tool_call_id": "t1", "function_name": "bash", "arguments": {"command": "ls"}}
            ],
            "observation": {"results": [{"source_call_id": "t1", "content": "a.txt"}]},
        },
        {"step_id": 3, "source": "agent", "message": [{"type": "text", "text": "Done."}]},
    ]
    assert render_lines(doc) == [
        "[Step S1] (user) List the files",
        "[Step S2] (agent) Listing.",
        "[Step S3] (agent) Done.",
    ]
    assert render_lines(doc, verbose=True)[2:4] == [
        '  [S2.1] tool_call bash {"command": "ls"}',
        "  [S2.2] tool_output a.txt",
    ]


def test_legacy_log_renders_like_its_migrated_run_log() -> None:
    evs = [
        json.loads(line)
        for line in (SUITE / "legacy" / "claude-multi-step.jsonl").read_text().splitlines()
    ]
    assert is_legacy_log(evs)
    doc, _ = to_run_log(evs)
    assert render_lines(evs, verbose=True) == render_lines(doc, verbose=True)


@pytest.mark.parametrize("junk", [None, 3, "text", {"foo": 1}, [{"foo": 1}], []])
def test_other_inputs_are_refused(junk: Any) -> None:
    with pytest.raises(UnrenderableError):
        render_lines(junk)


def test_colour_on_a_terminal_plain_when_piped() -> None:
    texts = render(lifecycle(), verbose=True)
    assert any(span.style for span in texts[0].spans)
    tty = io.StringIO()
    Console(file=tty, force_terminal=True, color_system="standard", width=200).print(texts[0])
    assert "\x1b[" in tty.getvalue()
    piped = io.StringIO()
    Console(file=piped, width=200).print(*texts, sep="\n")
    assert "\x1b[" not in piped.getvalue()
    assert piped.getvalue() == render_plain(lifecycle(), verbose=True)


def test_parse_jsonl_reads_a_log_and_names_a_bad_line() -> None:
    from atif_spec.stepsubstep.api import parse_jsonl

    data = (SUITE / "legacy" / "codex-pre-message-tool.jsonl").read_bytes()
    assert [e["type"] for e in parse_jsonl(data + b"\n\n")] == [
        "turn.started",
        "item.completed",
        "item.completed",
        "result",
    ]
    with pytest.raises(ValueError, match="line 2"):
        parse_jsonl(b'{"type": "x"}\n{oops\n')


def test_compact_is_one_line_per_step_cut_to_the_width() -> None:
    doc = lifecycle()
    doc["steps"][1]["message_text"] = "line one\nline two " + "x" * 300
    lines = render_lines(doc, width=60)
    assert len(lines) == len(doc["steps"])
    assert all("\n" not in line and len(line) <= 60 for line in lines)
    assert lines[1].startswith("[Step S2] line one line two x") and lines[1].endswith("\u2026")
    assert len(render_lines(doc)[1]) == 100


def test_copied_context_steps_are_marked() -> None:
    doc = minimal_atif("v1.7")
    doc["steps"] = [
        {"step_id": 1, "source": "user", "message": "old", "is_copied_context": True},
        {"step_id": 2, "source": "user", "message": "new"},
    ]
    assert render_lines(doc) == ["[Step S1] (copied) (user) old", "[Step S2] (user) new"]


def test_control_characters_are_escaped() -> None:
    doc = lifecycle()
    doc["steps"][1]["message_text"] = "red \x1b[31mtext\x07 \u202e"
    doc["steps"][1]["substeps"][0]["payload"]["command"] = "echo \x1b]0;title\x07"
    for verbose in (False, True):
        out = "\n".join(render_lines(doc, verbose=verbose))
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
        assert "\\x1b[31m" in out


def test_copied_context_survives_conversion_to_a_run_log() -> None:
    import atif_spec

    src = json.loads(
        (ROOT / "conformance/atif/v1.5/valid/continuation-copied-context.json").read_text()
    )
    run_log, _ = atif_spec.convert(src, to="step-substep@v1.0")
    lines = render_lines(run_log)
    copied = [line.startswith("[Step S" + str(n) + "] (copied)") for n, line in enumerate(lines, 1)]
    expected = [s.get("is_copied_context") is True for s in src["steps"]]
    assert copied == expected and any(copied) and not all(copied)
