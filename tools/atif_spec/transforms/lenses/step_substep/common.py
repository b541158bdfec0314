"""What both run-log mappings share: the steps' targets, the named keys, the lift conditions,
and :class:`Extra`, the ``extra`` of an object being built."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from atif_spec.formats.totals import step_totals
from atif_spec.jsonio.jsonvalues import dicts
from atif_spec.schemas.catalog import load_catalog
from atif_spec.schemas.compiled import rs_validator_at
from atif_spec.transforms.driver import Context

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

# The named keys (MAPPING.md's *named* rows).
STEP_NAMED = ("completed_at", "outcome", "summary", "legacy_turn_id", "legacy_event_id")
"""Run-log step fields kept as the ATIF step's ``extra`` keys of the same name when not null
(and ``message_role`` when ``source`` does not give it back)."""
SUBSTEP_NAMED = ("source", "timestamp", "legacy_turn_id", "legacy_event_id")
"""Run-log substep fields kept in the ATIF tool call's or result's ``extra`` when not null
(``source`` when it is not the spec's emitter of the event)."""
CALL_PAYLOAD_NAMED = ("command", "retry_of_call_id")
RESULT_PAYLOAD_NAMED = ("exit_code", "is_error", "message", "status")
"""Payload keys of a ``tool_call`` and of a result, kept in the ATIF call's or result's extra."""
SUBSTEPS_KEY = "run_log_substeps"
"""ATIF step ``extra`` key of the run-log substeps ATIF has no event for, each whole."""
ROOT_NAMED = {
    "/agent/extra": "agent_extra",
    "/agent/tool_definitions": "tool_definitions",
    **{f"/{k}": k for k in ("trajectory_id", "final_metrics", "notes", "subagent_trajectories")},
    "/continued_trajectory_ref": "continued_trajectory_ref",
}
"""ATIF root fields a run log has no field for, and the run ``extra`` key each goes to."""
ATIF_STEP_NAMED = {
    "model_name": "model",
    **{k: k for k in ("reasoning_effort", "reasoning_content", "metrics", "is_copied_context")},
    "llm_call_count": "llm_call_count",
}
"""ATIF step fields a run log has no field for, and the step ``extra`` key each goes to."""
PARTS_KEY = "message_parts"
"""Step ``extra`` key of an ATIF content-part ``message`` with an image or audio part."""
REF_KEY = "subagent_trajectory_ref"
"""Substep ``extra`` key of an ATIF result's ``subagent_trajectory_ref``."""

ABSENT: Any = object()


def fits(node: str, value: Any) -> bool:
    """Whether ``value`` matches the ATIF v1.7 schema's ``$defs/<node>``."""
    return bool(rs_validator_at(f"{ATIF_SCHEMA}#/$defs/{node}").is_valid(value))


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
    source, _, target = lens.partition("->")
    catalog = load_catalog()
    if doc.get("$schema") == catalog.find(source).id:
        return {"$schema": catalog.find(target).id}
    return {}


class Extra:
    """The ``extra`` of an object being built, from the ``extra`` of the input object it maps
    (at ``at``): shared while unchanged, else a copy with keys taken out and named keys put in."""

    def __init__(self, given: Any, at: str, ctx: Context) -> None:
        self.given, self.at, self.ctx = given, at, ctx
        self.keys: Doc = given if isinstance(given, dict) else {}
        self.edited = False

    def _edit(self) -> Doc:  # the members, copied before the first change
        if not self.edited:
            self.keys, self.edited = dict(self.keys), True
        return self.keys

    def move(self, obj: Doc, field: str, key: str, ok: Callable[[Any], bool] | None = None) -> bool:
        """Move ``key`` to ``obj[field]``: a named key (no ``ok``) where the inverse wrote it, a
        lift where ``ok`` accepts its value. Whether it moved."""
        value = self.keys.get(key, ABSENT)
        if value is ABSENT or not (ok(value) if ok else self.ctx.read(f"{self.at}/{key}")):
            return False
        obj[field] = self._edit().pop(key)
        return True

    def take_items(self, key: str) -> list[Any]:
        """Take out the elements of the list at ``key`` that the inverse wrote (named keys)."""
        held = self.keys.get(key)
        if not isinstance(held, list):
            return []
        mine = {n for n in range(len(held)) if self.ctx.read(f"{self.at}/{key}/{n}")}
        if mine:
            rest = [v for n, v in enumerate(held) if n not in mine]
            self._edit()[key] = rest
            if not rest:
                del self.keys[key]
        return [held[n] for n in sorted(mine)]

    def put(self, key: str, value: Any, source: str | None, owner: str) -> bool:
        """Write ``value`` at ``key`` unless a member is there: a named key read from ``source``
        (reported), or for ``source`` None a lift's key (a mapping)."""
        if key in self.keys:
            return False  # the producer's own: the value goes to the patch
        self._edit()[key] = value
        if source is not None:
            reason = f"{self.ctx.target} has no field for it: a documented name"
            self.ctx.name(source, f"{owner}/extra/{key}", reason)
        return True

    def place(self, obj: Doc) -> None:
        """Set ``obj["extra"]``: the input's when unchanged, nothing when emptied."""
        if not self.edited and isinstance(self.given, dict):
            obj["extra"] = self.given
        elif self.keys:
            obj["extra"] = self.keys
