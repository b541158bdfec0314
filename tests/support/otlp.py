"""OTLP/JSON ``TracesData`` built for tests: spans, resource blocks, and the lines an exporter
writes one batch at a time (a trace spread over several lines, lines holding several traces)."""

from __future__ import annotations

import copy
import re
from typing import Any

from atif_spec.jsonio.jsontext import dumps

Doc = dict[str, Any]

TRACE_A = "0af7651916cd43dd8448eb211c80319c"
TRACE_B = "4bf92f3577b34da6a3ce929d0e0e4736"


def span(trace: str, number: int, parent: int | None = None, name: str = "x") -> Doc:
    """A span of ``trace`` with the id ``number`` (and its parent's)."""
    out: Doc = {"traceId": trace, "spanId": f"{number:016x}", "name": name, "kind": 1}
    if parent is not None:
        out["parentSpanId"] = f"{parent:016x}"
    out["startTimeUnixNano"] = str(number)
    return out


def block(spans: list[Doc], service: str = "svc", scope: str = "lib") -> Doc:
    """A ``resourceSpans`` entry: one resource (``service.name``) and one scope."""
    attributes = [{"key": "service.name", "value": {"stringValue": service}}]
    return {
        "resource": {"attributes": attributes},
        "scopeSpans": [{"scope": {"name": scope}, "spans": spans}],
    }


def traces(*blocks: Doc) -> Doc:
    return {"resourceSpans": list(blocks)}


SMALL_A = traces(block([span(TRACE_A, 1), *(span(TRACE_A, n, 1) for n in range(2, 6))], "a"))
"""A trace of five spans (one root) under the service ``a``."""
SMALL_B = traces(block([span(TRACE_B, 11), *(span(TRACE_B, n, 11) for n in range(12, 15))], "b"))
"""A trace of four spans (one root) under the service ``b``."""


def only(doc: Doc, trace: str, first: int = 0, stop: int | None = None) -> Doc:
    """``doc`` (one resource, one scope) with the spans ``first:stop`` of ``trace`` only."""
    out = copy.deepcopy(doc)
    scope = out["resourceSpans"][0]["scopeSpans"][0]
    scope["spans"] = [s for s in scope["spans"] if s["traceId"] == trace][first:stop]
    return out


def with_trace(doc: Doc, trace: str) -> Doc:
    """``doc`` with every span moved to ``trace``."""
    out = copy.deepcopy(doc)
    for resource in out["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for s in scope["spans"]:
                s["traceId"] = trace
    return out


def interleaved(a: Doc, b: Doc) -> list[Doc]:
    """The lines of a batching exporter for the traces ``a`` (at least 5 spans) and ``b``
    (at least 3), each one resource and one scope: ``a`` over three lines, the first shared with
    ``b``'s start, ``b``'s rest between ``a``'s."""
    trace_a = a["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    trace_b = b["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    first = only(a, trace_a, 0, 2)
    first["resourceSpans"].append(only(b, trace_b, 0, 2)["resourceSpans"][0])
    return [first, only(b, trace_b, 2), only(a, trace_a, 2, 4), only(a, trace_a, 4)]


def jsonl(docs: list[Doc]) -> bytes:
    return b"".join(dumps(d) + b"\n" for d in docs)


def gathered_from(report: dict[str, Any]) -> list[int] | None:
    """The lines a change report's ``convert:otel-trace-lines`` warning names (None without
    one)."""
    for warning in report["warnings"]:
        if warning["code"] == "convert:otel-trace-lines":
            found = re.search(r"lines ([\d, ]+) of the file", warning["message"])
            assert found is not None, warning
            return [int(n) for n in found.group(1).split(", ")]
    return None
