#!/usr/bin/env python3
"""Conformance adapter for atif-spec's own validator (``atif_spec.validate``).

Run by the conformance runner as ``python conformance/adapters/atif_spec_adapter.py`` with
atif-spec installed. Speaks the protocol of ``conformance/PROTOCOL.md``: one JSON request per
line on stdin, one JSON response per line on stdout. It validates the case's file (so input
checks see the exact bytes and media paths resolve next to it), with the case's target and
options (``follow_refs``), implements every profile and reports findings.
"""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path
from typing import Any

import atif_spec
from atif_spec.formats import all_formats
from atif_spec.schemas.catalog import UnknownSchemaError, load_catalog

SUPPORTED_OPTIONS = {"follow_refs"}


def supported_formats() -> list[str]:
    """Formats whose every version has a schema in the catalog; else the versions that do."""
    out: list[str] = []
    for name, spec in all_formats().items():
        known = []
        for version in spec.versions:
            try:
                load_catalog().find(f"{name}@{version}")
            except UnknownSchemaError:
                continue
            known.append(f"{name}@{version}")
        out.extend([name] if len(known) == len(spec.versions) else known)
    return out


def started(protocol: int) -> dict[str, Any]:
    return {
        "protocol": protocol,
        "implementation": {
            "name": "atif-spec",
            "version": atif_spec.__version__,
            "language": f"python {platform.python_version()}",
            "notes": "atif_spec.validate on the case's file (as the case's target, if any)",
        },
        "formats": supported_formats(),
        "profiles": ["schema", "must", "should", "files"],
        "findings": True,
        **({"roles": ["validator"]} if protocol == 2 else {}),
    }


def run(request: dict[str, Any]) -> dict[str, Any]:
    path = Path(request["folder"]) / request["filename"]
    options = request.get("options", {})
    unknown = sorted(set(options) - SUPPORTED_OPTIONS)
    if unknown:
        return {"id": request["id"], "skipped": f"option {', '.join(unknown)} not supported"}
    report = atif_spec.validate(
        path, as_target=request.get("target"), follow_refs=bool(options.get("follow_refs"))
    )
    return {
        "id": request["id"],
        "valid": report.valid,
        "errors": [f.to_dict() for f in report.errors],
        "warnings": [f.to_dict() for f in report.warnings],
    }


def answer(request: dict[str, Any]) -> dict[str, Any] | None:
    cmd = request.get("cmd")
    if cmd == "start":
        if request.get("protocol") not in (1, 2):
            return {"errored": f"unsupported protocol version {request.get('protocol')!r}"}
        return started(request["protocol"])
    if cmd == "run":
        try:
            return run(request)
        except Exception as exc:  # report, never die: the runner counts the case as errored
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
