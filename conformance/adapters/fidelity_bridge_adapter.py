#!/usr/bin/env python3
"""Conformance adapter for PyPI ``atomicdjt-trajectory-fidelity-bridge`` (0.4.2, "TFB").

Runs in its own Python 3.12 environment with the ``atif`` 1.7 models the package pins
(``atif>=1.7,<1.8``); it claims ATIF v1.7. Roles, as its CLI (``cli/main.py``) has them:

- producer: ``agent-session import --from claude-code``: ``parse_claude_jsonl`` then
  ``redact_trajectory``, dumped as the CLI writes it (``model_dump_json``). The loss report it
  writes (``extra.agent_session_bridge.fidelity``) goes into the answer's messages.
- consumer: the two commands that read an ATIF file. ``agent-session explain`` validates it with
  ``atif.Trajectory`` and renders the Markdown report (``explain.render_report``); its
  "## Summary" lines give ``steps``, ``agent_steps``, ``system_steps`` and ``tool_calls``. The
  Antigravity mapping (``adapters.antigravity.exporter.export_with_report``) gives
  ``observation_results`` (its TOOL_RESPONSE lines) and its loss report: the system steps it
  omits (``system_steps`` again) and the non-text content parts it omits (``non_text_parts``;
  the parts of the system steps it drops whole are added, as their messages are lost too).
"""

from __future__ import annotations

import io
import json
import platform
import re
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

from _serve import claude_code_transcript, log_head, pydantic_errors, serve
from adapters.antigravity.exporter import export_with_report
from adapters.claude.parser import parse_claude_jsonl
from atif import Trajectory
from explain import render_report
from pydantic import ValidationError
from security.redact import redact_trajectory

PACKAGE = "atomicdjt-trajectory-fidelity-bridge"
STARTED = {
    "implementation": {
        "name": "atomicdjt-trajectory-fidelity-bridge",
        "version": version(PACKAGE),
        "language": f"python {platform.python_version()} (atif {version('atif')})",
        "homepage": f"https://pypi.org/project/{PACKAGE}/",
        "notes": "import --from claude-code; explain and the Antigravity mapping read ATIF",
    },
    "roles": ["consumer", "producer"],
    "formats": ["atif@v1.7"],
    "reads": ["atif@v1.7"],
    "profiles": ["schema"],
    "findings": False,
    "sources": ["claude-code"],
    "writes": ["atif@v1.7"],
}
STEPS = re.compile(r"^- Steps: (\d+) \(user (\d+), agent (\d+), system (\d+)\)$", re.M)
CALLS = re.compile(r"^- Tool calls: (\d+) ", re.M)


def produce(request: dict[str, Any]) -> dict[str, Any]:
    if not claude_code_transcript(log_head(Path(request["path"]))):
        # parse_claude_jsonl reads session transcripts; other Claude Code shapes (stream-json,
        # SLEIGHT-Bench rows, Markdown renderings) give it no step
        return {"id": request["id"], "skipped": "not the Claude Code transcript shape it reads"}
    with open(request["path"], encoding="utf-8") as source:
        trajectory = redact_trajectory(parse_claude_jsonl(source))
    document = json.loads(trajectory.model_dump_json())
    fidelity = document["extra"]["agent_session_bridge"]["fidelity"]
    return {"id": request["id"], "documents": [document], "messages": [json.dumps(fidelity)]}


def _non_text(content: Any) -> int:
    """Content parts of a message that are not text."""
    if content is None or isinstance(content, str):
        return 0
    return sum(part.type != "text" for part in content)


def read(request: dict[str, Any]) -> dict[str, Any]:
    try:
        trajectory = Trajectory.model_validate(request["document"])
    except ValidationError as exc:
        return {"id": request["id"], "ok": False, "error": pydantic_errors(exc)}
    report = render_report(trajectory)
    steps, calls = STEPS.search(report), CALLS.search(report)
    if steps is None or calls is None:
        return {"id": request["id"], "ok": False, "error": "explain: no Summary section"}
    exported = export_with_report(trajectory)
    lines = [json.loads(line) for line in io.StringIO(exported.payload) if line.strip()]
    dropped_with_system = sum(
        _non_text(s.message) for s in trajectory.steps if s.source == "system"
    )
    summary = {
        "schema_version": trajectory.schema_version,
        "session_id": trajectory.session_id,
        "steps": int(steps[1]),
        "agent_steps": int(steps[3]),
        "system_steps": int(steps[4]),
        "tool_calls": int(calls[1]),
        "observation_results": sum(1 for x in lines if x["type"] == "TOOL_RESPONSE"),
        "antigravity_lines": len(lines),
        "antigravity_omitted_system_messages": exported.omitted_system_messages,
        "non_text_parts": exported.omitted_content_parts + dropped_with_system,
    }
    if exported.omitted_system_messages != summary["system_steps"]:
        summary["errors"] = 1  # its two readings of the same document disagree
    return {"id": request["id"], "ok": True, "summary": summary}


if __name__ == "__main__":
    sys.exit(serve(STARTED, {"read": read, "produce": produce}))
