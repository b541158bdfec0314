"""The trials index's rows: result.json facts plus the trial's trajectories added up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from atif_spec.view.jobs import Trials


def _row(doc: int | None, steps: int | None, tokens: int | None, **extra: Any) -> dict[str, Any]:
    return {
        "doc": doc,
        "steps": steps,
        "tokens": tokens,
        "valid": True,
        "errors": 1,
        "warnings": 0,
        **extra,
    }


def test_a_trial_adds_up_its_trajectories_and_names_its_own(tmp_path: Path) -> None:
    trial = tmp_path / "t__1"
    (trial / "agent").mkdir(parents=True)
    (trial / "result.json").write_text('{"verifier_result": {"rewards": {"reward": 1}}}')
    trials = Trials()
    trials.add(
        str(trial),
        str(trial / "agent/trajectory.cont-1.json"),
        {"cost_usd": 0.25},
        _row(0, 3, None),
    )
    trials.add(str(trial), str(trial / "agent/trajectory.json"), {"cost_usd": None}, _row(1, 2, 40))
    (row,) = trials.to_list()
    assert row["outcome"] == "passed" and row["name"] == "t__1"
    assert (row["steps"], row["tokens"], row["trajectory_cost_usd"], row["errors"]) == (
        5,
        40,
        0.25,
        2,
    )
    assert row["docs"][row["main"]] == {"doc": 1, "label": "agent/trajectory.json", "valid": True}


def test_without_a_trajectory_json_the_first_is_the_trials(tmp_path: Path) -> None:
    trials = Trials()
    trials.add(
        str(tmp_path), str(tmp_path / "agent/trajectory.cont-1.json"), {}, _row(None, None, None)
    )
    (row,) = trials.to_list()
    assert row["main"] == 0 and row["docs"][0]["doc"] is None  # not in the page (--max-docs)
    assert row["outcome"] == "no result" and row["problem"] == "no result.json"
