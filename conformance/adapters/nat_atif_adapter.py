#!/usr/bin/env python3
"""Conformance adapter for PyPI ``nvidia-nat-atif`` (1.9.0): NVIDIA NeMo Agent Toolkit's ATOF
models, its ATOF -> ATIF converter and its own ATIF models (v1.0-v1.7, derived from Harbor's).

Runs in its own environment holding ``nvidia-nat-atif[full]==1.9.0`` (the converter script needs
the extra). Roles:

- producer: ``atof``: an ATOF v0.1 JSON Lines stream converted as its command does it,
  ``nat.atof.scripts.atof_to_atif_converter.convert_file(stream, output)``; the answer is the
  file it writes (``model_dump(exclude_none=True)``, then its ``trajectory_path`` fix-up).
- consumer: ``nat.atif.Trajectory.model_validate(document)`` (its ``schema_version`` is a
  ``Literal`` of ATIF-v1.0 ... ATIF-v1.7, so it claims those), then
  ``model_dump(mode="json", exclude_unset=True)``; the summary gives the model's ids, step and
  tool-call counts and ``roundtrip``.
"""

from __future__ import annotations

import json
import platform
import sys
import tempfile
import typing
from importlib.metadata import version
from pathlib import Path
from typing import Any

from _serve import atif_counts, first_difference, pydantic_errors, serve
from nat.atif import Trajectory
from nat.atof.scripts.atof_to_atif_converter import convert_file
from pydantic import ValidationError

VERSIONS = [
    f"atif@{v.removeprefix('ATIF-')}"
    for v in typing.get_args(Trajectory.model_fields["schema_version"].annotation)
]
STARTED = {
    "implementation": {
        "name": "nvidia-nat-atif",
        "version": version("nvidia-nat-atif"),
        "language": f"python {platform.python_version()}",
        "homepage": "https://pypi.org/project/nvidia-nat-atif/",
        "notes": "atof_to_atif_converter.convert_file; read = nat.atif.Trajectory, then dump",
    },
    "roles": ["consumer", "producer"],
    "formats": VERSIONS,
    "reads": VERSIONS,
    "profiles": ["schema"],
    "findings": False,
    "sources": ["atof"],
    "writes": ["atif@v1.7"],
}


def produce(request: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="nat-atif-") as folder:
        out = Path(folder) / "trajectory.json"
        convert_file(request["path"], out)
        return {"id": request["id"], "documents": [json.loads(out.read_text(encoding="utf-8"))]}


def read(request: dict[str, Any]) -> dict[str, Any]:
    try:
        model = Trajectory.model_validate(request["document"])
    except ValidationError as exc:
        return {"id": request["id"], "ok": False, "error": pydantic_errors(exc)}
    dumped = model.model_dump(mode="json", exclude_unset=True)
    summary = {
        "schema_version": model.schema_version,
        "session_id": model.session_id,
        "trajectory_id": model.trajectory_id,
        "agent_name": model.agent.name,
        **atif_counts(model.steps),
        "subagents": len(model.subagent_trajectories or []),
        "roundtrip": first_difference(request["document"], dumped) or "equal",
    }
    return {"id": request["id"], "ok": True, "summary": summary}


if __name__ == "__main__":
    sys.exit(serve(STARTED, {"produce": produce, "read": read}))
