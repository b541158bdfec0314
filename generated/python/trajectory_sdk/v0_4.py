# Generated file: do not edit by hand.
# Schema: https://atif-spec.org/schemas/trajectory-sdk/v0.4/trajectory.schema.json
#   (spec/trajectory-sdk/v0.4/trajectory.schema.json)
# Generator: datamodel-code-generator 0.89.0 through atif_spec.codegen, options in
#   [tool.datamodel-codegen]
# Regenerate: nox -s generate

from __future__ import annotations

from typing import Annotated, Any, Literal

from atif_spec.bindings.models_base import JsonInteger, StrictModel
from pydantic import ConfigDict, Field
from typing_extensions import TypeAliasType

Role = TypeAliasType(
    "Role",
    Annotated[
        Literal["system", "user", "assistant", "tool"],
        Field(
            ...,
            description="Who a message comes from: the system prompt, the human user, the model, or a tool's result.",
            title="Role",
        ),
    ],
)


TrainableStatus = TypeAliasType(
    "TrainableStatus",
    Annotated[
        Literal["trainable", "not_trainable", "superseded", "summarization_boundary"],
        Field(
            ...,
            description="Whether a step or message is meant as a training target. The SDK's builders always leave the default `not_trainable`; the other values are set by later curation.",
            title="Trainable status",
        ),
    ],
)


TerminationReason = TypeAliasType(
    "TerminationReason",
    Annotated[
        Literal["TIMEOUT", "ENV_DONE", "MAX_STEPS", "TRUNCATION", "STALE", "ERROR", "NONE"],
        Field(
            ...,
            description="Why the conversation ended. The builders write `ERROR` when some turn failed and `ENV_DONE` otherwise, unless the caller passes its own value. Values are upper case.",
            title="Termination reason",
        ),
    ],
)


class Task(StrictModel):
    """
    Identity and size of the conversation the trajectory was rebuilt from. Every field may be null.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    id: str | None = Field(
        default=None,
        description="Identifier of the conversation, built by the SDK as `<data_source>:<conversation_id>`.",
        title="Task id",
    )
    data_source: str | None = Field(
        default=None,
        description="Name of the system the conversation was pulled from (for example an observability project). The SDK's concept pages call it the source.",
        title="Data source",
    )
    conversation_id: str | None = Field(
        default=None,
        description="The conversation's identifier in the data source.",
        title="Conversation id",
    )
    num_turns: JsonInteger | None = Field(
        default=None,
        description="How many user-to-agent exchanges the conversation had, as counted by the source parser. Turns are a concept only: no turn object is written.",
        ge=0,
        title="Number of turns",
    )
    num_steps: JsonInteger | None = Field(
        default=None,
        description="Number of cumulative snapshots in `steps`, as written by the builder.",
        ge=0,
        title="Number of steps",
    )
    total_tokens: JsonInteger | None = Field(
        default=None,
        description="Tokens used over all turns. The builder writes null rather than 0 when the sum is zero or unknown.",
        ge=0,
        title="Total tokens",
    )
    total_cost: int | float | None = Field(
        default=None,
        description="Cost of all turns in the source's currency unit (usually US dollars). Null rather than 0 when the sum is zero or unknown.",
        title="Total cost",
    )


class ToolCall(StrictModel):
    """
    One function call requested by an assistant message.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    name: str = Field(
        ..., description="Name of the function the model asked to run.", title="Function name"
    )
    arguments: dict[str, Any] = Field(
        ...,
        description="The call's arguments as a JSON object. The SDK decodes the provider's JSON-encoded argument string before storing it, so this is never a string.",
        title="Arguments",
    )
    id: str | None = Field(
        default=None,
        description="The provider's identifier for the call, which the matching tool message's `tool_response.id` repeats. Some sources give none.",
        title="Call id",
    )


class ToolResponse(StrictModel):
    """
    The structured result carried by a tool message, linked to the call it answers.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    id: str = Field(
        ..., description="The `id` of the tool call this result answers.", title="Answered call id"
    )
    name: str = Field(
        ..., description="Name of the function that produced the result.", title="Function name"
    )
    arguments: dict[str, Any] = Field(
        ...,
        description="Arguments of the answered call. The OpenAI input recipe does not repeat them and writes an empty object.",
        title="Arguments",
    )
    response: Any = Field(
        default=None,
        description="The tool's output, any JSON value. The OpenAI recipe stores the tool message's text here as well as in the message `content`.",
        title="Response",
    )
    error: str | None = Field(
        default=None,
        description="Error text when the tool failed; such messages are what `metrics.num_tool_failures` counts.",
        title="Error",
    )
    metadata: dict[str, Any] | None = Field(
        default=None, description="Free-form data about the tool run.", title="Metadata"
    )


class ToolDefinition(StrictModel):
    """
    A function the model was offered, in the flat form the SDK stores (not wrapped in an OpenAI `{type, function}` envelope).
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    name: str = Field(
        ..., description="Name under which the model can call the function.", title="Function name"
    )
    description: str = Field(
        ..., description="What the function does, as shown to the model.", title="Description"
    )
    parameters: dict[str, Any] = Field(
        ...,
        description="JSON Schema of the function's arguments, stored as given by the source.",
        title="Parameters",
    )


class Message(StrictModel):
    """
    One entry of the conversation: system prompt, user input, assistant output (text and/or tool calls) or a tool's result.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    role: Role = Field(..., description="Who the message comes from.", title="Role")
    content: str | None = Field(
        default=None,
        description="The message text. Only text is kept: the input recipes join text blocks with newlines and drop image, audio, video and refusal blocks. Null for an assistant message that only calls tools.",
        title="Content",
    )
    tool_calls: list[ToolCall] | None = Field(
        default=None,
        description="Functions the assistant asked to run. Expected on assistant messages only; null when there are none.",
        title="Tool calls",
    )
    tool_response: ToolResponse | None = Field(
        default=None,
        description="The structured result of a tool message. Expected on tool messages only.",
        title="Tool response",
    )
    tool_definitions: list[ToolDefinition] | None = Field(
        default=None,
        description="The tools offered to the model at this message, when the source records them.",
        title="Tool definitions",
    )
    usage: dict[str, Any] | None = Field(
        default=None,
        description="Token usage reported by the provider for the call that produced the message, copied unchanged (keys such as `prompt_tokens` and `completion_tokens` depend on the provider). Declared as a map of integers, but the SDK does not check the values, so nested provider details are accepted.",
        title="Usage",
    )
    finish_reason: str | None = Field(
        default=None,
        description="The provider's stop reason for this output, copied unchanged (for example `stop` or `tool_calls`).",
        title="Finish reason",
    )
    metadata: dict[str, Any] | None = Field(
        default=None, description="Free-form data about the message.", title="Metadata"
    )
    reasoning: str | None = Field(
        default=None,
        description="The model's reasoning text for this output, when the source exposes it.",
        title="Reasoning",
    )
    trainable_status: TrainableStatus | None = Field(
        default="not_trainable",
        description="Whether this message is a training target; written as `not_trainable` by the builders.",
        json_schema_extra={"x-never-null": True},
        title="Trainable status",
    )


class RewardComponent(StrictModel):
    """
    One named part of a reward.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    name: str = Field(
        ...,
        description="What the component measures; `score` for a reward made from a single number.",
        title="Name",
    )
    value: int | float = Field(..., description="The raw value of the component.", title="Value")
    scaled_value: int | float | None = Field(
        default=None,
        description="The value after scaling into a common range.",
        title="Scaled value",
    )
    explanation: str | None = Field(
        default=None, description="Why the component got its value.", title="Explanation"
    )
    weight: int | float = Field(
        default=1.0,
        description="Weight of the component when the parts are combined.",
        title="Weight",
    )
    range: list[int | float] | None = Field(
        default=None,
        description="The lowest and highest value the component can take, `[min, max]` (a Python tuple, written as a two-element array).",
        max_length=2,
        min_length=2,
        title="Range",
    )
    metadata: dict[str, Any] | None = Field(
        default=None, description="Free-form data about the component.", title="Metadata"
    )


class Reward(StrictModel):
    """
    A reward, either for the whole conversation or for one step, with the parts it was combined from.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    aggregated_value: int | float | None = Field(
        default=None, description="The combined reward.", title="Aggregated value"
    )
    aggregation_method: str | None = Field(
        default=None,
        description="How the components were combined, as a free label; `identity` when the reward is a single number.",
        title="Aggregation method",
    )
    components: list[RewardComponent] | None = Field(
        default=None, description="The parts of the reward.", title="Components"
    )


class TrajectoryMetrics(StrictModel):
    """
    Counts the builder derives from the messages. Every field may be null.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    steps: JsonInteger | None = Field(
        default=None, description="Number of snapshots in `steps`.", ge=0, title="Steps"
    )
    tokens_generated: JsonInteger | None = Field(
        default=None,
        description="Completion tokens summed over the turns; null when that sum is zero or unknown.",
        ge=0,
        title="Tokens generated",
    )
    aggregated_reward: int | float | None = Field(
        default=None,
        description="A copy of the overall reward. The builders leave it null.",
        title="Aggregated reward",
    )
    num_tool_calls: JsonInteger | None = Field(
        default=None,
        description="Tool calls made by assistant messages over the whole conversation.",
        ge=0,
        title="Number of tool calls",
    )
    num_tool_failures: JsonInteger | None = Field(
        default=None,
        description="Tool messages whose `tool_response.error` is set.",
        ge=0,
        title="Number of tool failures",
    )
    num_tool_response_none: JsonInteger | None = Field(
        default=None,
        description="Meant to count tool messages without a result. The builders leave it null.",
        ge=0,
        title="Number of empty tool responses",
    )
    tool_error_rate: int | float | None = Field(
        default=None,
        description="`num_tool_failures` divided by `num_tool_calls`, or 0.0 when no tool was called.",
        ge=0.0,
        title="Tool error rate",
    )


class ExecutionMetrics(StrictModel):
    """
    Timing of the conversation and why it ended. Every field may be null.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    env_time: int | float | None = Field(
        default=None,
        description="Seconds spent in the environment (tools). The builders leave it null.",
        title="Environment time",
    )
    llm_time: int | float | None = Field(
        default=None,
        description="Seconds spent waiting for the model. The documentation mentions it, but the builders leave it null.",
        title="LLM time",
    )
    total_time: int | float | None = Field(
        default=None,
        description="Seconds from the start of the first turn to the end of the last one.",
        title="Total time",
    )
    termination_reason: TerminationReason | None = Field(
        default=None, description="Why the conversation ended.", title="Termination reason"
    )


class TelemetryData(StrictModel):
    """
    Provenance details. The keys below are the ones the builders write; callers may add others, which are kept as given.
    """

    conversation_id: str | None = Field(
        default=None,
        description="The conversation's identifier in the data source, as in `task.conversation_id`.",
        title="Conversation id",
    )
    content_hash: str | None = Field(
        default=None,
        description="SHA-256 (64 lower-case hex digits) of the canonical JSON of the trajectory without its telemetry, error and trace id. Informational: which fields went in depends on the builder, so it cannot always be recomputed from the file.",
        json_schema_extra={"x-never-null": True},
        pattern="^[0-9a-f]{64}$",
        title="Content hash",
    )
    idempotency_key: str | None = Field(
        default=None,
        description="Key that lets an upload be repeated safely: `<data_source>:<conversation_id>:<content_hash>`.",
        json_schema_extra={"x-never-null": True},
        title="Idempotency key",
    )
    source_run_ids: list[str | None] | None = Field(
        default=None,
        description="Identifiers of the source's runs the conversation was rebuilt from, one per turn.",
        title="Source run ids",
    )
    trace_id: str | None = Field(
        default=None,
        description="The source's trace identifier, when the builder knows it.",
        title="Trace id",
    )


class Telemetry(StrictModel):
    """
    Where the trajectory came from, with its content hash.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    source: str = Field(
        ..., description="Name of the data source, as in `task.data_source`.", title="Source"
    )
    data: TelemetryData = Field(
        ...,
        description="Provenance details: conversation id, content hash, idempotency key and the like.",
        title="Data",
    )


class Step(StrictModel):
    """
    A cumulative snapshot at one decision point: every message from the start of the conversation up to that point, so that each step is a complete context for training. The builder closes a snapshot at the first user message, at every later tool message and at every later assistant message without tool calls, and writes a last snapshot for any messages left over.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    messages: list[Message] = Field(
        ...,
        description="The whole conversation so far, oldest first. Each step repeats the previous step's messages and adds at least one; a system message arriving after the first user message replaces the leading system messages in this and later snapshots only.",
        min_length=1,
        title="Messages",
    )
    reward: Reward | None = Field(
        default=None,
        description="Reward for this snapshot alone. The builders never set it.",
        title="Step reward",
    )
    info: dict[str, Any] | None = Field(
        default=None, description="Free-form data about the step.", title="Info"
    )
    trainable_status: TrainableStatus | None = Field(
        default="not_trainable",
        description="Whether this snapshot is a training example; written as `not_trainable` by the builders.",
        json_schema_extra={"x-never-null": True},
        title="Trainable status",
    )


class Trajectory(StrictModel):
    """
    One conversation as saved by the trajectory-sdk Python package (releases 0.1 to 0.4): conversation metadata, a list of cumulative message snapshots, and optional reward, metrics and provenance. The SDK writes every key, with null for missing values; files that leave optional keys out are accepted too. The files carry no version field.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    task: Task = Field(
        ..., description="Which conversation this is and how large it was.", title="Task"
    )
    steps: list[Step] = Field(
        ...,
        description="The cumulative snapshots, in order. The last one holds the whole conversation.",
        title="Steps",
    )
    reward: Reward | None = Field(
        default=None,
        description="Reward for the whole conversation, when the caller supplied one.",
        title="Reward",
    )
    metrics: TrajectoryMetrics | None = Field(
        default=None, description="Step and tool counts derived from the messages.", title="Metrics"
    )
    execution_metrics: ExecutionMetrics | None = Field(
        default=None,
        description="Timing and termination of the conversation.",
        title="Execution metrics",
    )
    reference_trajectory: dict[str, Any] | None = Field(
        default=None,
        description="A reference solution in free form. The builders never set it.",
        title="Reference trajectory",
    )
    telemetry: Telemetry | None = Field(
        default=None,
        description="Provenance of the trajectory and its content hash.",
        title="Telemetry",
    )
    idx: JsonInteger | None = Field(
        default=None,
        description="Position of the trajectory in a dataset. The builders never set it, and it is left out of the content hash.",
        title="Index",
    )
    error: str | None = Field(
        default=None,
        description="The first error message among the conversation's turns, if any turn failed.",
        title="Error",
    )
    trace_id: str | None = Field(
        default=None,
        description="Identifier for correlating the trajectory with the source's traces (added in 0.4).",
        title="Trace id",
    )
    model_id: str | None = Field(
        default=None,
        description="Identifier of the model that produced the assistant messages (added in 0.4).",
        title="Model id",
    )


# Each model also checks its input against its schema definition: the conditionals
# and other rules that field types cannot express
# (atif_spec.bindings.models_base.StrictModel).
StrictModel.bind_schema_locations(
    "https://atif-spec.org/schemas/trajectory-sdk/v0.4/trajectory.schema.json",
    {
        Task: "#/$defs/Task",
        ToolCall: "#/$defs/ToolCall",
        ToolResponse: "#/$defs/ToolResponse",
        ToolDefinition: "#/$defs/ToolDefinition",
        Message: "#/$defs/Message",
        RewardComponent: "#/$defs/RewardComponent",
        Reward: "#/$defs/Reward",
        TrajectoryMetrics: "#/$defs/TrajectoryMetrics",
        ExecutionMetrics: "#/$defs/ExecutionMetrics",
        TelemetryData: "#/$defs/TelemetryData",
        Telemetry: "#/$defs/Telemetry",
        Step: "#/$defs/Step",
        Trajectory: "#",
    },
)
