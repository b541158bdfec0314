"""Run log → ATIF v1.7: a step per run-log step, its tool substeps as calls and results."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from atif_spec.formats.step_substep import RESULT_TYPES, TOOL_TYPES
from atif_spec.jsonio.jsonvalues import dicts
from atif_spec.transforms.driver import Context
from atif_spec.transforms.fields import ABSENT, FreeForm
from atif_spec.transforms.lenses.step_substep import common
from atif_spec.transforms.lenses.step_substep.common import Doc

STEP_LIFTS = (("model", "model_name", common.is_text), ("metrics", "metrics", common.metrics_ok))
"""Lifts of an agent step's ``extra`` keys to ATIF step fields: (key, field, condition)."""
_STEP_TAKEN = (*common.ATIF_STEP_NAMED, common.PARTS_NAMED)
_ADOPTED = "no call_id: the call_id of the result that answers it"


def to_atif(doc: Doc, ctx: Context) -> Doc:
    """The ATIF v1.7 trajectory of a run log (see the package docstring)."""
    out = common.schema_url(doc, common.TO_ATIF)
    out["schema_version"] = "ATIF-v1.7"
    if isinstance(doc.get("run_id"), str):
        out["session_id"] = doc["run_id"]
    provider = doc.get("provider")
    agent: Doc = {"name": provider if isinstance(provider, str) else common.UNKNOWN}
    out["agent"] = agent
    steps = [_atif_step(step, i, ctx) for i, step in dicts(doc.get("steps"))]
    if not steps:
        steps = [dict(common.PLACEHOLDER_STEP)]
        ctx.decide("/steps/0", "ATIF needs a step: an empty system step", common.PLACEHOLDER_STEP)
    out["steps"] = steps
    extra = FreeForm(doc.get("extra", ABSENT), "/extra", ctx)
    extra.take_all(out, common.ROOT_NAMED)
    extra.take(agent, "model_name", "model", common.is_text)
    if not extra.take(agent, "version", "agent_version", common.is_text):
        agent["version"] = common.UNKNOWN
        ctx.decide("/agent/version", "a run log records no agent version", common.UNKNOWN)
    if "final_metrics" not in out:
        extra.take(out, "final_metrics", "final_metrics", lambda v: common.final_ok(v, steps))
    extra.place(out)
    return out


def _atif_step(step: Doc, i: int, ctx: Context) -> Doc:
    at = f"/steps/{i}"
    subs = list(dicts(step.get("substeps")))
    calls, results, kept = [], [], []
    for j, s in subs:
        kind = s.get("type")
        if kind == "tool_call":
            calls.append((j, s))
        elif kind in RESULT_TYPES:
            results.append((j, s))
        else:  # tool_retry, status_update, artifact: no ATIF event
            kept.append((j, s))
    role = step.get("message_role")
    source = common.SOURCE_OF_ROLE.get(role) if isinstance(role, str) else None
    if calls and source != "agent":
        source = "agent"
        ctx.decide(f"{at}/source", "it calls tools: agent", source)
    elif source is None:
        source = "system"
        ctx.decide(f"{at}/source", "unknown role: system", source)
    out: Doc = {"step_id": i + 1}
    started = step.get("started_at")
    if isinstance(started, str) and common.fits("Step/properties/timestamp", started):
        out["timestamp"] = started  # a null time is no timestamp, which the way back reads null
    out["source"] = source
    text = step.get("message_text")
    out["message"] = text if isinstance(text, str) else ""
    if not isinstance(text, str):
        ctx.decide(f"{at}/message", "a step without message text: empty", "")
    if calls:
        sid = step["step_id"] if isinstance(step.get("step_id"), str) else f"S{i + 1}"
        adopted = {}
        if not all(isinstance(s.get("call_id"), str) for _, s in calls):
            adopted = adopted_call_ids(subs)
        out["tool_calls"] = [
            _atif_call(s, at, j, k, sid, adopted, ctx) for k, (j, s) in enumerate(calls)
        ]
    if results:
        known = {c["tool_call_id"] for c in out.get("tool_calls", ())}
        out["observation"] = {
            "results": [_atif_result(s, at, j, k, known, ctx) for k, (j, s) in enumerate(results)]
        }
    holder = f"{at}/extra"
    extra = FreeForm(step.get("extra", ABSENT), holder, ctx)
    extra.take_all(out, _STEP_TAKEN)
    for key, field, ok in STEP_LIFTS if source == "agent" else ():
        if field not in out:
            extra.take(out, field, key, ok)
    if common.ROLE_OF_SOURCE.get(source) != role and "message_role" in step:
        extra.put(common.ROLE_NAMED.key, role, f"{at}/message_role", holder)
    for row in common.STEP_NAMED:
        value = step.get(row.member)
        if value is not None and not (row.member == "summary" and value == _label(step)):
            extra.put(row.key, value, f"{at}/{row.member}", holder)
    if kept and extra.put(common.SUBSTEPS_KEY, [s for _, s in kept], None, holder):
        reason = f"{common.ATIF} has no event for it: kept whole under a documented name"
        for n, (j, _) in enumerate(kept):
            ctx.name(f"{at}/substeps/{j}", f"{holder}/{common.SUBSTEPS_KEY}/{n}", reason)
    extra.place(out)
    return out


def _label(step: Doc) -> str | None:
    """The summary the way back writes for this run-log step (SSL-28): a step whose text is
    blank but that holds tool events is labelled, any other step gets null."""
    text = step.get("message_text")
    blank = text is None or (isinstance(text, str) and not text.strip())
    events = any(s.get("type") in TOOL_TYPES for _, s in dicts(step.get("substeps")))
    return common.NO_MESSAGE_SUMMARY if blank and events else None


def adopted_call_ids(subs: Sequence[tuple[int, Doc]]) -> dict[int, str]:
    """Ids for a step's tool calls that have none, from the results that answer them (SSL-29),
    by substep index: the calls without ``call_id`` and the results whose ``call_id`` names no
    call of the step pair in order (a later result with an id already taken answers the same
    call). gza 0.5.0 writes Gemini run logs so: only the outputs carry the id."""
    taken = {s.get("call_id") for _, s in subs if s.get("type") == "tool_call"}
    waiting: deque[int] = deque()
    out: dict[int, str] = {}
    for j, sub in subs:
        cid, kind = sub.get("call_id"), sub.get("type")
        if kind == "tool_call" and not isinstance(cid, str):
            waiting.append(j)
        elif kind in RESULT_TYPES and isinstance(cid, str) and cid not in taken and waiting:
            out[waiting.popleft()] = cid
            taken.add(cid)
    return out


def _atif_call(
    sub: Doc, at: str, j: int, k: int, sid: str, adopted: dict[int, str], ctx: Context
) -> Doc:
    """Tool call ``k`` of the step at ``at``, made of its ``tool_call`` substep ``j``."""
    payload: Doc = sub["payload"] if isinstance(sub.get("payload"), dict) else {}
    cid = sub.get("call_id")
    if not isinstance(cid, str):
        if j in adopted:
            cid = adopted[j]
            ctx.decide(f"{at}/tool_calls/{k}/tool_call_id", _ADOPTED, cid)
        else:
            cid = f"{sid}.{j + 1}"
            ctx.decide(f"{at}/tool_calls/{k}/tool_call_id", "no call_id: the substep id", cid)
    name = payload.get("tool_name")
    arguments = payload.get("tool_input")
    if not isinstance(arguments, dict):
        arguments = {}
        ctx.decide(f"{at}/tool_calls/{k}/arguments", "tool_input is not an object: {}", {})
    out: Doc = {
        "tool_call_id": cid,
        "function_name": name if isinstance(name, str) else "",
        "arguments": arguments,
    }
    _event_extra(sub, out, at, j, k, ctx)
    return out


def _atif_result(sub: Doc, at: str, j: int, k: int, known: set[str], ctx: Context) -> Doc:
    """Result ``k`` of the step at ``at``, made of its substep ``j``."""
    out: Doc = {}
    if "call_id" in sub:
        cid = sub["call_id"]
        out["source_call_id"] = cid if isinstance(cid, str) and cid in known else None
    payload: Any = sub.get("payload")
    for key in ("output", "content") if isinstance(payload, dict) else ():
        value = payload.get(key, ABSENT)  # ATIF's content: a string, null or content parts
        if value is not ABSENT and (isinstance(value, str) or value is None or _parts(value)):
            out["content"] = value
            break
    _event_extra(sub, out, at, j, k, ctx)
    return out


def _parts(value: Any) -> bool:
    return common.fits("ObservationResult/properties/content", value)


def _event_extra(sub: Doc, out: Doc, at: str, j: int, k: int, ctx: Context) -> None:
    """Set the ``extra`` of ``out``, call or result ``k`` of the step at ``at`` made of its
    substep ``j``: the substep's, with the named keys of its fields and its payload's (a result
    takes its subagent reference back from it)."""
    call = sub["type"] == "tool_call"
    default = "provider" if call else "tool"  # the event's own source, which the way back writes
    named = []  # (key, value, member)
    for row in common.CALL_NAMED if call else common.RESULT_NAMED:
        value = sub.get(row.member)
        if value is not None and not (row.member == "source" and value == default):
            named.append((row.key, value, row.member))
    payload: Any = sub.get("payload")
    if isinstance(payload, dict):
        for row in common.CALL_PAYLOAD_NAMED if call else common.RESULT_PAYLOAD_NAMED:
            if row.key in payload:
                named.append((row.key, payload[row.key], f"payload/{row.key}"))
    if not named and "extra" not in sub:
        return  # most substeps: no extra to place, nothing to name
    src = f"{at}/substeps/{j}"
    to = f"{at}/tool_calls/{k}" if call else f"{at}/observation/results/{k}"
    extra = FreeForm(sub.get("extra", ABSENT), f"{src}/extra", ctx)
    for key, value, member in named:
        extra.put(key, value, f"{src}/{member}", f"{to}/extra")
    if not call:
        extra.take(out, common.REF_NAMED.member, common.REF_NAMED.key)
    extra.place(out)
