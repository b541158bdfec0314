"""Step/substep run log v1.0 ↔ ATIF v1.7 (``spec/step-substep/MAPPING.md``).

A run-log step is one provider message; it becomes one ATIF step (``assistant`` → ``agent``,
``user`` and ``system`` kept). Its ``tool_call`` substeps become the step's ``tool_calls`` and its
``tool_output``/``tool_error`` substeps its ``observation.results``, linked by the call id; the
run's id and provider become ``session_id`` and ``agent.name``. The way back interleaves each
call's results after it, numbers the substeps and labels synthetic steps. Both directions are
plain mappings run by :mod:`atif_spec.transforms.driver`; sources must match their schema.

**Named keys** (MAPPING.md's *named* rows): what the other side has no field for but a reader
needs goes under a documented key of the nearest ``extra`` unless the producer's own ``extra``
has that key, reported with ``ctx.name``; a mapping reads one back only where ``ctx.read`` says.

**Lifts** (MAPPING.md §2.1) are field mappings both ways, applied whenever their condition holds
and never recorded: an agent step's ``extra.model`` (a string) and ``extra.metrics`` (a valid
``Metrics``) are its ``model_name`` and ``metrics``; the run's ``extra.model``,
``extra.agent_version`` (a string) and ``extra.final_metrics`` (a valid ``FinalMetrics`` whose
totals agree with the steps', rule ATIF306) are ``agent.model_name``, ``agent.version`` and
``final_metrics``. A field already set is kept; an ``extra`` emptied by taking keys out is left
out. The way back writes the same keys under the same conditions (``agent.version`` not
``"unknown"``) where the ``extra`` does not have them yet.
"""

from __future__ import annotations

import hashlib
import math
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from atif_spec.formats.step_substep import RESULT_TYPES, RFC3339, TOOL_TYPES, default_source
from atif_spec.formats.totals import step_totals
from atif_spec.jsonio.jsonequal import same_json
from atif_spec.jsonio.jsontext import canonical_json
from atif_spec.jsonio.jsonvalues import dicts, plain_text
from atif_spec.schemas.catalog import load_catalog
from atif_spec.schemas.compiled import rs_validator, rs_validator_at
from atif_spec.transforms.driver import Context, Mapping, Step
from atif_spec.validation.schema_findings import findings_of

Doc = dict[str, Any]
T = TypeVar("T")

SSL = "step-substep@v1.0"
ATIF = "atif@v1.7"
TO_ATIF = f"{SSL}->{ATIF}"
TO_SSL = f"{ATIF}->{SSL}"

UNKNOWN = "unknown"
"""``agent.version`` of converted run logs, and the provider of ATIF agents without a name."""
PLACEHOLDER_STEP: Doc = {"step_id": 1, "source": "system", "message": ""}
"""The step an empty run gets in ATIF, which requires at least one."""
NO_MESSAGE_SUMMARY = "Tool activity without a message"
"""Summary of a converted ATIF step that calls tools with a blank message (run-log rule SSL109)."""
SOURCE_OF_ROLE = {"assistant": "agent", "user": "user", "system": "system"}
ROLE_OF_SOURCE = {"agent": "assistant", "user": "user", "system": "system"}
ATIF_SCHEMA = "https://atif-spec.org/schemas/atif/v1.7/trajectory.schema.json"

# The named keys (MAPPING.md's *named* rows).
STEP_NAMED = ("completed_at", "outcome", "summary", "legacy_turn_id", "legacy_event_id")
"""Run-log step fields kept as the ATIF step's ``extra`` keys of the same name when not null
(and ``message_role`` when ``source`` does not give it back)."""
SUBSTEP_NAMED = ("source", "timestamp", "legacy_turn_id", "legacy_event_id")
"""Run-log substep fields kept in the ATIF tool call's or result's ``extra`` when not null
(``source`` when it is not the spec's emitter of the event)."""
CALL_PAYLOAD_NAMED = ("command", "retry_of_call_id")
RESULT_PAYLOAD_NAMED = ("exit_code", "is_error", "message", "status")
"""Payload keys of a ``tool_call`` and of a result, kept in the ATIF call's or result's extra."""
SUBSTEPS_KEY = "run_log_substeps"
"""ATIF step ``extra`` key of the run-log substeps ATIF has no event for, each whole."""
ROOT_NAMED = {
    "/agent/extra": "agent_extra",
    "/agent/tool_definitions": "tool_definitions",
    **{f"/{k}": k for k in ("trajectory_id", "final_metrics", "notes", "subagent_trajectories")},
    "/continued_trajectory_ref": "continued_trajectory_ref",
}
"""ATIF root fields a run log has no field for, and the run ``extra`` key each goes to."""
ATIF_STEP_NAMED = {
    "model_name": "model",
    **{k: k for k in ("reasoning_effort", "reasoning_content", "metrics", "is_copied_context")},
    "llm_call_count": "llm_call_count",
}
"""ATIF step fields a run log has no field for, and the step ``extra`` key each goes to."""
PARTS_KEY = "message_parts"
"""Step ``extra`` key of an ATIF content-part ``message`` with an image or audio part."""
REF_KEY = "subagent_trajectory_ref"
"""Substep ``extra`` key of an ATIF result's ``subagent_trajectory_ref``."""

_ABSENT: Any = object()


# --- shared helpers ---------------------------------------------------------------------------


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


def _fits(node: str, value: Any) -> bool:
    """Whether ``value`` matches the ATIF v1.7 schema's ``$defs/<node>``."""
    return bool(rs_validator_at(f"{ATIF_SCHEMA}#/$defs/{node}").is_valid(value))


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _metrics_ok(value: Any) -> bool:
    return _fits("Metrics", value)


def _final_ok(final: Any, steps: Any) -> bool:
    """True for a valid ``FinalMetrics`` whose totals equal the steps' (rule ATIF306) and whose
    ``total_steps``, if any, is their number: lifting it draws no warning."""
    if not isinstance(final, dict) or not _fits("FinalMetrics", final):
        return False
    steps = [s for _, s in dicts(steps)]
    if "total_steps" in final and final["total_steps"] != len(steps):
        return False
    totals = step_totals(steps).as_final_metrics()
    for name in ("total_prompt_tokens", "total_completion_tokens", "total_cached_tokens"):
        if name in final and name in totals and final[name] != totals[name]:
            return False
    cost, mine = final.get("total_cost_usd"), totals.get("total_cost_usd")
    return cost is None or mine is None or math.isclose(float(cost), float(mine), rel_tol=1e-6)


def _schema_url(doc: Doc, lens: str) -> Doc:
    """``{"$schema": <the target's schema>}`` when ``doc``'s ``$schema`` names its own format's
    schema (an editor's reference), else ``{}`` (another value goes to the patch; SSL-28)."""
    source, _, target = lens.partition("->")
    catalog = load_catalog()
    if doc.get("$schema") == catalog.find(source).id:
        return {"$schema": catalog.find(target).id}
    return {}


class _Extra:
    """The ``extra`` of an object being built, from the ``extra`` of the input object it maps
    (at ``at``): shared while unchanged, else a copy with keys taken out and named keys put in."""

    def __init__(self, given: Any, at: str, ctx: Context) -> None:
        self.given, self.at, self.ctx = given, at, ctx
        self.keys: Doc = given if isinstance(given, dict) else {}
        self.edited = False

    def _edit(self) -> Doc:  # the members, copied before the first change
        if not self.edited:
            self.keys, self.edited = dict(self.keys), True
        return self.keys

    def move(self, obj: Doc, field: str, key: str, ok: Callable[[Any], bool] | None = None) -> bool:
        """Move ``key`` to ``obj[field]``: a named key (no ``ok``) where the inverse wrote it, a
        lift where ``ok`` accepts its value. Whether it moved."""
        value = self.keys.get(key, _ABSENT)
        if value is _ABSENT or not (ok(value) if ok else self.ctx.read(f"{self.at}/{key}")):
            return False
        obj[field] = self._edit().pop(key)
        return True

    def take_items(self, key: str) -> list[Any]:
        """Take out the elements of the list at ``key`` that the inverse wrote (named keys)."""
        held = self.keys.get(key)
        if not isinstance(held, list):
            return []
        mine = {n for n in range(len(held)) if self.ctx.read(f"{self.at}/{key}/{n}")}
        if mine:
            rest = [v for n, v in enumerate(held) if n not in mine]
            self._edit()[key] = rest
            if not rest:
                del self.keys[key]
        return [held[n] for n in sorted(mine)]

    def put(self, key: str, value: Any, source: str | None, owner: str) -> bool:
        """Write ``value`` at ``key`` unless a member is there: a named key read from ``source``
        (reported), or for ``source`` None a lift's key (a mapping)."""
        if key in self.keys:
            return False  # the producer's own: the value goes to the patch
        self._edit()[key] = value
        if source is not None:
            reason = f"{self.ctx.target} has no field for it: a documented name"
            self.ctx.name(source, f"{owner}/extra/{key}", reason)
        return True

    def place(self, obj: Doc) -> None:
        """Set ``obj["extra"]``: the input's when unchanged, nothing when emptied."""
        if not self.edited and isinstance(self.given, dict):
            obj["extra"] = self.given
        elif self.keys:
            obj["extra"] = self.keys


# --- run log -> ATIF --------------------------------------------------------------------------

STEP_LIFTS = (("model", "model_name", _is_text), ("metrics", "metrics", _metrics_ok))
"""Lifts of an agent step's ``extra`` keys to ATIF step fields: (key, field, condition)."""


def to_atif(doc: Doc, ctx: Context) -> Doc:
    """The ATIF v1.7 trajectory of a run log (see the module docstring)."""
    out = _schema_url(doc, TO_ATIF)
    out["schema_version"] = "ATIF-v1.7"
    if isinstance(doc.get("run_id"), str):
        out["session_id"] = doc["run_id"]
    provider = doc.get("provider")
    agent: Doc = {"name": provider if isinstance(provider, str) else UNKNOWN}
    out["agent"] = agent
    steps = [_atif_step(step, i, ctx) for i, step in dicts(doc.get("steps"))]
    if not steps:
        steps = [dict(PLACEHOLDER_STEP)]
        ctx.decide("/steps/0", "ATIF needs a step: an empty system step", PLACEHOLDER_STEP)
    out["steps"] = steps
    extra = _Extra(doc.get("extra", _ABSENT), "/extra", ctx)
    for field, key in ROOT_NAMED.items():
        extra.move(agent if field.startswith("/agent/") else out, field.rpartition("/")[2], key)
    extra.move(agent, "model_name", "model", _is_text)
    if not extra.move(agent, "version", "agent_version", _is_text):
        agent["version"] = UNKNOWN
        ctx.decide("/agent/version", "a run log records no agent version", UNKNOWN)
    if "final_metrics" not in out:
        extra.move(out, "final_metrics", "final_metrics", lambda v: _final_ok(v, steps))
    extra.place(out)
    return out


def _atif_step(step: Doc, i: int, ctx: Context) -> Doc:
    at = f"/steps/{i}"
    subs = list(dicts(step.get("substeps")))
    calls = [(j, s) for j, s in subs if s.get("type") == "tool_call"]
    results = [(j, s) for j, s in subs if s.get("type") in RESULT_TYPES]
    role = step.get("message_role")
    source = SOURCE_OF_ROLE.get(role) if isinstance(role, str) else None
    if calls and source != "agent":
        source = "agent"
        ctx.decide(f"{at}/source", "it calls tools: agent", source)
    elif source is None:
        source = "system"
        ctx.decide(f"{at}/source", "unknown role: system", source)
    out: Doc = {"step_id": i + 1}
    started = step.get("started_at")
    if isinstance(started, str) and _fits("Step/properties/timestamp", started):
        out["timestamp"] = started  # a null time is no timestamp, which the way back reads null
    out["source"] = source
    text = step.get("message_text")
    out["message"] = text if isinstance(text, str) else ""
    if not isinstance(text, str):
        ctx.decide(f"{at}/message", "a step without message text: empty", "")
    sid = step["step_id"] if isinstance(step.get("step_id"), str) else f"S{i + 1}"
    adopted = adopted_call_ids(subs)
    tool_calls = [
        _atif_call(s, (f"{at}/substeps/{j}", f"{at}/tool_calls/{k}"), sid, adopted.get(j), ctx)
        for k, (j, s) in enumerate(calls)
    ]
    if tool_calls:
        out["tool_calls"] = tool_calls
    known = {c["tool_call_id"] for c in tool_calls}
    if results:
        out["observation"] = {
            "results": [
                _atif_result(s, f"{at}/substeps/{j}", f"{at}/observation/results/{k}", known, ctx)
                for k, (j, s) in enumerate(results)
            ]
        }
    extra = _Extra(step.get("extra", _ABSENT), f"{at}/extra", ctx)
    for field, key in (*ATIF_STEP_NAMED.items(), ("message", PARTS_KEY)):
        extra.move(out, field, key)
    for key, field, ok in STEP_LIFTS if source == "agent" else ():
        if field not in out:
            extra.move(out, field, key, ok)
    if ROLE_OF_SOURCE.get(source) != role and "message_role" in step:
        extra.put("message_role", role, f"{at}/message_role", at)
    for key in STEP_NAMED:
        value = step.get(key)
        if value is not None and not (key == "summary" and value == _label(step)):
            extra.put(key, value, f"{at}/{key}", at)
    kept = [(j, s) for j, s in subs if s.get("type") not in TOOL_TYPES - {"tool_retry"}]
    if kept and extra.put(SUBSTEPS_KEY, [s for _, s in kept], None, at):
        reason = f"{ATIF} has no event for it: kept whole under a documented name"
        for n, (j, _) in enumerate(kept):
            ctx.name(f"{at}/substeps/{j}", f"{at}/extra/{SUBSTEPS_KEY}/{n}", reason)
    extra.place(out)
    return out


def _label(step: Doc) -> str | None:
    """The summary the way back writes for this run-log step (SSL-28): a step whose text is
    blank but that holds tool events is labelled, any other step gets null."""
    text = step.get("message_text")
    blank = text is None or (isinstance(text, str) and not text.strip())
    events = any(s.get("type") in TOOL_TYPES for _, s in dicts(step.get("substeps")))
    return NO_MESSAGE_SUMMARY if blank and events else None


def adopted_call_ids(subs: Sequence[tuple[int, Doc]]) -> dict[int, str]:
    """Ids for a step's tool calls that have none, from the results that answer them (SSL-29).

    Keyed by substep index. The calls without ``call_id`` and the results whose ``call_id``
    names no call of the step pair in order: the first such call with the first such result
    after it, and so on; a later result with an id already taken answers the same call. gza
    0.5.0 writes Gemini run logs this way: it reads a ``tool_use`` event's id from ``id``,
    which Gemini spells ``call_id``, so only the outputs carry it.
    """
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
    sub: Doc, where: tuple[str, str], sid: str, adopted: str | None, ctx: Context
) -> Doc:
    """The tool call of a ``tool_call`` substep (at ``where[0]``, the call at ``where[1]``)."""
    src, at = where
    payload: Doc = sub["payload"] if isinstance(sub.get("payload"), dict) else {}
    cid = sub.get("call_id")
    if not isinstance(cid, str) and adopted is not None:
        cid = adopted
        policy = "no call_id: the call_id of the result that answers it"
        ctx.decide(f"{at}/tool_call_id", policy, cid)
    elif not isinstance(cid, str):
        cid = f"{sid}.{int(src.rpartition('/')[2]) + 1}"
        ctx.decide(f"{at}/tool_call_id", "no call_id: the substep id", cid)
    name = payload.get("tool_name")
    arguments = payload.get("tool_input")
    if not isinstance(arguments, dict):
        arguments = {}
        ctx.decide(f"{at}/arguments", "tool_input is not an object: {}", {})
    out: Doc = {
        "tool_call_id": cid,
        "function_name": name if isinstance(name, str) else "",
        "arguments": arguments,
    }
    _event_extra(sub, src, at, CALL_PAYLOAD_NAMED, ctx).place(out)
    return out


def _atif_result(sub: Doc, src: str, at: str, known: set[str], ctx: Context) -> Doc:
    out: Doc = {}
    if "call_id" in sub:
        cid = sub["call_id"]
        out["source_call_id"] = cid if isinstance(cid, str) and cid in known else None
    payload: Doc = sub["payload"] if isinstance(sub.get("payload"), dict) else {}
    for key in ("output", "content"):
        if key in payload and _fits("ObservationResult/properties/content", payload[key]):
            out["content"] = payload[key]
            break
    extra = _event_extra(sub, src, at, RESULT_PAYLOAD_NAMED, ctx)
    extra.move(out, REF_KEY, REF_KEY)
    extra.place(out)
    return out


def _event_extra(sub: Doc, src: str, at: str, payload_keys: Sequence[str], ctx: Context) -> _Extra:
    """The ``extra`` of a tool call or result, with its substep's named keys: times, sources,
    legacy ids, payload flags."""
    extra = _Extra(sub.get("extra", _ABSENT), f"{src}/extra", ctx)
    for key in SUBSTEP_NAMED:
        value = sub.get(key)
        if value is not None and (key != "source" or value != default_source(str(sub["type"]))):
            extra.put(key, value, f"{src}/{key}", at)
    payload: Doc = sub["payload"] if isinstance(sub.get("payload"), dict) else {}
    for key in payload_keys:
        if key in payload:
            extra.put(key, payload[key], f"{src}/payload/{key}", at)
    return extra


# --- ATIF -> run log --------------------------------------------------------------------------


def to_ssl(doc: Doc, ctx: Context) -> Doc:
    """The run log of an ATIF v1.7 trajectory (see the module docstring)."""
    agent = doc["agent"] if isinstance(doc.get("agent"), dict) else {}
    name = agent.get("name")
    provider = name if isinstance(name, str) and name else UNKNOWN
    if not (isinstance(name, str) and name):
        ctx.decide("/provider", "an agent without a name: unknown", provider)
    out: Doc = _schema_url(doc, TO_SSL)
    out["run_id"] = _run_id(doc, ctx)
    out["provider"] = provider
    steps = doc.get("steps")
    if isinstance(steps, list) and len(steps) == 1 and same_json(steps[0], PLACEHOLDER_STEP):
        # what the other lens writes for an empty run: read as one, so both round trips hold
        ctx.decide("/steps", "only the empty step of an empty run: no step", [])
        out["steps"] = []
    else:
        out["steps"] = [_ssl_step(step, i, provider, ctx) for i, step in dicts(steps)]
    extra = _Extra(doc.get("extra", _ABSENT), "/extra", ctx)
    if isinstance(agent.get("model_name"), str):
        extra.put("model", agent["model_name"], None, "")
    version = agent.get("version")
    if isinstance(version, str) and version != UNKNOWN:  # what the way back writes without one
        extra.put("agent_version", version, None, "")
    if _final_ok(doc.get("final_metrics"), steps):
        extra.put("final_metrics", doc["final_metrics"], None, "")
    for field, key in ROOT_NAMED.items():
        owner = agent if field.startswith("/agent/") else doc
        member = field.rpartition("/")[2]
        if member in owner:
            extra.put(key, owner[member], field, "")
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
    out: Doc = {"step_id": sid, "step_index": i + 1, "provider": provider}
    out["message_role"] = ROLE_OF_SOURCE.get(str(source), "assistant")
    message = step.get("message")
    text = message if isinstance(message, str) else plain_text(message)
    if not text:
        # no text: null, as a run-log producer writes a step without a message (SSL-27)
        ctx.decide(f"{at}/message_text", "no message text: null", None)
    elif not isinstance(message, str):
        ctx.decide(f"{at}/message_text", "content parts: their text", text)
    out["message_text"] = text or None
    stamp = step.get("timestamp")
    out["started_at"] = stamp if isinstance(stamp, str) and RFC3339.match(stamp) else None
    if out["started_at"] is None and (stamp is not None or "timestamp" not in step):
        ctx.decide(f"{at}/started_at", "no RFC 3339 time with offset: null", None)
    out |= dict.fromkeys(STEP_NAMED)  # null: unknown in ATIF
    ctx.decide(f"{at}/outcome", "ATIF records no outcome: null", None)
    extra = _Extra(step.get("extra", _ABSENT), f"{at}/extra", ctx)
    out["substeps"] = _ssl_substeps(step, i, sid, extra.take_items(SUBSTEPS_KEY), ctx)
    if not text.strip() and any(s.get("type") in TOOL_TYPES for s in out["substeps"]):
        out["summary"] = NO_MESSAGE_SUMMARY
        ctx.decide(f"{at}/summary", "tool events need a summary", NO_MESSAGE_SUMMARY)
    for key in ("message_role", *STEP_NAMED):
        extra.move(out, key, key)
    if source == "agent":
        if isinstance(step.get("model_name"), str):
            extra.put("model", step["model_name"], None, at)
        if _metrics_ok(step.get("metrics")):
            extra.put("metrics", step["metrics"], None, at)
    for field, key in ATIF_STEP_NAMED.items():
        if field in step:
            extra.put(key, step[field], f"{at}/{field}", at)
    if any(p.get("type") != "text" for _, p in dicts(message)):
        extra.put(PARTS_KEY, message, f"{at}/message", at)
    extra.place(out)
    return out


def _ssl_substeps(step: Doc, i: int, sid: str, kept: list[Any], ctx: Context) -> list[Doc]:
    """The step's calls, each followed by its results (:func:`interleave`), with the substeps
    kept whole in its ``extra`` (``kept``) back at their ``substep_index``."""
    at = f"/steps/{i}"
    calls = [(f"{at}/tool_calls/{k}", c) for k, c in dicts(step.get("tool_calls"))]
    observation = step.get("observation")
    raw = observation.get("results") if isinstance(observation, dict) else None
    results = [(f"{at}/observation/results/{k}", r) for k, r in dicts(raw)]
    call_ids = {id(c) for _, c in calls}

    def call_id(item: tuple[str, Doc]) -> Any:
        obj = item[1]
        return obj.get("tool_call_id") if id(obj) in call_ids else obj.get("source_call_id")

    made: dict[int, tuple[str, Doc, Doc, _Extra]] = {}
    for ptr, obj in interleave(calls, results, call_id):
        sub, extra = _ssl_event(obj, id(obj) in call_ids, ptr, ctx)
        made[id(sub)] = (ptr, obj, sub, extra)
    generated = deque(sub for _, _, sub, _ in made.values())
    out: list[Doc] = []
    for j, _, sub in sorted((_index(sub), n, sub) for n, sub in enumerate(kept)):
        while len(out) < j and generated:
            out.append(generated.popleft())
        out.append(sub)
    out.extend(generated)
    for m, sub in enumerate(out):
        if id(sub) not in made:
            continue
        ptr, obj, _, extra = made[id(sub)]
        sub["substep_id"], sub["substep_index"] = f"{sid}.{m + 1}", m + 1
        policy = "ATIF records no event source: provider for a call, tool for its output"
        ctx.decide(f"{at}/substeps/{m}/source", policy, sub["source"])
        ctx.decide(f"{at}/substeps/{m}/timestamp", "ATIF records no event time: null", None)
        if REF_KEY in obj:
            extra.put(REF_KEY, obj[REF_KEY], f"{ptr}/{REF_KEY}", f"{at}/substeps/{m}")
        extra.place(sub)
    return out


def _index(sub: Any) -> int:
    """Where a substep kept whole goes back: its ``substep_index`` (last when it has none)."""
    index = sub.get("substep_index") if isinstance(sub, dict) else None
    if isinstance(index, int) and not isinstance(index, bool) and index >= 1:
        return index - 1
    return 1 << 30


def _ssl_event(obj: Doc, is_call: bool, ptr: str, ctx: Context) -> tuple[Doc, _Extra]:
    """The substep of an ATIF tool call or result (numbered later), with the run-log fields
    its ``extra`` names read back, and that ``extra`` (placed later)."""
    kind = "tool_call" if is_call else "tool_output"
    sub: Doc = {"substep_id": "", "substep_index": 0, "type": kind, "source": default_source(kind)}
    if is_call:
        sub["call_id"] = obj.get("tool_call_id")
        payload = {"tool_name": obj.get("function_name"), "tool_input": obj.get("arguments")}
    else:
        if "source_call_id" in obj:
            sub["call_id"] = obj["source_call_id"]
        payload = {"content": obj["content"]} if "content" in obj else {}
    sub["timestamp"] = sub["legacy_turn_id"] = sub["legacy_event_id"] = None
    extra = _Extra(obj.get("extra", _ABSENT), f"{ptr}/extra", ctx)
    for key in SUBSTEP_NAMED:
        extra.move(sub, key, key)
    for key in CALL_PAYLOAD_NAMED if is_call else RESULT_PAYLOAD_NAMED:
        extra.move(payload, key, key)
    if not is_call:
        # the type and spelling the payload implies (SSL-22): an error when flagged; Codex's
        # and Gemini's ``output`` next to an ``exit_code`` or ``status``
        code = payload.get("exit_code")
        failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
        if payload.get("is_error") is True or failed or "message" in payload:
            sub["type"] = "tool_error"
        if ("exit_code" in payload or "status" in payload) and isinstance(
            payload.get("content"), str
        ):
            payload = {("output" if k == "content" else k): v for k, v in payload.items()}
    sub["payload"] = payload
    return sub, extra


# --- the lenses -------------------------------------------------------------------------------


def _checked(source: str, mapping: Mapping) -> Mapping:
    """``mapping``, refusing a source that does not match its schema (``convert:invalid-source``
    followed by the schema findings)."""

    def run(doc: Doc, ctx: Context) -> Doc:
        validator = rs_validator(load_catalog().find(source).id)
        if not validator.is_valid(doc):
            message = f"the source is not a valid {source} document"
            raise ctx.refuse("invalid-source", "", message, findings_of(validator, doc))
        return mapping(doc, ctx)

    return run


LENSES = [
    Step(SSL, ATIF, _checked(SSL, to_atif), to_ssl),
    Step(ATIF, SSL, _checked(ATIF, to_ssl), to_atif),
]
