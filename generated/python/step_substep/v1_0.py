# Generated file: do not edit by hand.
# Schema: https://atif-spec.org/schemas/step-substep/v1.0/run-log.schema.json
#   (spec/step-substep/v1.0/run-log.schema.json)
# Generator: datamodel-code-generator 0.89.0 through atif_spec.codegen, options in
#   [tool.datamodel-codegen]
# Regenerate: nox -s generate

from __future__ import annotations

from typing import Annotated, Any, Literal

from atif_spec.bindings.models_base import JsonInteger, StrictModel
from pydantic import ConfigDict, Field
from typing_extensions import TypeAliasType

Timestamp = TypeAliasType(
    "Timestamp",
    Annotated[
        str | None,
        Field(
            ...,
            description="An RFC 3339 date-time with seconds and a UTC offset (`2026-02-26T10:30:00+00:00` or `...Z`); null when the source recorded no time.",
            pattern="^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$",
            title="Timestamp",
        ),
    ],
)


LegacyTurnId = TypeAliasType(
    "LegacyTurnId",
    Annotated[
        str | None,
        Field(
            ...,
            description="The turn label of the old turn-first scheme (`T1`), kept for compatibility; null when there was none.",
            pattern="^T[0-9]+$",
            title="Legacy turn id",
        ),
    ],
)


LegacyEventId = TypeAliasType(
    "LegacyEventId",
    Annotated[
        str | None,
        Field(
            ...,
            description="The event label of the old turn-first scheme (`T1.13`: event 13 of turn 1), kept for compatibility; null when there was none.",
            pattern="^T[0-9]+\\.[0-9]+$",
            title="Legacy event id",
        ),
    ],
)


class Substep(StrictModel):
    """
    One machine event that belongs to a step: a tool call, its output or error, a retry, a status note or an artifact. The shape of `payload` depends on `type`. Generated binding: the schema's conditional and cross-field rules, which the field types cannot express, are checked against this definition of the schema when the model is validated; `atif_spec.validate` adds the spec's rules beyond the schema.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    substep_id: str = Field(
        ...,
        description="Step-local label of the substep: the parent's `step_id`, a dot, and `substep_index` (`S3.1`).",
        pattern="^S[1-9][0-9]*\\.[1-9][0-9]*$",
        title="Substep id",
    )
    substep_index: JsonInteger = Field(
        ...,
        description="Position of the substep in its step: 1 for the first, then one more for each substep.",
        ge=1,
        title="Substep index",
    )
    type: Literal[
        "tool_call", "tool_output", "tool_error", "tool_retry", "status_update", "artifact"
    ] = Field(..., description="What kind of event the substep records.", title="Type")
    source: Literal["runner", "provider", "tool"] = Field(
        ...,
        description="Who emitted the event: the runner (the harness), the provider, or the tool itself.",
        title="Source",
    )
    call_id: str | None = Field(
        default=None,
        description="Identifier of the tool call the event belongs to. A `tool_call` introduces it; its `tool_output` or `tool_error` repeats it.",
        title="Call id",
    )
    payload: Any = Field(
        ..., description="The event's data; its shape depends on `type`.", title="Payload"
    )
    timestamp: Timestamp = Field(
        ...,
        description="When the event happened (RFC 3339); null only when the source recorded no time.",
        title="Timestamp",
    )
    legacy_turn_id: LegacyTurnId | None = None
    legacy_event_id: LegacyEventId | None = None
    extra: dict[str, Any] | None = Field(
        default=None,
        description="Data that has no field of its own here, kept so that conversions to and from other formats lose nothing. Keys are free; values are any JSON.",
        json_schema_extra={"x-never-null": True},
        title="Substep extra",
    )


class Step(StrictModel):
    """
    One provider message as shown in the run timeline, with the tool activity that happened during it. A step with no message that holds tool events is a synthetic step and says why in `summary`.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    step_id: str = Field(
        ...,
        description="Run-local label of the step: `S` followed by `step_index` (`S1`, `S2`, ...).",
        pattern="^S[1-9][0-9]*$",
        title="Step id",
    )
    step_index: JsonInteger = Field(
        ...,
        description="Position of the step in the run: 1 for the first, then one more for each step.",
        ge=1,
        title="Step index",
    )
    provider: str = Field(
        ...,
        description="The provider that produced the message (`codex`, `claude`, `gemini`, ...).",
        min_length=1,
        title="Provider",
    )
    message_role: str = Field(
        ...,
        description="Role of the message's author; usually `assistant`.",
        min_length=1,
        title="Message role",
    )
    message_text: str | None = Field(
        default=None,
        description="The text of the message the user can see; null for a synthetic step that stands for no message.",
        title="Message text",
    )
    started_at: Timestamp = Field(
        ...,
        description="When the step began (RFC 3339); null only when the source recorded no time.",
        title="Started at",
    )
    completed_at: Timestamp | None = Field(
        default=None,
        description="When the step ended (RFC 3339); null until the step is finalized or when the source recorded no time. Never earlier than `started_at`.",
        title="Completed at",
    )
    outcome: Literal["completed", "failed", "interrupted", "timeout"] | None = Field(
        ..., description="How the step ended; null until the step is finalized.", title="Outcome"
    )
    summary: str | None = Field(
        default=None,
        description="A short machine-written summary of the step's outcome. A synthetic step holding tool events that came before any message says `Pre-message tool activity`.",
        title="Summary",
    )
    legacy_turn_id: LegacyTurnId | None = None
    legacy_event_id: LegacyEventId | None = None
    substeps: list[Substep] = Field(
        ..., description="The step's machine events in order of `substep_index`.", title="Substeps"
    )
    extra: dict[str, Any] | None = Field(
        default=None,
        description="Data that has no field of its own here, kept so that conversions to and from other formats lose nothing. Keys are free; values are any JSON.",
        json_schema_extra={"x-never-null": True},
        title="Step extra",
    )


class RunLog(StrictModel):
    """
    One agent run recorded step-first: each provider message is a step (`S<n>`), and the machine events during it (tool calls, results, errors, retries, status notes, artifacts) are its ordered substeps (`S<n>.<m>`). Legacy turn and event labels (`T1`, `T1.13`) may be kept beside the new ids.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    field_schema: str | None = Field(
        default=None,
        alias="$schema",
        description="Optional reference to this schema, for editors.",
        json_schema_extra={"x-never-null": True},
        title="Schema",
    )
    run_id: str = Field(
        ...,
        description="Identifier of the run (for gza, the task id). Every step and substep belongs to this run.",
        min_length=1,
        title="Run id",
    )
    provider: str = Field(
        ...,
        description="The provider that ran the agent (`codex`, `claude`, `gemini`, ...); steps normally repeat it.",
        min_length=1,
        title="Provider",
    )
    steps: list[Step] = Field(..., description="The steps in order of `step_index`.", title="Steps")
    extra: dict[str, Any] | None = Field(
        default=None,
        description="Data that has no field of its own here, kept so that conversions to and from other formats lose nothing. Keys are free; values are any JSON.",
        json_schema_extra={"x-never-null": True},
        title="Run extra",
    )


# Each model also checks its input against its schema definition: the conditionals
# and other rules that field types cannot express
# (atif_spec.bindings.models_base.StrictModel).
StrictModel.bind_schema_locations(
    "https://atif-spec.org/schemas/step-substep/v1.0/run-log.schema.json",
    {
        Substep: "#/$defs/Substep",
        Step: "#/$defs/Step",
        RunLog: "#",
    },
)
