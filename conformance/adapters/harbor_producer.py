"""Harbor's agent converters as a producer (imported by ``harbor_adapter.py`` when harbor's full
dependency set is installed; without it the import fails and harbor is a validator and consumer
only).

Harbor converts an agent's native logs after a run, from the agent's logs folder. No converter
used here needs a running environment, so each is called on a temporary folder laid out as
harbor's installed agent leaves it, holding a copy of the native log:

- Claude Code session transcripts: ``ClaudeCode(logs_dir=...).convert_trajectory(logs)`` on
  ``sessions/projects/<cwd-slug>/<session>.jsonl``.
- Codex rollouts: ``Codex(logs_dir=...).convert_trajectory(logs)`` on
  ``sessions/YYYY/MM/DD/rollout-*.jsonl`` (harbor reads no ``codex exec --json`` stream).
- Copilot CLI event streams: ``CopilotCli(logs_dir=...)._convert_jsonl_to_trajectory(path)``,
  the call harbor's ``populate_context_post_run`` makes on ``copilot-cli.jsonl``.

A log of a shape harbor's converter does not read (a Claude Code ``stream-json`` log, a Codex
exec stream) is answered ``skipped``. The trajectory is dumped the way harbor writes
``trajectory.json``: ``to_json_dict()`` (``exclude_none=True``). Harbor's other converters
(Cursor CLI, Gemini CLI, OpenHands, ...) read logs of other tools or other shapes than the
native inputs here; they are not run.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at run time

from _serve import claude_code_transcript, log_head
from harbor.agents.installed.claude_code import ClaudeCode
from harbor.agents.installed.codex import Codex
from harbor.agents.installed.copilot_cli import CopilotCli

SOURCES = ["claude-code", "codex", "copilot"]
# Copilot documents declare v1.6; Claude Code and Codex v1.7; embedded subagents harbor's
# default, v1.8.
WRITES = ["atif@v1.6", "atif@v1.7", "atif@v1.8"]


def _readable(source: str, head: list[dict[str, Any]]) -> bool:
    """Whether the log has the shape harbor's converter for ``source`` reads: a Claude Code
    session transcript (camelCase ``sessionId``, no ``system``/``init`` header of a
    ``stream-json`` log), a Codex rollout (``payload`` envelopes; not ``codex exec --json``);
    harbor's Copilot reader takes both of Copilot's JSONL shapes."""
    if source == "claude-code":
        return claude_code_transcript(head)
    if source == "codex":
        return any(isinstance(x.get("payload"), dict) for x in head)
    return source == "copilot"


CONVERTERS = {
    "claude-code": "ClaudeCode.convert_trajectory",
    "codex": "Codex.convert_trajectory",
    "copilot": "CopilotCli._convert_jsonl_to_trajectory",
}


def _convert(source: str, native: Path, logs: Path) -> Any:
    if source == "claude-code":
        project = logs / "sessions" / "projects" / "-workspace"
        project.mkdir(parents=True)
        shutil.copyfile(native, project / native.name)
        return ClaudeCode(logs_dir=logs).convert_trajectory(logs)
    if source == "codex":
        day = logs / "sessions" / "2026" / "01" / "01"
        day.mkdir(parents=True)
        shutil.copyfile(native, day / native.name)
        return Codex(logs_dir=logs).convert_trajectory(logs)
    target = logs / "copilot-cli.jsonl"
    shutil.copyfile(native, target)
    return CopilotCli(logs_dir=logs)._convert_jsonl_to_trajectory(target)


def produce(request: dict[str, Any]) -> dict[str, Any]:
    native = Path(request["path"])
    source = request["source"]
    if not _readable(source, log_head(native)):
        return {"id": request["id"], "skipped": f"not the {source} log shape harbor reads"}
    with tempfile.TemporaryDirectory(prefix="harbor-logs-") as tmp:
        trajectory = _convert(source, native, Path(tmp))
    if trajectory is None:
        return {"id": request["id"], "documents": [], "messages": ["no trajectory produced"]}
    return {
        "id": request["id"],
        "documents": [trajectory.to_json_dict()],
        "messages": [f"converter: {CONVERTERS[source]}"],
    }
