"""The step/substep run log (gza's message-step model): told apart by its shape, and the facts of
its model (enums, id formats, the synthetic step, RFC 3339 times)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any, Final

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


OUTCOMES: Final = ("completed", "failed", "interrupted", "timeout")
SUBSTEP_TYPES: Final = (
    "tool_call",
    "tool_output",
    "tool_error",
    "tool_retry",
    "status_update",
    "artifact",
)
TOOL_TYPES: Final = frozenset({"tool_call", "tool_output", "tool_error", "tool_retry"})
RESULT_TYPES: Final = frozenset({"tool_output", "tool_error"})
SOURCES: Final = ("runner", "provider", "tool")
SYNTHETIC_SUMMARY: Final = "Pre-message tool activity"
"""Summary of the synthetic step that holds tool events with no message to belong to."""

STEP_ID = re.compile(r"^S[1-9][0-9]*$")
SUBSTEP_ID = re.compile(r"^S[1-9][0-9]*\.[1-9][0-9]*$")
LEGACY_TURN_ID = re.compile(r"^T[0-9]+$")
LEGACY_EVENT_ID = re.compile(r"^T[0-9]+\.[0-9]+$")
RFC3339 = re.compile(
    r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:"
    r"([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
)


def step_id(step_index: int) -> str:
    """``S<n>`` for step index ``n``."""
    return f"S{step_index}"


def substep_id(parent_step_id: str, substep_index: int) -> str:
    """``S<n>.<m>`` for substep ``m`` of step ``S<n>``."""
    return f"{parent_step_id}.{substep_index}"


def is_rfc3339(value: Any) -> bool:
    """True for a string that is an RFC 3339 date-time with seconds and an offset."""
    return isinstance(value, str) and RFC3339.match(value) is not None


def parse_time(value: Any) -> datetime | None:
    """The aware datetime of an RFC 3339 string; None when it is not one."""
    if not is_rfc3339(value):
        return None
    text = str(value).upper().replace("Z", "+00:00")
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def utc_now() -> str:
    """The current UTC time as RFC 3339 text (only the store uses the wall clock)."""
    return datetime.now(UTC).isoformat()


def default_source(substep_type: str) -> str:
    """The spec's emitter of a substep whose stream names none (DECISIONS.md SSL-23): ``tool``
    for a tool's output or error, ``provider`` for everything else the stream carries."""
    return "tool" if substep_type in RESULT_TYPES else "provider"
