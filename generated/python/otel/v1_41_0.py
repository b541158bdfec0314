# Generated file: do not edit by hand.
# Schema: https://atif-spec.org/schemas/otel/v1.41.0/traces-data.schema.json
#   (spec/otel/v1.41.0/traces-data.schema.json)
# Generator: datamodel-code-generator 0.89.0 through atif_spec.codegen, options in
#   [tool.datamodel-codegen]
# Regenerate: nox -s generate

from __future__ import annotations

from typing import Annotated

from atif_spec.bindings.models_base import JsonInteger, StrictModel
from pydantic import ConfigDict, Field
from typing_extensions import TypeAliasType


class Status(StrictModel):
    """
    The outcome of the operation.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    message: str | None = Field(
        default=None,
        description="A developer-facing description of the status.",
        json_schema_extra={"x-never-null": True},
        title="Message",
    )
    code: JsonInteger | None = Field(
        default=None,
        description="`StatusCode` as an integer: 0 unset, 1 ok, 2 error. OTLP/JSON forbids the enum's name.",
        ge=0,
        json_schema_extra={"x-never-null": True},
        le=2,
        title="Code",
    )


class EntityRef(StrictModel):
    """
    A reference to an entity of the resource (OTLP 1.8 and later); not read by the lens.
    """


Uint64Text = TypeAliasType(
    "Uint64Text",
    Annotated[
        str,
        Field(
            ...,
            description="The proto3 JSON text of a 64-bit unsigned integer: decimal digits.",
            pattern="^[0-9]{1,20}$",
            title="Uint64Text",
        ),
    ],
)


Int64Text = TypeAliasType(
    "Int64Text",
    Annotated[
        str,
        Field(
            ...,
            description="The proto3 JSON text of a 64-bit signed integer: decimal digits, an optional minus sign.",
            pattern="^-?[0-9]{1,19}$",
            title="Int64Text",
        ),
    ],
)


DoubleText = TypeAliasType(
    "DoubleText",
    Annotated[
        str,
        Field(
            ...,
            description="The proto3 JSON text of a non-finite double: `NaN`, `Infinity` or `-Infinity`.",
            pattern="^(NaN|-?Infinity)$",
            title="DoubleText",
        ),
    ],
)


Uint64 = TypeAliasType(
    "Uint64",
    Annotated[
        JsonInteger | Uint64Text,
        Field(
            ...,
            description="A 64-bit unsigned integer: a JSON integer, or (the proto3 JSON form) a string of decimal digits.",
            title="Uint64",
        ),
    ],
)


Int64 = TypeAliasType(
    "Int64",
    Annotated[
        JsonInteger | Int64Text,
        Field(
            ...,
            description="A 64-bit signed integer: a JSON integer, or (the proto3 JSON form) a string of decimal digits with an optional minus sign.",
            title="Int64",
        ),
    ],
)


DoubleValue = TypeAliasType(
    "DoubleValue",
    Annotated[
        int | float | DoubleText,
        Field(
            ...,
            description="A double, or one of the proto3 JSON strings `NaN`, `Infinity`, `-Infinity`.",
            title="DoubleValue",
        ),
    ],
)


class TracesData(StrictModel):
    """
    Spans grouped by the resource that produced them.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    resourceSpans: list[ResourceSpans] | None = Field(
        default=None,
        description="The spans of each resource.",
        json_schema_extra={"x-never-null": True},
        title="Resource spans",
    )


class ResourceSpans(StrictModel):
    """
    The spans of one resource (a service), grouped by instrumentation scope.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    resource: Resource | None = Field(default=None, json_schema_extra={"x-never-null": True})
    scopeSpans: list[ScopeSpans] | None = Field(
        default=None,
        description="The spans of each instrumentation scope.",
        json_schema_extra={"x-never-null": True},
        title="Scope spans",
    )
    schemaUrl: str | None = Field(
        default=None,
        description="The semantic-conventions schema the resource's attributes follow.",
        json_schema_extra={"x-never-null": True},
        title="Schema URL",
    )


class Resource(StrictModel):
    """
    The entity that produced the spans (`service.name`, ...).
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    attributes: list[KeyValue] | None = Field(
        default=None,
        description="Attributes, each a key and an `AnyValue`.",
        json_schema_extra={"x-never-null": True},
        title="Attributes",
    )
    droppedAttributesCount: JsonInteger | None = Field(
        default=None,
        description="How many attributes of this resource were dropped.",
        ge=0,
        json_schema_extra={"x-never-null": True},
        le=4294967295,
        title="Dropped attributes count",
    )
    entityRefs: list[EntityRef] | None = Field(
        default=None,
        description="References to the entities of the resource (OTLP 1.8 and later); not read by the lens.",
        json_schema_extra={"x-never-null": True},
        title="Entity references",
    )


class ScopeSpans(StrictModel):
    """
    The spans one instrumentation scope produced.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    scope: InstrumentationScope | None = Field(
        default=None, json_schema_extra={"x-never-null": True}
    )
    spans: list[Span] | None = Field(
        default=None,
        description="The spans.",
        json_schema_extra={"x-never-null": True},
        title="Spans",
    )
    schemaUrl: str | None = Field(
        default=None,
        description="The semantic-conventions schema the spans' attributes follow.",
        json_schema_extra={"x-never-null": True},
        title="Schema URL",
    )


class InstrumentationScope(StrictModel):
    """
    The library that produced the spans.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    name: str | None = Field(
        default=None,
        description="Name of the instrumentation scope.",
        json_schema_extra={"x-never-null": True},
        title="Name",
    )
    version: str | None = Field(
        default=None,
        description="Version of the instrumentation scope.",
        json_schema_extra={"x-never-null": True},
        title="Version",
    )
    attributes: list[KeyValue] | None = Field(
        default=None,
        description="Attributes, each a key and an `AnyValue`.",
        json_schema_extra={"x-never-null": True},
        title="Attributes",
    )
    droppedAttributesCount: JsonInteger | None = Field(
        default=None,
        description="How many attributes of this scope were dropped.",
        ge=0,
        json_schema_extra={"x-never-null": True},
        le=4294967295,
        title="Dropped attributes count",
    )


class Span(StrictModel):
    """
    One operation of a trace.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    traceId: str = Field(
        ...,
        description="Id of the trace: 32 hex digits (16 bytes), not all zero.",
        pattern="^[0-9a-fA-F]{32}$",
        title="Trace id",
    )
    spanId: str = Field(
        ...,
        description="Id of the span: 16 hex digits (8 bytes), not all zero.",
        pattern="^[0-9a-fA-F]{16}$",
        title="Span id",
    )
    traceState: str | None = Field(
        default=None,
        description="W3C trace-state of the span.",
        json_schema_extra={"x-never-null": True},
        title="Trace state",
    )
    parentSpanId: str | None = Field(
        default=None,
        description="Id of the parent span (16 hex digits); absent or empty for a root span.",
        json_schema_extra={"x-never-null": True},
        pattern="^([0-9a-fA-F]{16})?$",
        title="Parent span id",
    )
    flags: JsonInteger | None = Field(
        default=None,
        description="W3C trace flags and the OTLP span flags.",
        ge=0,
        json_schema_extra={"x-never-null": True},
        le=4294967295,
        title="Flags",
    )
    name: str | None = Field(
        default=None,
        description="The operation name of the span.",
        json_schema_extra={"x-never-null": True},
        title="Name",
    )
    kind: JsonInteger | None = Field(
        default=None,
        description="`SpanKind` as an integer: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. OTLP/JSON forbids the enum's name.",
        ge=0,
        json_schema_extra={"x-never-null": True},
        le=5,
        title="Kind",
    )
    startTimeUnixNano: Uint64 | None = Field(default=None, json_schema_extra={"x-never-null": True})
    endTimeUnixNano: Uint64 | None = Field(default=None, json_schema_extra={"x-never-null": True})
    attributes: list[KeyValue] | None = Field(
        default=None,
        description="Attributes, each a key and an `AnyValue`.",
        json_schema_extra={"x-never-null": True},
        title="Attributes",
    )
    droppedAttributesCount: JsonInteger | None = Field(
        default=None,
        description="How many attributes of this span were dropped.",
        ge=0,
        json_schema_extra={"x-never-null": True},
        le=4294967295,
        title="Dropped attributes count",
    )
    events: list[Event] | None = Field(
        default=None,
        description="Time-stamped events of the span.",
        json_schema_extra={"x-never-null": True},
        title="Events",
    )
    droppedEventsCount: JsonInteger | None = Field(
        default=None,
        description="How many events were dropped.",
        ge=0,
        json_schema_extra={"x-never-null": True},
        le=4294967295,
        title="Dropped events count",
    )
    links: list[Link] | None = Field(
        default=None,
        description="Links to spans of this or other traces.",
        json_schema_extra={"x-never-null": True},
        title="Links",
    )
    droppedLinksCount: JsonInteger | None = Field(
        default=None,
        description="How many links were dropped.",
        ge=0,
        json_schema_extra={"x-never-null": True},
        le=4294967295,
        title="Dropped links count",
    )
    status: Status | None = Field(default=None, json_schema_extra={"x-never-null": True})


class Event(StrictModel):
    """
    A time-stamped annotation of a span.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    timeUnixNano: Uint64 | None = Field(default=None, json_schema_extra={"x-never-null": True})
    name: str | None = Field(
        default=None,
        description="Name of the event.",
        json_schema_extra={"x-never-null": True},
        title="Name",
    )
    attributes: list[KeyValue] | None = Field(
        default=None,
        description="Attributes, each a key and an `AnyValue`.",
        json_schema_extra={"x-never-null": True},
        title="Attributes",
    )
    droppedAttributesCount: JsonInteger | None = Field(
        default=None,
        description="How many attributes of this event were dropped.",
        ge=0,
        json_schema_extra={"x-never-null": True},
        le=4294967295,
        title="Dropped attributes count",
    )


class Link(StrictModel):
    """
    A pointer from a span to another span.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    traceId: str = Field(
        ...,
        description="Trace id of the linked span: 32 hex digits.",
        pattern="^[0-9a-fA-F]{32}$",
        title="Trace id",
    )
    spanId: str = Field(
        ...,
        description="Id of the linked span: 16 hex digits.",
        pattern="^[0-9a-fA-F]{16}$",
        title="Span id",
    )
    traceState: str | None = Field(
        default=None,
        description="W3C trace-state of the linked span.",
        json_schema_extra={"x-never-null": True},
        title="Trace state",
    )
    attributes: list[KeyValue] | None = Field(
        default=None,
        description="Attributes, each a key and an `AnyValue`.",
        json_schema_extra={"x-never-null": True},
        title="Attributes",
    )
    droppedAttributesCount: JsonInteger | None = Field(
        default=None,
        description="How many attributes of this link were dropped.",
        ge=0,
        json_schema_extra={"x-never-null": True},
        le=4294967295,
        title="Dropped attributes count",
    )
    flags: JsonInteger | None = Field(
        default=None,
        description="W3C trace flags of the link.",
        ge=0,
        json_schema_extra={"x-never-null": True},
        le=4294967295,
        title="Flags",
    )


class KeyValue(StrictModel):
    """
    One attribute: a key and its value.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    key: str | None = Field(
        default=None,
        description="The attribute name, e.g. `gen_ai.operation.name`.",
        json_schema_extra={"x-never-null": True},
        title="Key",
    )
    value: AnyValue | None = Field(default=None, json_schema_extra={"x-never-null": True})


class AnyValue(StrictModel):
    """
    An attribute value: at most one of its members (none for an empty value).
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    stringValue: str | None = Field(
        default=None,
        description="A string.",
        json_schema_extra={"x-never-null": True},
        title="String value",
    )
    boolValue: bool | None = Field(
        default=None,
        description="A boolean.",
        json_schema_extra={"x-never-null": True},
        title="Boolean value",
    )
    intValue: Int64 | None = Field(default=None, json_schema_extra={"x-never-null": True})
    doubleValue: DoubleValue | None = Field(default=None, json_schema_extra={"x-never-null": True})
    arrayValue: ArrayValue | None = Field(default=None, json_schema_extra={"x-never-null": True})
    kvlistValue: KeyValueList | None = Field(default=None, json_schema_extra={"x-never-null": True})
    bytesValue: str | None = Field(
        default=None,
        description="Bytes, base64-encoded.",
        json_schema_extra={"x-never-null": True},
        pattern="^[A-Za-z0-9+/_-]*=*$",
        title="Bytes value",
    )


class ArrayValue(StrictModel):
    """
    A list of values.
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    values: list[AnyValue] | None = Field(
        default=None,
        description="The values.",
        json_schema_extra={"x-never-null": True},
        title="Values",
    )


class KeyValueList(StrictModel):
    """
    A list of attributes (a map).
    """

    model_config = ConfigDict(
        extra="forbid",
    )
    values: list[KeyValue] | None = Field(
        default=None,
        description="The members.",
        json_schema_extra={"x-never-null": True},
        title="Attributes",
    )


TracesData.model_rebuild()
ResourceSpans.model_rebuild()
Resource.model_rebuild()
ScopeSpans.model_rebuild()
InstrumentationScope.model_rebuild()
Span.model_rebuild()
Event.model_rebuild()
Link.model_rebuild()
KeyValue.model_rebuild()
AnyValue.model_rebuild()


# Each model also checks its input against its schema definition: the conditionals
# and other rules that field types cannot express
# (atif_spec.bindings.models_base.StrictModel).
StrictModel.bind_schema_locations(
    "https://atif-spec.org/schemas/otel/v1.41.0/traces-data.schema.json",
    {
        Status: "#/$defs/Status",
        EntityRef: "#/$defs/EntityRef",
        TracesData: "#",
        ResourceSpans: "#/$defs/ResourceSpans",
        Resource: "#/$defs/Resource",
        ScopeSpans: "#/$defs/ScopeSpans",
        InstrumentationScope: "#/$defs/InstrumentationScope",
        Span: "#/$defs/Span",
        Event: "#/$defs/Event",
        Link: "#/$defs/Link",
        KeyValue: "#/$defs/KeyValue",
        AnyValue: "#/$defs/AnyValue",
        ArrayValue: "#/$defs/ArrayValue",
        KeyValueList: "#/$defs/KeyValueList",
    },
)
