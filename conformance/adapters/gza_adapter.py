#!/usr/bin/env python3
"""Conformance adapter for PyPI ``gza-agent`` (0.5.0): provider streams → step/substep runs.

Runs in its own Python 3.12 environment holding only ``gza-agent``, offline: ``gza_replay``
(shared with ``nox -s gza``) puts a replay stub for the provider's CLI on PATH, gza's provider
parses the recorded stream and gza's runner writes the run into a fresh SQLite task store.
Producer only: the answer is that run as a step-substep v1.0 run log, read back from the
``run_steps`` and ``run_substeps`` rows exactly as gza wrote them (text columns as stored,
``payload_json`` parsed); ``run_id`` is gza's task id and ``provider`` the provider's name.
Sources: ``claude-stream``, ``codex-stream``, ``gemini-stream`` (stream-json / exec --json
output of the Claude Code, Codex and Gemini CLIs).
"""

from __future__ import annotations

import json
import os
import platform
import sqlite3
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from importlib.metadata import version
from pathlib import Path
from typing import Any

from _serve import serve
from gza_replay import KINDS, replay

WORK = Path(tempfile.mkdtemp(prefix="gza-interop-"))
os.environ["HOME"] = str(WORK)  # gza's config and state stay in the temporary folder
STEP_FIELDS = (
    "step_id", "step_index", "provider", "message_role", "message_text", "started_at",
    "completed_at", "outcome", "summary", "legacy_turn_id", "legacy_event_id",
)  # fmt: skip
SUBSTEP_FIELDS = (
    "substep_id", "substep_index", "type", "source", "call_id", "timestamp", "legacy_turn_id",
    "legacy_event_id",
)  # fmt: skip
STARTED = {
    "implementation": {
        "name": "gza-agent",
        "version": version("gza-agent"),
        "language": f"python {platform.python_version()}",
        "homepage": "https://pypi.org/project/gza-agent/",
        "notes": "provider + runner on a replayed stream; run_steps/run_substeps rows as a run log",
    },
    "roles": ["producer"],
    "formats": [],
    "profiles": [],
    "findings": False,
    "sources": [f"{kind}-stream" for kind in KINDS],
    "writes": ["step-substep@v1.0"],
}


def run_log(database: Path, task_id: Any, provider: str) -> dict[str, Any]:
    """The run ``task_id`` of gza's store at ``database`` as a run-log document."""
    db = sqlite3.connect(database)
    db.row_factory = sqlite3.Row
    try:
        steps = db.execute(
            "SELECT * FROM run_steps WHERE run_id = ? ORDER BY step_index", (task_id,)
        ).fetchall()
        out = []
        for step in steps:
            subs = db.execute(
                "SELECT * FROM run_substeps WHERE step_id = ? ORDER BY substep_index", (step["id"],)
            ).fetchall()
            substeps = [
                {**{k: sub[k] for k in SUBSTEP_FIELDS}, "payload": json.loads(sub["payload_json"])}
                for sub in subs
            ]
            out.append({**{k: step[k] for k in STEP_FIELDS}, "substeps": substeps})
    finally:
        db.close()
    return {"run_id": str(task_id), "provider": provider, "steps": out}


@contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """File descriptor 1 (and ``sys.stdout``) go to stderr for the duration."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        with redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 1)
        os.close(saved)


def produce(request: dict[str, Any]) -> dict[str, Any]:
    kind = request["source"].removesuffix("-stream")
    work = WORK / request["id"].replace("/", "_")
    work.mkdir(parents=True, exist_ok=True)
    with _stdout_to_stderr():  # gza prints its progress: stdout is the protocol's
        _, task_id, database = replay(kind, Path(request["path"]), work)
    return {"id": request["id"], "documents": [run_log(database, task_id, kind)]}


if __name__ == "__main__":
    sys.exit(serve(STARTED, {"produce": produce}))
