#!/usr/bin/env python3
"""Conformance adapter for PyPI ``harbor-atif2otel`` (0.1.1): ATIF → OpenTelemetry spans.

Runs in its own Python 3.12 environment. Consumer only: ``validate_trajectory(document)``
(its issues make the read fail), then ``convert_trajectory(document)``, exported through a
file exporter (``resource_spans_to_otlp_json`` written to a temporary OTLP JSON file and read
back). The summary counts the spans of the root trajectory by kind: LLM spans are agent steps
that made an LLM call (``llm_steps``), TOOL spans are tool calls (``active_tool_calls``);
spans of embedded subagents (parented under a TOOL span) are not counted. The summary's
``otlp`` is the exported file's JSON as written, which the interop report compares with the
span tree of ``atif convert --to otel`` (``atif_spec.conformance.spantrees``). It reads the ATIF
versions the package lists (``SUPPORTED_SCHEMA_VERSIONS``: v1.0 to v1.7).
"""

from __future__ import annotations

import json
import platform
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

from _serve import serve
from harbor_atif2otel import convert_trajectory, resource_spans_to_otlp_json, validate_trajectory
from harbor_atif2otel._types import SUPPORTED_SCHEMA_VERSIONS

READS = sorted(f"atif@{v.removeprefix('ATIF-')}" for v in SUPPORTED_SCHEMA_VERSIONS)
STARTED = {
    "implementation": {
        "name": "harbor-atif2otel",
        "version": version("harbor-atif2otel"),
        "language": f"python {platform.python_version()}",
        "homepage": "https://pypi.org/project/harbor-atif2otel/",
        "notes": "validate_trajectory + convert_trajectory, OTLP JSON written to a file",
    },
    "roles": ["consumer"],
    "formats": READS,
    "reads": READS,
    "profiles": ["schema"],
    "findings": False,
}
OUT = Path(tempfile.mkdtemp(prefix="atif2otel-"))


def _attrs(span: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: next(iter(a["value"].values()), None) for a in span.get("attributes", [])}


def read(request: dict[str, Any]) -> dict[str, Any]:
    document = request["document"]
    issues = validate_trajectory(document)
    if issues:
        return {"id": request["id"], "ok": False, "error": "; ".join(issues)}
    exported = OUT / "spans.otlp.json"
    exported.write_text(json.dumps(resource_spans_to_otlp_json(convert_trajectory(document))))
    otlp = json.loads(exported.read_text())
    spans = [
        span
        for rs in otlp["resourceSpans"]
        for ss in rs["scopeSpans"]
        for span in ss["spans"]
    ]
    root = spans[0]
    turns = {
        s["spanId"]
        for s in spans
        if s.get("parentSpanId") == root["spanId"] and s["name"].startswith("turn-")
    }
    top = {root["spanId"], *turns}
    kinds = [
        _attrs(s).get("openinference.span.kind") for s in spans if s.get("parentSpanId") in top
    ]
    root_attrs = _attrs(root)
    summary = {
        "schema_version": root_attrs.get("atif.schema_version"),
        "session_id": root_attrs.get("session.id"),
        "llm_steps": kinds.count("LLM"),
        "active_tool_calls": kinds.count("TOOL"),
        "spans": len(spans),
        "otlp": otlp,
    }
    return {"id": request["id"], "ok": True, "summary": summary}


if __name__ == "__main__":
    sys.exit(serve(STARTED, {"read": read}))
