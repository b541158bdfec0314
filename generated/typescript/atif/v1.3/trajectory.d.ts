/**
 * Generated file: do not edit by hand.
 * Schema: https://atif-spec.org/schemas/atif/v1.3/trajectory.schema.json
 *   (spec/atif/v1.3/trajectory.schema.json)
 * Generator: json-schema-to-typescript 16.0.0 through atif_spec.codegen, options in
 *   [tool.atif-spec.json-schema-to-typescript]
 * Regenerate: nox -s generate
 */

/**
 * A complete trajectory in the Agent Trajectory Interchange Format, version 1.3: the agent that ran, every step of its interaction, and optional totals.
 */
export interface Trajectory {
  /**
   * The URL of the JSON Schema this document follows, for editors and other JSON tools (`https://atif-spec.org/schemas/atif/v1.3/trajectory.schema.json`). Optional and informational: `schema_version` decides the version; a URL naming another ATIF version draws a warning (ATIF104).
   */
  $schema?: string | null;
  /**
   * The ATIF version the document follows; always `ATIF-v1.3` for this schema.
   */
  schema_version: "ATIF-v1.3";
  /**
   * Identifier of the agent run this trajectory records.
   */
  session_id: string;
  agent: Agent;
  /**
   * The interactions in order, at least one.
   *
   * @minItems 1
   */
  steps: [Step, ...Step[]];
  /**
   * Free-text notes about the run, for example why `final_metrics.total_steps` differs from the number of steps.
   */
  notes?: string | null;
  /**
   * Totals over the whole trajectory.
   */
  final_metrics?: FinalMetrics | null;
  /**
   * Free-form, producer-defined data attached to the trajectory. Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.
   */
  extra?: {
    [k: string]: unknown;
  } | null;
}
/**
 * The agent system that produced the trajectory.
 */
export interface Agent {
  /**
   * Name of the agent system that produced the trajectory, for example `terminus-2` or `claude-code`.
   */
  name: string;
  /**
   * Version of the agent system, as a string (a bare number is not accepted).
   */
  version: string;
  /**
   * Default model used by the agent. A step's own `model_name` takes precedence for that step.
   */
  model_name?: string | null;
  /**
   * Free-form, producer-defined data attached to the agent description. Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.
   */
  extra?: {
    [k: string]: unknown;
  } | null;
}
/**
 * One interaction in the trajectory: a system message, a user message, or an agent turn with its tool calls and their observations. Generated binding: the schema's conditional and cross-field rules are not checked by this model; use `atif_spec.validate` for full validation.
 */
export interface Step {
  /**
   * Ordinal of the step: 1 for the first step, then consecutive without gaps or repeats (numbering restarts inside each embedded subagent).
   */
  step_id: number;
  /**
   * When the step happened, as an ISO 8601 extended date-time (`2025-10-11T10:30:00Z`); the fraction and the UTC offset are optional, though an offset should be given.
   */
  timestamp?: string | null;
  /**
   * Who produced the step: the system (prompts, context operations), the user, or the agent (an LLM turn or a deterministic dispatch).
   */
  source: "system" | "user" | "agent";
  /**
   * Model used for this step, overriding `agent.model_name`. Agent steps only.
   */
  model_name?: string | null;
  /**
   * Reasoning effort requested from the model, as a label (`low`, `medium`, ...) or a number. Agent steps only.
   */
  reasoning_effort?: string | number | null;
  /**
   * The step's text: the system prompt, the user's words, or the agent's reply. Required and never null; the empty string is allowed.
   */
  message: string;
  /**
   * The model's reasoning behind the step, when exposed. Agent steps only.
   */
  reasoning_content?: string | null;
  /**
   * Tool or function calls the model requested in this step. Agent steps only.
   */
  tool_calls?: ToolCall[] | null;
  /**
   * Results fed back after the step's actions (tool outputs, system operations, subagent results).
   */
  observation?: Observation | null;
  /**
   * Usage and token-level data of the LLM call(s) behind the step. Agent steps only.
   */
  metrics?: Metrics | null;
  /**
   * Free-form, producer-defined data attached to the step. Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.
   */
  extra?: {
    [k: string]: unknown;
  } | null;
}
/**
 * One tool or function invocation requested by the model in an agent step.
 */
export interface ToolCall {
  /**
   * Identifier of this call; observation results point back at it through `source_call_id`. Should be unique within the step.
   */
  tool_call_id: string;
  /**
   * Name of the tool or function the agent invoked.
   */
  function_name: string;
  /**
   * Arguments of the call as a JSON object (possibly empty). A JSON-encoded string is not accepted.
   */
  arguments: {
    [k: string]: unknown;
  };
}
/**
 * Feedback the agent receives after acting: the results of its tool calls or of other operations.
 */
export interface Observation {
  /**
   * The individual results, possibly none.
   */
  results: ObservationResult[];
}
/**
 * One result fed back to the agent: the output of a tool call, of a system operation, or of a delegated subagent.
 */
export interface ObservationResult {
  /**
   * The `tool_call_id` of the call in the same step that produced this result. Absent or null when the result does not come from a tool call (a system operation or other non-tool action).
   */
  source_call_id?: string | null;
  /**
   * What the environment or tool returned. May be left out when the result only points at a subagent trajectory.
   */
  content?: string | null;
  /**
   * Trajectories of subagents whose work produced this result (one element for a single subagent).
   */
  subagent_trajectory_ref?: SubagentTrajectoryRef[] | null;
}
/**
 * A pointer from an observation result to the trajectory of a subagent whose work produced it.
 */
export interface SubagentTrajectoryRef {
  /**
   * Session id of the subagent's trajectory; in this version it is the key that identifies the referenced trajectory.
   */
  session_id: string;
  /**
   * Where the subagent's trajectory document is stored (the file-ref form): a path relative to the referring file, an absolute path, a URL, or another locator.
   */
  trajectory_path?: string | null;
  /**
   * Free-form, producer-defined data attached to this reference (a summary, an exit status, ...). Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.
   */
  extra?: {
    [k: string]: unknown;
  } | null;
}
/**
 * Token usage, cost and token-level data of the LLM call(s) behind an agent step.
 */
export interface Metrics {
  /**
   * Input tokens of the LLM call, cached and uncached together.
   */
  prompt_tokens?: number | null;
  /**
   * Tokens generated by the call, including reasoning and tool-call tokens.
   */
  completion_tokens?: number | null;
  /**
   * Prompt tokens served from the provider's cache; a subset of `prompt_tokens`, not an addition to it.
   */
  cached_tokens?: number | null;
  /**
   * Cost of the call in US dollars as computed when it ran.
   */
  cost_usd?: number | null;
  /**
   * Token ids of the response; as many as `completion_tokens`, aligned with `logprobs`.
   */
  completion_token_ids?: number[] | null;
  /**
   * Log probability of each generated token, one per completion token.
   */
  logprobs?: number[] | null;
  /**
   * Free-form, producer-defined data attached to these metrics (provider-specific counters such as reasoning tokens or cache writes). Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.
   */
  extra?: {
    [k: string]: unknown;
  } | null;
}
/**
 * Totals over the whole trajectory.
 */
export interface FinalMetrics {
  /**
   * Sum of the steps' `prompt_tokens` (cached tokens included).
   */
  total_prompt_tokens?: number | null;
  /**
   * Sum of the steps' `completion_tokens`.
   */
  total_completion_tokens?: number | null;
  /**
   * Sum of the steps' `cached_tokens`.
   */
  total_cached_tokens?: number | null;
  /**
   * Total cost of the trajectory in US dollars.
   */
  total_cost_usd?: number | null;
  /**
   * Number of steps. When it differs from the length of `steps`, `notes` should say why.
   */
  total_steps?: number | null;
  /**
   * Free-form, producer-defined data attached to the totals. Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.
   */
  extra?: {
    [k: string]: unknown;
  } | null;
}
