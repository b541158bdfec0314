"""Step/substep run log v1.0 ↔ ATIF v1.7 (``spec/step-substep/MAPPING.md``).

A run-log step is one provider message; it becomes one ATIF step (``assistant`` → ``agent``,
``user`` and ``system`` kept). Its ``tool_call`` substeps become the step's ``tool_calls`` and its
``tool_output``/``tool_error`` substeps its ``observation.results``, linked by the call id; the
run's id and provider become ``session_id`` and ``agent.name``. The way back interleaves each
call's results after it, numbers the substeps and labels synthetic steps.

Both directions are plain mappings; everything the other side cannot hold (outcomes, summaries,
legacy ids, completion times, retries, status notes, artifacts on one side; reasoning, metrics,
model names, subagents on the other) travels in the stash of the target's root ``extra``, which
:mod:`atif_spec.lenses.residual` computes from the difference between the source and its
rebuilt form (RFC.md §4.5). Sources must match their schema; rule violations are carried over.

Usage that provider-stream readers keep in named run-log ``extra`` keys (``metrics``, ``model``,
``final_metrics``) is lifted to ATIF's own fields; each lift is a value-less ``moved`` stash
entry, and the way back reads an ATIF field into run-log ``extra`` only where one names it
(``spec/step-substep/MAPPING.md`` §2.1).
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from atif_spec.changes import ChangeReport, Item
from atif_spec.jsonvalues import dicts, plain_text
from atif_spec.lenses import Lens, LensOptions, refuse
from atif_spec.lenses.residual import Holder, Residual, commit, run_lens, same
from atif_spec.stash import (
    STASH_KEY,
    canonical_json,
    deep_copy,
    insert_key,
    make_pointer,
    parse_pointer,
)
from atif_spec.stepsubstep.model import RESULT_TYPES, RFC3339, TOOL_TYPES

Doc = dict[str, Any]
T = TypeVar("T")

SSL = "step-substep@v1.0"
ATIF = "atif@v1.7"
TO_ATIF = f"{SSL}->{ATIF}"
TO_SSL = f"{ATIF}->{SSL}"
HOLDER = Holder(("extra",))
"""Both formats keep the stash in the root ``extra``."""

UNKNOWN = "unknown"
"""``agent.version`` of converted run logs, and the provider of ATIF agents without a name."""
PLACEHOLDER_STEP: Doc = {"step_id": 1, "source": "system", "message": ""}
"""The step an empty run gets in ATIF, which requires at least one."""
NO_MESSAGE_SUMMARY = "Tool activity without a message"
"""Summary of a converted ATIF step that calls tools with a blank message (run-log rule SSL109)."""
SOURCE_OF_ROLE = {"assistant": "agent", "user": "user", "system": "system"}
ROLE_OF_SOURCE = {"agent": "assistant", "user": "user", "system": "system"}
ATIF_SCHEMA = "https://atif-spec.org/schemas/atif/v1.7/trajectory.schema.json"
ATIF_TIME = re.compile(
    r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]"
    r"(:[0-5][0-9](\.[0-9]+)?)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?$"
)
"""The ``timestamp`` pattern of ATIF v1.7 (uppercase ``T`` and ``Z``, no leap second)."""

# --- shared helpers ---------------------------------------------------------------------------


def _decide(report: ChangeReport | None, by: str, ptr: str, policy: str, value: Any) -> None:
    if report is not None:
        report.decided.append(Item(ptr, by, policy, value=value, has_value=True))


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


def _content_ok(value: Any) -> bool:
    """True for a value ATIF's ``ObservationResult.content`` holds: text, parts or null."""
    if value is None or isinstance(value, str):
        return True
    return isinstance(value, list) and bool(_validator("parts").is_valid(value))


@functools.cache
def _validator(name: str) -> Any:
    """A validator of an ATIF v1.7 shape: ``parts``, ``Metrics`` or ``FinalMetrics``."""
    import jsonschema_rs

    from atif_spec.schemas import rs_registry

    schema: Doc = (
        {"type": "array", "items": {"$ref": f"{ATIF_SCHEMA}#/$defs/ContentPart"}}
        if name == "parts"
        else {"$ref": f"{ATIF_SCHEMA}#/$defs/{name}"}
    )
    return jsonschema_rs.validator_for(schema, registry=rs_registry())


def _obj(value: Any) -> Doc:
    """``value`` when it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


# --- run log -> ATIF --------------------------------------------------------------------------


def to_atif(doc: Doc, report: ChangeReport | None, lifts: list[Lift] | None = None) -> Doc:
    """The ATIF v1.7 trajectory of a run log (native fields only; see the module docstring).

    Usage a provider stream left in named ``extra`` keys is lifted to ATIF's own fields (see
    :func:`_lift`); each lift is appended to ``lifts`` when given.
    """
    out: Doc = {"schema_version": "ATIF-v1.7"}
    run_id = doc.get("run_id")
    if isinstance(run_id, str):
        out["session_id"] = run_id
    provider = doc.get("provider")
    out["agent"] = {"name": provider if isinstance(provider, str) else UNKNOWN, "version": UNKNOWN}
    _decide(report, TO_ATIF, "/agent/version", "a run log records no agent version", UNKNOWN)
    steps = [_atif_step(step, i, report) for i, step in dicts(doc.get("steps"))]
    if not steps:
        steps = [dict(PLACEHOLDER_STEP)]
        _decide(
            report, TO_ATIF, "/steps/0", "ATIF needs a step: an empty system step", PLACEHOLDER_STEP
        )
    for n, step in enumerate(steps, start=1):
        step["step_id"] = n
    out["steps"] = steps
    if isinstance(doc.get("extra"), dict):
        out["extra"] = deep_copy(doc["extra"])
    _lift(out, len(doc.get("steps") or []), [] if lifts is None else lifts)
    return out


class Lift:
    """A value the run-log→ATIF lens moved from a named run-log ``extra`` key to an ATIF field.

    ``path`` is its run-log place (key ``position`` in that ``extra``), ``to`` its ATIF field;
    ``value`` is the moved object itself (identity tells whether a later step replaced it).
    """

    __slots__ = ("path", "position", "snapshot", "to", "value")

    def __init__(
        self, path: tuple[str | int, ...], position: int, to: tuple[str | int, ...], value: Any
    ) -> None:
        self.path, self.position, self.to, self.value = path, position, to, value
        self.snapshot = canonical_json(value)

    def entry(self) -> Doc:
        """The value-less ``moved`` stash entry (RFC.md §4.5.2) that records the lift."""
        return {
            "op": "moved",
            "pointer": make_pointer(*self.path),
            "position": self.position,
            "to": make_pointer(*self.to),
        }


def _lift(out: Doc, n_source_steps: int, lifts: list[Lift]) -> None:
    """Move usage from named ``extra`` keys to ATIF's fields, as a native producer writes it.

    Agent steps: ``extra.metrics`` (a valid ``Metrics``) → ``metrics``; ``extra.model`` (text) →
    ``model_name``. Root: ``extra.model`` → ``agent.model_name``; ``extra.final_metrics`` (a
    valid ``FinalMetrics`` whose totals equal the steps' totals, rule ATIF306) →
    ``final_metrics``. A field already set is never overwritten.
    """
    steps = out["steps"]
    if len(steps) == n_source_steps:
        for i, step in enumerate(steps):
            extra = step.get("extra")
            if step.get("source") != "agent" or not isinstance(extra, dict):
                continue
            if isinstance(extra.get("model"), str) and "model_name" not in step:
                at = list(step).index("source") + 1
                _move(extra, "model", ("steps", i), step, ("steps", i, "model_name"), at, lifts)
            metrics = extra.get("metrics")
            if "metrics" not in step and _validator("Metrics").is_valid(metrics):
                at = list(step).index("extra")
                _move(extra, "metrics", ("steps", i), step, ("steps", i, "metrics"), at, lifts)
    extra = out.get("extra")
    if not isinstance(extra, dict):
        return
    agent = out["agent"]
    if isinstance(extra.get("model"), str) and "model_name" not in agent:
        _move(extra, "model", (), agent, ("agent", "model_name"), len(agent), lifts)
    final = extra.get("final_metrics")
    if (
        isinstance(final, dict)
        and _validator("FinalMetrics").is_valid(final)
        and _totals_agree(final, steps)
    ):
        _move(extra, "final_metrics", (), out, ("final_metrics",), list(out).index("extra"), lifts)


def _move(
    extra: Doc,
    key: str,
    src: tuple[str | int, ...],
    owner: Doc,
    to: tuple[str | int, ...],
    position: int,
    lifts: list[Lift],
) -> None:
    """Move ``extra[key]`` (the ``extra`` of run-log object ``src``) to ``owner``'s field ``to``."""
    lift = Lift((*src, "extra", key), list(extra).index(key), to, extra.pop(key))
    field = to[-1]
    assert isinstance(field, str)
    insert_key(owner, field, lift.value, position)
    lifts.append(lift)


def _totals_agree(final: Doc, steps: list[Doc]) -> bool:
    """True when every total ``final`` sets equals the steps' total (rule ATIF306) and its
    ``total_steps``, if any, their number: lifting it draws no warning."""
    import math

    from atif_spec.totals import step_totals

    if "total_steps" in final and final["total_steps"] != len(steps):
        return False  # the total_steps rule would flag it
    totals = step_totals(steps).as_final_metrics()
    for name in ("total_prompt_tokens", "total_completion_tokens", "total_cached_tokens"):
        if name in final and name in totals and final[name] != totals[name]:
            return False
    cost, mine = final.get("total_cost_usd"), totals.get("total_cost_usd")
    return cost is None or mine is None or math.isclose(float(cost), float(mine), rel_tol=1e-6)


def _atif_step(step: Doc, i: int, report: ChangeReport | None) -> Doc:
    ptr = f"/steps/{i}"
    subs = [s for _, s in dicts(step.get("substeps"))]
    calls = [(j, s) for j, s in enumerate(subs) if s.get("type") == "tool_call"]
    results = [s for s in subs if s.get("type") in RESULT_TYPES]
    role = step.get("message_role")
    source = SOURCE_OF_ROLE.get(role) if isinstance(role, str) else None
    if calls and source != "agent":
        source = "agent"
        _decide(report, TO_ATIF, f"{ptr}/source", "it calls tools: agent", source)
    elif source is None:
        source = "system"
        _decide(report, TO_ATIF, f"{ptr}/source", "unknown role: system", source)
    out: Doc = {"step_id": i + 1}
    started = step.get("started_at")
    if started is None and "started_at" in step:
        out["timestamp"] = None
    elif isinstance(started, str) and ATIF_TIME.match(started):
        out["timestamp"] = started
    out["source"] = source
    text = step.get("message_text")
    out["message"] = text if isinstance(text, str) else ""
    if not isinstance(text, str):
        _decide(report, TO_ATIF, f"{ptr}/message", "a step without message text: empty", "")
    sid = step.get("step_id") if isinstance(step.get("step_id"), str) else f"S{i + 1}"
    tool_calls = [
        _atif_call(s, f"{sid}.{j + 1}", f"{ptr}/tool_calls/{k}", report)
        for k, (j, s) in enumerate(calls)
    ]
    if tool_calls:
        out["tool_calls"] = tool_calls
    known = {c["tool_call_id"] for c in tool_calls}
    if results:
        out["observation"] = {"results": [_atif_result(s, known) for s in results]}
    if isinstance(step.get("extra"), dict):
        out["extra"] = deep_copy(step["extra"])
    return out


def _atif_call(sub: Doc, label: str, ptr: str, report: ChangeReport | None) -> Doc:
    payload = _obj(sub.get("payload"))
    cid = sub.get("call_id")
    if not isinstance(cid, str):
        cid = label
        _decide(report, TO_ATIF, f"{ptr}/tool_call_id", "no call_id: the substep id", cid)
    name = payload.get("tool_name")
    arguments = payload.get("tool_input")
    if not isinstance(arguments, dict):
        arguments = {}
        _decide(report, TO_ATIF, f"{ptr}/arguments", "tool_input is not an object: {}", {})
    out: Doc = {
        "tool_call_id": cid,
        "function_name": name if isinstance(name, str) else "",
        "arguments": deep_copy(arguments),
    }
    if isinstance(sub.get("extra"), dict):
        out["extra"] = deep_copy(sub["extra"])
    return out


def _atif_result(sub: Doc, known: set[str]) -> Doc:
    out: Doc = {}
    if "call_id" in sub:
        cid = sub["call_id"]
        out["source_call_id"] = cid if isinstance(cid, str) and cid in known else None
    payload = _obj(sub.get("payload"))
    for key in ("output", "content"):
        if key in payload and _content_ok(payload[key]):
            out["content"] = deep_copy(payload[key])
            break
    if isinstance(sub.get("extra"), dict):
        out["extra"] = deep_copy(sub["extra"])
    return out


# --- ATIF -> run log --------------------------------------------------------------------------


def to_ssl(doc: Doc, report: ChangeReport | None, lifts: Sequence[Lift] = ()) -> Doc:
    """The run log of an ATIF v1.7 trajectory (native fields only; see the module docstring).

    ``lifts`` are the values the run-log→ATIF lens moved to ATIF fields (its ``moved`` stash
    entries): each is read back into its run-log ``extra`` key; no other ATIF field is.
    """
    agent = _obj(doc.get("agent"))
    name = agent.get("name")
    provider = name if isinstance(name, str) and name else UNKNOWN
    if provider is UNKNOWN:
        _decide(report, TO_SSL, "/provider", "an agent without a name: unknown", provider)
    out: Doc = {"run_id": _run_id(doc, report), "provider": provider}
    out["steps"] = [_ssl_step(step, i, provider, report) for i, step in dicts(doc.get("steps"))]
    if isinstance(doc.get("extra"), dict):
        out["extra"] = deep_copy(doc["extra"])
    for lift in reversed(lifts):
        _unlift(doc, out, lift)
    return out


def _at(doc: Any, path: Sequence[str | int]) -> Any:
    """The value at ``path`` in ``doc``, or None."""
    node = doc
    for token in path:
        if isinstance(node, dict) and isinstance(token, str):
            node = node.get(token)
        elif isinstance(node, list) and isinstance(token, int) and 0 <= token < len(node):
            node = node[token]
        else:
            return None
    return node


def _unlift(atif: Doc, out: Doc, lift: Lift) -> None:
    """Put a lifted value back under its run-log ``extra`` key (when both places allow)."""
    parent = _at(atif, lift.to[:-1])
    extra = _at(out, lift.path[:-1])
    key = lift.path[-1]
    if not isinstance(parent, dict) or lift.to[-1] not in parent:
        return
    if not isinstance(extra, dict) or not isinstance(key, str) or key in extra:
        return
    insert_key(extra, key, deep_copy(parent[lift.to[-1]]), lift.position)


def _lifts_of(entries: Sequence[Any]) -> list[Lift]:
    """The lifts that ``moved`` stash entries record (malformed entries are skipped)."""
    out: list[Lift] = []
    for entry in entries:
        pointer, to, position = entry.get("pointer"), entry.get("to"), entry.get("position")
        if not (isinstance(pointer, str) and isinstance(to, str) and isinstance(position, int)):
            continue
        path = tuple(int(t) if t.isdigit() else t for t in parse_pointer(pointer))
        dest = tuple(int(t) if t.isdigit() else t for t in parse_pointer(to))
        if len(path) >= 2 and path[-2] == "extra" and dest:
            out.append(Lift(path, position, dest, None))
    return out


def _run_id(doc: Doc, report: ChangeReport | None) -> str:
    for key in ("session_id", "trajectory_id"):
        value = doc.get(key)
        if isinstance(value, str) and value:
            if key != "session_id":
                _decide(report, TO_SSL, "/run_id", "no session_id: the trajectory_id", value)
            return value
    value = "run-" + hashlib.sha256(canonical_json(doc)).hexdigest()[:16]
    _decide(report, TO_SSL, "/run_id", "no id: run- and 16 hex digits of its SHA-256", value)
    return value


def _ssl_step(step: Doc, i: int, provider: str, report: ChangeReport | None) -> Doc:
    ptr = f"/steps/{i}"
    sid = f"S{i + 1}"
    source = step.get("source")
    out: Doc = {
        "step_id": sid,
        "step_index": i + 1,
        "provider": provider,
        "message_role": ROLE_OF_SOURCE.get(source, "assistant")
        if isinstance(source, str)
        else "assistant",
    }
    message = step.get("message")
    text = message if isinstance(message, str) else plain_text(message)
    if not isinstance(message, str):
        _decide(report, TO_SSL, f"{ptr}/message_text", "content parts: their text", text)
    out["message_text"] = text
    stamp = step.get("timestamp")
    if isinstance(stamp, str) and RFC3339.match(stamp):
        out["started_at"] = stamp
    else:
        out["started_at"] = None
        if stamp is not None or "timestamp" not in step:
            _decide(report, TO_SSL, f"{ptr}/started_at", "no RFC 3339 time with offset: null", None)
    out["completed_at"] = None
    out["outcome"] = None
    _decide(report, TO_SSL, f"{ptr}/outcome", "ATIF records no outcome: null", None)
    subs = _ssl_substeps(step, sid, f"{ptr}/substeps", report)
    summary = None
    if not text.strip() and any(s["type"] in TOOL_TYPES for s in subs):
        summary = NO_MESSAGE_SUMMARY
        _decide(report, TO_SSL, f"{ptr}/summary", "tool events need a summary", summary)
    out["summary"] = summary
    out["legacy_turn_id"] = None
    out["legacy_event_id"] = None
    out["substeps"] = subs
    if isinstance(step.get("extra"), dict):
        out["extra"] = deep_copy(step["extra"])
    return out


def _ssl_substeps(step: Doc, sid: str, ptr: str, report: ChangeReport | None) -> list[Doc]:
    calls = [c for _, c in dicts(step.get("tool_calls"))]
    observation = step.get("observation")
    results = (
        [r for _, r in dicts(observation.get("results"))] if isinstance(observation, dict) else []
    )

    calls_ids = _Identity(calls)

    def call_id(item: Doc) -> Any:
        return item.get("tool_call_id") if item in calls_ids else item.get("source_call_id")

    out: list[Doc] = []
    for m, item in enumerate(interleave(calls, results, call_id)):
        is_call = item in calls_ids
        sub: Doc = {
            "substep_id": f"{sid}.{m + 1}",
            "substep_index": m + 1,
            "type": "tool_call" if is_call else "tool_output",
            "source": "provider" if is_call else "tool",
        }
        if is_call:
            sub["call_id"] = item.get("tool_call_id")
            sub["payload"] = {
                "tool_name": item.get("function_name"),
                "tool_input": deep_copy(item.get("arguments")),
            }
        else:
            if "source_call_id" in item:
                sub["call_id"] = item["source_call_id"]
            sub["payload"] = {"content": deep_copy(item["content"])} if "content" in item else {}
        sub["timestamp"] = None
        sub["legacy_turn_id"] = None
        sub["legacy_event_id"] = None
        if isinstance(item.get("extra"), dict):
            sub["extra"] = deep_copy(item["extra"])
        _decide(
            report,
            TO_SSL,
            f"{ptr}/{m}/source",
            "ATIF records no event source: provider for a call, tool for its output",
            sub["source"],
        )
        _decide(report, TO_SSL, f"{ptr}/{m}/timestamp", "ATIF records no event time: null", None)
        out.append(sub)
    return out


class _Identity:
    """Membership by object identity (two equal tool calls are still two)."""

    def __init__(self, items: Sequence[object]) -> None:
        self.ids = {id(x) for x in items}

    def __contains__(self, item: object) -> bool:
        return id(item) in self.ids


# --- the lenses -------------------------------------------------------------------------------


def _check_source(doc: Any, target: str, report: ChangeReport) -> None:
    """Refuse a source that does not match its schema (``convert:invalid-source``)."""
    from atif_spec.catalog import load_catalog
    from atif_spec.schema_findings import findings_from_errors
    from atif_spec.schemas import rs_validator
    from atif_spec.targets import Target

    validator = rs_validator(load_catalog().find(Target.parse(target)).id)
    if validator.is_valid(doc):
        return
    error = refuse(report, "invalid-source", f"the source is not a valid {target} document")
    report.errors.extend(findings_from_errors(validator.iter_errors(doc)))
    raise error


def _run(doc: Doc, report: ChangeReport, options: LensOptions, *, to_atif_: bool) -> Doc:
    _check_source(doc, SSL if to_atif_ else ATIF, report)
    first = len(report.decided)
    stashed = len(report.stashed)
    lifted: list[Lift] = []
    kept: list[Lift] = []
    if to_atif_:

        def forward(d: Doc, r: ChangeReport | None) -> Doc:
            return to_atif(d, r, lifted)

        def backward(d: Doc, r: ChangeReport | None) -> Doc:
            # a lift holds unless undoing the inverse's stash edited it or refilled its key
            kept[:] = [x for x in lifted if _holds_lift(d, x)]
            return to_ssl(d, r, kept)

    else:
        doc, lifts = _take_moves(doc)

        def forward(d: Doc, r: ChangeReport | None) -> Doc:
            return to_ssl(d, r, lifts)

        def backward(d: Doc, r: ChangeReport | None) -> Doc:
            return to_atif(d, r)

    out = run_lens(
        doc,
        report,
        name=TO_ATIF if to_atif_ else TO_SSL,
        inverse=TO_SSL if to_atif_ else TO_ATIF,
        forward=forward,
        backward=backward,
        source_holder=HOLDER,
        target_holder=HOLDER,
        drop=options.drop,
    )
    if kept and not options.drop:
        _record_moves(out, kept, ours=len(report.stashed) > stashed)
    report.decided[first:] = [i for i in report.decided[first:] if _holds(out, i.pointer, i.value)]
    return out


def _holds_lift(atif: Doc, lift: Lift) -> bool:
    """True when ``atif`` still has the lifted value, unchanged, and nothing at its old key
    (run-log and ATIF ``extra`` objects sit at the same paths)."""
    extra = _at(atif, lift.path[:-1])
    if isinstance(extra, dict) and lift.path[-1] in extra:
        return False
    value = _at(atif, lift.to)
    return value is lift.value and canonical_json(value) == lift.snapshot


def _record_moves(out: Doc, lifts: list[Lift], *, ours: bool) -> None:
    """Put the ``moved`` entries of ``lifts`` first in this lens's layer (made when absent)."""
    entries = [x.entry() for x in lifts]
    if ours:
        layer = out["extra"][STASH_KEY]["layers"][-1]
        layer["entries"][:0] = entries
    else:
        commit(out, HOLDER, TO_ATIF, [Residual(e, ()) for e in entries])


def _take_moves(doc: Doc) -> tuple[Doc, list[Lift]]:
    """``doc`` without the ``moved`` entries of the run-log→ATIF layers on top of its stash
    (which the way back undoes itself), and the lifts they record. ``doc`` is not modified."""
    extra = doc.get("extra")
    stash = extra.get(STASH_KEY) if isinstance(extra, dict) else None
    if not isinstance(extra, dict) or not isinstance(stash, dict):
        return doc, []
    layers = stash.get("layers")
    if not isinstance(layers, list):
        return doc, []
    new = list(layers)
    found: list[Any] = []
    for n in range(len(new) - 1, -1, -1):
        layer = new[n]
        if not isinstance(layer, dict) or layer.get("by") != TO_ATIF:
            break
        if layer.get("holder") != HOLDER.pointer or not isinstance(layer.get("entries"), list):
            break
        moves = [e for e in layer["entries"] if isinstance(e, dict) and e.get("op") == "moved"]
        found[:0] = moves
        new[n] = {**layer, "entries": [e for e in layer["entries"] if e not in moves]}
    if not found:
        return doc, []
    return {**doc, "extra": {**extra, STASH_KEY: {**stash, "layers": new}}}, _lifts_of(found)


def _holds(doc: Any, ptr: str, value: Any) -> bool:
    """True when ``doc`` has ``value`` at ``ptr``: a decision the stash did not undo."""
    node = doc
    for token in parse_pointer(ptr):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False
    return same(node, value)


def ssl_to_atif(doc: Doc, report: ChangeReport, options: LensOptions) -> Doc:
    """Lens ``step-substep@v1.0->atif@v1.7``."""
    return _run(doc, report, options, to_atif_=True)


def atif_to_ssl(doc: Doc, report: ChangeReport, options: LensOptions) -> Doc:
    """Lens ``atif@v1.7->step-substep@v1.0``."""
    return _run(doc, report, options, to_atif_=False)


LENSES = [
    Lens(source=SSL, target=ATIF, run=ssl_to_atif),
    Lens(source=ATIF, target=SSL, run=atif_to_ssl),
]
