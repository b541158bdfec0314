#!/usr/bin/env python3
"""Conformance adapter for PyPI ``atif-make`` (0.10.0): agent logs and dataset records → ATIF v1.7.

Runs in its own Python 3.12 environment. Producer only: ``atif_make.convert(path)`` detects the
log's format (``detect_format``), which must belong to the requested source kind
(``atif_make.AGENTS``), and runs that format's parser (``atif_make.PARSERS``). Every parser runs
on the logs of ``conformance/native``: the agent logs (Claude Code transcript, stream-json,
SLEIGHT-Bench and Markdown renderings; Codex rollout and exec; Copilot CLI; Cursor; HAR), the
dataset records (ATBench rows, METR MALT runs, Inspect AI logs, sample bundles and pairs) and
ATIF files read back (``atif``). A file that holds many transcripts (an ATBench or MALT array,
an Inspect log of several samples) is a *collection*: it is split and converted the way
``atif-make convert FILE`` does (``convert.find``, one document per piece, in its order).
The answer is ``Trajectory.to_dict()`` with images inlined as ``data:`` URIs, as ``atif-make
convert --json`` prints it, and names the parser used (``parser: <format>``).
"""

from __future__ import annotations

import platform
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

from _serve import serve
from atif_make import AGENTS, SCHEMA_VERSION, convert, detect_format
from atif_make.cli import _inline_media
from atif_make.container import is_container
from atif_make.convert import find

SOURCES = sorted(set(AGENTS.values()))
STARTED = {
    "implementation": {
        "name": "atif-make",
        "version": version("atif-make"),
        "language": f"python {platform.python_version()}",
        "homepage": "https://pypi.org/project/atif-make/",
        "notes": "atif_make.convert(path) with format detection, collections split as "
        "`atif-make convert` does; to_dict() as `--json` prints",
    },
    "roles": ["producer"],
    "formats": [],
    "profiles": [],
    "findings": False,
    "sources": SOURCES,
    "writes": [f"atif@{SCHEMA_VERSION.removeprefix('ATIF-')}"],
}


def _pieces(path: Path) -> list[tuple[Path, str]]:
    """The logs one input holds with their formats: itself, or a collection's pieces."""
    if is_container(path):
        return find(path)
    return [(path, detect_format(path))]


def produce(request: dict[str, Any]) -> dict[str, Any]:
    path = Path(request["path"])
    pieces = _pieces(path)
    formats = sorted({fmt for _, fmt in pieces})
    if not pieces or any(AGENTS.get(fmt) != request["source"] for fmt in formats):
        found = ", ".join(formats) or "nothing"
        return {"id": request["id"], "skipped": f"detected {found}, not a {request['source']} log"}
    documents = []
    for piece, fmt in pieces:
        trajectory, _ = convert(piece, fmt)
        _inline_media(trajectory)
        documents.append(trajectory.to_dict())
    messages = [f"parser: {', '.join(formats)}"]
    if is_container(path):
        messages.append(f"collection of {len(pieces)}")
    return {"id": request["id"], "documents": documents, "messages": messages}


if __name__ == "__main__":
    sys.exit(serve(STARTED, {"produce": produce}))
