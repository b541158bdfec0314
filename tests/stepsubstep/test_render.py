"""Timelines: compact and verbose labels, run logs, legacy logs and ATIF trajectories."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest
from rich.console import Console

from atif_spec.stepsubstep.api import is_legacy_log, render, render_plain, to_run_log
from atif_spec.stepsubstep.render import UnrenderableError, render_lines
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


def test_copied_context_kept_in_the_stash_patch_is_marked() -> None:
    """A step whose ``extra`` already has the key: the lens keeps the flag in its patch."""
    doc = minimal_atif("v1.7")
    doc["steps"] = [
        {"step_id": 1, "source": "user", "message": "old", "is_copied_context": True},
        {"step_id": 2, "source": "user", "message": "new", "extra": {"is_copied_context": "x"}},
    ]
    doc["steps"][0]["extra"] = {"is_copied_context": "the producer's"}
    import atif_spec

    run_log, _ = atif_spec.convert(doc, to="step-substep@v1.0")
    assert render_lines(run_log) == ["[Step S1] (copied) old", "[Step S2] new"]


# --- embedded subagents and lists of documents (issue 35 item 9) -------------------------------


def _subagent(trajectory_id: str, *messages: str, version: str = "v1.7") -> dict[str, Any]:
    doc = minimal_atif(version)
    doc["trajectory_id"] = trajectory_id
    doc.pop("session_id", None)
    doc["agent"] = {"name": f"agent-{trajectory_id}", "version": "1"}
    doc["steps"] = [
        {"step_id": n, "source": "agent", "message": m} for n, m in enumerate(messages, start=1)
    ]
    return doc


def _dispatching(*refs: dict[str, Any]) -> dict[str, Any]:
    return {"step_id": 2, "source": "agent", "message": "delegating",
            "observation": {"results": [{"subagent_trajectory_ref": list(refs)}]}}  # fmt: skip


def _parent(*subagents: dict[str, Any], refs: list[dict[str, Any]]) -> dict[str, Any]:
    doc = minimal_atif("v1.8")
    doc["steps"] = [
        {"step_id": 1, "source": "user", "message": "go"},
        _dispatching(*refs),
        {"step_id": 3, "source": "agent", "message": "done"},
    ]
    doc["subagent_trajectories"] = list(subagents)
    return doc


def test_embedded_subagents_are_indented_under_the_step_that_dispatched_them() -> None:
    inner = _subagent("inner", "deep work")
    outer = _subagent("outer", "searching", "found it")
    outer["steps"][0]["observation"] = {"results": [{"subagent_trajectory_ref": [{"trajectory_id": "inner"}]}]}  # fmt: skip
    outer["subagent_trajectories"] = [inner]
    lonely = _subagent("lonely", "never asked")
    doc = _parent(outer, lonely, refs=[{"trajectory_id": "outer"}])
    assert render_lines(doc) == [
        "[Step S1] (user) go",
        "[Step S2] (agent) delegating",
        "  [Subagent outer] ATIF-v1.7 agent-outer, 2 step(s)",
        "    [Step S1] (agent) searching",
        "      [Subagent inner] ATIF-v1.7 agent-inner, 1 step(s)",
        "        [Step S1] (agent) deep work",
        "    [Step S2] (agent) found it",
        "[Step S3] (agent) done",
        "[Subagent lonely] ATIF-v1.7 agent-lonely, 1 step(s) (no step references it)",
        "  [Step S1] (agent) never asked",
    ]
    verbose = render_lines(doc, verbose=True)
    assert verbose[2:4] == ["  [S2.1] tool_output", "  [Subagent outer] ATIF-v1.7 agent-outer, 2 step(s)"]  # fmt: skip
    assert "      [S1.1] tool_output" in verbose  # the subagent's own substeps, one level down


def test_a_reference_that_names_no_embedded_subagent_is_one_line() -> None:
    sub = _subagent("s1", "work")
    refs = [
        {"trajectory_id": "s1"},
        {"trajectory_id": "s1"},
        {"trajectory_path": "subagents/s2.json"},
        {"trajectory_id": "s3", "trajectory_path": "s3.json"},
        {"trajectory_id": "missing"},
    ]
    lines = render_lines(_parent(sub, refs=refs))
    assert lines[2:8] == [
        "  [Subagent s1] ATIF-v1.7 agent-s1, 1 step(s)",
        "    [Step S1] (agent) work",
        "  [Subagent s1] (shown above)",
        "  [Subagent subagents/s2.json] (in another file)",
        "  [Subagent s3] (in another file: s3.json)",
        "  [Subagent missing] (not embedded)",
    ]


def test_subagent_lines_fit_the_width_with_their_indent() -> None:
    sub = _subagent("s1", "x " * 200)
    lines = render_lines(_parent(sub, refs=[{"trajectory_id": "s1"}]), width=50)
    assert lines[3].startswith("    [Step S1] (agent) x x") and lines[3].endswith("\u2026")
    assert all(len(line) <= 50 for line in lines)


def test_subagents_nested_too_deep_are_named_not_shown() -> None:
    from atif_spec.stepsubstep.render import MAX_NESTING

    doc = _subagent("s0", "top")
    node = doc
    for level in range(1, MAX_NESTING + 3):
        child = _subagent(f"s{level}", f"level {level}")
        node["steps"][0]["observation"] = {"results": [{"subagent_trajectory_ref": [{"trajectory_id": child["trajectory_id"]}]}]}  # fmt: skip
        node["subagent_trajectories"] = [child]
        node = child
    lines = render_lines(doc, width=300)
    headers = [line for line in lines if line.lstrip().startswith("[Subagent ")]
    assert len(headers) == MAX_NESTING + 1  # the last one named, its steps not shown
    assert headers[-1].lstrip().startswith(f"[Subagent s{MAX_NESTING + 1}]")
    assert headers[-1].endswith(f"(nested more than {MAX_NESTING} deep: not shown)")
    assert lines[-1] == headers[-1]


def test_a_list_of_trajectories_renders_each_in_turn() -> None:
    first, second = minimal_atif("v1.8"), minimal_atif("v1.5")
    first["steps"][0]["message"], second["steps"][0]["message"] = "one", "two"
    lines = render_lines([first, second, lifecycle()])
    headers = [line for line in lines if line.startswith("[Document ")]
    assert [h.split("]")[0] for h in headers] == ["[Document 1", "[Document 2", "[Document 3"]
    assert headers[1].startswith("[Document 2] ATIF-v1.5 ")
    assert lines[lines.index(headers[0]) + 1].endswith(" one")
    assert lines[lines.index(headers[1]) + 1].endswith(" two")
    assert lines[lines.index(headers[2]) + 1 :] == render_lines(lifecycle())


@pytest.mark.parametrize("records", [[{"foo": 1}], [minimal_atif("v1.8"), {"foo": 1}], [3]])
def test_a_list_with_a_record_that_is_no_document_is_refused(records: list[Any]) -> None:
    with pytest.raises(UnrenderableError, match=f"record {len(records)} is neither"):
        render_lines(records)
