#!/usr/bin/env python3
"""Conformance adapter for PyPI ``atif-scan`` (0.7.3): behavioural checks over ATIF.

Runs in its own Python 3.12 environment with ``HF_HUB_OFFLINE=1`` (set here, before import).
Consumer only: ``atif_scan.parse_trace(document)`` (a ``TraceError`` fails the read), then
every built-in detector through ``atif_scan.Engine``. The summary gives the steps it parsed,
the schema version it saw, how many checks ran (``checks``, not compared) and how many ended
in the ``error`` status (``errors``, which must be 0).
"""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"

import platform
import sys
from importlib.metadata import version
from typing import Any

from _serve import serve
from atif_scan import Engine, Status, TraceError, builtin_detectors, parse_trace

STARTED = {
    "implementation": {
        "name": "atif-scan",
        "version": version("atif-scan"),
        "language": f"python {platform.python_version()}",
        "homepage": "https://pypi.org/project/atif-scan/",
        "notes": "parse_trace, then Engine(builtin_detectors()).evaluate",
    },
    "roles": ["consumer"],
    "formats": ["atif"],
    "profiles": ["schema"],
    "findings": False,
}
ENGINE = Engine(builtin_detectors())


def read(request: dict[str, Any]) -> dict[str, Any]:
    try:
        trace = parse_trace(request["document"])
    except TraceError as exc:
        return {"id": request["id"], "ok": False, "error": f"TraceError: {exc}"}
    assessments = ENGINE.evaluate(trace)
    summary = {
        "schema_version": trace.schema_version,
        "steps": len(trace.steps),
        "agent_steps": sum(1 for s in trace.steps if s.source == "agent"),
        "checks": len(assessments),
        "errors": sum(1 for a in assessments if a.result.status == Status.ERROR),
    }
    return {"id": request["id"], "ok": True, "summary": summary}


if __name__ == "__main__":
    sys.exit(serve(STARTED, {"read": read}))
