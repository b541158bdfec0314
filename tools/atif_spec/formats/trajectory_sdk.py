"""trajectory-sdk: the cumulative-snapshot files saved by the trajectory-sdk package (0.1-0.4).

The files declare no version, so detection goes by shape: a root object with a ``steps`` array
whose steps are message snapshots (``{"messages": [...]}``), and none of the markers of the other
formats (a ``schema_version``; an ``agent`` or ``session_id`` as in ATIF and TAO records; steps
carrying ``step_id``, ``step_index``, ``source``, ``role`` or ``substeps``).
"""

from __future__ import annotations

from typing import Any

from atif_spec.formats import FormatSpec

VERSION = "v0.4"

_FOREIGN_ROOT_KEYS = frozenset({"schema_version", "agent", "session_id", "run_id"})
"""Root keys the SDK never writes and that mark ATIF, TAO or step-substep documents."""

_FOREIGN_STEP_KEYS = frozenset({"step_id", "step_index", "source", "role", "substeps"})
"""Step keys of the other formats; SDK steps hold only messages, reward, info, trainable_status."""

_SDK_ROOT_KEYS = frozenset({"metrics", "execution_metrics", "telemetry", "reference_trajectory"})
_SDK_TASK_KEYS = frozenset({"data_source", "conversation_id", "num_steps", "num_turns"})


def _sdk_step(step: Any) -> bool:
    return (
        isinstance(step, dict)
        and isinstance(step.get("messages"), list)
        and _FOREIGN_STEP_KEYS.isdisjoint(step)
    )


def detect(doc: Any) -> str | None:
    """``v0.4`` for an SDK-shaped trajectory; None for anything else."""
    if not isinstance(doc, dict) or not _FOREIGN_ROOT_KEYS.isdisjoint(doc):
        return None
    steps = doc.get("steps")
    if not isinstance(steps, list):
        return None
    if steps:
        if not all(_sdk_step(s) or not isinstance(s, dict) for s in steps):
            return None
        return VERSION if any(_sdk_step(s) for s in steps) else None
    # No steps to look at: accept only when the rest of the document looks like the SDK's.
    task = doc.get("task")
    if isinstance(task, dict) and not _SDK_TASK_KEYS.isdisjoint(task):
        return VERSION
    return VERSION if "task" in doc and not _SDK_ROOT_KEYS.isdisjoint(doc) else None


FORMAT = FormatSpec(
    name="trajectory-sdk",
    title="trajectory-sdk trajectory (Trajectory AI SDK 0.1-0.4)",
    versions=(VERSION,),
    detect=detect,
    priority=60,
)
