/**
 * Generated file: do not edit by hand.
 * Schema: https://atif-spec.org/schemas/atif/v1.7/trajectory.schema.json
 *   (spec/atif/v1.7/trajectory.schema.json)
 * Generator: json-schema-to-typescript 16.0.0 through atif_spec.codegen, options in
 *   [tool.atif-spec.json-schema-to-typescript]
 * Regenerate: nox -s generate
 */

/**
 * One piece of a multimodal message or observation: either text, or a reference to a media file (image). The `type` decides which of `text` and `source` is set; the other must be absent or null.
 */
export type ContentPart = ContentPartText | ContentPartImage;
/**
 * A text content part carries no `source`.
 */
export type MustBeAbsentForText = null;
/**
 * A media content part carries no `text`.
 */
export type MustBeAbsentForMedia = null;
/**
 * A subagent's complete trajectory embedded in its parent. It must declare a version the parent's readers understand (here ATIF-v1.7) and a `trajectory_id`; it is then validated as a trajectory of that version.
 */
export type EmbeddedSubagent = Trajectory & {
  /**
   * Version declared by the embedded trajectory.
   */
  schema_version: "ATIF-v1.7";
  /**
   * Key that references in the parent resolve against.
   */
  trajectory_id: string;
};

/**
 * A complete trajectory in the Agent Trajectory Interchange Format, version 1.7: the agent that ran, every step of its interaction, and optional totals.
 */
export interface Trajectory {
  /**
   * The URL of the JSON Schema this document follows, for editors and other JSON tools (`https://atif-spec.org/schemas/atif/v1.7/trajectory.schema.json`). Optional and informational: `schema_version` decides the version; a URL naming another ATIF version draws a warning (ATIF104).
   */
  $schema?: string | null;
  /**
   * The ATIF version the document follows; always `ATIF-v1.7` for this schema.
   */
  schema_version: "ATIF-v1.7";
  /**
   * Identifier of the agent run. Run-scoped: a parent, its subagents and its continuations may share it, and embedded subagents may omit it. Root documents should set it.
   */
  session_id?: string | null;
  /**
   * Identifier of this trajectory document. Required on embedded subagents, where it is the key that references resolve against.
   */
  trajectory_id?: string | null;
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
   * Reference (usually a file name relative to this one) to the trajectory that continues this run.
   */
  continued_trajectory_ref?: string | null;
  /**
   * Free-form, producer-defined data attached to the trajectory. Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.
   */
  extra?: {
    [k: string]: unknown;
  } | null;
  /**
   * Complete trajectories of subagents, embedded in this document. Each declares its own `schema_version` and a `trajectory_id` unique among its siblings.
   */
  subagent_trajectories?: EmbeddedSubagent[] | null;
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
   * Tools the agent could call, each an object in the OpenAI function-calling shape (`{"type": "function", "function": {name, description, parameters}}`). The schema does not constrain the objects; the validator warns when one does not have that shape.
   */
  tool_definitions?:
    | {
        [k: string]: unknown;
      }[]
    | null;
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
   * The step's content: the system prompt, the user's words, or the agent's reply, as a string or a list of content parts. Required and never null; an empty string or list is allowed.
   */
  message: string | ContentPart[];
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
   * True when the step was copied from an earlier trajectory (for example context kept across a summarization). Such steps are not training targets.
   */
  is_copied_context?: boolean | null;
  /**
   * How many LLM inferences the step stands for: 1 for one call, more when the metrics aggregate several, 0 on an agent step for a deterministic dispatch with no LLM call. Null or absent means not tracked.
   */
  llm_call_count?: number | null;
  /**
   * Free-form, producer-defined data attached to the step (including the `context_management` convention on system steps). Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.
   */
  extra?: {
    [k: string]: unknown;
  } | null;
}
/**
 * One piece of a multimodal message or observation: either text, or a reference to a media file (image). The `type` decides which of `text` and `source` is set; the other must be absent or null.
 */
export interface ContentPartText {
  /**
   * Kind of content carried by this part.
   */
  type: "text";
  text: string;
  source?: MustBeAbsentForText;
}
/**
 * One piece of a multimodal message or observation: either text, or a reference to a media file (image). The `type` decides which of `text` and `source` is set; the other must be absent or null.
 */
export interface ContentPartImage {
  /**
   * Kind of content carried by this part.
   */
  type: "image";
  text?: MustBeAbsentForMedia;
  source: ImageSource;
}
/**
 * Where the bytes of an image live. ATIF stores media as separate files (by convention in an images/ folder beside the trajectory) or URLs, never inline.
 */
export interface ImageSource {
  /**
   * MIME type of the image.
   */
  media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp";
  /**
   * Location of the image: a path relative to the trajectory file's folder, an absolute path, or a URL.
   */
  path: string;
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
  /**
   * Free-form, producer-defined data attached to this tool call (timeouts, retry counts, tool versions, ...). Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.
   */
  extra?: {
    [k: string]: unknown;
  } | null;
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
   * What the environment or tool returned: a string, or a list of content parts mixing text and media. May be left out when the result only points at a subagent trajectory.
   */
  content?: string | ContentPart[] | null;
  /**
   * Trajectories of subagents whose work produced this result (one element for a single subagent).
   */
  subagent_trajectory_ref?: SubagentTrajectoryRef[] | null;
  /**
   * Free-form, producer-defined data attached to this result (a retrieval score, a source document id, ...). Anything that has no field of its own in ATIF goes here; consumers must tolerate unknown content.
   */
  extra?: {
    [k: string]: unknown;
  } | null;
}
/**
 * A pointer from an observation result to the trajectory of a subagent whose work produced it. From v1.7 the reference must be resolvable: it sets `trajectory_id` (embedded form), `trajectory_path` (file-ref form), or both; `session_id` alone is not enough. Generated binding: the schema's conditional and cross-field rules are not checked by this model; use `atif_spec.validate` for full validation.
 */
export interface SubagentTrajectoryRef {
  /**
   * Identifier of an embedded subagent: it matches the `trajectory_id` of one element of the parent's `subagent_trajectories` (the embedded form).
   */
  trajectory_id?: string | null;
  /**
   * Session of the subagent run, for information only. It is not a resolution key: several subagents may share it.
   */
  session_id?: string | null;
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
   * Token ids of the whole prompt, history included; as many as `prompt_tokens`.
   */
  prompt_token_ids?: number[] | null;
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
