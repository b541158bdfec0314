"""The request loop every adapter in this folder shares (``conformance/PROTOCOL.md`` §4).

Stdlib only: an adapter runs in its implementation's own environment, without atif-spec. An
adapter supplies its ``start`` answer and one handler per command it serves (``run``, ``read``,
``produce``); the loop answers ``start`` (protocol 2, or 1 when asked for 1 and the adapter
allows it), calls the handler, turns an exception into an ``errored`` answer and exits on
``stop``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Handler = Callable[[dict[str, Any]], dict[str, Any]]


def serve(started: dict[str, Any], handlers: dict[str, Handler]) -> int:
    """Answer requests on stdin until ``stop``; returns the exit status."""
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        cmd = request.get("cmd")
        if cmd == "stop":
            return 0
        if cmd == "start":
            version = request.get("protocol")
            if version == 2 or (version == 1 and set(handlers) == {"run"}):
                response = {**started, "protocol": version}
                if version == 1:
                    for key in ("roles", "reads", "sources", "writes"):
                        response.pop(key, None)
            else:
                response = {"errored": f"unsupported protocol version {version!r}"}
        elif cmd in handlers:
            try:
                response = handlers[cmd](request)
            except Exception as exc:  # report, never die: the runner counts it as errored
                response = {"id": str(request.get("id")), "errored": f"{type(exc).__name__}: {exc}"}
        else:
            response = {"id": str(request.get("id")), "skipped": f"`{cmd}` is not served"}
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()
    return 0


def first_difference(a: Any, b: Any, where: str = "") -> str | None:
    """The JSON pointer of the first place two JSON values differ, with both values; None when
    they are equal (``1`` and ``1.0`` are equal, as JSON numbers)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                side = "added" if key not in a else "dropped"
                return f"{where}/{key}: {side}"
            found = first_difference(a[key], b[key], f"{where}/{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items became {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{where}/{i}")
            if found:
                return found
        return None
    if a == b and (type(a) is bool) == (type(b) is bool):
        return None
    return f"{where or '(root)'}: {json.dumps(a)[:60]} became {json.dumps(b)[:60]}"


def atif_counts(steps: list[Any]) -> dict[str, int]:
    """``steps``, ``agent_steps`` and ``tool_calls`` of a consumer's own step objects, read
    through their attributes (``source``, ``tool_calls``)."""
    return {
        "steps": len(steps),
        "agent_steps": sum(1 for s in steps if getattr(s, "source", None) == "agent"),
        "tool_calls": sum(len(getattr(s, "tool_calls", None) or []) for s in steps),
    }


def pydantic_errors(exc: Any) -> str:
    """A pydantic ``ValidationError`` as one line: ``loc: message`` per error (at most three)."""
    errors = exc.errors()
    parts = [f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in errors[:3]]
    return "; ".join(parts) + (f" (+{len(errors) - 3} more)" if len(errors) > 3 else "")


def log_head(native: Path) -> list[dict[str, Any]]:
    """The JSON object lines among the first 20 lines of a native log."""
    found = []
    for line in native.read_text(encoding="utf-8").splitlines()[:20]:
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def claude_code_transcript(head: list[dict[str, Any]]) -> bool:
    """Whether a log's head is a Claude Code session transcript (camelCase ``sessionId``), not
    a ``stream-json`` log (its ``system``/``init`` header), a SLEIGHT-Bench row file or a
    Markdown rendering (no JSON object lines with ``sessionId``)."""
    return any("sessionId" in x for x in head) and not any(
        x.get("type") == "system" and x.get("subtype") == "init" for x in head
    )
