#!/usr/bin/env python3
"""Conformance adapter for PyPI ``atif`` (python-atif 1.8.0): Pydantic models of ATIF v1.8.

Runs in its own environment holding ``atif==1.8.0`` (not atif-spec). Roles:

- validator: ``atif.Trajectory.model_validate(document)``; a bare verdict (no finding codes),
  profiles ``schema`` and ``must``; the case's ``target`` is ignored (one model for every
  version).
- consumer: the same model, then ``model_dump(mode="json", exclude_unset=True)``; the summary
  gives the model's step and tool-call counts and ``roundtrip`` (the dump equals the document,
  else the first difference).
"""

from __future__ import annotations

import platform
import sys
from importlib.metadata import version
from typing import Any

from _serve import atif_counts, first_difference, pydantic_errors, serve
from atif import Trajectory
from pydantic import ValidationError

STARTED = {
    "implementation": {
        "name": "python-atif",
        "version": version("atif"),
        "language": f"python {platform.python_version()}",
        "homepage": "https://pypi.org/project/atif/",
        "notes": "atif.Trajectory.model_validate; read = validate, then dump (exclude_unset)",
    },
    "roles": ["validator", "consumer"],
    "formats": ["atif"],
    "profiles": ["schema", "must"],
    "findings": False,
}


def run(request: dict[str, Any]) -> dict[str, Any]:
    try:
        Trajectory.model_validate(request["document"])
    except ValidationError as exc:
        lines = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
        return {"id": request["id"], "valid": False, "messages": lines}
    return {"id": request["id"], "valid": True}


def read(request: dict[str, Any]) -> dict[str, Any]:
    try:
        model = Trajectory.model_validate(request["document"])
    except ValidationError as exc:
        return {"id": request["id"], "ok": False, "error": pydantic_errors(exc)}
    dumped = model.model_dump(mode="json", exclude_unset=True)
    summary = {
        "schema_version": model.schema_version,
        "session_id": model.session_id,
        **atif_counts(model.steps),
        "subagents": len(model.subagent_trajectories or []),
        "roundtrip": first_difference(request["document"], dumped) or "equal",
    }
    return {"id": request["id"], "ok": True, "summary": summary}


if __name__ == "__main__":
    sys.exit(serve(STARTED, {"run": run, "read": read}))
