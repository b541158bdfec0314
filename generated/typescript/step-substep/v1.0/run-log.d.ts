/**
 * Generated file: do not edit by hand.
 * Schema: https://atif-spec.org/schemas/step-substep/v1.0/run-log.schema.json
 *   (spec/step-substep/v1.0/run-log.schema.json)
 * Generator: json-schema-to-typescript 16.0.0 through atif_spec.codegen, options in
 *   [tool.atif-spec.json-schema-to-typescript]
 * Regenerate: nox -s generate
 */

/**
 * An RFC 3339 date-time with seconds and a UTC offset (`2026-02-26T10:30:00+00:00` or `...Z`); null when the source recorded no time.
 */
export type Timestamp = string | null;
/**
 * The turn label of the old turn-first scheme (`T1`), kept for compatibility; null when there was none.
 */
export type LegacyTurnId = string | null;
/**
 * The event label of the old turn-first scheme (`T1.13`: event 13 of turn 1), kept for compatibility; null when there was none.
 */
export type LegacyEventId = string | null;

/**
 * One agent run recorded step-first: each provider message is a step (`S<n>`), and the machine events during it (tool calls, results, errors, retries, status notes, artifacts) are its ordered substeps (`S<n>.<m>`). Legacy turn and event labels (`T1`, `T1.13`) may be kept beside the new ids.
 */
export interface RunLog {
  /**
   * Optional reference to this schema, for editors.
   */
  $schema?: string;
  /**
   * Identifier of the run (for gza, the task id). Every step and substep belongs to this run.
   */
  run_id: string;
  /**
   * The provider that ran the agent (`codex`, `claude`, `gemini`, ...); steps normally repeat it.
   */
  provider: string;
  /**
   * The steps in order of `step_index`.
   */
  steps: Step[];
  /**
   * Data that has no field of its own here, kept so that conversions to and from other formats lose nothing. Keys are free; values are any JSON.
   */
  extra?: {
    [k: string]: unknown;
  };
}
/**
 * One provider message as shown in the run timeline, with the tool activity that happened during it. A step with no message that holds tool events is a synthetic step and says why in `summary`.
 */
export interface Step {
  /**
   * Run-local label of the step: `S` followed by `step_index` (`S1`, `S2`, ...).
   */
  step_id: string;
  /**
   * Position of the step in the run: 1 for the first, then one more for each step.
   */
  step_index: number;
  /**
   * The provider that produced the message (`codex`, `claude`, `gemini`, ...).
   */
  provider: string;
  /**
   * Role of the message's author; usually `assistant`.
   */
  message_role: string;
  /**
   * The text of the message the user can see; null for a synthetic step that stands for no message.
   */
  message_text?: string | null;
  started_at: Timestamp;
  completed_at?: Timestamp;
  /**
   * How the step ended; null until the step is finalized.
   */
  outcome: "completed" | "failed" | "interrupted" | "timeout" | null;
  /**
   * A short machine-written summary of the step's outcome. A synthetic step holding tool events that came before any message says `Pre-message tool activity`.
   */
  summary?: string | null;
  legacy_turn_id?: LegacyTurnId;
  legacy_event_id?: LegacyEventId;
  /**
   * The step's machine events in order of `substep_index`.
   */
  substeps: Substep[];
  /**
   * Data that has no field of its own here, kept so that conversions to and from other formats lose nothing. Keys are free; values are any JSON.
   */
  extra?: {
    [k: string]: unknown;
  };
}
/**
 * One machine event that belongs to a step: a tool call, its output or error, a retry, a status note or an artifact. The shape of `payload` depends on `type`. Generated binding: the schema's conditional and cross-field rules are not checked by this model; use `atif_spec.validate` for full validation.
 */
export interface Substep {
  /**
   * Step-local label of the substep: the parent's `step_id`, a dot, and `substep_index` (`S3.1`).
   */
  substep_id: string;
  /**
   * Position of the substep in its step: 1 for the first, then one more for each substep.
   */
  substep_index: number;
  /**
   * What kind of event the substep records.
   */
  type: "tool_call" | "tool_output" | "tool_error" | "tool_retry" | "status_update" | "artifact";
  /**
   * Who emitted the event: the runner (the harness), the provider, or the tool itself.
   */
  source: "runner" | "provider" | "tool";
  /**
   * Identifier of the tool call the event belongs to. A `tool_call` introduces it; its `tool_output` or `tool_error` repeats it.
   */
  call_id?: string | null;
  /**
   * The event's data; its shape depends on `type`.
   */
  payload: unknown;
  timestamp: Timestamp;
  legacy_turn_id?: LegacyTurnId;
  legacy_event_id?: LegacyEventId;
  /**
   * Data that has no field of its own here, kept so that conversions to and from other formats lose nothing. Keys are free; values are any JSON.
   */
  extra?: {
    [k: string]: unknown;
  };
}
