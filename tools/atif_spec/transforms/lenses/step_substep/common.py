"""What both run-log mappings share: the steps' targets, the named keys (rows of
:mod:`atif_spec.transforms.fields`) and the lift conditions."""

from __future__ import annotations

import functools
import math
from typing import Any

from atif_spec.formats.totals import step_totals
from atif_spec.jsonio.jsonvalues import dicts
from atif_spec.schemas.catalog import load_catalog
from atif_spec.schemas.compiled import rs_validator_at
from atif_spec.transforms.fields import Named

Doc = dict[str, Any]

SSL = "step-substep@v1.0"
ATIF = "atif@v1.7"
TO_ATIF = f"{SSL}->{ATIF}"
TO_SSL = f"{ATIF}->{SSL}"

UNKNOWN = "unknown"
"""``agent.version`` of converted run logs, and the provider of ATIF agents without a name."""
PLACEHOLDER_STEP: Doc = {"step_id": 1, "source": "system", "message": ""}
"""The step an empty run gets in ATIF, which requires at least one."""
NO_MESSAGE_SUMMARY = "Tool activity without a message"
"""Summary of a converted ATIF step that calls tools with a blank message (run-log rule SSL109)."""
SOURCE_OF_ROLE = {"assistant": "agent", "user": "user", "system": "system"}
ROLE_OF_SOURCE = {"agent": "assistant", "user": "user", "system": "system"}
ATIF_SCHEMA = "https://atif-spec.org/schemas/atif/v1.7/trajectory.schema.json"

# The named keys: each row drives both mappings and MAPPING.md (transforms.fields).
_NON_NULL = "When not null (null is what the way back writes)."
_STEP, _CALL, _RESULT = "/steps/*", "/steps/*/tool_calls/*", "/steps/*/observation/results/*"
STEP_NAMED = (
    Named("completed_at", "completed_at", _STEP, note=_NON_NULL),
    Named("outcome", "outcome", _STEP, note="How the step ended. " + _NON_NULL),
    Named(
        "summary",
        "summary",
        _STEP,
        note="The machine summary (`Pre-message tool activity`). When not null and not the "
        "label the way back writes for the step (`Tool activity without a message` on a step "
        "without text that holds tool events; SSL-28).",
    ),
    Named("legacy_turn_id", "legacy_turn_id", _STEP, note=_NON_NULL),
    Named("legacy_event_id", "legacy_event_id", _STEP, note=_NON_NULL),
)
"""Run-log step fields kept as the ATIF step's ``extra`` keys of the same name."""
ROLE_NAMED = Named(
    "message_role",
    "message_role",
    _STEP,
    note="A role the way back would not write from `source` (`runner`, or a role of a step "
    "that calls tools).",
)
_SUBSTEP_NOTES = {
    "source": "When it is not the spec's emitter of the event (`provider` for a call, `tool` "
    "for its output), which the way back writes.",
    "timestamp": _NON_NULL,
    "legacy_turn_id": _NON_NULL,
    "legacy_event_id": _NON_NULL,
}

CALL_NAMED = tuple(Named(k, k, _CALL, note=n) for k, n in _SUBSTEP_NOTES.items())
RESULT_NAMED = tuple(Named(k, k, _RESULT, note=n) for k, n in _SUBSTEP_NOTES.items())
"""Run-log substep fields kept in the ATIF tool call's or result's ``extra``."""
CALL_PAYLOAD_NAMED = tuple(
    Named(key, key, _CALL, note=note, label=f"`payload.{key}`")
    for key, note in (
        ("command", "Codex's command line."),
        ("retry_of_call_id", "The call this one retries."),
    )
)
RESULT_PAYLOAD_NAMED = tuple(
    Named(key, key, _RESULT, note=note, label=f"`payload.{key}`")
    for key, note in (
        ("exit_code", "The command's exit status."),
        ("is_error", "The provider's error flag."),
        ("message", "The error message."),
        ("status", "The provider's status label."),
    )
)
"""Members of a ``tool_call``'s and of a result's ``payload``, kept in the ATIF call's or
result's extra."""
SUBSTEPS_KEY = "run_log_substeps"
"""ATIF step ``extra`` key of the run-log substeps ATIF has no event for, each whole."""
ROOT_NAMED = (
    Named("agent/tool_definitions", "tool_definitions"),
    Named(
        "final_metrics",
        "final_metrics",
        label="`final_metrics` (totals that disagree with the steps')",
    ),
    Named("notes", "notes"),
    Named("continued_trajectory_ref", "continued_trajectory_ref"),
    Named(
        "subagent_trajectories",
        "subagent_trajectories",
        note="The embedded ATIF trajectories, whole (their own stashes included).",
    ),
    Named(
        "trajectory_id",
        "trajectory_id",
        note="The trajectory's own id (subagent references name it), beside the `run_id`.",
    ),
    Named("agent/extra", "agent_extra"),
)
"""ATIF root fields a run log has no field for, and the run ``extra`` key each goes to."""
_SKIPPED = "of a step the lift skips (not an `agent` step)"
ATIF_STEP_NAMED = (
    Named("model_name", "model", _STEP, label=f"`model_name` {_SKIPPED}"),
    Named("reasoning_effort", "reasoning_effort", _STEP),
    Named("reasoning_content", "reasoning_content", _STEP),
    Named("metrics", "metrics", _STEP, label=f"`metrics` {_SKIPPED}"),
    Named("is_copied_context", "is_copied_context", _STEP),
    Named("llm_call_count", "llm_call_count", _STEP),
)
"""ATIF step fields a run log has no field for, and the step ``extra`` key each goes to."""
PARTS_NAMED = Named(
    "message",
    "message_parts",
    _STEP,
    label="`message` (content parts with an image or audio part)",
    note="The whole list, unchanged (SSL-28): the run log's text has no place for media.",
)
"""Step ``extra`` key of an ATIF content-part ``message`` with an image or audio part."""
REF_NAMED = Named(
    "subagent_trajectory_ref",
    "subagent_trajectory_ref",
    "/steps/*/substeps/*",
    label="`ObservationResult.subagent_trajectory_ref`",
)
"""Substep ``extra`` key of an ATIF result's ``subagent_trajectory_ref``."""


def fits(node: str, value: Any) -> bool:
    """Whether ``value`` matches the ATIF v1.7 schema's ``$defs/<node>``."""
    return bool(_validator(node).is_valid(value))


@functools.cache
def _validator(node: str) -> Any:  # (cached here too: the location is not formatted per value)
    return rs_validator_at(f"{ATIF_SCHEMA}#/$defs/{node}")


def is_text(value: Any) -> bool:
    return isinstance(value, str)


def metrics_ok(value: Any) -> bool:
    return fits("Metrics", value)


def final_ok(final: Any, steps: Any) -> bool:
    """True for a valid ``FinalMetrics`` whose totals equal the steps' (rule ATIF306) and whose
    ``total_steps``, if any, is their number: lifting it draws no warning."""
    if not isinstance(final, dict) or not fits("FinalMetrics", final):
        return False
    steps = [s for _, s in dicts(steps)]
    if "total_steps" in final and final["total_steps"] != len(steps):
        return False
    totals = step_totals(steps).as_final_metrics()
    for name in ("total_prompt_tokens", "total_completion_tokens", "total_cached_tokens"):
        if name in final and name in totals and final[name] != totals[name]:
            return False
    cost, mine = final.get("total_cost_usd"), totals.get("total_cost_usd")
    return cost is None or mine is None or math.isclose(float(cost), float(mine), rel_tol=1e-6)


def schema_url(doc: Doc, lens: str) -> Doc:
    """``{"$schema": <the target's schema>}`` when ``doc``'s ``$schema`` names its own format's
    schema (an editor's reference), else ``{}`` (another value goes to the patch; SSL-28)."""
    own, target = _schema_ids(lens)
    return {"$schema": target} if doc.get("$schema") == own else {}


@functools.cache
def _schema_ids(lens: str) -> tuple[str, str]:
    source, _, target = lens.partition("->")
    return load_catalog().find(source).id, load_catalog().find(target).id
