"""OTLP/JSON trace files read and written with the OpenTelemetry GenAI semantic conventions.

The OpenTelemetry file exporter writes JSON Lines, one ``TracesData`` per line: lowerCamelCase
keys, trace and span ids as **hex** (32 and 16 digits), enum values (span kind, status code) as
**integers**. One line is one document here (as one line of ATIF JSON Lines is one trajectory):
``{"resourceSpans": [...]}``. The version is the GenAI semantic conventions release whose
attribute names the lens reads and writes, :data:`SEMCONV`; the wire encoding (OTLP 1.x) has not
changed between releases. ``spec/otel/v1.41.0/traces-data.schema.json`` is the schema.
"""

from __future__ import annotations

from typing import Any, Final

from atif_spec.formats import FormatSpec

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


def _objects(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


FORMAT = FormatSpec(
    name="otel",
    title="OpenTelemetry traces (OTLP/JSON, GenAI semantic conventions)",
    versions=VERSIONS,
    detect=detect,
    priority=50,
)
