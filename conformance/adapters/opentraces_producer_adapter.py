#!/usr/bin/env python3
"""Conformance adapter for PyPI ``opentraces`` (0.2.1 with ``opentraces-schema`` 0.2.0; 0.4.13
with 0.7.0 or 0.9.0): the opentraces CLI's Claude Code parser, a producer of TAO trace records of
the version of the ``opentraces-schema`` release installed beside it.

Runs in its own environment. Producer only. The parser is driven as a library (0.2.1:
``opentraces.parsers.claude_code``; from 0.3: ``opentraces.capture.claude_code.parse``). Each
``claude-code`` log is laid out as the CLI finds sessions (``ClaudeCodeParser.discover_sessions``:
``<projects>/<project>/<session>.jsonl``, sub-agent sessions in ``<project>/<session>/subagents/``,
copied along when the log has that folder beside it) in a temporary folder; the project folder is
named from the session's ``cwd`` as Claude Code names it (every character other than a letter or
digit becomes ``-``). The answer is ``ClaudeCodeParser().parse_session(path)`` written by
``TraceRecord.to_jsonl_line()``, the line the CLI stages. ``trace_id`` is a fresh ``uuid4`` on every
run (the parser's own choice); ``content_hash`` does not cover it. A log the parser returns no
record for (no steps, or below its quality threshold) is answered ``skipped``.
"""

from __future__ import annotations

import json
import platform
import re
import shutil
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

from _serve import serve
from opentraces_schema import SCHEMA_VERSION

try:  # opentraces >= 0.3
    from opentraces.capture.claude_code.parse import ClaudeCodeParser
except ImportError:  # opentraces 0.2.1
    from opentraces.parsers.claude_code import ClaudeCodeParser

STARTED = {
    "implementation": {
        "name": "opentraces",
        "version": version("opentraces"),
        "language": f"python {platform.python_version()}",
        "homepage": "https://pypi.org/project/opentraces/",
        "notes": "ClaudeCodeParser.parse_session, then TraceRecord.to_jsonl_line "
        f"(opentraces-schema {version('opentraces-schema')})",
    },
    "roles": ["producer"],
    "formats": [],
    "profiles": [],
    "findings": False,
    "sources": ["claude-code"],
    "writes": [f"tao@v{SCHEMA_VERSION}"],
}


def _project(log: Path) -> str:
    """The project folder Claude Code keeps ``log`` in: its first ``cwd``, every character
    other than a letter or digit turned into ``-`` (``/work/demo`` → ``-work-demo``)."""
    with log.open(encoding="utf-8") as lines:
        for line in lines:
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict) and isinstance(row.get("cwd"), str) and row["cwd"]:
                return re.sub(r"[^A-Za-z0-9]", "-", row["cwd"])
    return "-project"


def produce(request: dict[str, Any]) -> dict[str, Any]:
    log = Path(request["path"])
    if log.suffix != ".jsonl":
        return {"id": request["id"], "skipped": "not a session JSONL file"}
    with tempfile.TemporaryDirectory(prefix="opentraces-projects-") as projects:
        folder = Path(projects) / _project(log)
        folder.mkdir()
        session = folder / log.name
        shutil.copyfile(log, session)
        beside = log.with_suffix("")  # <session>/subagents/ of a Claude Code export
        if beside.is_dir():
            shutil.copytree(beside, folder / beside.name)
        record = ClaudeCodeParser().parse_session(session)
        if record is None:
            return {"id": request["id"], "skipped": "the parser wrote no record (no steps)"}
        return {"id": request["id"], "documents": [json.loads(record.to_jsonl_line())]}


if __name__ == "__main__":
    sys.exit(serve(STARTED, {"produce": produce}))
