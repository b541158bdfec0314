#!/usr/bin/env python3
"""Conformance adapter for PyPI ``atif-make`` (0.10.0): agent logs → ATIF v1.7.

Runs in its own Python 3.12 environment. Producer only: ``atif_make.convert(path)`` detects the
log's format (``detect_format``), which must belong to the requested source kind
(``atif_make.AGENTS``), and runs that format's parser (``atif_make.PARSERS``); every parser of
an agent log runs on the logs of ``conformance/native`` (Claude Code transcript, stream-json,
SLEIGHT-Bench and Markdown renderings; Codex rollout and exec; Copilot CLI; Cursor; HAR). The
answer is ``Trajectory.to_dict()`` with images inlined as ``data:`` URIs, as ``atif-make
convert --json`` prints it, and names the parser used (``parser: <format>``).
"""

from __future__ import annotations

import platform
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

from _serve import serve
from atif_make import AGENTS, SCHEMA_VERSION, convert

SOURCES = ["claude-code", "codex", "copilot", "cursor", "har"]
STARTED = {
    "implementation": {
        "name": "atif-make",
        "version": version("atif-make"),
        "language": f"python {platform.python_version()}",
        "homepage": "https://pypi.org/project/atif-make/",
        "notes": "atif_make.convert(path) with format detection; to_dict() as `--json` prints",
    },
    "roles": ["producer"],
    "formats": [],
    "profiles": [],
    "findings": False,
    "sources": SOURCES,
    "writes": [f"atif@{SCHEMA_VERSION.removeprefix('ATIF-')}"],
}


def produce(request: dict[str, Any]) -> dict[str, Any]:
    from atif_make.cli import _inline_media

    trajectory, fmt = convert(Path(request["path"]))
    if AGENTS.get(fmt) != request["source"]:
        return {"id": request["id"], "skipped": f"detected {fmt}, not a {request['source']} log"}
    _inline_media(trajectory)
    documents = [trajectory.to_dict()]
    return {"id": request["id"], "documents": documents, "messages": [f"parser: {fmt}"]}


if __name__ == "__main__":
    sys.exit(serve(STARTED, {"produce": produce}))
