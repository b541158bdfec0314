/**
 * Generated file: do not edit by hand.
 * Schema: https://atif-spec.org/schemas/trajectory-sdk/v0.4/trajectory.schema.json
 *   (spec/trajectory-sdk/v0.4/trajectory.schema.json)
 * Generator: json-schema-to-typescript 16.0.0 through atif_spec.codegen, options in
 *   [tool.atif-spec.json-schema-to-typescript]
 * Regenerate: nox -s generate
 */

/**
 * Who a message comes from: the system prompt, the human user, the model, or a tool's result.
 */
export type Role = "system" | "user" | "assistant" | "tool";
/**
 * Whether a step or message is meant as a training target. The SDK's builders always leave the default `not_trainable`; the other values are set by later curation.
 */
export type TrainableStatus = "trainable" | "not_trainable" | "superseded" | "summarization_boundary";
/**
 * Why the conversation ended. The builders write `ERROR` when some turn failed and `ENV_DONE` otherwise, unless the caller passes its own value. Values are upper case.
 */
export type TerminationReason = "TIMEOUT" | "ENV_DONE" | "MAX_STEPS" | "TRUNCATION" | "STALE" | "ERROR" | "NONE";

/**
 * One conversation as saved by the trajectory-sdk Python package (releases 0.1 to 0.4): conversation metadata, a list of cumulative message snapshots, and optional reward, metrics and provenance. The SDK writes every key, with null for missing values; files that leave optional keys out are accepted too. The files carry no version field.
 */
export interface Trajectory {
  task: Task;
  /**
   * The cumulative snapshots, in order. The last one holds the whole conversation.
   */
  steps: Step[];
  /**
   * Reward for the whole conversation, when the caller supplied one.
   */
  reward?: Reward | null;
  /**
   * Step and tool counts derived from the messages.
   */
  metrics?: TrajectoryMetrics | null;
  /**
   * Timing and termination of the conversation.
   */
  execution_metrics?: ExecutionMetrics | null;
  /**
   * A reference solution in free form. The builders never set it.
   */
  reference_trajectory?: {
    [k: string]: unknown;
  } | null;
  /**
   * Provenance of the trajectory and its content hash.
   */
  telemetry?: Telemetry | null;
  /**
   * Position of the trajectory in a dataset. The builders never set it, and it is left out of the content hash.
   */
  idx?: number | null;
  /**
   * The first error message among the conversation's turns, if any turn failed.
   */
  error?: string | null;
  /**
   * Identifier for correlating the trajectory with the source's traces (added in 0.4).
   */
  trace_id?: string | null;
  /**
   * Identifier of the model that produced the assistant messages (added in 0.4).
   */
  model_id?: string | null;
}
/**
 * Identity and size of the conversation the trajectory was rebuilt from. Every field may be null.
 */
export interface Task {
  /**
   * Identifier of the conversation, built by the SDK as `<data_source>:<conversation_id>`.
   */
  id?: string | null;
  /**
   * Name of the system the conversation was pulled from (for example an observability project). The SDK's concept pages call it the source.
   */
  data_source?: string | null;
  /**
   * The conversation's identifier in the data source.
   */
  conversation_id?: string | null;
  /**
   * How many user-to-agent exchanges the conversation had, as counted by the source parser. Turns are a concept only: no turn object is written.
   */
  num_turns?: number | null;
  /**
   * Number of cumulative snapshots in `steps`, as written by the builder.
   */
  num_steps?: number | null;
  /**
   * Tokens used over all turns. The builder writes null rather than 0 when the sum is zero or unknown.
   */
  total_tokens?: number | null;
  /**
   * Cost of all turns in the source's currency unit (usually US dollars). Null rather than 0 when the sum is zero or unknown.
   */
  total_cost?: number | null;
}
/**
 * A cumulative snapshot at one decision point: every message from the start of the conversation up to that point, so that each step is a complete context for training. The builder closes a snapshot at the first user message, at every later tool message and at every later assistant message without tool calls, and writes a last snapshot for any messages left over.
 */
export interface Step {
  /**
   * The whole conversation so far, oldest first. Each step repeats the previous step's messages and adds at least one; a system message arriving after the first user message replaces the leading system messages in this and later snapshots only.
   *
   * @minItems 1
   */
  messages: [Message, ...Message[]];
  /**
   * Reward for this snapshot alone. The builders never set it.
   */
  reward?: Reward | null;
  /**
   * Free-form data about the step.
   */
  info?: {
    [k: string]: unknown;
  } | null;
  trainable_status?: TrainableStatus;
}
/**
 * One entry of the conversation: system prompt, user input, assistant output (text and/or tool calls) or a tool's result.
 */
export interface Message {
  role: Role;
  /**
   * The message text. Only text is kept: the input recipes join text blocks with newlines and drop image, audio, video and refusal blocks. Null for an assistant message that only calls tools.
   */
  content?: string | null;
  /**
   * Functions the assistant asked to run. Expected on assistant messages only; null when there are none.
   */
  tool_calls?: ToolCall[] | null;
  /**
   * The structured result of a tool message. Expected on tool messages only.
   */
  tool_response?: ToolResponse | null;
  /**
   * The tools offered to the model at this message, when the source records them.
   */
  tool_definitions?: ToolDefinition[] | null;
  /**
   * Token usage reported by the provider for the call that produced the message, copied unchanged (keys such as `prompt_tokens` and `completion_tokens` depend on the provider). Declared as a map of integers, but the SDK does not check the values, so nested provider details are accepted.
   */
  usage?: {
    [k: string]: unknown;
  } | null;
  /**
   * The provider's stop reason for this output, copied unchanged (for example `stop` or `tool_calls`).
   */
  finish_reason?: string | null;
  /**
   * Free-form data about the message.
   */
  metadata?: {
    [k: string]: unknown;
  } | null;
  /**
   * The model's reasoning text for this output, when the source exposes it.
   */
  reasoning?: string | null;
  trainable_status?: TrainableStatus;
}
/**
 * One function call requested by an assistant message.
 */
export interface ToolCall {
  /**
   * Name of the function the model asked to run.
   */
  name: string;
  /**
   * The call's arguments as a JSON object. The SDK decodes the provider's JSON-encoded argument string before storing it, so this is never a string.
   */
  arguments: {
    [k: string]: unknown;
  };
  /**
   * The provider's identifier for the call, which the matching tool message's `tool_response.id` repeats. Some sources give none.
   */
  id?: string | null;
}
/**
 * The structured result carried by a tool message, linked to the call it answers.
 */
export interface ToolResponse {
  /**
   * The `id` of the tool call this result answers.
   */
  id: string;
  /**
   * Name of the function that produced the result.
   */
  name: string;
  /**
   * Arguments of the answered call. The OpenAI input recipe does not repeat them and writes an empty object.
   */
  arguments: {
    [k: string]: unknown;
  };
  /**
   * The tool's output, any JSON value. The OpenAI recipe stores the tool message's text here as well as in the message `content`.
   */
  response?: unknown;
  /**
   * Error text when the tool failed; such messages are what `metrics.num_tool_failures` counts.
   */
  error?: string | null;
  /**
   * Free-form data about the tool run.
   */
  metadata?: {
    [k: string]: unknown;
  } | null;
}
/**
 * A function the model was offered, in the flat form the SDK stores (not wrapped in an OpenAI `{type, function}` envelope).
 */
export interface ToolDefinition {
  /**
   * Name under which the model can call the function.
   */
  name: string;
  /**
   * What the function does, as shown to the model.
   */
  description: string;
  /**
   * JSON Schema of the function's arguments, stored as given by the source.
   */
  parameters: {
    [k: string]: unknown;
  };
}
/**
 * A reward, either for the whole conversation or for one step, with the parts it was combined from.
 */
export interface Reward {
  /**
   * The combined reward.
   */
  aggregated_value?: number | null;
  /**
   * How the components were combined, as a free label; `identity` when the reward is a single number.
   */
  aggregation_method?: string | null;
  /**
   * The parts of the reward.
   */
  components?: RewardComponent[] | null;
}
/**
 * One named part of a reward.
 */
export interface RewardComponent {
  /**
   * What the component measures; `score` for a reward made from a single number.
   */
  name: string;
  /**
   * The raw value of the component.
   */
  value: number;
  /**
   * The value after scaling into a common range.
   */
  scaled_value?: number | null;
  /**
   * Why the component got its value.
   */
  explanation?: string | null;
  /**
   * Weight of the component when the parts are combined.
   */
  weight?: number;
  /**
   * The lowest and highest value the component can take, `[min, max]` (a Python tuple, written as a two-element array).
   *
   * @minItems 2
   * @maxItems 2
   */
  range?: [number, number] | null;
  /**
   * Free-form data about the component.
   */
  metadata?: {
    [k: string]: unknown;
  } | null;
}
/**
 * Counts the builder derives from the messages. Every field may be null.
 */
export interface TrajectoryMetrics {
  /**
   * Number of snapshots in `steps`.
   */
  steps?: number | null;
  /**
   * Completion tokens summed over the turns; null when that sum is zero or unknown.
   */
  tokens_generated?: number | null;
  /**
   * A copy of the overall reward. The builders leave it null.
   */
  aggregated_reward?: number | null;
  /**
   * Tool calls made by assistant messages over the whole conversation.
   */
  num_tool_calls?: number | null;
  /**
   * Tool messages whose `tool_response.error` is set.
   */
  num_tool_failures?: number | null;
  /**
   * Meant to count tool messages without a result. The builders leave it null.
   */
  num_tool_response_none?: number | null;
  /**
   * `num_tool_failures` divided by `num_tool_calls`, or 0.0 when no tool was called.
   */
  tool_error_rate?: number | null;
}
/**
 * Timing of the conversation and why it ended. Every field may be null.
 */
export interface ExecutionMetrics {
  /**
   * Seconds spent in the environment (tools). The builders leave it null.
   */
  env_time?: number | null;
  /**
   * Seconds spent waiting for the model. The documentation mentions it, but the builders leave it null.
   */
  llm_time?: number | null;
  /**
   * Seconds from the start of the first turn to the end of the last one.
   */
  total_time?: number | null;
  /**
   * Why the conversation ended.
   */
  termination_reason?: TerminationReason | null;
}
/**
 * Where the trajectory came from, with its content hash.
 */
export interface Telemetry {
  /**
   * Name of the data source, as in `task.data_source`.
   */
  source: string;
  data: TelemetryData;
}
/**
 * Provenance details. The keys below are the ones the builders write; callers may add others, which are kept as given.
 */
export interface TelemetryData {
  /**
   * The conversation's identifier in the data source, as in `task.conversation_id`.
   */
  conversation_id?: string | null;
  /**
   * SHA-256 (64 lower-case hex digits) of the canonical JSON of the trajectory without its telemetry, error and trace id. Informational: which fields went in depends on the builder, so it cannot always be recomputed from the file.
   */
  content_hash?: string;
  /**
   * Key that lets an upload be repeated safely: `<data_source>:<conversation_id>:<content_hash>`.
   */
  idempotency_key?: string;
  /**
   * Identifiers of the source's runs the conversation was rebuilt from, one per turn.
   */
  source_run_ids?: (string | null)[] | null;
  /**
   * The source's trace identifier, when the builder knows it.
   */
  trace_id?: string | null;
  [k: string]: unknown;
}
