/**
 * Generated file: do not edit by hand.
 * Schema: https://atif-spec.org/schemas/otel/v1.41.0/traces-data.schema.json
 *   (spec/otel/v1.41.0/traces-data.schema.json)
 * Generator: json-schema-to-typescript 16.0.0 through atif_spec.codegen, options in
 *   [tool.atif-spec.json-schema-to-typescript]
 * Regenerate: nox -s generate
 */

/**
 * A 64-bit signed integer: a JSON integer, or (the proto3 JSON form) a string of decimal digits with an optional minus sign.
 */
export type Int64 = number | Int64Text;
/**
 * The proto3 JSON text of a 64-bit signed integer: decimal digits, an optional minus sign.
 */
export type Int64Text = string;
/**
 * A double, or one of the proto3 JSON strings `NaN`, `Infinity`, `-Infinity`.
 */
export type DoubleValue = number | DoubleText;
/**
 * The proto3 JSON text of a non-finite double: `NaN`, `Infinity` or `-Infinity`.
 */
export type DoubleText = string;
/**
 * A 64-bit unsigned integer: a JSON integer, or (the proto3 JSON form) a string of decimal digits.
 */
export type Uint64 = number | Uint64Text;
/**
 * The proto3 JSON text of a 64-bit unsigned integer: decimal digits.
 */
export type Uint64Text = string;

/**
 * One line of an OTLP/JSON trace file (the OpenTelemetry file exporter's encoding of `opentelemetry.proto.trace.v1.TracesData`): lowerCamelCase keys, trace and span ids as hex, enum values (span kind, status code) as integers. The GenAI attributes the ATIF lens writes and reads are those of semantic conventions v1.41.0 (RFC.md §7.1); the schema checks the encoding, not the attributes.
 */
export interface TracesData {
  /**
   * The spans of each resource.
   */
  resourceSpans?: ResourceSpans[];
}
/**
 * The spans of one resource (a service), grouped by instrumentation scope.
 */
export interface ResourceSpans {
  resource?: Resource;
  /**
   * The spans of each instrumentation scope.
   */
  scopeSpans?: ScopeSpans[];
  /**
   * The semantic-conventions schema the resource's attributes follow.
   */
  schemaUrl?: string;
}
/**
 * The entity that produced the spans (`service.name`, ...).
 */
export interface Resource {
  /**
   * Attributes, each a key and an `AnyValue`.
   */
  attributes?: KeyValue[];
  /**
   * How many attributes of this resource were dropped.
   */
  droppedAttributesCount?: number;
  /**
   * References to the entities of the resource (OTLP 1.8 and later); not read by the lens.
   */
  entityRefs?: EntityRef[];
}
/**
 * One attribute: a key and its value.
 */
export interface KeyValue {
  /**
   * The attribute name, e.g. `gen_ai.operation.name`.
   */
  key?: string;
  value?: AnyValue;
}
/**
 * An attribute value: at most one of its members (none for an empty value).
 */
export interface AnyValue {
  /**
   * A string.
   */
  stringValue?: string;
  /**
   * A boolean.
   */
  boolValue?: boolean;
  intValue?: Int64;
  doubleValue?: DoubleValue;
  arrayValue?: ArrayValue;
  kvlistValue?: KeyValueList;
  /**
   * Bytes, base64-encoded.
   */
  bytesValue?: string;
}
/**
 * A list of values.
 */
export interface ArrayValue {
  /**
   * The values.
   */
  values?: AnyValue[];
}
/**
 * A list of attributes (a map).
 */
export interface KeyValueList {
  /**
   * The members.
   */
  values?: KeyValue[];
}
/**
 * A reference to an entity of the resource (OTLP 1.8 and later); not read by the lens.
 */
export interface EntityRef {
  [k: string]: unknown;
}
/**
 * The spans one instrumentation scope produced.
 */
export interface ScopeSpans {
  scope?: InstrumentationScope;
  /**
   * The spans.
   */
  spans?: Span[];
  /**
   * The semantic-conventions schema the spans' attributes follow.
   */
  schemaUrl?: string;
}
/**
 * The library that produced the spans.
 */
export interface InstrumentationScope {
  /**
   * Name of the instrumentation scope.
   */
  name?: string;
  /**
   * Version of the instrumentation scope.
   */
  version?: string;
  /**
   * Attributes, each a key and an `AnyValue`.
   */
  attributes?: KeyValue[];
  /**
   * How many attributes of this scope were dropped.
   */
  droppedAttributesCount?: number;
}
/**
 * One operation of a trace.
 */
export interface Span {
  /**
   * Id of the trace: 32 hex digits (16 bytes), not all zero.
   */
  traceId: string;
  /**
   * Id of the span: 16 hex digits (8 bytes), not all zero.
   */
  spanId: string;
  /**
   * W3C trace-state of the span.
   */
  traceState?: string;
  /**
   * Id of the parent span (16 hex digits); absent or empty for a root span.
   */
  parentSpanId?: string;
  /**
   * W3C trace flags and the OTLP span flags.
   */
  flags?: number;
  /**
   * The operation name of the span.
   */
  name?: string;
  /**
   * `SpanKind` as an integer: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. OTLP/JSON forbids the enum's name.
   */
  kind?: number;
  startTimeUnixNano?: Uint64;
  endTimeUnixNano?: Uint64;
  /**
   * Attributes, each a key and an `AnyValue`.
   */
  attributes?: KeyValue[];
  /**
   * How many attributes of this span were dropped.
   */
  droppedAttributesCount?: number;
  /**
   * Time-stamped events of the span.
   */
  events?: Event[];
  /**
   * How many events were dropped.
   */
  droppedEventsCount?: number;
  /**
   * Links to spans of this or other traces.
   */
  links?: Link[];
  /**
   * How many links were dropped.
   */
  droppedLinksCount?: number;
  status?: Status;
}
/**
 * A time-stamped annotation of a span.
 */
export interface Event {
  timeUnixNano?: Uint64;
  /**
   * Name of the event.
   */
  name?: string;
  /**
   * Attributes, each a key and an `AnyValue`.
   */
  attributes?: KeyValue[];
  /**
   * How many attributes of this event were dropped.
   */
  droppedAttributesCount?: number;
}
/**
 * A pointer from a span to another span.
 */
export interface Link {
  /**
   * Trace id of the linked span: 32 hex digits.
   */
  traceId: string;
  /**
   * Id of the linked span: 16 hex digits.
   */
  spanId: string;
  /**
   * W3C trace-state of the linked span.
   */
  traceState?: string;
  /**
   * Attributes, each a key and an `AnyValue`.
   */
  attributes?: KeyValue[];
  /**
   * How many attributes of this link were dropped.
   */
  droppedAttributesCount?: number;
  /**
   * W3C trace flags of the link.
   */
  flags?: number;
}
/**
 * The outcome of the operation.
 */
export interface Status {
  /**
   * A developer-facing description of the status.
   */
  message?: string;
  /**
   * `StatusCode` as an integer: 0 unset, 1 ok, 2 error. OTLP/JSON forbids the enum's name.
   */
  code?: number;
}
