#!/usr/bin/env python3
"""Conformance adapter for the ATIF reference implementation: PyPI ``harbor`` (0.25.0).

Runs under a Python 3.12 environment holding ``harbor`` (installed with ``--no-deps``; only
``pydantic`` is needed) and does not import atif-spec. Each document goes through
``harbor.utils.trajectory_validator.TrajectoryValidator().validate(document)``, which builds
the ``harbor.models.trajectories.Trajectory`` model and turns pydantic's errors into text.
The document is passed as a parsed value, the way a program embedding harbor would call it,
so harbor's media-file check (file input only) does not run.

Harbor has no finding codes and validates every document as one lenient "newest" version,
so it claims only the ``schema`` and ``must`` profiles, answers with a bare verdict, and
ignores the request's ``target``. Its error lines are passed on as ``messages``.
"""

from __future__ import annotations

import json
import platform
import sys
from importlib.metadata import version
from typing import Any

from harbor.utils.trajectory_validator import TrajectoryValidator


def started() -> dict[str, Any]:
    return {
        "protocol": 1,
        "implementation": {
            "name": "harbor",
            "version": version("harbor"),
            "language": f"python {platform.python_version()}",
            "homepage": "https://pypi.org/project/harbor/",
            "notes": "TrajectoryValidator().validate(document) on the parsed document; "
            "no media checks, no finding codes, targets ignored",
        },
        "formats": ["atif"],
        "profiles": ["schema", "must"],
        "findings": False,
    }


def run(request: dict[str, Any]) -> dict[str, Any]:
    validator = TrajectoryValidator()
    valid = validator.validate(request["document"], validate_images=False)
    return {"id": request["id"], "valid": bool(valid), "messages": list(validator.get_errors())}


def answer(request: dict[str, Any]) -> dict[str, Any] | None:
    cmd = request.get("cmd")
    if cmd == "start":
        if request.get("protocol") != 1:
            return {"errored": f"unsupported protocol version {request.get('protocol')!r}"}
        return started()
    if cmd == "run":
        try:
            return run(request)
        except Exception as exc:  # harbor raised instead of reporting: the case is errored
            return {"id": str(request.get("id")), "errored": f"{type(exc).__name__}: {exc}"}
    return None


def main() -> int:
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("cmd") == "stop":
            return 0
        response = answer(request)
        if response is not None:
            sys.stdout.write(json.dumps(response) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
