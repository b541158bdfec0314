#!/usr/bin/env python3
"""Conformance adapter for PyPI ``opentraces-schema`` (every release: 0.1.0, 0.1.1, 0.2.0, 0.3.0,
0.6.0, 0.7.0, 0.9.0): Pydantic models of the opentraces.ai trace records that atif-spec calls TAO.

Runs in its own environment holding one release. Consumer of the TAO version that release
implements (``opentraces_schema.SCHEMA_VERSION``): ``TraceRecord.model_validate(document)``,
then ``model_dump(mode="json", exclude_unset=True)``. The summary gives the record's ids, its
step and tool-call counts, and ``roundtrip``.
"""

from __future__ import annotations

import platform
import sys
from importlib.metadata import version
from typing import Any

from _serve import first_difference, pydantic_errors, serve
from opentraces_schema import SCHEMA_VERSION, TraceRecord
from pydantic import ValidationError

STARTED = {
    "implementation": {
        "name": "opentraces-schema",
        "version": version("opentraces-schema"),
        "language": f"python {platform.python_version()}",
        "homepage": "https://pypi.org/project/opentraces-schema/",
        "notes": "TraceRecord.model_validate, then dump (exclude_unset)",
    },
    "roles": ["consumer"],
    # A patch release (0.1.1) implements the same TAO version as its minor release (v0.1.0).
    "formats": [f"tao@v{SCHEMA_VERSION.rsplit('.', 1)[0]}.0"],
    "profiles": ["schema"],
    "findings": False,
}


def read(request: dict[str, Any]) -> dict[str, Any]:
    try:
        record = TraceRecord.model_validate(request["document"])
    except ValidationError as exc:
        return {"id": request["id"], "ok": False, "error": pydantic_errors(exc)}
    steps = list(record.steps or [])
    summary = {
        "trace_id": record.trace_id,
        "session_id": record.session_id,
        "steps": len(steps),
        "tool_calls": sum(len(getattr(s, "tool_calls", None) or []) for s in steps),
        "roundtrip": first_difference(
            request["document"], record.model_dump(mode="json", exclude_unset=True)
        )
        or "equal",
    }
    return {"id": request["id"], "ok": True, "summary": summary}


if __name__ == "__main__":
    sys.exit(serve(STARTED, {"read": read}))
