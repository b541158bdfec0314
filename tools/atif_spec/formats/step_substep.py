"""The step/substep run log (gza's message-step model), told apart by its shape."""

from __future__ import annotations

from typing import Any

from atif_spec.formats import FormatSpec

VERSIONS = ("v1.0",)


def detect(doc: Any) -> str | None:
    """``v1.0`` for an object with ``run_id`` and ``steps`` that is not an ATIF-like document."""
    if not isinstance(doc, dict) or "run_id" not in doc or "steps" not in doc:
        return None
    if any(key in doc for key in ("schema_version", "agent", "session_id", "trajectory_id")):
        return None
    steps = doc["steps"]
    if isinstance(steps, list) and steps and isinstance(steps[0], dict):
        first = steps[0]
        if not any(key in first for key in ("substeps", "step_index", "message_role")):
            return None
    return VERSIONS[-1]


FORMAT = FormatSpec(
    name="step-substep",
    title="Step/substep run log",
    versions=VERSIONS,
    detect=detect,
    priority=70,
)
