"""What the OTel lens tests share: the fixtures, conversions and checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.trace.v1.trace_pb2 import TracesData

from atif_spec.formats import otel
from atif_spec.jsonio.jsontext import dumps, loads
from atif_spec.transforms.lenses import convert
from atif_spec.transforms.lenses.otel import common as c
from atif_spec.transforms.lenses.otel.openinference import from_openinference, is_openinference

ROOT = Path(__file__).resolve().parents[4]
ATIF_FIXTURES = sorted(
    [
        *ROOT.glob("conformance/atif/*/valid/*.json"),
        *ROOT.glob("conformance/atif/*/valid/*/trajectory.json"),
    ]
)
OTEL_FIXTURES = sorted(ROOT.glob("conformance/otel/*/valid/*.json"))


def fixture_id(path: Path) -> str:
    return str(path.relative_to(ROOT / "conformance"))


def load(path: Path) -> Any:
    return loads(path.read_bytes())


def to_otel(doc: Any, **options: Any) -> tuple[dict[str, Any], Any]:
    """``doc`` converted to OTel (session-only references resolved by a path template)."""
    return convert(doc, "otel", session_ref_path="{session_id}.json", **options)


def attrs(span: dict[str, Any]) -> dict[str, Any]:
    """A span's attributes, in the GenAI spelling (OpenInference ones translated)."""
    found = c.attributes_in(span.get("attributes"))
    return from_openinference(found, span["name"]) if is_openinference(found) else found


def strict(doc: dict[str, Any]) -> None:
    """Fail unless ``doc`` is strict OTLP/JSON: it parses into ``TracesData`` (no unknown
    member), its ids are hex of 16 and 8 bytes, its enums integers."""
    json_format.Parse(dumps(doc), TracesData())
    for span in otel.spans(doc):
        assert len(bytes.fromhex(span["traceId"])) == 16
        assert len(bytes.fromhex(span["spanId"])) == 8
        if "parentSpanId" in span:
            assert len(bytes.fromhex(span["parentSpanId"])) == 8
        assert type(span["kind"]) is int
        assert type(span.get("status", {}).get("code", 0)) is int


def operation(span: dict[str, Any]) -> str | None:
    return attrs(span).get(c.OPERATION)


def tree(doc: dict[str, Any]) -> list[tuple[str | None, ...]]:
    """The span tree of the GenAI (or OpenInference) spans, each as the operations from it to
    the root, spans of other kinds skipped."""
    spans = otel.spans(doc)
    by_id = {s["spanId"]: s for s in spans}
    paths = []
    for span in spans:
        if operation(span) is None:
            continue
        path: list[str | None] = []
        node: dict[str, Any] | None = span
        while node is not None:
            if operation(node) is not None:
                path.append(operation(node))
            node = by_id.get(node.get("parentSpanId", ""))
        paths.append(tuple(path))
    return sorted(paths, key=str)


def usage(doc: dict[str, Any], attr: str) -> int | None:
    """The sum of ``attr`` over the inference spans of ``doc`` (None when none has it)."""
    spans = [attrs(s) for s in otel.spans(doc)]
    values = [a.get(attr) for a in spans if a.get(c.OPERATION) in c.INFERENCE_OPERATIONS]
    found = [v for v in values if isinstance(v, int)]
    return sum(found) if found else None
