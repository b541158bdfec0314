"""Harbor's agent converters as a producer (imported by ``harbor_adapter.py`` when harbor's full
dependency set is installed; without it the import fails and harbor is a validator and consumer
only).

Harbor converts an agent's native logs after a run, from the agent's logs folder. The converter
needs no running environment: ``ClaudeCode(logs_dir=...)`` is built on a temporary folder laid
out as harbor's installed agent leaves it (``sessions/projects/<cwd-slug>/<session>.jsonl``),
the native log is copied there, and ``convert_trajectory`` is called. The trajectory is dumped
the way harbor writes ``trajectory.json``: ``to_json_dict()`` (``exclude_none=True``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at run time

from harbor.agents.installed.claude_code import ClaudeCode

SOURCES = ["claude-code"]


def produce(request: dict[str, Any]) -> dict[str, Any]:
    native = Path(request["path"])
    with tempfile.TemporaryDirectory(prefix="harbor-logs-") as tmp:
        logs = Path(tmp)
        project = logs / "sessions" / "projects" / "-workspace"
        project.mkdir(parents=True)
        shutil.copyfile(native, project / native.name)
        trajectory = ClaudeCode(logs_dir=logs).convert_trajectory(logs)
    if trajectory is None:
        return {"id": request["id"], "documents": [], "messages": ["no trajectory produced"]}
    return {"id": request["id"], "documents": [trajectory.to_json_dict()]}
