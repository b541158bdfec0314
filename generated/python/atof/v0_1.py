# Generated file: do not edit by hand.
# Schema: https://atif-spec.org/schemas/atof/v0.1/event.schema.json
#   (spec/atof/v0.1/event.schema.json)
# Generator: datamodel-code-generator 0.89.0 through atif_spec.codegen, options in
#   [tool.datamodel-codegen]
# Regenerate: nox -s generate

from __future__ import annotations

from typing import Annotated, Any, Literal

from atif_spec.bindings.models_base import JsonInteger, StrictModel
from pydantic import Field
from typing_extensions import TypeAliasType

TimestampText = TypeAliasType(
    "TimestampText",
    Annotated[
        str,
        Field(
            ...,
            description="An RFC 3339 date-time ending in `Z` or an explicit offset (spec §5.1).",
            pattern="^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$",
            title="Timestamp text",
        ),
    ],
)


Timestamp = TypeAliasType(
    "Timestamp",
    Annotated[
        TimestampText | JsonInteger,
        Field(
            ...,
            description="Required. Wall-clock time: an RFC 3339 string ending in `Z` or an explicit offset, or an integer count of microseconds since the Unix epoch (spec §5.1).",
            title="Timestamp",
        ),
    ],
)


class ScopeEvent(StrictModel):
    """
    One end of a scope (spec §3.1): the `start` event when the scope is pushed onto the active scope stack and the `end` event, with the same `uuid`, when it is popped. Members beyond these fields are kept (vendor extensions). Generated binding: the schema's conditional and cross-field rules, which the field types cannot express, are checked against this definition of the schema when the model is validated; `atif_spec.validate` adds the spec's rules beyond the schema.
    """

    kind: str = Field(
        default="scope",
        description="The event kind, `scope`: `Event` sends an event here by it (nat's model defaults it; its reader needs it). Default `scope`.",
        title="Kind",
    )
    scope_category: Literal["start", "end"] = Field(
        ..., description="Required. The lifecycle phase: `start` or `end`.", title="Scope category"
    )
    atof_version: str = Field(
        default="0.1",
        description="The wire-format version, `0.MINOR` (spec §2, §5.6). Default `0.1`.",
        pattern="^0\\.[0-9]+$",
        title="ATOF version",
    )
    uuid: str = Field(
        ...,
        description="Required. The span's identifier (a v7 UUID is recommended); the start and end events of one scope share it (spec §5.3).",
        min_length=1,
        title="UUID",
    )
    parent_uuid: str | None = Field(
        default=None,
        description="The `uuid` of the enclosing scope; null (the default) at the root.",
        min_length=1,
        title="Parent UUID",
    )
    timestamp: Timestamp
    name: str = Field(
        ..., description="Required. A human-readable label of the event.", title="Name"
    )
    data: Any | None = Field(
        default=None,
        description="The application's payload, opaque to ATOF (for an `llm` scope, the provider request on start and response on end). Default null.",
        title="Data",
    )
    data_schema: dict[str, Any] | None = Field(
        default=None,
        description="Names the shape of `data`, conventionally `{name, version}`; opaque to ATOF core. Default null.",
        title="Data schema",
    )
    metadata: dict[str, Any] | None = Field(
        default=None,
        description="The tracing and correlation envelope (session ids, versions). Default null.",
        title="Metadata",
    )
    attributes: list[str] = Field(
        default=[],
        description="Behavioural flags (spec §2.1): `parallel`, `relocatable`, `stateful`, `streaming`, `remote`, or a vendor's `vendor.name`; lowercase, sorted and without repeats on the wire. Default empty.",
        title="Attributes",
    )
    category: str = Field(
        ...,
        description="Required. What kind of work the scope is (spec §4): `agent`, `function`, `llm`, `tool`, `retriever`, `embedder`, `reranker`, `guardrail`, `evaluator`, `custom` or `unknown`; consumers accept other values.",
        min_length=1,
        title="Category",
    )
    category_profile: dict[str, Any] | None = Field(
        default=None,
        description="The category's typed fields (spec §4.4): `model_name` for `llm`, `tool_call_id` for `tool`, `subtype` (required) for `custom`. Default null.",
        title="Category profile",
    )


class MarkEvent(StrictModel):
    """
    A point-in-time checkpoint (spec §3.2), unpaired. It carries no `scope_category` and no `attributes`. Members beyond these fields are kept (vendor extensions). Generated binding: the schema's conditional and cross-field rules, which the field types cannot express, are checked against this definition of the schema when the model is validated; `atif_spec.validate` adds the spec's rules beyond the schema.
    """

    kind: str = Field(
        default="mark",
        description="The event kind, `mark`: `Event` sends an event here by it (nat's model defaults it; its reader needs it). Default `mark`.",
        title="Kind",
    )
    atof_version: str = Field(
        default="0.1",
        description="The wire-format version, `0.MINOR` (spec §2, §5.6). Default `0.1`.",
        pattern="^0\\.[0-9]+$",
        title="ATOF version",
    )
    uuid: str = Field(
        ...,
        description="Required. The span's identifier (a v7 UUID is recommended); the start and end events of one scope share it (spec §5.3).",
        min_length=1,
        title="UUID",
    )
    parent_uuid: str | None = Field(
        default=None,
        description="The `uuid` of the enclosing scope; null (the default) at the root.",
        min_length=1,
        title="Parent UUID",
    )
    timestamp: Timestamp
    name: str = Field(
        ..., description="Required. A human-readable label of the event.", title="Name"
    )
    data: Any | None = Field(
        default=None,
        description="The application's payload, opaque to ATOF (for an `llm` scope, the provider request on start and response on end). Default null.",
        title="Data",
    )
    data_schema: dict[str, Any] | None = Field(
        default=None,
        description="Names the shape of `data`, conventionally `{name, version}`; opaque to ATOF core. Default null.",
        title="Data schema",
    )
    metadata: dict[str, Any] | None = Field(
        default=None,
        description="The tracing and correlation envelope (session ids, versions). Default null.",
        title="Metadata",
    )
    category: str | None = Field(
        default=None,
        description="What kind of work the mark relates to (spec §4); null (the default) for a generic named checkpoint.",
        min_length=1,
        title="Category",
    )
    category_profile: dict[str, Any] | None = Field(
        default=None,
        description="The category's typed fields (spec §4.4); `subtype` is required when `category` is `custom`. Default null.",
        title="Category profile",
    )
    scope_category: Any | None = Field(
        default=None,
        description="Not allowed: a mark event has no lifecycle phase (spec §3.2).",
        title="Scope category",
    )
    attributes: Any | None = Field(
        default=None,
        description="Not allowed: a mark event carries no behavioural flags (spec §3.2).",
        title="Attributes",
    )


class AtofEventScope(ScopeEvent):
    """
    A scope event or a mark event, told apart by `kind`.
    """

    kind: Literal["scope"] = Field(
        ...,
        description="Required. The event kind: `scope` (a scope event) or `mark` (a mark event); the rest of the event is checked as that kind.",
        title="Kind",
    )


class AtofEventMark(MarkEvent):
    """
    A scope event or a mark event, told apart by `kind`.
    """

    kind: Literal["mark"] = Field(
        ...,
        description="Required. The event kind: `scope` (a scope event) or `mark` (a mark event); the rest of the event is checked as that kind.",
        title="Kind",
    )


AtofEvent = TypeAliasType(
    "AtofEvent",
    Annotated[
        AtofEventScope | AtofEventMark,
        Field(
            ...,
            description="A scope event or a mark event, told apart by `kind`.",
            discriminator="kind",
            title="ATOF event",
        ),
    ],
)


Event = TypeAliasType(
    "Event",
    Annotated[
        AtofEvent,
        Field(
            ...,
            description="One event of an ATOF 0.1 stream (the Agentic Trajectory Observability Format of NVIDIA NeMo Agent Toolkit): one JSON object per line of a JSON Lines file, either a scope event or a mark event, told apart by `kind`. The whole file is one document; the rules of the stream (scope pairing, order) are checked across its lines.",
            title="Event",
        ),
    ],
)


# Each model also checks its input against its schema definition: the conditionals
# and other rules that field types cannot express
# (atif_spec.bindings.models_base.StrictModel).
StrictModel.bind_schema_locations(
    "https://atif-spec.org/schemas/atof/v0.1/event.schema.json",
    {
        ScopeEvent: "#/$defs/ScopeEvent",
        MarkEvent: "#/$defs/MarkEvent",
        AtofEventScope: "#/$defs/AtofEvent",
        AtofEventMark: "#/$defs/AtofEvent",
    },
)
