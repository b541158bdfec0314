"""OTLP/JSON trace files read and written with the OpenTelemetry GenAI semantic conventions.

The OpenTelemetry file exporter writes JSON Lines, one ``TracesData`` per line: lowerCamelCase
keys, trace and span ids as **hex** (32 and 16 digits), enum values (span kind, status code) as
**integers**. An exporter writes a line per export batch, so one trace may be spread over several
lines and one line may hold spans of several traces: a document here is one trace
(``{"resourceSpans": [...]}``), its spans gathered from every line of the file (:func:`by_trace`,
:func:`joined`; RFC.md §7.1 item 2). The version is the GenAI semantic conventions release whose
attribute names the lens reads and writes, :data:`SEMCONV`; the wire encoding (OTLP 1.x) has not
changed between releases. ``spec/otel/v1.41.0/traces-data.schema.json`` is the schema.
"""

from __future__ import annotations

from typing import Any, Final

from atif_spec.formats import FormatSpec
from atif_spec.jsonio.jsontext import canonical_json

Doc = dict[str, Any]

SEMCONV: Final = "1.41.0"
"""The pinned release of open-telemetry/semantic-conventions, the last that carried the GenAI
conventions (model/gen-ai/, docs/gen-ai/) before they moved to semantic-conventions-genai."""
VERSION: Final = f"v{SEMCONV}"
VERSIONS: Final = (VERSION,)
SCHEMA_URL: Final = f"https://opentelemetry.io/schemas/{SEMCONV}"
"""The ``schemaUrl`` of the scope the lens writes (the semantic-conventions schema of the pin)."""

KIND_INTERNAL: Final = 1
KIND_SERVER: Final = 2
KIND_CLIENT: Final = 3
KINDS: Final = {
    "SPAN_KIND_UNSPECIFIED": 0,
    "SPAN_KIND_INTERNAL": 1,
    "SPAN_KIND_SERVER": 2,
    "SPAN_KIND_CLIENT": 3,
    "SPAN_KIND_PRODUCER": 4,
    "SPAN_KIND_CONSUMER": 5,
}
"""``Span.SpanKind`` names and their integers (OTLP/JSON writes the integer)."""
STATUS_CODES: Final = {"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}
TRACE_ID_HEX: Final = 32
SPAN_ID_HEX: Final = 16


def detect(doc: Any) -> str | None:
    """:data:`VERSION` for an object with a ``resourceSpans`` array (a ``TracesData``)."""
    if isinstance(doc, dict) and isinstance(doc.get("resourceSpans"), list):
        return VERSION
    return None


def spans(doc: Any) -> list[dict[str, Any]]:
    """Every span of a ``TracesData`` in document order (resources, scopes, spans)."""
    found: list[dict[str, Any]] = []
    for resource in _objects(doc.get("resourceSpans") if isinstance(doc, dict) else None):
        for scope in _objects(resource.get("scopeSpans")):
            found.extend(_objects(scope.get("spans")))
    return found


def by_trace(doc: Any) -> dict[str, Doc] | None:
    """``doc`` (a ``TracesData``) split by trace: for each trace id (lowercase; traces in order of
    first appearance) the ``TracesData`` holding only that trace's spans, each under its own
    resource and scope blocks (blocks holding none of them left out; every other member kept).
    None when ``doc`` holds no span, or a span whose ``traceId`` is not a string: such a
    document is not split (the lens refuses it with its own finding)."""
    found = spans(doc)
    if not found or not all(isinstance(s.get("traceId"), str) for s in found):
        return None
    out: dict[str, Doc] = {}
    for trace in dict.fromkeys(str(s["traceId"]).lower() for s in found):
        out[trace] = {**doc, "resourceSpans": _blocks(doc["resourceSpans"], trace)}
    return out


def _blocks(resources: list[Any], trace: str) -> list[Doc]:
    """The resource blocks of ``resources`` restricted to the spans of ``trace``."""
    out: list[Doc] = []
    for resource in _objects(resources):
        scopes: list[Doc] = []
        for scope in _objects(resource.get("scopeSpans")):
            mine = [s for s in _objects(scope.get("spans")) if s["traceId"].lower() == trace]
            if mine:
                scopes.append({**scope, "spans": mine})
        if scopes:
            out.append({**resource, "scopeSpans": scopes})
    return out


def joined(parts: list[Doc]) -> Doc:
    """One ``TracesData`` of the ``parts`` of one trace (each a :func:`by_trace` part, in file
    order). Resource blocks equal but for their ``scopeSpans`` (the same resource, attributes
    and ``schemaUrl``) become one, and within it scope blocks equal but for their ``spans``;
    blocks that differ stay apart, so each span keeps its own resource and scope. Blocks and
    spans keep the order in which they first appear."""
    resources: dict[bytes, tuple[Doc, dict[bytes, Doc]]] = {}
    for part in parts:
        for resource in _objects(part.get("resourceSpans")):
            key = canonical_json({k: v for k, v in resource.items() if k != "scopeSpans"})
            block, scopes = resources.setdefault(key, ({**resource, "scopeSpans": []}, {}))
            for scope in _objects(resource.get("scopeSpans")):
                inner = canonical_json({k: v for k, v in scope.items() if k != "spans"})
                if inner not in scopes:
                    scopes[inner] = {**scope, "spans": []}
                    block["scopeSpans"].append(scopes[inner])
                scopes[inner]["spans"].extend(_objects(scope.get("spans")))
    first = parts[0] if parts else {}
    return {**first, "resourceSpans": [block for block, _ in resources.values()]}


def _objects(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


FORMAT = FormatSpec(
    name="otel",
    title="OpenTelemetry traces (OTLP/JSON, GenAI semantic conventions)",
    versions=VERSIONS,
    detect=detect,
    priority=50,
)
