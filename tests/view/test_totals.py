"""The header's totals explained: final_metrics beside the computed totals, and why they differ."""

from __future__ import annotations

from typing import Any

from atif_spec.formats.totals import trajectory_totals
from atif_spec.view.totals import explain


def _step(step_id: int, prompt: int, cost: float, **extra: Any) -> dict[str, Any]:
    return {
        "step_id": step_id,
        "source": "agent",
        "message": "m",
        "metrics": {"prompt_tokens": prompt, "completion_tokens": 1, "cost_usd": cost},
        **extra,
    }


def _doc(final: dict[str, Any], steps: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"schema_version": "ATIF-v1.8", "steps": steps, "final_metrics": final, **extra}


def _explain(doc: dict[str, Any], followed: bool = False) -> dict[str, Any]:
    out = explain(doc, trajectory_totals(doc), followed=followed)
    assert out is not None
    return out


def test_no_final_metrics_nothing_to_explain() -> None:
    doc = _doc({}, [_step(1, 10, 0.1)])
    del doc["final_metrics"]
    assert explain(doc, trajectory_totals(doc), followed=False) is None


def test_agreeing_totals_say_nothing_more() -> None:
    out = _explain(
        _doc(
            {"total_prompt_tokens": 30, "total_cost_usd": 0.3},
            [_step(1, 10, 0.1), _step(2, 20, 0.2)],
        )
    )
    assert out["differs"] is False and out["reasons"] == []
    prompt = next(r for r in out["rows"] if r["field"] == "total_prompt_tokens")
    assert prompt == {
        "label": "prompt tokens",
        "field": "total_prompt_tokens",
        "written": 30,
        "computed": 30,
        "same": True,
    }


def test_own_steps_only_while_the_computed_totals_add_subagents() -> None:
    sub = {"trajectory_id": "helper", "steps": [_step(1, 100, 1.0)]}
    final = {"total_prompt_tokens": 10, "total_cost_usd": 0.1, "total_steps": 1}
    out = _explain(_doc(final, [_step(1, 10, 0.1)], subagent_trajectories=[sub]))
    assert out["differs"] is True
    assert out["reasons"] == [
        "steps, prompt tokens, cost (USD): final_metrics counts this trajectory's own steps only, "
        "without its 1 subagent",
        "the computed totals include 1 subagent (RFC.md §2.4 rule 5)",
    ]


def test_copied_context_counted_by_the_document() -> None:
    steps = [_step(1, 10, 0.1, is_copied_context=True), _step(2, 20, 0.2), _step(3, 30, 0.3)]
    out = _explain(_doc({"total_prompt_tokens": 60}, steps))
    assert out["reasons"] == [
        "prompt tokens: final_metrics counts this trajectory's own steps including its 1 "
        "copied-context step",
        "the computed totals leave out 1 copied-context step: their usage was recorded where "
        "they first happened (RFC.md §2.4 rule 2)",
    ]


def test_a_total_no_reading_explains_is_said_to_be_wrong() -> None:
    out = _explain(_doc({"total_prompt_tokens": 7, "total_cost_usd": 0.1}, [_step(1, 10, 0.1)]))
    assert out["differs"] is True
    assert out["reasons"] == [
        "prompt tokens: final_metrics matches neither the computed totals nor this trajectory's "
        "own steps (with or without copied context): one of the two is wrong"
    ]
    cost = next(r for r in out["rows"] if r["field"] == "total_cost_usd")
    assert cost["same"] is True  # within the relative tolerance of RFC.md §2.4


def test_unread_subagent_files_are_named_by_whether_they_were_looked_for() -> None:
    ref = {"trajectory_path": "sub.json", "session_id": "s"}
    step = _step(1, 10, 0.1, observation={"results": [{"subagent_trajectory_ref": [ref]}]})
    doc = _doc({"total_prompt_tokens": 99}, [step])
    assert _explain(doc)["reasons"][-1] == (
        "1 subagent file not read (atif view --follow-refs): their usage is not in the "
        "computed totals"
    )
    assert _explain(doc, followed=True)["reasons"][-1] == (
        "1 subagent file could not be followed: their usage is not in the computed totals"
    )
