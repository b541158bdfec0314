/**
 * Generated file: do not edit by hand.
 * Schema: https://atif-spec.org/schemas/atof/v0.1/event.schema.json
 *   (spec/atof/v0.1/event.schema.json)
 * Generator: json-schema-to-typescript 16.0.0 through atif_spec.codegen, options in
 *   [tool.atif-spec.json-schema-to-typescript]
 * Regenerate: nox -s generate
 */

/**
 * One event of an ATOF 0.1 stream (the Agentic Trajectory Observability Format of NVIDIA NeMo Agent Toolkit): one JSON object per line of a JSON Lines file, either a scope event or a mark event, told apart by `kind`. The whole file is one document; the rules of the stream (scope pairing, order) are checked across its lines.
 */
export type Event = AtofEventScope | AtofEventMark;
/**
 * A scope event or a mark event, told apart by `kind`.
 */
export type AtofEventScope = ScopeEvent & {
  /**
   * Required. The event kind: `scope` (a scope event) or `mark` (a mark event); the rest of the event is checked as that kind.
   */
  kind: "scope";
};
/**
 * Required. Wall-clock time: an RFC 3339 string ending in `Z` or an explicit offset, or an integer count of microseconds since the Unix epoch (spec §5.1).
 */
export type Timestamp = TimestampText | number;
/**
 * An RFC 3339 date-time ending in `Z` or an explicit offset (spec §5.1).
 */
export type TimestampText = string;
/**
 * A scope event or a mark event, told apart by `kind`.
 */
export type AtofEventMark = MarkEvent & {
  /**
   * Required. The event kind: `scope` (a scope event) or `mark` (a mark event); the rest of the event is checked as that kind.
   */
  kind: "mark";
};

/**
 * One end of a scope (spec §3.1): the `start` event when the scope is pushed onto the active scope stack and the `end` event, with the same `uuid`, when it is popped. Members beyond these fields are kept (vendor extensions). Generated binding: the schema's conditional and cross-field rules are not checked by this model; use `atif_spec.validate` for full validation.
 */
export interface ScopeEvent {
  /**
   * The event kind, `scope`: `Event` sends an event here by it (nat's model defaults it; its reader needs it). Default `scope`.
   */
  kind?: string;
  /**
   * Required. The lifecycle phase: `start` or `end`.
   */
  scope_category: "start" | "end";
  /**
   * The wire-format version, `0.MINOR` (spec §2, §5.6). Default `0.1`.
   */
  atof_version?: string;
  /**
   * Required. The span's identifier (a v7 UUID is recommended); the start and end events of one scope share it (spec §5.3).
   */
  uuid: string;
  /**
   * The `uuid` of the enclosing scope; null (the default) at the root.
   */
  parent_uuid?: string | null;
  timestamp: Timestamp;
  /**
   * Required. A human-readable label of the event.
   */
  name: string;
  /**
   * The application's payload, opaque to ATOF (for an `llm` scope, the provider request on start and response on end). Default null.
   */
  data?: unknown;
  /**
   * Names the shape of `data`, conventionally `{name, version}`; opaque to ATOF core. Default null.
   */
  data_schema?: {
    [k: string]: unknown;
  } | null;
  /**
   * The tracing and correlation envelope (session ids, versions). Default null.
   */
  metadata?: {
    [k: string]: unknown;
  } | null;
  /**
   * Behavioural flags (spec §2.1): `parallel`, `relocatable`, `stateful`, `streaming`, `remote`, or a vendor's `vendor.name`; lowercase, sorted and without repeats on the wire. Default empty.
   */
  attributes?: string[];
  /**
   * Required. What kind of work the scope is (spec §4): `agent`, `function`, `llm`, `tool`, `retriever`, `embedder`, `reranker`, `guardrail`, `evaluator`, `custom` or `unknown`; consumers accept other values.
   */
  category: string;
  /**
   * The category's typed fields (spec §4.4): `model_name` for `llm`, `tool_call_id` for `tool`, `subtype` (required) for `custom`. Default null.
   */
  category_profile?: {
    [k: string]: unknown;
  } | null;
  [k: string]: unknown;
}
/**
 * A point-in-time checkpoint (spec §3.2), unpaired. It carries no `scope_category` and no `attributes`. Members beyond these fields are kept (vendor extensions). Generated binding: the schema's conditional and cross-field rules are not checked by this model; use `atif_spec.validate` for full validation.
 */
export interface MarkEvent {
  /**
   * The event kind, `mark`: `Event` sends an event here by it (nat's model defaults it; its reader needs it). Default `mark`.
   */
  kind?: string;
  /**
   * The wire-format version, `0.MINOR` (spec §2, §5.6). Default `0.1`.
   */
  atof_version?: string;
  /**
   * Required. The span's identifier (a v7 UUID is recommended); the start and end events of one scope share it (spec §5.3).
   */
  uuid: string;
  /**
   * The `uuid` of the enclosing scope; null (the default) at the root.
   */
  parent_uuid?: string | null;
  timestamp: Timestamp;
  /**
   * Required. A human-readable label of the event.
   */
  name: string;
  /**
   * The application's payload, opaque to ATOF (for an `llm` scope, the provider request on start and response on end). Default null.
   */
  data?: unknown;
  /**
   * Names the shape of `data`, conventionally `{name, version}`; opaque to ATOF core. Default null.
   */
  data_schema?: {
    [k: string]: unknown;
  } | null;
  /**
   * The tracing and correlation envelope (session ids, versions). Default null.
   */
  metadata?: {
    [k: string]: unknown;
  } | null;
  /**
   * What kind of work the mark relates to (spec §4); null (the default) for a generic named checkpoint.
   */
  category?: string | null;
  /**
   * The category's typed fields (spec §4.4); `subtype` is required when `category` is `custom`. Default null.
   */
  category_profile?: {
    [k: string]: unknown;
  } | null;
  /**
   * Not allowed: a mark event has no lifecycle phase (spec §3.2).
   */
  scope_category?: {
    [k: string]: unknown;
  };
  /**
   * Not allowed: a mark event carries no behavioural flags (spec §3.2).
   */
  attributes?: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
