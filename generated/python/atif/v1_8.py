# Generated file: do not edit by hand.
# Schema: https://atif-spec.org/schemas/atif/v1.8/trajectory.schema.json
#   (spec/atif/v1.8/trajectory.schema.json)
# Generator: datamodel-code-generator 0.89.0 through atif_spec.codegen, options in
#   [tool.datamodel-codegen]
# Regenerate: nox -s generate

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from atif_spec.bindings.models_base import JsonInteger, StrictModel
from atif_spec.models.atif import v1_7 as _atif_v1_7
from pydantic import ConfigDict, Field
from typing_extensions import TypeAliasType


class Agent(StrictModel):
    """
    The agent system that produced the trajectory.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    name: str = Field(
        ...,
        description="Name of the agent system that produced the trajectory, for example `terminus-2` or `claude-code`.",
        title="Name",
    )
    version: str = Field(
        ...,
        description="Version of the agent system, as a string (a bare number is not accepted).",
        title="Version",
    )
    model_name: str | None = Field(
        default=None,
        description="Default model used by the agent. A step's own `model_name` takes precedence for that step.",
        title="Model name",
    )
    tool_definitions: list[dict[str, Any]] | None = Field(
        default=None,
        description='Tools the agent could call, each an object in the OpenAI function-calling shape (`{"type": "function", "function": {name, description, parameters}}`). The schema does not constrain the objects; the validator warns when one does not have that shape.',
        title="Tool definitions",
    )
    extra: dict[str, Any] | None = Field(
        default=None,
        description="Free-form, producer-defined data attached to the agent description. Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.",
        title="Extra",
    )


class AudioSource(StrictModel):
    """
    Where the bytes of an audio clip live (added in v1.8). Like images, audio is referenced by path or URL, not embedded.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    media_type: Literal[
        "audio/wav",
        "audio/mpeg",
        "audio/mp4",
        "audio/aac",
        "audio/ogg",
        "audio/flac",
        "audio/webm",
        "audio/aiff",
    ] = Field(
        ...,
        description="Canonical MIME type of the audio. Aliases such as audio/mp3 or audio/x-wav are not accepted in documents; producers write the canonical name.",
        title="Media type",
    )
    path: str = Field(
        ...,
        description="Location of the audio: a path relative to the trajectory file's folder, an absolute path, or a URL.",
        title="Path",
    )
    duration_sec: int | float | None = Field(
        default=None,
        description="Length of the clip in seconds, when known.",
        ge=0.0,
        title="Duration (seconds)",
    )


class FinalMetrics(StrictModel):
    """
    Totals over the whole trajectory.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    total_prompt_tokens: JsonInteger | None = Field(
        default=None,
        description="Sum of the steps' `prompt_tokens` (cached tokens included).",
        ge=0,
        title="Total prompt tokens",
    )
    total_completion_tokens: JsonInteger | None = Field(
        default=None,
        description="Sum of the steps' `completion_tokens`.",
        ge=0,
        title="Total completion tokens",
    )
    total_cached_tokens: JsonInteger | None = Field(
        default=None,
        description="Sum of the steps' `cached_tokens`.",
        ge=0,
        title="Total cached tokens",
    )
    total_cost_usd: int | float | None = Field(
        default=None,
        description="Total cost of the trajectory in US dollars.",
        title="Total cost (USD)",
    )
    total_steps: JsonInteger | None = Field(
        default=None,
        description="Number of steps. When it differs from the length of `steps`, `notes` should say why.",
        ge=0,
        title="Total steps",
    )
    extra: dict[str, Any] | None = Field(
        default=None,
        description="Free-form, producer-defined data attached to the totals. Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.",
        title="Extra",
    )


class ImageSource(StrictModel):
    """
    Where the bytes of an image live. ATIF stores media as separate files (by convention in an images/ folder beside the trajectory) or URLs, never inline.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    media_type: Literal["image/jpeg", "image/png", "image/gif", "image/webp"] = Field(
        ..., description="MIME type of the image.", title="Media type"
    )
    path: str = Field(
        ...,
        description="Location of the image: a path relative to the trajectory file's folder, an absolute path, or a URL.",
        title="Path",
    )


class Metrics(StrictModel):
    """
    Token usage, cost and token-level data of the LLM call(s) behind an agent step.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    prompt_tokens: JsonInteger | None = Field(
        default=None,
        description="Input tokens of the LLM call, cached and uncached together.",
        ge=0,
        title="Prompt tokens",
    )
    completion_tokens: JsonInteger | None = Field(
        default=None,
        description="Tokens generated by the call, including reasoning and tool-call tokens.",
        ge=0,
        title="Completion tokens",
    )
    cached_tokens: JsonInteger | None = Field(
        default=None,
        description="Prompt tokens served from the provider's cache; a subset of `prompt_tokens`, not an addition to it.",
        ge=0,
        title="Cached tokens",
    )
    cost_usd: int | float | None = Field(
        default=None,
        description="Cost of the call in US dollars as computed when it ran.",
        title="Cost (USD)",
    )
    prompt_token_ids: list[JsonInteger] | None = Field(
        default=None,
        description="Token ids of the whole prompt, history included; as many as `prompt_tokens`.",
        title="Prompt token ids",
    )
    completion_token_ids: list[JsonInteger] | None = Field(
        default=None,
        description="Token ids of the response; as many as `completion_tokens`, aligned with `logprobs`.",
        title="Completion token ids",
    )
    logprobs: list[int | float] | None = Field(
        default=None,
        description="Log probability of each generated token, one per completion token.",
        title="Log probabilities",
    )
    extra: dict[str, Any] | None = Field(
        default=None,
        description="Free-form, producer-defined data attached to these metrics (provider-specific counters such as reasoning tokens or cache writes). Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.",
        title="Extra",
    )


class SubagentTrajectoryRef(StrictModel):
    """
    A pointer from an observation result to the trajectory of a subagent whose work produced it. From v1.7 the reference must be resolvable: it sets `trajectory_id` (embedded form), `trajectory_path` (file-ref form), or both; `session_id` alone is not enough. Generated binding: the schema's conditional and cross-field rules, which the field types cannot express, are checked against this definition of the schema when the model is validated; `atif_spec.validate` adds the spec's rules beyond the schema.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    trajectory_id: str | None = Field(
        default=None,
        description="Identifier of an embedded subagent: it matches the `trajectory_id` of one element of the parent's `subagent_trajectories` (the embedded form).",
        min_length=1,
        title="Trajectory id",
    )
    session_id: str | None = Field(
        default=None,
        description="Session of the subagent run, for information only. It is not a resolution key: several subagents may share it.",
        title="Session id",
    )
    trajectory_path: str | None = Field(
        default=None,
        description="Where the subagent's trajectory document is stored (the file-ref form): a path relative to the referring file, an absolute path, a URL, or another locator.",
        min_length=1,
        title="Trajectory path",
    )
    extra: dict[str, Any] | None = Field(
        default=None,
        description="Free-form, producer-defined data attached to this reference (a summary, an exit status, ...). Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.",
        title="Extra",
    )


class ToolCall(StrictModel):
    """
    One tool or function invocation requested by the model in an agent step.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    tool_call_id: str = Field(
        ...,
        description="Identifier of this call; observation results point back at it through `source_call_id`. Should be unique within the step.",
        title="Tool call id",
    )
    function_name: str = Field(
        ..., description="Name of the tool or function the agent invoked.", title="Function name"
    )
    arguments: dict[str, Any] = Field(
        ...,
        description="Arguments of the call as a JSON object (possibly empty). A JSON-encoded string is not accepted.",
        title="Arguments",
    )
    extra: dict[str, Any] | None = Field(
        default=None,
        description="Free-form, producer-defined data attached to this tool call (timeouts, retry counts, tool versions, ...). Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.",
        title="Extra",
    )


class ContentPart(StrictModel):
    """
    One piece of a multimodal message or observation: either text, or a reference to a media file (image or audio). The `type` decides which of `text` and `source` is set; the other must be absent or null. Generated binding: the schema's conditional and cross-field rules, which the field types cannot express, are checked against this definition of the schema when the model is validated; `atif_spec.validate` adds the spec's rules beyond the schema.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    type: Literal["text", "image", "audio"] = Field(
        ..., description="Kind of content carried by this part.", title="Type"
    )
    text: str | None = Field(
        default=None,
        description="The text of a `text` part (the empty string is allowed). Absent or null on media parts.",
        title="Text",
    )
    source: ImageSource | AudioSource | None = Field(
        default=None,
        description="The media file of an image or audio part. Absent or null on text parts. Its kind must match `type`.",
        title="Source",
    )


class EmbeddedSubagentAtifV17(_atif_v1_7.Trajectory):
    """
    A subagent's complete trajectory embedded in its parent. It must declare a version from ATIF-v1.7 up to the parent's version and a `trajectory_id`; it is then validated as a trajectory of the version it declares.
    """

    schema_version: Literal["ATIF-v1.7"] = Field(
        ..., description="Version declared by the embedded trajectory.", title="Schema version"
    )
    trajectory_id: str = Field(
        ...,
        description="Key that references in the parent resolve against.",
        min_length=1,
        title="Trajectory id",
    )


class ObservationResult(StrictModel):
    """
    One result fed back to the agent: the output of a tool call, of a system operation, or of a delegated subagent.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    source_call_id: str | None = Field(
        default=None,
        description="The `tool_call_id` of the call in the same step that produced this result. Absent or null when the result does not come from a tool call (a system operation or other non-tool action).",
        title="Source call id",
    )
    content: str | list[ContentPart] | None = Field(
        default=None,
        description="What the environment or tool returned: a string, or a list of content parts mixing text and media. May be left out when the result only points at a subagent trajectory.",
        title="Content",
    )
    subagent_trajectory_ref: list[SubagentTrajectoryRef] | None = Field(
        default=None,
        description="Trajectories of subagents whose work produced this result (one element for a single subagent).",
        title="Subagent trajectory references",
    )
    extra: dict[str, Any] | None = Field(
        default=None,
        description="Free-form, producer-defined data attached to this result (a retrieval score, a source document id, ...). Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.",
        title="Extra",
    )


class Observation(StrictModel):
    """
    Feedback the agent receives after acting: the results of its tool calls or of other operations.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    results: list[ObservationResult] = Field(
        ..., description="The individual results, possibly none.", title="Results"
    )


class Step(StrictModel):
    """
    One interaction in the trajectory: a system message, a user message, or an agent turn with its tool calls and their observations. Generated binding: the schema's conditional and cross-field rules, which the field types cannot express, are checked against this definition of the schema when the model is validated; `atif_spec.validate` adds the spec's rules beyond the schema.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    step_id: JsonInteger = Field(
        ...,
        description="Ordinal of the step: 1 for the first step, then consecutive without gaps or repeats (numbering restarts inside each embedded subagent).",
        ge=1,
        title="Step id",
    )
    timestamp: str | None = Field(
        default=None,
        description="When the step happened, as an ISO 8601 extended date-time (`2025-10-11T10:30:00Z`); the fraction and the UTC offset are optional, though an offset should be given.",
        pattern="^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]+)?)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?$",
        title="Timestamp",
    )
    source: Literal["system", "user", "agent"] = Field(
        ...,
        description="Who produced the step: the system (prompts, context operations), the user, or the agent (an LLM turn or a deterministic dispatch).",
        title="Source",
    )
    model_name: str | None = Field(
        default=None,
        description="Model used for this step, overriding `agent.model_name`. Agent steps only.",
        title="Model name",
    )
    reasoning_effort: str | int | float | None = Field(
        default=None,
        description="Reasoning effort requested from the model, as a label (`low`, `medium`, ...) or a number. Agent steps only.",
        title="Reasoning effort",
    )
    message: str | list[ContentPart] = Field(
        ...,
        description="The step's content: the system prompt, the user's words, or the agent's reply, as a string or a list of content parts. Required and never null; an empty string or list is allowed.",
        title="Message",
    )
    reasoning_content: str | None = Field(
        default=None,
        description="The model's reasoning behind the step, when exposed. Agent steps only.",
        title="Reasoning content",
    )
    tool_calls: list[ToolCall] | None = Field(
        default=None,
        description="Tool or function calls the model requested in this step. Agent steps only.",
        title="Tool calls",
    )
    observation: Observation | None = Field(
        default=None,
        description="Results fed back after the step's actions (tool outputs, system operations, subagent results).",
        title="Observation",
    )
    metrics: Metrics | None = Field(
        default=None,
        description="Usage and token-level data of the LLM call(s) behind the step. Agent steps only.",
        title="Metrics",
    )
    is_copied_context: bool | None = Field(
        default=None,
        description="True when the step was copied from an earlier trajectory (for example context kept across a summarization). Such steps are not training targets.",
        title="Copied context",
    )
    llm_call_count: JsonInteger | None = Field(
        default=None,
        description="How many LLM inferences the step stands for: 1 for one call, more when the metrics aggregate several, 0 on an agent step for a deterministic dispatch with no LLM call. Null or absent means not tracked.",
        ge=0,
        title="LLM call count",
    )
    extra: dict[str, Any] | None = Field(
        default=None,
        description="Free-form, producer-defined data attached to the step (including the `context_management` convention on system steps). Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.",
        title="Extra",
    )


class Trajectory(StrictModel):
    """
    A complete trajectory in the Agent Trajectory Interchange Format, version 1.8: the agent that ran, every step of its interaction, and optional totals.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    field_schema: str | None = Field(
        default=None,
        alias="$schema",
        description="The URL of the JSON Schema this document follows, for editors and other JSON tools (`https://atif-spec.org/schemas/atif/v1.8/trajectory.schema.json`). Optional and informational: `schema_version` decides the version; a URL naming another ATIF version draws a warning (ATIF104).",
        title="Schema URL",
    )
    schema_version: Literal["ATIF-v1.8"] = Field(
        ...,
        description="The ATIF version the document follows; always `ATIF-v1.8` for this schema.",
        title="Schema version",
    )
    session_id: str | None = Field(
        default=None,
        description="Identifier of the agent run. Run-scoped: a parent, its subagents and its continuations may share it, and embedded subagents may omit it. Root documents should set it.",
        title="Session id",
    )
    trajectory_id: str | None = Field(
        default=None,
        description="Identifier of this trajectory document. Required on embedded subagents, where it is the key that references resolve against.",
        min_length=1,
        title="Trajectory id",
    )
    agent: Agent
    steps: list[Step] = Field(
        ..., description="The interactions in order, at least one.", min_length=1, title="Steps"
    )
    notes: str | None = Field(
        default=None,
        description="Free-text notes about the run, for example why `final_metrics.total_steps` differs from the number of steps.",
        title="Notes",
    )
    final_metrics: FinalMetrics | None = Field(
        default=None, description="Totals over the whole trajectory.", title="Final metrics"
    )
    continued_trajectory_ref: str | None = Field(
        default=None,
        description="Reference (usually a file name relative to this one) to the trajectory that continues this run.",
        title="Continued trajectory reference",
    )
    extra: dict[str, Any] | None = Field(
        default=None,
        description="Free-form, producer-defined data attached to the trajectory. Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.",
        title="Extra",
    )
    subagent_trajectories: list[EmbeddedSubagent] | None = Field(
        default=None,
        description="Complete trajectories of subagents, embedded in this document. Each declares its own `schema_version` and a `trajectory_id` unique among its siblings.",
        title="Subagent trajectories",
    )


EmbeddedSubagent = TypeAliasType(
    "EmbeddedSubagent",
    Annotated[
        Union[EmbeddedSubagentAtifV17, "EmbeddedSubagentAtifV18"],
        Field(
            ...,
            description="A subagent's complete trajectory embedded in its parent. It must declare a version from ATIF-v1.7 up to the parent's version and a `trajectory_id`; it is then validated as a trajectory of the version it declares.",
            discriminator="schema_version",
            title="EmbeddedSubagent",
        ),
    ],
)


class EmbeddedSubagentAtifV18(Trajectory):
    """
    A subagent's complete trajectory embedded in its parent. It must declare a version from ATIF-v1.7 up to the parent's version and a `trajectory_id`; it is then validated as a trajectory of the version it declares.
    """

    schema_version: Literal["ATIF-v1.8"] = Field(
        ..., description="Version declared by the embedded trajectory.", title="Schema version"
    )
    trajectory_id: str = Field(
        ...,
        description="Key that references in the parent resolve against.",
        min_length=1,
        title="Trajectory id",
    )


Trajectory.model_rebuild()
EmbeddedSubagentAtifV18.model_rebuild()


# Each model also checks its input against its schema definition: the conditionals
# and other rules that field types cannot express
# (atif_spec.bindings.models_base.StrictModel).
StrictModel.bind_schema_locations(
    "https://atif-spec.org/schemas/atif/v1.8/trajectory.schema.json",
    {
        Agent: "#/$defs/Agent",
        AudioSource: "#/$defs/AudioSource",
        FinalMetrics: "#/$defs/FinalMetrics",
        ImageSource: "#/$defs/ImageSource",
        Metrics: "#/$defs/Metrics",
        SubagentTrajectoryRef: "#/$defs/SubagentTrajectoryRef",
        ToolCall: "#/$defs/ToolCall",
        ContentPart: "#/$defs/ContentPart",
        EmbeddedSubagentAtifV17: "#/$defs/EmbeddedSubagent",
        ObservationResult: "#/$defs/ObservationResult",
        Observation: "#/$defs/Observation",
        Step: "#/$defs/Step",
        Trajectory: "#",
        EmbeddedSubagentAtifV18: "#/$defs/EmbeddedSubagent",
    },
)
