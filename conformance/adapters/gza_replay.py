"""gza 0.5.0 on a recorded provider stream, offline: its provider and runner write its store.

Shared by ``gza_compare.py`` (``nox -s gza``) and ``gza_adapter.py`` (``nox -s interop``).
Needs only ``gza-agent`` (no atif-spec): a replay stub named ``claude``/``codex``/``gemini`` on
PATH prints the recorded stream; gza's provider runs it as a subprocess and parses its output
(``Provider._run_with_output_parsing``, the method ``gza work`` calls), then gza's runner
writes the steps into a fresh SQLite task store (``runner._persist_run_steps_from_result``).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

KINDS = ("claude", "codex", "gemini")


def replay(kind: str, stream: Path, work: Path) -> tuple[Any, Any, Path]:
    """Run gza on ``stream`` (a ``kind`` provider's output) in ``work``: ``(store, task id,
    database file)``, the store being gza's ``SqliteTaskStore`` holding the run's steps."""
    from gza import runner
    from gza.db import SqliteTaskStore
    from gza.providers.claude import ClaudeProvider
    from gza.providers.codex import CodexProvider
    from gza.providers.gemini import GeminiProvider

    if kind not in KINDS:
        raise ValueError(f"gza has no {kind!r} provider")
    bindir = work / "bin"
    bindir.mkdir(exist_ok=True)
    stub = bindir / kind
    stub.write_text(f"#!/bin/sh\ncat '{stream}'\n")
    stub.chmod(stub.stat().st_mode | stat.S_IEXEC)
    if not os.environ["PATH"].startswith(f"{bindir}{os.pathsep}"):
        os.environ["PATH"] = f"{bindir}{os.pathsep}{os.environ['PATH']}"
    log = work / f"{kind}.log.jsonl"
    provider: Any
    if kind == "claude":
        provider = ClaudeProvider()
        result = provider._run_with_output_parsing([kind], log, 1)
    elif kind == "codex":
        provider = CodexProvider()
        result = provider._run_with_output_parsing([kind], log, 1)
    else:
        provider = GeminiProvider()
        result = provider._run_with_output_parsing([kind], log, 1, "")
    database = work / f"{kind}-{stream.stem}.db"
    store = SqliteTaskStore(database)
    task = store.add("replay " + stream.name)
    runner._persist_run_steps_from_result(store, task.id, kind, result)
    return store, task.id, database
