#!/usr/bin/env python3
"""Conformance adapter for the ATIF reference implementation: PyPI ``harbor`` (0.25.0 under
``nox -s conformance``; 0.25.0 and 0.26.0, whose models are the same, in the interop report).

Runs under a Python 3.12 environment holding ``harbor`` (installed with ``--no-deps``; the
validator and models need only ``pydantic``) and does not import atif-spec. Roles:

- validator: ``harbor.utils.trajectory_validator.TrajectoryValidator().validate(document)``,
  which builds ``harbor.models.trajectories.Trajectory`` and turns pydantic's errors into text.
  The document is passed as a parsed value, the way a program embedding harbor would call it,
  so harbor's media-file check (file input only) does not run. Harbor has no finding codes and
  validates every document as one lenient "newest" version, so it claims only the ``schema``
  and ``must`` profiles, answers with a bare verdict, and ignores the request's ``target``.
- consumer: the ``Trajectory`` model, dumped back with ``model_dump(mode="json",
  exclude_unset=True)``; ``roundtrip`` says whether that equals the document. The summary also
  says whether harbor's own serializer (``to_json_dict(exclude_none=False)``, how harbor writes
  trajectories) adds keys (``serializer_adds``, not compared).
- producer (only when harbor's full dependency set is installed, see ``harbor_producer.py``):
  harbor's Claude Code, Codex and Copilot CLI converters on native logs.
"""

from __future__ import annotations

import platform
import sys
from importlib.metadata import version
from typing import Any

from _serve import atif_counts, first_difference, pydantic_errors, serve
from harbor.models.trajectories import Trajectory
from harbor.utils.trajectory_validator import TrajectoryValidator
from pydantic import ValidationError

STARTED: dict[str, Any] = {
    "implementation": {
        "name": "harbor",
        "version": version("harbor"),
        "language": f"python {platform.python_version()}",
        "homepage": "https://pypi.org/project/harbor/",
        "notes": "TrajectoryValidator().validate(document) on the parsed document; "
        "no media checks, no finding codes, targets ignored",
    },
    "roles": ["validator", "consumer"],
    "formats": ["atif"],
    "profiles": ["schema", "must"],
    "findings": False,
}


def run(request: dict[str, Any]) -> dict[str, Any]:
    validator = TrajectoryValidator()
    valid = validator.validate(request["document"], validate_images=False)
    return {"id": request["id"], "valid": bool(valid), "messages": list(validator.get_errors())}


def read(request: dict[str, Any]) -> dict[str, Any]:
    document = request["document"]
    try:
        model = Trajectory.model_validate(document)
    except ValidationError as exc:
        return {"id": request["id"], "ok": False, "error": pydantic_errors(exc)}
    full = model.to_json_dict(exclude_none=False)
    summary = {
        "schema_version": model.schema_version,
        "session_id": model.session_id,
        **atif_counts(model.steps),
        "subagents": len(model.subagent_trajectories or []),
        "roundtrip": first_difference(document, model.model_dump(mode="json", exclude_unset=True))
        or "equal",
        "serializer_adds": sorted(set(full) - set(document)),
    }
    return {"id": request["id"], "ok": True, "summary": summary}


def handlers() -> dict[str, Any]:
    served: dict[str, Any] = {"run": run, "read": read}
    try:
        from harbor_producer import SOURCES, WRITES, produce
    except ImportError as exc:  # harbor's full dependency set is not installed here
        print(f"harbor adapter: no producer role ({exc})", file=sys.stderr)
        return served
    STARTED["roles"].append("producer")
    STARTED["sources"], STARTED["writes"] = SOURCES, WRITES
    served["produce"] = produce
    return served


if __name__ == "__main__":
    sys.exit(serve(STARTED, handlers()))
