"""ATIF v1.7 → run log: a step per ATIF step, each call followed by its results."""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any, TypeVar

from atif_spec.formats.step_substep import RFC3339, TOOL_TYPES
from atif_spec.jsonio.jsonequal import same_json
from atif_spec.jsonio.jsontext import canonical_json
from atif_spec.jsonio.jsonvalues import dicts, plain_text
from atif_spec.transforms.driver import Context
from atif_spec.transforms.fields import ABSENT, FreeForm
from atif_spec.transforms.lenses.step_substep import common
from atif_spec.transforms.lenses.step_substep.common import Doc

T = TypeVar("T")
_UNKNOWN_FIELDS = dict.fromkeys(row.member for row in common.STEP_NAMED)
"""The run-log step fields ATIF has none for: null (named keys may give them back)."""
_NO_SOURCE = "ATIF records no event source: provider for a call, tool for its output"
_STEP_TAKEN = (common.ROLE_NAMED, *common.STEP_NAMED)
Event = tuple[Any, int, Doc, bool]
"""An ATIF tool call or result of a step: its call id, index (among the step's calls or
results), the object, and whether it is a call."""


def interleave(calls: Sequence[T], results: Sequence[T], call_id: Callable[[T], Any]) -> list[T]:
    """Calls in order, each followed by the results (in order) that name a call already listed.

    Both orders are kept: a result never moves ahead of an earlier result, so results naming a
    later call, or no call, wait; whatever still waits at the end comes last.
    """
    out: list[T] = []
    seen: set[str] = set()
    pending = 0
    for call in calls:
        out.append(call)
        cid = call_id(call)
        if isinstance(cid, str):
            seen.add(cid)
        while pending < len(results) and call_id(results[pending]) in seen:
            out.append(results[pending])
            pending += 1
    out.extend(results[pending:])
    return out


def to_ssl(doc: Doc, ctx: Context) -> Doc:
    """The run log of an ATIF v1.7 trajectory (see the package docstring)."""
    agent = doc["agent"] if isinstance(doc.get("agent"), dict) else {}
    name = agent.get("name")
    provider = name if isinstance(name, str) and name else common.UNKNOWN
    if not (isinstance(name, str) and name):
        ctx.decide("/provider", "an agent without a name: unknown", provider)
    out: Doc = common.schema_url(doc, common.TO_SSL)
    out["run_id"] = _run_id(doc, ctx)
    out["provider"] = provider
    steps = doc.get("steps")
    if isinstance(steps, list) and len(steps) == 1 and same_json(steps[0], common.PLACEHOLDER_STEP):
        # what the other lens writes for an empty run: read as one, so both round trips hold
        ctx.decide("/steps", "only the empty step of an empty run: no step", [])
        out["steps"] = []
    else:
        out["steps"] = [_ssl_step(step, i, provider, ctx) for i, step in dicts(steps)]
    extra = FreeForm(doc.get("extra", ABSENT), "/extra", ctx)
    if isinstance(agent.get("model_name"), str):
        extra.put("model", agent["model_name"], None, "/extra")
    version = agent.get("version")
    if isinstance(version, str) and version != common.UNKNOWN:  # the way back's default
        extra.put("agent_version", version, None, "/extra")
    if common.final_ok(doc.get("final_metrics"), steps):
        extra.put("final_metrics", doc["final_metrics"], None, "/extra")
    extra.put_all(doc, common.ROOT_NAMED, "", "/extra")
    extra.place(out)
    return out


def _run_id(doc: Doc, ctx: Context) -> str:
    for key in ("session_id", "trajectory_id"):
        value = doc.get(key)
        if isinstance(value, str) and value:
            if key != "session_id":
                ctx.decide("/run_id", "no session_id: the trajectory_id", value)
            return value
    value = "run-" + hashlib.sha256(canonical_json(doc)).hexdigest()[:16]
    ctx.decide("/run_id", "no id: run- and 16 hex digits of its SHA-256", value)
    return value


def _ssl_step(step: Doc, i: int, provider: str, ctx: Context) -> Doc:
    at = f"/steps/{i}"
    sid = f"S{i + 1}"
    source = step.get("source")
    message = step.get("message")
    text = message if isinstance(message, str) else plain_text(message)
    if not text:
        # no text: null, as a run-log producer writes a step without a message (SSL-27)
        ctx.decide(f"{at}/message_text", "no message text: null", None)
    elif not isinstance(message, str):
        ctx.decide(f"{at}/message_text", "content parts: their text", text)
    stamp = step.get("timestamp")
    started = stamp if isinstance(stamp, str) and RFC3339.match(stamp) else None
    if started is None and (stamp is not None or "timestamp" not in step):
        ctx.decide(f"{at}/started_at", "no RFC 3339 time with offset: null", None)
    out: Doc = {
        "step_id": sid,
        "step_index": i + 1,
        "provider": provider,
        "message_role": common.ROLE_OF_SOURCE.get(str(source), "assistant"),
        "message_text": text or None,
        "started_at": started,
        **_UNKNOWN_FIELDS,
    }
    ctx.decide(f"{at}/outcome", "ATIF records no outcome: null", None)
    holder = f"{at}/extra"
    extra = FreeForm(step.get("extra", ABSENT), holder, ctx)
    out["substeps"] = _ssl_substeps(step, at, sid, extra.take_items(common.SUBSTEPS_KEY), ctx)
    if not text.strip() and any(s.get("type") in TOOL_TYPES for s in out["substeps"]):
        out["summary"] = common.NO_MESSAGE_SUMMARY
        ctx.decide(f"{at}/summary", "tool events need a summary", common.NO_MESSAGE_SUMMARY)
    extra.take_all(out, _STEP_TAKEN)
    if source == "agent":
        if isinstance(step.get("model_name"), str):
            extra.put("model", step["model_name"], None, holder)
        if common.metrics_ok(step.get("metrics")):
            extra.put("metrics", step["metrics"], None, holder)
    for row in common.ATIF_STEP_NAMED:  # (not put_all: a call per row, on the hot path)
        if row.member in step:
            extra.put(row.key, step[row.member], f"{at}/{row.member}", holder)
    if isinstance(message, list) and any(p.get("type") != "text" for _, p in dicts(message)):
        extra.put(common.PARTS_NAMED.key, message, f"{at}/message", holder)
    extra.place(out)
    return out


def _ssl_substeps(step: Doc, at: str, sid: str, kept: list[Any], ctx: Context) -> list[Any]:
    """The step's calls, each followed by its results (:func:`interleave`), with the substeps
    kept whole in its ``extra`` (``kept``) back at their ``substep_index``."""
    calls: list[Event] = [
        (c.get("tool_call_id"), k, c, True) for k, c in dicts(step.get("tool_calls"))
    ]
    observation = step.get("observation")
    raw = observation.get("results") if isinstance(observation, dict) else None
    results: list[Event] = [(r.get("source_call_id"), k, r, False) for k, r in dicts(raw)]
    order: list[tuple[Any, ...]] = interleave(calls, results, itemgetter(0))
    if kept:
        events, order = deque(order), []
        for j, _, sub in sorted((_index(sub), n, sub) for n, sub in enumerate(kept)):
            while len(order) < j and events:
                order.append(events.popleft())
            order.append((sub,))
        order.extend(events)
    return [
        _ssl_event(item, f"{sid}.{m + 1}", m, at, ctx) if len(item) == 4 else item[0]
        for m, item in enumerate(order)
    ]


def _index(sub: Any) -> int:
    """Where a substep kept whole goes back: its ``substep_index`` (last when it has none)."""
    index = sub.get("substep_index") if isinstance(sub, dict) else None
    if isinstance(index, int) and not isinstance(index, bool) and index >= 1:
        return index - 1
    return 1 << 30


def _ssl_event(event: Event, sid: str, m: int, at: str, ctx: Context) -> Doc:
    """Substep ``m`` (id ``sid``) of the step at ``at`` made of an ATIF tool call or result, with
    the run-log fields its ``extra`` names read back."""
    cid, k, obj, is_call = event
    if is_call:
        payload = {"tool_name": obj.get("function_name"), "tool_input": obj.get("arguments")}
    else:
        payload = {"content": obj["content"]} if "content" in obj else {}
    kind, source = ("tool_call", "provider") if is_call else ("tool_output", "tool")
    sub: Doc = {
        "substep_id": sid,
        "substep_index": m + 1,
        "type": kind,
        "source": source,
        "call_id": cid,
        "timestamp": None,
        "legacy_turn_id": None,
        "legacy_event_id": None,
        "payload": payload,
    }
    if not (is_call or "source_call_id" in obj):
        del sub["call_id"]  # a result that names no call
    here = f"{at}/substeps/{m}"
    # most calls and results have no extra and no subagent: the substep neither
    if "extra" in obj or common.REF_NAMED.member in obj:
        ptr = f"{at}/tool_calls/{k}" if is_call else f"{at}/observation/results/{k}"
        extra = FreeForm(obj.get("extra", ABSENT), f"{ptr}/extra", ctx)
        extra.take_all(sub, common.CALL_NAMED if is_call else common.RESULT_NAMED)
        extra.take_all(
            payload, common.CALL_PAYLOAD_NAMED if is_call else common.RESULT_PAYLOAD_NAMED
        )
        if not is_call:
            sub["payload"] = _implied(sub, payload)
        if common.REF_NAMED.member in obj:
            ref, member = obj[common.REF_NAMED.member], common.REF_NAMED.member
            extra.put(common.REF_NAMED.key, ref, f"{ptr}/{member}", f"{here}/extra")
        extra.place(sub)
    ctx.decide(f"{here}/source", _NO_SOURCE, sub["source"])
    ctx.decide(f"{here}/timestamp", "ATIF records no event time: null", None)
    return sub


def _implied(sub: Doc, payload: Doc) -> Doc:
    """The type and spelling a result's payload implies (SSL-22), its members being read back
    from its ``extra``: an error when flagged; Codex's and Gemini's ``output`` next to an
    ``exit_code`` or ``status``."""
    code = payload.get("exit_code")
    failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
    if payload.get("is_error") is True or failed or "message" in payload:
        sub["type"] = "tool_error"
    if ("exit_code" in payload or "status" in payload) and isinstance(payload.get("content"), str):
        return {("output" if k == "content" else k): v for k, v in payload.items()}
    return payload
