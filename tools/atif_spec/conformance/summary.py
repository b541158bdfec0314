"""What a consumer read, checked against the document: the summary keys of PROTOCOL.md §4.5.

A consumer answers ``read`` with a summary of what it understood (counts, identifiers, whether
its models give the document back unchanged). The runner computes the same keys from the
document and lists every key that disagrees, so a consumer that swallows a document without
understanding it fails: "no exception" is not a pass. Keys the runner does not know are kept in
the report and not compared; a summary with no known key is a failure of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from atif_spec.jsonio.jsonvalues import dict_member, list_member, objects

Doc = Mapping[str, Any]


def _steps(doc: Doc) -> list[dict[str, Any]]:
    return list(objects(list_member(doc, "steps")))


def _active(doc: Doc) -> list[dict[str, Any]]:
    """Steps that are not copied context (all of them when every step is copied)."""
    steps = _steps(doc)
    active = [s for s in steps if s.get("is_copied_context") is not True]
    return active or steps


def _tool_calls(steps: list[dict[str, Any]]) -> int:
    return sum(len(list_member(s, "tool_calls")) for s in steps)


def _results(steps: list[dict[str, Any]]) -> int:
    return sum(
        len(list_member(s["observation"], "results"))
        for s in steps
        if isinstance(s.get("observation"), dict)
    )


def _non_text_parts(steps: list[dict[str, Any]]) -> int:
    """Content parts that are not text, in step messages and observation result contents."""
    contents = [s.get("message") for s in steps] + [
        r.get("content")
        for s in steps
        if isinstance(s.get("observation"), dict)
        for r in objects(list_member(s["observation"], "results"))
    ]
    return sum(
        1
        for c in contents
        if isinstance(c, list)
        for part in c
        if not (isinstance(part, dict) and part.get("type") == "text")
    )


def _llm_steps(doc: Doc) -> int:
    return sum(
        1 for s in _active(doc) if s.get("source") == "agent" and s.get("llm_call_count") != 0
    )


ATIF_KEYS: dict[str, Callable[[Doc], Any]] = {
    "schema_version": lambda d: d.get("schema_version"),
    "session_id": lambda d: d.get("session_id"),
    "trajectory_id": lambda d: d.get("trajectory_id"),
    "agent_name": lambda d: (dict_member(d, "agent") or {}).get("name"),
    "steps": lambda d: len(_steps(d)),
    "agent_steps": lambda d: sum(1 for s in _steps(d) if s.get("source") == "agent"),
    "system_steps": lambda d: sum(1 for s in _steps(d) if s.get("source") == "system"),
    "tool_calls": lambda d: _tool_calls(_steps(d)),
    "observation_results": lambda d: _results(_steps(d)),
    "non_text_parts": lambda d: _non_text_parts(_steps(d)),
    "active_tool_calls": lambda d: _tool_calls(_active(d)),
    "llm_steps": _llm_steps,
    "subagents": lambda d: len(list_member(d, "subagent_trajectories")),
}
"""ATIF: each key's value, computed from the root document (embedded subagents not counted,
except by ``subagents``). ``active_*`` and ``llm_steps`` leave out copied-context steps."""

TAO_KEYS: dict[str, Callable[[Doc], Any]] = {
    "schema_version": lambda d: d.get("schema_version"),
    "trace_id": lambda d: d.get("trace_id"),
    "session_id": lambda d: d.get("session_id"),
    "steps": lambda d: len(_steps(d)),
    "tool_calls": lambda d: _tool_calls(_steps(d)),
}

KEYS: dict[str, dict[str, Callable[[Doc], Any]]] = {"atif": ATIF_KEYS, "tao": TAO_KEYS}

FIXED = {"roundtrip": "equal", "errors": 0}
"""Keys with one right value: ``roundtrip`` (the consumer's models dump the document back
unchanged, else the first difference) and ``errors`` (checks that crashed)."""


def mismatches(fmt: str, summary: Mapping[str, Any], document: Any) -> list[str]:
    """Every known key of ``summary`` that disagrees with ``document`` (``key: read X, document
    has Y``), or one line saying the summary has no known key."""
    keys = KEYS.get(fmt, {})
    out: list[str] = []
    known = 0
    for key, value in summary.items():
        if key in FIXED:
            known += 1
            if value != FIXED[key]:
                out.append(f"{key}: read {value!r}, expected {FIXED[key]!r}")
        elif key in keys and isinstance(document, dict):
            known += 1
            want = keys[key](document)
            if value != want:
                out.append(f"{key}: read {value!r}, document has {want!r}")
    if not known:
        out.append("the summary has no key the runner compares (PROTOCOL.md §4.5)")
    return out
