"""The trials of Harbor job folders on the page: one row per trial, from its ``result.json``
(:func:`atif_spec.validation.harbor.read_trial`) and the numbers of its trajectories.

Which files are a trial's trajectories is the listing's answer
(:attr:`atif_spec.validation.listing.Listing.trials`); a trial's steps, tokens, cost and findings
add up its trajectories as ``atif stats`` counts them (each file once, RFC.md §2.4).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from atif_spec.validation.harbor import read_trial

MAIN = "trajectory.json"
"""The name of a trial's (or a trial step's) own trajectory; the others are its continuations
and subagents."""


class Trials:
    """The rows of the trials index, in the order their trajectories are read."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[str, Any]] = {}

    def add(self, folder: str, name: str, numbers: dict[str, Any], row: dict[str, Any]) -> None:
        """Count one trajectory (``name``, its stats record and index row) into its trial."""
        trial = self.rows.get(folder)
        if trial is None:
            trial = self.rows[folder] = {
                **read_trial(Path(folder)),
                "folder": folder,
                "main": None,
                "docs": [],
                "steps": 0,
                "tokens": None,
                "trajectory_cost_usd": None,
                "errors": 0,
                "warnings": 0,
            }
        trial["errors"] += row["errors"]
        trial["warnings"] += row["warnings"]
        trial["steps"] += row["steps"] or 0
        trial["tokens"] = _plus(trial["tokens"], row["tokens"])
        trial["trajectory_cost_usd"] = _plus(trial["trajectory_cost_usd"], numbers.get("cost_usd"))
        label = os.path.relpath(name, folder).replace(os.sep, "/")
        trial["docs"].append({"doc": row["doc"], "label": label, "valid": row["valid"]})
        if trial["main"] is None and os.path.basename(name) == MAIN:
            trial["main"] = len(trial["docs"]) - 1

    def to_list(self) -> list[dict[str, Any]]:
        """The rows; ``main`` is the position in ``docs`` of the trial's first own trajectory
        (its first trajectory when none is named ``trajectory.json``)."""
        for trial in self.rows.values():
            if trial["main"] is None:
                trial["main"] = 0
        return list(self.rows.values())


def _plus(total: float | None, value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return total
    return value if total is None else total + value
