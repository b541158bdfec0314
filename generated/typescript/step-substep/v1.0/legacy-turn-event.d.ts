/**
 * Generated file: do not edit by hand.
 * Schema: https://atif-spec.org/schemas/step-substep/v1.0/legacy-turn-event.schema.json
 *   (spec/step-substep/v1.0/legacy-turn-event.schema.json)
 * Generator: json-schema-to-typescript 16.0.0 through atif_spec.codegen, options in
 *   [tool.atif-spec.json-schema-to-typescript]
 * Regenerate: nox -s generate
 */

/**
 * One event of a turn-first log in normalized form: one JSON object per line, in sequence order, labelled by turn (`T1`) and event (`T1.13`). Provider messages and status lines become steps of a run log; tool events become substeps of the most recent step.
 */
export interface LegacyTurnEvent {
  /**
   * The event's label: turn number, a dot, and the event's number in that turn (`T1.13`).
   */
  legacy_event_id: string;
  /**
   * The turn's label (`T1`); when absent it is the part of `legacy_event_id` before the dot, and when present it must equal that part.
   */
  legacy_turn_id?: string;
  /**
   * What the event is: a provider message or a status line (each starts a step), or a tool or status event (each becomes a substep of the current step; `status_update` and `artifact` never start a step).
   */
  kind: "message" | "status" | "tool_call" | "tool_output" | "tool_error" | "tool_retry" | "status_update" | "artifact";
  /**
   * The run the event belongs to; all events of one log share it.
   */
  run_id?: string;
  /**
   * The provider that produced the event (`codex`, `claude`, `gemini`, ...).
   */
  provider?: string;
  /**
   * For a message: the author's role (default `assistant`).
   */
  role?: string;
  /**
   * For a message or status line: its text.
   */
  text?: string | null;
  /**
   * For a tool or status event: who emitted it (default `provider`).
   */
  source?: "runner" | "provider" | "tool";
  /**
   * For a tool event: the identifier of the tool call it belongs to.
   */
  call_id?: string | null;
  /**
   * For a tool or status event: the event's data, copied to the substep's `payload` (see the run-log schema for the shape per type).
   */
  payload?: {
    [k: string]: unknown;
  };
  /**
   * When the event happened (RFC 3339), or null when unknown.
   */
  timestamp?: string | null;
  /**
   * For a message: how its step ended, when known.
   */
  outcome?: "completed" | "failed" | "interrupted" | "timeout" | null;
  /**
   * Data with no field of its own, copied to the `extra` of the step or substep the event becomes.
   */
  extra?: {
    [k: string]: unknown;
  };
}
