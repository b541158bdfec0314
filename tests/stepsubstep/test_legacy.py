"""Migration of provider streams and legacy turn events to run logs (the spec's testing plan)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from atif_spec.formats.step_substep import SYNTHETIC_SUMMARY
from atif_spec.formats.streams import detect_stream
from atif_spec.stepsubstep.legacy import dumps, migrate
from atif_spec.stepsubstep.render import render_lines
from atif_spec.validation.rules.engine import run_rules
from tests.support import ROOT

LEGACY = ROOT / "conformance" / "step-substep" / "v1.0" / "legacy"
INDEX = json.loads((LEGACY / "index.json").read_text())
SCHEMA = jsonschema_rs.validator_for(
    json.loads((ROOT / "spec/step-substep/v1.0/run-log.schema.json").read_text())
)


def events(name: str) -> list[Any]:
    return [json.loads(line) for line in (LEGACY / name).read_text().splitlines() if line.strip()]


def steps_of(name: str) -> list[dict[str, Any]]:
    doc: list[dict[str, Any]] = migrate(events(name)).document["steps"]
    return doc


@pytest.mark.parametrize("case", INDEX["cases"], ids=[c["name"] for c in INDEX["cases"]])
def test_golden_run_log_and_timelines(case: dict[str, Any]) -> None:
    evs = events(case["input"])
    assert detect_stream(evs) == case["kind"]
    doc = migrate(evs).document
    assert dumps(doc) == (LEGACY / case["run_log"]).read_text()
    compact = "".join(line + "\n" for line in render_lines(evs))
    verbose = "".join(line + "\n" for line in render_lines(evs, verbose=True))
    assert compact == (LEGACY / case["compact"]).read_text()
    assert verbose == (LEGACY / case["verbose"]).read_text()


@pytest.mark.parametrize("case", INDEX["cases"], ids=[c["name"] for c in INDEX["cases"]])
def test_migrated_run_logs_are_valid(case: dict[str, Any]) -> None:
    doc = migrate(events(case["input"])).document
    assert list(SCHEMA.iter_errors(doc)) == []
    findings = run_rules(doc, "step-substep", "v1.0")
    assert [f for f in findings if f.level == "error"] == []
    if not case["name"].startswith("gza-"):  # gza's edge-case fixtures break SHOULDs on purpose
        assert {f.code for f in findings} <= {"SSL110"}


def test_same_input_same_bytes_in_another_process() -> None:
    """Determinism: a fresh interpreter (another clock, hash seed) writes the same bytes."""
    script = (
        "import json,sys;from atif_spec.stepsubstep.legacy import migrate,dumps;"
        "ev=[json.loads(l) for l in open(sys.argv[1]) if l.strip()];"
        "sys.stdout.write(dumps(migrate(ev).document))"
    )
    for name in ("codex-pre-message-tool.jsonl", "legacy-turn-events.jsonl"):
        out = subprocess.run(
            [sys.executable, "-c", script, str(LEGACY / name)],
            check=True,
            capture_output=True,
            text=True,
            env={"PYTHONHASHSEED": "123", "TZ": "Asia/Tokyo"},
        ).stdout
        assert out == dumps(migrate(events(name)).document)


# -- testing plan 1: steps from provider messages -------------------------------------------


def test_codex_steps_are_non_empty_agent_messages() -> None:
    steps = steps_of("codex-multi-step.jsonl")
    texts = [s["message_text"] for s in steps]
    assert texts == [
        None,
        "One file is modified; running the tests.",
        "Tests pass on retry.",
        "All done.",
    ]
    assert {s["provider"] for s in steps} == {"codex"}


def test_claude_rows_sharing_a_message_id_make_one_step() -> None:
    steps = steps_of("claude-multi-step.jsonl")
    assert [s["message_text"] for s in steps] == [
        "Looking at the failing test.",
        "Running it.",
        "The import path was wrong; fixed it.",
    ]
    assert [s["legacy_turn_id"] for s in steps] == ["T1", "T2", "T3"]
    calls = [sub for sub in steps[1]["substeps"] if sub["type"] == "tool_call"]
    assert [c["call_id"] for c in calls] == ["toolu_2"]  # the repeated tool_use is dropped


def test_gemini_messages_and_deltas() -> None:
    steps = steps_of("gemini-stream.jsonl")
    assert [s["message_text"] for s in steps] == [
        "Reading the CLI module first.",
        "Adding the flag.",
    ]
    assert steps[0]["started_at"] == "2026-02-26T10:00:01.000Z"
    # A full message replaces the deltas streamed before it (gza's gemini fixture shape).
    evs = [
        {"type": "message", "role": "user", "content": "go"},
        {"type": "message", "role": "assistant", "delta": True, "content": "streaming"},
        {"type": "message", "role": "assistant", "content": "Planning changes now."},
        {"type": "tool_use", "tool_name": "Read", "tool_input": {"file_path": "src/x.py"}},
    ]
    assert render_lines(evs, verbose=True) == [
        "[Step S1] Planning changes now.",
        "  [S1.1] tool_call Read src/x.py",
    ]


# -- testing plan 2: tool events nested under the initiating step -----------------------------


@pytest.mark.parametrize(
    ("name", "step", "expected"),
    [
        (
            "codex-multi-step.jsonl",
            1,
            [
                ("tool_call", "cmd_2"),
                ("tool_error", "cmd_2"),
                ("status_update", None),
                ("tool_retry", "cmd_3"),
                ("tool_call", "cmd_3"),
                ("tool_output", "cmd_3"),
            ],
        ),
        (
            "claude-multi-step.jsonl",
            1,
            [("status_update", None), ("tool_call", "toolu_2"), ("tool_error", "toolu_2")],
        ),
        (
            "gemini-stream.jsonl",
            1,
            [
                ("tool_call", "edit_1"),
                ("tool_error", "edit_1"),
                ("tool_retry", "edit_2"),
                ("tool_call", "edit_2"),
                ("tool_output", "edit_2"),
            ],
        ),
    ],
)
def test_tool_events_nest_under_their_step(name: str, step: int, expected: list[Any]) -> None:
    subs = steps_of(name)[step]["substeps"]
    assert [(s["type"], s["call_id"]) for s in subs] == expected
    assert [s["substep_id"] for s in subs] == [f"S{step + 1}.{m}" for m in range(1, len(subs) + 1)]


def test_codex_error_payload_and_retry_link() -> None:
    subs = steps_of("codex-multi-step.jsonl")[1]["substeps"]
    assert subs[1]["payload"] == {"exit_code": 1, "output": "1 failed"}
    assert subs[2]["payload"]["kind"] == "reasoning"
    assert subs[3]["payload"] == {"retry_of_call_id": "cmd_2"}
    assert subs[4]["payload"]["retry_of_call_id"] == "cmd_2"


# -- testing plan 3: synthetic step ---------------------------------------------------------


def test_tool_events_before_any_message_go_to_synthetic_s1() -> None:
    first = steps_of("codex-pre-message-tool.jsonl")[0]
    assert (first["step_id"], first["message_text"], first["summary"]) == (
        "S1",
        None,
        SYNTHETIC_SUMMARY,
    )
    assert [s["type"] for s in first["substeps"]] == ["tool_call", "tool_output"]


def test_gza_timeline_for_the_turn_only_codex_log() -> None:
    """gza's `gza log --steps-verbose` lines for its legacy_turn_only_codex fixture (ref §11)."""
    lines = render_lines(events("codex-pre-message-tool.jsonl"), verbose=True)
    stripped = [line.strip() for line in lines]
    assert "[Step S1] Pre-message tool activity" in stripped
    assert "[S1.1] tool_call Bash ls -la" in stripped
    assert [line for line in stripped if line.startswith("[Step")][-1] == "[Step S2] Listed files."


# -- testing plan 4: deterministic T1.x migration -------------------------------------------


def test_legacy_events_follow_rules_l1_to_l4() -> None:
    steps = steps_of("legacy-turn-events.jsonl")
    assert [(s["step_id"], s["legacy_event_id"]) for s in steps] == [
        ("S1", None),
        ("S2", "T1.13"),
        ("S3", "T2.1"),
        ("S4", "T2.3"),
    ]
    assert steps[0]["summary"] == SYNTHETIC_SUMMARY and steps[0]["legacy_turn_id"] == "T1"
    s2 = steps[1]
    assert s2["message_text"] == "I'm updating tests now."
    assert [(x["substep_id"], x["type"], x["legacy_event_id"]) for x in s2["substeps"]] == [
        ("S2.1", "tool_call", "T1.21"),
        ("S2.2", "tool_output", "T1.22"),
    ]
    assert steps[2]["substeps"][0]["source"] == "runner"
    assert steps[2]["message_role"] == "runner"


def test_missing_times_are_null_with_one_warning() -> None:
    result = migrate(events("codex-pre-message-tool.jsonl"))
    doc = result.document
    assert all(s["started_at"] is None for s in doc["steps"])
    assert [(f.code, f.level, f.pointer) for f in result.findings] == [
        ("input:missing-timestamp", "warning", "/steps/0/started_at")
    ]
    assert migrate(events("gemini-stream.jsonl")).findings == []


@pytest.mark.parametrize(
    ("name", "unmapped"),
    [
        ("codex-multi-step.jsonl", [(12, "item.completed")]),  # the empty agent_message
        ("gza-renderer-codex.jsonl", []),
        ("gza-renderer-claude.jsonl", [(8, "assistant")]),  # a message with empty content
        ("gza-renderer-gemini.jsonl", [(10, "oddity")]),  # an event kind no provider documents
        ("claude-multi-step.jsonl", []),
        ("gemini-stream.jsonl", []),
    ],
)
def test_only_events_with_no_meaning_stay_unmapped(name: str, unmapped: list[Any]) -> None:
    """Every documented event kind lands in a step, a substep or a named extra key; only
    events that carry nothing (or are of an unknown kind) are kept verbatim, by line."""
    doc = migrate(events(name)).document
    kept = doc.get("extra", {}).get("unmapped_events", [])
    assert [(k["line"], k["event"].get("type")) for k in kept] == unmapped


def test_codex_item_kinds_land_as_substeps() -> None:
    subs = steps_of("gza-renderer-codex.jsonl")[0]["substeps"]
    kinds = [(s["type"], s["payload"].get("tool_name") or s["payload"].get("kind")) for s in subs]
    assert kinds == [
        ("tool_call", "Bash"),
        ("tool_output", None),
        ("tool_call", "file_change"),
        ("tool_output", None),
        ("tool_call", "web_search"),
        ("status_update", "todo_list"),
        ("tool_call", "spawn_agent"),
        ("tool_call", "filesystem.read_file"),
        ("tool_output", None),
        ("status_update", "reasoning"),
    ]
    assert subs[0]["payload"]["command"] == "/bin/bash -lc 'ls src/gza'"
    doc = migrate(events("gza-renderer-codex.jsonl")).document
    assert [e["message"] for e in doc["extra"]["errors"]] == [
        "Selected model is at capacity. Try again shortly.",
        "top-level codex error",
    ]
    assert doc["steps"][-1]["outcome"] == "failed"
    updates = [u["event"]["item"]["type"] for u in doc["extra"]["item_updates"]]
    assert updates == ["todo_list"]


def test_issue_reproductions() -> None:
    """The three reproductions of issue 18."""
    doc = migrate(events("repro-claude-usage.jsonl")).document
    assert doc["steps"][0]["extra"]["usage"] == {"input_tokens": 10, "output_tokens": 5}
    assert doc["steps"][0]["extra"]["message_ids"] == ["m1"]
    assert doc["extra"]["final_metrics"]["total_prompt_tokens"] == 10
    call = steps_of("repro-codex-completed-only.jsonl")[0]["substeps"][0]
    assert call["payload"]["command"] == "/bin/bash -lc 'ls src'"
    gem = migrate(events("gza-renderer-gemini.jsonl")).document
    assert [f for f in run_rules(gem, "step-substep", "v1.0") if f.level == "error"] == []


def test_claude_usage_counted_once_per_message_id() -> None:
    doc = migrate(events("repro-claude-identity.jsonl")).document
    s1, s2 = doc["steps"]
    assert s1["extra"]["message_ids"] == ["msg_a"]
    assert s1["extra"]["uuids"] == ["u-1", "u-2"]
    assert s1["extra"]["model"] == "claude-sonnet-4-5"
    assert s1["extra"]["metrics"] == {
        "prompt_tokens": 150,
        "completion_tokens": 7,
        "cached_tokens": 30,
    }
    assert s2["extra"]["metrics"] == {
        "prompt_tokens": 155,
        "completion_tokens": 9,
        "cached_tokens": 150,
    }
    run = doc["extra"]
    assert (doc["run_id"], run["session_id"], run["model"]) == (
        "sess_42",
        "sess_42",
        "claude-sonnet-4-5",
    )
    assert run["final_metrics"] == {
        "total_prompt_tokens": 305,
        "total_completion_tokens": 16,
        "total_cached_tokens": 180,
        "total_cost_usd": 0.0031,
        "total_steps": 2,
    }
    # The provider's own totals agree with the de-duplicated sum.
    usage = run["results"][0]["usage"]
    assert sum(usage[k] for k in usage if k != "output_tokens") == 305


def test_claude_thinking_and_rate_limits_are_kept() -> None:
    doc = migrate(events("gza-renderer-claude.jsonl")).document
    subs = doc["steps"][0]["substeps"]
    assert [(s["type"], s["payload"].get("kind")) for s in subs] == [
        ("status_update", "thinking"),
        ("tool_call", None),
        ("tool_error", None),
        ("status_update", "redacted_thinking"),
    ]
    assert subs[0]["payload"]["signature"].startswith("very-long")
    run = doc["extra"]
    assert [e["rate_limit_info"]["status"] for e in run["rate_limit_events"]] == [
        "allowed",
        "denied",
    ]
    assert run["results"][0]["total_cost_usd"] == 0.1234
    assert run["errors"][0]["message"] == "provider exploded"


def test_gemini_replaced_deltas_are_kept() -> None:
    step = steps_of("gza-renderer-gemini.jsonl")[0]
    assert step["message_text"] == "Planning changes now."
    assert step["extra"]["replaced_deltas"] == ["streaming"]


def test_run_id_comes_from_the_stream_or_the_caller() -> None:
    assert migrate(events("codex-multi-step.jsonl")).document["run_id"] == "thr_7f3a"
    assert migrate(events("claude-multi-step.jsonl")).document["run_id"] == "sess_c1"
    assert migrate(events("codex-multi-step.jsonl"), run_id="t-9").document["run_id"] == "t-9"
    anon = migrate(events("codex-pre-message-tool.jsonl")).document["run_id"]
    assert (
        anon.startswith("run-")
        and anon == migrate(events("codex-pre-message-tool.jsonl")).document["run_id"]
    )


def test_failed_result_marks_the_last_step() -> None:
    evs = events("claude-multi-step.jsonl")
    evs[-1] = {"type": "result", "subtype": "error_max_turns", "is_error": True}
    assert [s["outcome"] for s in migrate(evs).document["steps"]] == [
        "completed",
        "completed",
        "failed",
    ]


def test_unknown_input_is_not_a_stream() -> None:
    assert detect_stream([{"foo": 1}]) is None
    assert detect_stream([]) is None


# -- testing plan 6: turn-only historical logs ----------------------------------------------


def test_turn_only_log_is_read_step_first(tmp_path: Path) -> None:
    lines = render_lines(events("codex-pre-message-tool.jsonl"))
    assert lines == ["[Step S1] Pre-message tool activity", "[Step S2] Listed files."]


def test_gza_metadata_and_partial_events_have_named_places() -> None:
    evs: list[Any] = [
        {"type": "gza", "subtype": "branch", "message": "feature/x"},
        {"type": "stream_event", "event": {"type": "content_block_delta"}, "session_id": "s"},
        {"type": "assistant", "message": {"id": "m", "content": [{"type": "text", "text": "ok"}]}},
    ]
    doc = migrate(evs).document
    assert "unmapped_events" not in doc["extra"]
    assert doc["extra"]["gza_metadata"] == [evs[0]]
    assert doc["extra"]["stream_events"] == [evs[1]]


def test_tool_results_have_the_spec_source_tool() -> None:
    """DECISIONS.md SSL-23: a tool's output or error is the tool's event, everything else the
    stream carries the provider's (gza's adapters write ``provider`` for every event)."""
    for case in INDEX["cases"]:
        for step in migrate(events(case["input"])).document["steps"]:
            for sub in step["substeps"]:
                expected = "tool" if sub["type"] in ("tool_output", "tool_error") else "provider"
                if case["name"] != "legacy-turn-events":  # events there may name their source
                    assert sub["source"] == expected, (case["name"], sub["substep_id"])
