"""The data of ``atif view``'s waterfall: the OTel mapping's spans with pointers, depths, and
start and duration from the document's own timestamps only."""

from __future__ import annotations

from typing import Any

from atif_spec.jsonio.jsontext import loads
from atif_spec.view.waterfall import waterfall
from tests.support import ROOT


def _rows(chart: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (p, depth, chart["names"][n], start, length) for p, depth, n, start, length in chart["rows"]
    ]


def _step(i: int, at: str | None, **fields: Any) -> dict[str, Any]:
    step = {"step_id": i, "source": "agent", "message": "m", **fields}
    return {**step, "timestamp": at} if at else step


def _doc(steps: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    return {"agent": {"name": "a", "version": "1", "model_name": "m1"}, "steps": steps, **fields}


def test_the_span_tree_of_a_run_with_two_levels_of_subagents() -> None:
    doc = loads(
        (ROOT / "conformance/atif/v1.8/valid/embedded-subagent-two-levels.json").read_bytes()
    )
    chart = waterfall(doc)
    assert chart["kind"] == "waterfall"
    assert chart["ticks"] == [0, 10, 20, 30, 40] and chart["total"] == 36
    sub, subsub = "/subagent_trajectories/0", "/subagent_trajectories/0/subagent_trajectories/0"
    assert _rows(chart) == [
        ("", 0, "invoke_agent qwen-code", 0, 36),
        ("/steps/1", 1, "chat qwen3-coder-plus", 0, 4),
        ("/steps/1/tool_calls/0", 1, "execute_tool list_directory", 0, 4),
        ("/steps/2", 1, "chat qwen3-coder-plus", 4, 32),
        ("/steps/2/tool_calls/0", 1, "execute_tool task", 4, 32),
        # the subagent under the tool call that launched it (its user step is no span)
        (sub, 2, "invoke_agent qwen-code-explore", 19, 7),
        (f"{sub}/steps/1", 3, "chat qwen3-coder-plus", 19, 3),
        (f"{sub}/steps/1/tool_calls/0", 3, "execute_tool grep_search", 19, 3),
        (f"{sub}/steps/2", 3, "chat qwen3-coder-plus", 22, 4),
        (f"{sub}/steps/2/tool_calls/0", 3, "execute_tool task", 22, 4),
        (subsub, 4, "invoke_agent qwen-code-explore", 19, 7),
        (f"{subsub}/steps/1", 5, "chat qwen3-coder-plus", 19, 7),
        (f"{subsub}/steps/1/tool_calls/0", 5, "execute_tool grep_search", 19, 7),
        (f"{subsub}/steps/2", 5, "chat qwen3-coder-plus", 26, None),  # a last step: no end
        (f"{sub}/steps/3", 3, "chat qwen3-coder-plus", 26, None),
        ("/steps/3", 1, "chat qwen3-coder-plus", 36, None),
    ]
    assert chart["names"] == [
        "invoke_agent qwen-code",
        "chat qwen3-coder-plus",
        "execute_tool list_directory",
        "execute_tool task",
        "invoke_agent qwen-code-explore",
        "execute_tool grep_search",
    ]
    assert chart["note"].startswith("13 of 16 spans timed.")


def test_a_step_without_timestamp_has_no_time_and_the_step_before_no_end() -> None:
    steps = [
        _step(1, "2025-01-01T00:00:00Z"),
        _step(2, "2025-01-01T00:00:01.5+00:00"),  # an offset; the fraction kept
        _step(3, None),  # synthesized by the mapping (1 ms after step 2): never shown as a time
        _step(4, "2025-01-01T00:00:10Z", llm_call_count=0),  # no inference: atif.step
        _step(5, "2025-01-01T00:00:09Z"),  # earlier than the step before: step 4 has no end
    ]
    assert _rows(waterfall(_doc(steps))) == [
        ("", 0, "invoke_agent a", 0, 10),
        ("/steps/0", 1, "chat m1", 0, 1.5),
        ("/steps/1", 1, "chat m1", 1.5, None),
        ("/steps/2", 1, "chat m1", None, None),
        ("/steps/3", 1, "atif.step", 10, None),
        ("/steps/4", 1, "chat m1", 9, None),
    ]


def test_a_subagent_no_call_launched_comes_last_under_its_trajectory() -> None:
    sub = _doc([_step(1, "2025-01-01T00:00:03Z"), _step(2, "2025-01-01T00:00:05Z")])
    doc = _doc(
        [_step(1, "2025-01-01T00:00:00Z"), _step(2, "2025-01-01T00:00:02Z")],
        subagent_trajectories=[{**sub, "trajectory_id": "s"}],
    )
    assert _rows(waterfall(doc)) == [
        ("", 0, "invoke_agent a", 0, 5),
        ("/steps/0", 1, "chat m1", 0, 2),
        ("/steps/1", 1, "chat m1", 2, None),
        ("/subagent_trajectories/0", 1, "invoke_agent a", 3, 2),
        ("/subagent_trajectories/0/steps/0", 2, "chat m1", 3, 2),
        ("/subagent_trajectories/0/steps/1", 2, "chat m1", 5, None),
    ]


def test_without_two_timestamps_there_is_no_waterfall_and_the_note_says_why() -> None:
    none = waterfall(_doc([_step(1, None), _step(2, None)]))
    assert none == {
        "kind": "none",
        "title": "spans over time",
        "note": "no step has a timestamp: no waterfall",
    }
    one = waterfall(_doc([_step(1, "2025-01-01T00:00:00Z"), _step(2, None)]))
    assert one["note"] == "no step's duration is known (1 distinct timestamp): no waterfall"


def test_a_document_that_is_not_a_valid_trajectory_gives_a_note_not_an_error() -> None:
    assert waterfall({"steps": 3, "subagent_trajectories": "x"})["kind"] == "none"
    odd = _doc([_step(1, "2025-01-01T00:00:00Z", tool_calls=5), _step(2, "2025-01-01T00:00:01Z")])
    assert _rows(waterfall(odd))[1] == ("/steps/0", 1, "chat m1", 0, 1)
