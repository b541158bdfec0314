"""ATIF v1.6 <-> v1.7: v1.7 adds ``Trajectory.trajectory_id`` and ``subagent_trajectories``
(embedded subagents), ``SubagentTrajectoryRef.trajectory_id``, ``Step.llm_call_count``,
``ToolCall.extra`` and ``ObservationResult.extra``; the root's and a reference's ``session_id``
become optional, and a reference must set ``trajectory_id`` or ``trajectory_path``.

- ``down`` stashes what v1.6 lacks (embedded subagents whole), except ``llm_call_count: 0``,
  which becomes the step's named ``extra.llm_call_count`` (:func:`.base.fact_down`). A missing
  root or reference ``session_id`` is decided (the policies below; embedded subagents usually
  share their parent's session, so a reference gets one that names its own subagent).
- ``up`` reads the named key back. A reference holding only a ``session_id`` (v1.7 never resolves
  by session, RFC.md §1) gets a ``trajectory_path`` only from the caller's
  ``--session-ref-path`` template (decided); else, unless the stash resolves it, ``migrate``
  refuses the document (:func:`session_only_refs`).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from urllib.parse import quote

from atif_spec.jsonio.jsontext import canonical_json
from atif_spec.jsonio.jsonvalues import dicts
from atif_spec.transforms.driver import Context
from atif_spec.transforms.migrations.base import Doc, each, fact_down, fact_up, results, without
from atif_spec.validation.findings import Finding, Level

FACT = "llm_call_count"
"""The field whose value may make a step context only (``0``)."""

ROOT_SESSION_POLICY = (
    "session_id is required below v1.7: the trajectory_id, else sha256- and 16 hex digits of "
    "the trajectory's SHA-256"
)
REF_SESSION_POLICY = (
    "a reference's session_id is required below v1.7: the embedded subagent's own session_id "
    "when no other trajectory of the document shares it, else <parent session_id>#<trajectory_id>; "
    "for other references the trajectory_id, else the trajectory_path"
)
REF_PATH_POLICY = (
    "a v1.7 reference needs trajectory_id or trajectory_path: the --session-ref-path template "
    "with {session_id} replaced"
)
_REFS = "subagent_trajectory_ref"
REFUSAL = "session-only-ref"
REFUSED = (
    "a v1.6 reference holding only session_id cannot resolve in v1.7; say where the subagent "
    "is with --session-ref-path TEMPLATE (e.g. {session_id}.json)"
)


def up(doc: Doc, ctx: Context, base: str) -> Doc:
    """v1.6 -> v1.7."""
    doc = fact_up(FACT)(doc, ctx, base)
    template = ctx.options.session_ref_path
    if template is None:
        return doc

    def ref_up(ref: Doc, ptr: str) -> Doc:
        restored = ctx.restored(f"{ptr}/trajectory_id") or ctx.restored(f"{ptr}/trajectory_path")
        if restored or not _session_only(ref):
            return ref
        session = ref.get("session_id")
        path = session_path(template, session if isinstance(session, str) else "")
        ctx.decide(f"{ptr}/trajectory_path", REF_PATH_POLICY, path)
        return _put(ref, "trajectory_path", path, after="session_id")

    return each(doc, base, "steps", lambda step, ptr: _refs(step, ptr, ref_up))


def session_path(template: str, session: str) -> str:
    """The ``trajectory_path`` a policy template gives a session id (percent-encoded in a URL
    template, as it is in a file name template)."""
    value = quote(session, safe="") if "://" in template else session
    return template.replace("{session_id}", value)


def session_only_refs(doc: Doc) -> list[Finding]:
    """The refusals of the references of a v1.7 ``doc`` that hold neither ``trajectory_id`` nor
    ``trajectory_path`` (after ``up`` without a policy, and the stash)."""
    found: list[Finding] = []

    def note(ref: Doc, ptr: str) -> Doc:
        if _session_only(ref):
            found.append(Finding(f"migrate:{REFUSAL}", REFUSAL, Level.ERROR, ptr, REFUSED))
        return ref

    each(doc, "", "steps", lambda step, ptr: _refs(step, ptr, note))
    return found


def _session_only(ref: Doc) -> bool:
    return ref.get("trajectory_id") is None and ref.get("trajectory_path") is None


def _refs(step: Doc, ptr: str, change: Callable[[Doc, str], Doc]) -> Doc:
    """``step`` with ``change(ref, pointer)`` applied to each subagent reference."""
    return results(step, ptr, lambda result, at: each(result, at, _REFS, change))


def _no_extra(obj: Doc, at: str) -> Doc:
    return without(obj, "extra")


def down(doc: Doc, ctx: Context, base: str) -> Doc:
    """v1.7 -> v1.6."""
    embedded = [sub for _, sub in dicts(doc.get("subagent_trajectories"))]
    if doc.get("session_id") is None:
        tid = doc.get("trajectory_id")
        value = tid if isinstance(tid, str) and tid else _digest_id(doc)
        ctx.decide(f"{base}/session_id", ROOT_SESSION_POLICY, value)
        doc = _put(doc, "session_id", value, after="schema_version")
    sessions = _embedded_sessions(doc.get("session_id"), embedded)
    doc.pop("trajectory_id", None)
    doc.pop("subagent_trajectories", None)

    def ref_down(ref: Doc, ptr: str) -> Doc:
        if ref.get("session_id") is None:
            value = _ref_session(ref, sessions)
            ctx.decide(f"{ptr}/session_id", REF_SESSION_POLICY, value)
            ref = _put(ref, "session_id", value)
        return without(ref, "trajectory_id")

    def result_down(result: Doc, at: str) -> Doc:
        return each(without(result, "extra"), at, _REFS, ref_down)

    def step_down(step: Doc, ptr: str) -> Doc:
        step = fact_down(step, ptr, FACT, ctx)
        return results(each(step, ptr, "tool_calls", _no_extra), ptr, result_down)

    return each(doc, base, "steps", step_down)


def _put(obj: Doc, key: str, value: str, after: str | None = None) -> Doc:
    """``obj`` with ``key`` set: in its place, else right after ``after``, else first."""
    if key in obj:
        return {**obj, key: value}
    if after not in obj:
        return {key: value, **obj}
    out: Doc = {}
    for name, item in obj.items():
        out[name] = item
        if name == after:
            out[key] = value
    return out


def _digest_id(doc: Doc) -> str:
    return "sha256-" + hashlib.sha256(canonical_json(doc)).hexdigest()[:16]


def _embedded_sessions(parent: object, embedded: list[Doc]) -> dict[str, str]:
    """The session id each embedded subagent (by ``trajectory_id``) is referenced by below v1.7:
    its own when no other trajectory of the document carries it, else ``<parent>#<tid>``."""
    if not embedded:
        return {}
    parent = parent if isinstance(parent, str) else ""
    own = [sub.get("session_id") for sub in embedded]
    taken = Counter(s for s in [parent, *own] if isinstance(s, str))
    out: dict[str, str] = {}
    for sub in embedded:
        tid, session = sub.get("trajectory_id"), sub.get("session_id")
        if not isinstance(tid, str) or tid in out:
            continue
        unique = isinstance(session, str) and taken[session] == 1
        out[tid] = session if unique and isinstance(session, str) else f"{parent}#{tid}"
    return out


def _ref_session(ref: Doc, sessions: dict[str, str]) -> str:
    tid = ref.get("trajectory_id")
    if isinstance(tid, str):
        return sessions.get(tid, tid)
    path = ref.get("trajectory_path")
    return path if isinstance(path, str) else ""
