"""ATIF v1.6 <-> v1.7.

Changes: v1.7 adds ``Trajectory.trajectory_id``, ``Trajectory.subagent_trajectories`` (embedded
subagents), ``SubagentTrajectoryRef.trajectory_id``, ``Step.llm_call_count``, ``ToolCall.extra`` and
``ObservationResult.extra``. ``Trajectory.session_id`` and ``SubagentTrajectoryRef.session_id``
become optional (and nullable), and a reference must set ``trajectory_id`` or ``trajectory_path``.

- ``down``:

  - the trajectory's ``trajectory_id`` and ``subagent_trajectories`` are stashed in its ``extra``
    (embedded subagents go whole, stashes included);
  - ``llm_call_count``, ``ToolCall.extra`` and ``ObservationResult.extra`` are stashed in the
    step's ``extra``, except ``llm_call_count: 0``, which moves to the step's
    ``extra.llm_call_count`` (named, the stash records the move; warning
    ``migrate:context-only-step``): a v1.6 reader still sees a step that made no LLM call; with
    the policy ``drop_context_only`` such steps are dropped and ``step_id`` renumbered instead;
  - a reference's ``trajectory_id`` is stashed in the reference's own ``extra``;
  - a missing or null root ``session_id`` is synthesized (decided): the ``trajectory_id`` when it
    is a non-empty string, else ``sha256-`` and the first 16 hex digits of the SHA-256 of the
    trajectory serialized with sorted keys;
  - a missing or null reference ``session_id`` is synthesized (decided) so that each reference
    still names its own subagent: for a reference to an embedded subagent, that subagent's
    ``session_id`` when it is a string no other trajectory of the document (the parent, another
    embedded subagent) carries, else ``<parent session_id>#<trajectory_id>`` (embedded subagents
    usually share their parent's session, and a v1.6 reader would resolve all of them to the
    parent); for any other reference its ``trajectory_id``, else its ``trajectory_path``, else
    ``""``. The synthesized value is recorded in the stash (``up`` removes it).

- ``up``: restores all of that. A reference that has only a ``session_id`` (valid in v1.6, not
  in v1.7, which never resolves by session: RFC.md §1, Subagent resolution) needs a policy the
  caller gives explicitly (``--session-ref-path TEMPLATE``): its ``trajectory_path`` becomes the
  template with ``{session_id}`` replaced by the session id (decided; e.g. ``{session_id}.json``
  for subagents saved next to the parent, or ``atif-session://{session_id}`` for a locator the
  validator never opens). Without a policy the document is refused
  (``migrate:session-only-ref``); ``--fail-on-decision`` refuses it too.
"""

from __future__ import annotations

import hashlib
from urllib.parse import quote

from atif_spec.jsonio.jsontext import canonical_json
from atif_spec.jsonio.jsonvalues import dicts
from atif_spec.transforms.migrations.base import (
    Doc,
    StepContext,
    position_after,
    refs,
    results,
    steps,
    subagents,
)

LOWER, UPPER = "v1.6", "v1.7"

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
SESSION_FIELD = "{session_id}"


def up(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.6 -> v1.7."""
    _restore_all(doc, ctx, base)
    for ptr, ref in _all_refs(doc, base):
        if ref.get("trajectory_id") is None and ref.get("trajectory_path") is None:
            session = ref.get("session_id")
            if ctx.session_ref_path is None:
                ctx.refuse(
                    "session-only-ref",
                    ptr,
                    "a v1.6 reference holding only session_id cannot resolve in v1.7; say where "
                    "the subagent is with --session-ref-path TEMPLATE (e.g. {session_id}.json)",
                )
                continue
            path = session_path(ctx.session_ref_path, session if isinstance(session, str) else "")
            with ctx.owner(ref, ptr) as edit:
                if "trajectory_path" in ref:
                    edit.replace(
                        ("trajectory_path",),
                        path,
                        "a null trajectory_path does not resolve in v1.7",
                        REF_PATH_POLICY,
                        loss=False,
                    )
                else:
                    edit.add(
                        ("trajectory_path",),
                        path,
                        REF_PATH_POLICY,
                        position_after(ref, "session_id"),
                    )


def session_path(template: str, session: str) -> str:
    """The ``trajectory_path`` a policy template gives a session id (percent-encoded in a URL
    template, as it is in a file name template)."""
    value = quote(session, safe="") if "://" in template else session
    return template.replace(SESSION_FIELD, value)


def down(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.7 -> v1.6."""
    _restore_all(doc, ctx, base)
    embedded = [sub for _, sub in subagents(doc, base)]
    ctx.drop_context_only_steps(doc, base, "llm_call_count")
    _root_down(doc, ctx, base)
    sessions = _embedded_sessions(doc, embedded)
    for ptr, step in steps(doc, base):
        _step_down(step, ptr, ctx)
    for ptr, ref in _all_refs(doc, base):
        _ref_down(ref, ptr, ctx, sessions)


def _restore_all(doc: Doc, ctx: StepContext, base: str) -> None:
    ctx.restore(doc, base)
    for ptr, step in steps(doc, base):
        ctx.restore(step, ptr)
    for ptr, ref in _all_refs(doc, base):
        ctx.restore(ref, ptr)


def _all_refs(doc: Doc, base: str) -> list[tuple[str, Doc]]:
    return [pair for ptr, step in steps(doc, base) for pair in refs(step, ptr)]


def _root_down(doc: Doc, ctx: StepContext, base: str) -> None:
    session = doc.get("session_id")
    needs_session = session is None
    if not (needs_session or "trajectory_id" in doc or "subagent_trajectories" in doc):
        return
    with ctx.owner(doc, base) as edit:
        if needs_session:
            tid = doc.get("trajectory_id")
            value = tid if isinstance(tid, str) and tid else _digest_id(doc)
            if "session_id" in doc:
                edit.replace(
                    ("session_id",), value, "v1.6 requires a string session_id", ROOT_SESSION_POLICY
                )
            else:
                edit.add(
                    ("session_id",),
                    value,
                    ROOT_SESSION_POLICY,
                    position_after(doc, "schema_version"),
                )
        if "trajectory_id" in doc:
            edit.remove(("trajectory_id",), "v1.6 has no Trajectory.trajectory_id")
        if "subagent_trajectories" in doc:
            edit.remove(("subagent_trajectories",), "v1.6 cannot embed subagent trajectories")


def _digest_id(doc: Doc) -> str:
    digest = hashlib.sha256(canonical_json(doc)).hexdigest()
    return "sha256-" + digest[:16]


def _step_down(step: Doc, ptr: str, ctx: StepContext) -> None:
    calls = [j for j, call in dicts(step.get("tool_calls")) if "extra" in call]
    extras = [k for k, result in results(step) if "extra" in result]
    if not ("llm_call_count" in step or calls or extras):
        return
    with ctx.owner(step, ptr) as edit:
        if "llm_call_count" in step:
            edit.training_fact("llm_call_count", "v1.6 has no Step.llm_call_count")
        for j in calls:
            edit.remove(("tool_calls", j, "extra"), "v1.6 has no ToolCall.extra")
        for k in extras:
            edit.remove(
                ("observation", "results", k, "extra"), "v1.6 has no ObservationResult.extra"
            )


def _ref_down(ref: Doc, ptr: str, ctx: StepContext, sessions: dict[str, str]) -> None:
    session = ref.get("session_id")
    if session is not None and "trajectory_id" not in ref:
        return
    with ctx.owner(ref, ptr) as edit:
        if session is None:
            value = _ref_session(ref, sessions)
            if "session_id" in ref:
                edit.replace(
                    ("session_id",), value, "v1.6 requires a string session_id", REF_SESSION_POLICY
                )
            else:
                edit.add(("session_id",), value, REF_SESSION_POLICY, 0)
        if "trajectory_id" in ref:
            edit.remove(("trajectory_id",), "v1.6 has no SubagentTrajectoryRef.trajectory_id")


def _embedded_sessions(doc: Doc, embedded: list[Doc]) -> dict[str, str]:
    """The session id each embedded subagent (by ``trajectory_id``) is referenced by below v1.7:
    its own when no other trajectory of the document carries it, else ``<parent>#<tid>``."""
    parent = doc.get("session_id")
    parent = parent if isinstance(parent, str) else ""
    own = [sub.get("session_id") for sub in embedded]
    taken = [parent, *own]
    out: dict[str, str] = {}
    for sub, session in zip(embedded, own, strict=True):
        tid = sub.get("trajectory_id")
        if not isinstance(tid, str) or tid in out:
            continue
        unique = isinstance(session, str) and taken.count(session) == 1
        out[tid] = session if unique and isinstance(session, str) else f"{parent}#{tid}"
    return out


def _ref_session(ref: Doc, sessions: dict[str, str]) -> str:
    tid = ref.get("trajectory_id")
    if isinstance(tid, str):
        return sessions.get(tid, tid)
    path = ref.get("trajectory_path")
    return path if isinstance(path, str) else ""
