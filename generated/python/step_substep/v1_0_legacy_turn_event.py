# Generated file: do not edit by hand.
# Schema: https://atif-spec.org/schemas/step-substep/v1.0/legacy-turn-event.schema.json
#   (spec/step-substep/v1.0/legacy-turn-event.schema.json)
# Generator: datamodel-code-generator 0.89.0 through atif_spec.codegen, options in
#   [tool.datamodel-codegen]
# Regenerate: nox -s generate

from __future__ import annotations

from typing import Any, Literal

from atif_spec.bindings.models_base import StrictModel
from pydantic import ConfigDict, Field


class LegacyTurnEvent(StrictModel):
    """
    One event of a turn-first log in normalized form: one JSON object per line, in sequence order, labelled by turn (`T1`) and event (`T1.13`). Provider messages and status lines become steps of a run log; tool events become substeps of the most recent step.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    legacy_event_id: str = Field(
        ...,
        description="The event's label: turn number, a dot, and the event's number in that turn (`T1.13`).",
        pattern="^T[0-9]+\\.[0-9]+$",
        title="Legacy event id",
    )
    legacy_turn_id: str | None = Field(
        default=None,
        description="The turn's label (`T1`); when absent it is the part of `legacy_event_id` before the dot, and when present it must equal that part.",
        json_schema_extra={"x-never-null": True},
        pattern="^T[0-9]+$",
        title="Legacy turn id",
    )
    kind: Literal[
        "message",
        "status",
        "tool_call",
        "tool_output",
        "tool_error",
        "tool_retry",
        "status_update",
        "artifact",
    ] = Field(
        ...,
        description="What the event is: a provider message or a status line (each starts a step), or a tool or status event (each becomes a substep of the current step; `status_update` and `artifact` never start a step).",
        title="Kind",
    )
    run_id: str | None = Field(
        default=None,
        description="The run the event belongs to; all events of one log share it.",
        json_schema_extra={"x-never-null": True},
        min_length=1,
        title="Run id",
    )
    provider: str | None = Field(
        default=None,
        description="The provider that produced the event (`codex`, `claude`, `gemini`, ...).",
        json_schema_extra={"x-never-null": True},
        min_length=1,
        title="Provider",
    )
    role: str | None = Field(
        default=None,
        description="For a message: the author's role (default `assistant`).",
        json_schema_extra={"x-never-null": True},
        min_length=1,
        title="Role",
    )
    text: str | None = Field(
        default=None, description="For a message or status line: its text.", title="Text"
    )
    source: Literal["runner", "provider", "tool"] | None = Field(
        default=None,
        description="For a tool or status event: who emitted it (default `provider`).",
        json_schema_extra={"x-never-null": True},
        title="Source",
    )
    call_id: str | None = Field(
        default=None,
        description="For a tool event: the identifier of the tool call it belongs to.",
        title="Call id",
    )
    payload: dict[str, Any] | None = Field(
        default=None,
        description="For a tool or status event: the event's data, copied to the substep's `payload` (see the run-log schema for the shape per type).",
        json_schema_extra={"x-never-null": True},
        title="Payload",
    )
    timestamp: str | None = Field(
        default=None,
        description="When the event happened (RFC 3339), or null when unknown.",
        pattern="^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$",
        title="Timestamp",
    )
    outcome: Literal["completed", "failed", "interrupted", "timeout"] | None = Field(
        default=None, description="For a message: how its step ended, when known.", title="Outcome"
    )
    extra: dict[str, Any] | None = Field(
        default=None,
        description="Data with no field of its own, copied to the `extra` of the step or substep the event becomes.",
        json_schema_extra={"x-never-null": True},
        title="Event extra",
    )


# Each model also checks its input against its schema definition: the conditionals
# and other rules that field types cannot express
# (atif_spec.bindings.models_base.StrictModel).
StrictModel.bind_schema_locations(
    "https://atif-spec.org/schemas/step-substep/v1.0/legacy-turn-event.schema.json",
    {
        LegacyTurnEvent: "#",
    },
)
