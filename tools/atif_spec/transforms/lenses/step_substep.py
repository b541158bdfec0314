"""Step/substep run log v1.0 ↔ ATIF v1.7 (``spec/step-substep/MAPPING.md``).

A run-log step is one provider message; it becomes one ATIF step (``assistant`` → ``agent``,
``user`` and ``system`` kept). Its ``tool_call`` substeps become the step's ``tool_calls`` and its
``tool_output``/``tool_error`` substeps its ``observation.results``, linked by the call id; the
run's id and provider become ``session_id`` and ``agent.name``. The way back interleaves each
call's results after it, numbers the substeps and labels synthetic steps.

Both directions are plain mappings; everything the other side cannot hold (outcomes, summaries,
legacy ids, completion times, retries, status notes, artifacts on one side; reasoning, metrics,
model names, subagents on the other) travels in the stash of the target's root ``extra``, which
:mod:`atif_spec.transforms.lenses.residual` computes from the difference between the source and its
rebuilt form (RFC.md §4.5). Sources must match their schema; rule violations are carried over.

The named keys each lens writes (a step's outcome, a call's command, a result's exit code, ...;
``spec/step-substep/MAPPING.md``) are declared once in its stash layer (``named``, RFC.md §4.5.2
item 7); the inverse reads back exactly the declared members, each into its field.

Usage that provider-stream readers keep in named run-log ``extra`` keys (``metrics``, ``model``,
``final_metrics``) is lifted to ATIF's own fields; each lift is a value-less ``moved`` stash
entry, and the way back reads an ATIF field into run-log ``extra`` only where one names it
(``spec/step-substep/MAPPING.md`` §2.1).
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import jsonschema_rs

from atif_spec.formats.atif import key_order
from atif_spec.formats.step_substep import RESULT_TYPES, RFC3339, TOOL_TYPES
from atif_spec.formats.totals import step_totals
from atif_spec.jsonio.jsontext import canonical_json
from atif_spec.jsonio.jsonvalues import dicts, plain_text
from atif_spec.jsonio.pointers import parse_pointer
from atif_spec.jsonio.pointers import pointer as make_pointer
from atif_spec.schemas.catalog import load_catalog
from atif_spec.schemas.compiled import rs_registry, rs_validator
from atif_spec.schemas.targets import Target
from atif_spec.transforms.changes import ChangeReport, Item
from atif_spec.transforms.lenses import Lens, LensOptions, refuse
from atif_spec.transforms.lenses.residual import (
    Holder,
    put_moves,
    put_named,
    run_lens,
    same,
    take_moves,
    take_named,
)
from atif_spec.transforms.stash_v1 import (
    STASH_KEY,
    NamedKeys,
    StashError,
    deep_copy,
    insert_key,
    moved_entry,
    resolve,
)
from atif_spec.validation.schema_findings import findings_of

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

    schema: Doc = (
        {"type": "array", "items": {"$ref": f"{ATIF_SCHEMA}#/$defs/ContentPart"}}
        if name == "parts"
        else {"$ref": f"{ATIF_SCHEMA}#/$defs/{name}"}
    )
    return jsonschema_rs.validator_for(schema, registry=rs_registry())


def _obj(value: Any) -> Doc:
    """``value`` when it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


# --- named keys and lifts: moves between the two documents -------------------------------------

Path = tuple[str | int, ...]
_ABSENT: Any = object()
SUBSTEPS_KEY = "run_log_substeps"
"""ATIF step ``extra`` key holding the run-log substeps ATIF has no event for (retries, status
notes, artifacts), each as it is in the run log."""


class Move:
    """A value one lens put in the other document: from ``pointer`` (at key ``position``) in its
    source to ``to`` in its output, recorded as a value-less ``moved`` entry (RFC.md §4.5.2).

    ``to`` is a named key of an ``extra`` object, or for a lift an ATIF field (MAPPING.md §2.1).
    ``value`` is the moved object itself (identity tells whether a later undo replaced it).

    A move read from a ``named`` declaration (RFC.md §4.5.2 item 7, :func:`_declared_moves`)
    knows no source place: ``tail`` is then the field's path below the object rebuilt from the
    one holding ``to``, ``depth`` the length of that object's path in a document of the
    source format, and the value goes where a native producer writes the field.
    """

    __slots__ = ("created", "depth", "pointer", "position", "snapshot", "tail", "to", "value")

    def __init__(
        self,
        pointer: Path,
        position: int | None,
        to: Path,
        created: str | None = None,
        value: Any = None,
        *,
        tail: Path | None = None,
        depth: int = 0,
    ) -> None:
        self.pointer, self.position, self.to, self.created = pointer, position, to, created
        self.value = value
        self.snapshot = canonical_json(value)
        self.tail, self.depth = tail, depth

    def entry(self) -> Doc:
        """The ``moved`` stash entry."""
        return moved_entry(self.pointer, self.position, self.to, self.created)


def _path(pointer: str) -> Path:
    return tuple(int(t) if t.isdigit() else t for t in parse_pointer(pointer))


def _moves_of(entries: Sequence[Doc]) -> list[Move]:
    """The moves that ``moved`` stash entries record (malformed entries are skipped)."""
    out: list[Move] = []
    for entry in entries:
        pointer, to, position = entry.get("pointer"), entry.get("to"), entry.get("position")
        created = entry.get("created")
        if not (isinstance(pointer, str) and isinstance(to, str) and pointer and to):
            continue
        if position is not None and not isinstance(position, int):
            continue
        out.append(Move(_path(pointer), position, _path(to), created, None))
    return out


class _Namer:
    """Writes named keys into the output's ``extra`` objects while a mapping builds it."""

    def __init__(self, made: list[Move] | None) -> None:
        self.made = made
        self.claimed: set[tuple[int, str]] = set()
        self.named: set[tuple[int, str]] = set()
        """``(id(extra), key)`` of every named key written (not a producer's own key)."""

    def put(
        self, src: Doc, key: str, src_at: Path, dst: Doc, dst_at: Path, name: str | None = None
    ) -> bool:
        """Copy ``src[key]`` to ``dst["extra"][name or key]`` unless a producer's key is there
        (``src`` belongs to the source, which keeps it; the way back rebuilds it)."""
        name = key if name is None else name
        extra = dst.get("extra", _ABSENT)
        if extra is not _ABSENT and not isinstance(extra, dict):
            return False
        if isinstance(extra, dict) and name in extra:
            return False
        created = None
        if extra is _ABSENT:
            created, extra = "absent", {}
            dst["extra"] = extra
        value = extra[name] = deep_copy(src[key])
        self.named.add((id(extra), name))
        at = list(src).index(key)
        self._record(Move((*src_at, key), at, (*dst_at, "extra", name), created, value))
        return True

    def lift(
        self,
        src: Doc,
        key: str,
        src_at: Path,
        dst: Doc,
        field: str,
        at: int,
        dst_at: Path,
        *,
        position: int,
        record: bool = True,
    ) -> None:
        """Move ``src[key]`` (a named key of an ``extra``) to the field ``dst[field]``.

        ``position`` is the key's position in ``src`` before any key of the same ``extra`` was
        lifted: the way back puts the keys back in increasing position (:func:`_restore`)."""
        value = src.pop(key)
        insert_key(dst, field, value, at)
        if record:
            self._record(Move((*src_at, key), position, (*dst_at, field), None, value))

    def append(self, src_at: Path, value: Any, dst: Doc, dst_at: Path) -> bool:
        """Append the array element at ``src_at`` to the list ``dst["extra"][SUBSTEPS_KEY]``."""
        extra = dst.get("extra", _ABSENT)
        if extra is not _ABSENT and not isinstance(extra, dict):
            return False
        created = None
        if extra is _ABSENT:
            created, extra = "absent", {}
            dst["extra"] = extra
        held = extra.get(SUBSTEPS_KEY, _ABSENT)
        if held is _ABSENT:
            held = extra[SUBSTEPS_KEY] = []
            self.claimed.add((id(extra), SUBSTEPS_KEY))
        elif (id(extra), SUBSTEPS_KEY) not in self.claimed:
            return False  # a producer's own key
        held.append(value)
        to = (*dst_at, "extra", SUBSTEPS_KEY, len(held) - 1)
        self._record(Move(src_at, None, to, created, value))
        return True

    def _record(self, move: Move) -> None:
        if self.made is not None:
            self.made.append(move)


def _object_path(path: Path, kinds: tuple[tuple[str | type, ...], ...]) -> Path:
    """The longest prefix of ``path`` that has one of the object shapes ``kinds``."""
    for kind in kinds:
        if len(path) > len(kind) and all(
            (isinstance(t, str) and t == k) or (k is int and isinstance(t, int))
            for t, k in zip(path, kind, strict=False)
        ):
            return path[: len(kind)]
    return ()


RUN_LOG_OBJECTS: tuple[tuple[str | type, ...], ...] = (
    ("steps", int, "substeps", int),
    ("steps", int),
)
ATIF_OBJECTS: tuple[tuple[str | type, ...], ...] = (
    ("steps", int, "observation", "results", int),
    ("steps", int, "tool_calls", int),
    ("steps", int),
)


def _atif_order(depth: int, path: Path) -> tuple[str, ...] | None:
    """The schema's member order of the ATIF object at ``path`` below an owner at ``depth``
    (0: the trajectory, 2: a step), for the objects whose order the lens rebuilds."""
    if depth == 0 and path == ():
        return key_order("v1.7")
    if depth == 0 and path == ("agent",):
        return key_order("v1.7", "Agent")
    if depth == 2 and path == ():
        return key_order("v1.7", "Step")
    if depth == 5 and path == ():
        return key_order("v1.7", "ObservationResult")
    return None


CALL_PAYLOAD_ORDER = ("tool_name", "command", "tool_input", "retry_of_call_id")
"""Member order of a ``tool_call`` payload as the provider-stream reader writes it (Codex)."""
RESULT_PAYLOAD_ORDER = ("exit_code", "status", "output", "content", "is_error", "message")
"""Member order of a result payload: Codex's ``exit_code``/``status`` first, Claude's
``is_error`` after the content."""


def _ssl_order(parent: Doc, path: Path) -> tuple[str, ...] | None:
    """The member order a native run-log producer writes in the object at ``path`` below a
    substep (its ``payload``), for the named keys the way back puts there."""
    if path != ("payload",):
        return None
    return CALL_PAYLOAD_ORDER if "tool_name" in parent else RESULT_PAYLOAD_ORDER


"""Member order of ATIF v1.7's root, ``Agent`` and ``Step`` (the schema's), by (length of the
object's path, path of the member's parent below it)."""


def _restore(
    moves: Sequence[Move],
    read: Doc,
    corr: dict[Path, Doc],
    read_kinds: tuple[tuple[str | type, ...], ...],
    write_kinds: tuple[tuple[str | type, ...], ...],
) -> None:
    """Put values the other lens moved back where they were.

    ``read`` is the document being mapped (the values sit at each ``to``), ``corr`` maps its
    objects (by path) to the objects built from them, which received copies of their ``extra``:
    a named key is taken out of that copy and put at the move's ``pointer`` below the built
    object, at its key ``position`` (in increasing order, so each lands where it was; an ATIF
    field at its place in the schema's member order). A native
    field already written is replaced; a member of a free-form object already there is kept
    (the value then stays in ``extra``)."""
    emptied: dict[int, tuple[Doc, str]] = {}
    puts: list[tuple[int, int, Doc, str, Any]] = []
    order_of: dict[int, tuple[str, ...]] = {}
    for n, move in enumerate(moves):
        if len(move.to) >= 2 and move.to[-2] == SUBSTEPS_KEY:
            continue  # whole substeps: the step mapping puts them back
        value = _at(read, move.to, _ABSENT)
        read_obj = _object_path(move.to, read_kinds)
        built = corr.get(read_obj)
        if value is _ABSENT or built is None:
            continue
        if move.tail is not None:
            tail, depth = move.tail, move.depth
        else:
            write_obj = _object_path(move.pointer, write_kinds)
            tail, depth = move.pointer[len(write_obj) :], len(write_obj)
        rtail = move.to[len(read_obj) :]
        parent = _at(built, tail[:-1], None)
        key = tail[-1]
        if not isinstance(parent, dict) or not isinstance(key, str):
            continue
        if len(tail) > 1 and tail[-2] == "extra" and key in parent:
            continue  # a member of a free-form object is never overwritten
        if rtail[:1] == ("extra",) and len(rtail) == 2:
            copy = built.get("extra")
            if not isinstance(copy, dict) or rtail[1] not in copy:
                continue
            del copy[rtail[1]]
            if move.created is not None:
                emptied[id(built)] = (built, move.created)
        if move.tail is not None and write_kinds is RUN_LOG_OBJECTS and key in parent:
            parent[key] = deep_copy(value)  # a run-log field the mapping wrote (as null): in place
            continue
        parent.pop(key, None)
        order = (
            _atif_order(depth, tail[:-1])
            if write_kinds is ATIF_OBJECTS
            else _ssl_order(parent, tail[:-1])
            if move.tail is not None
            else None
        )
        if order is not None and key in order:
            order_of[id(parent)] = order
        position = move.position if move.position is not None else 1 << 30
        puts.append((position, n, parent, key, deep_copy(value)))
    for position, _, parent, key, value in sorted(puts, key=lambda p: (p[0], p[1])):
        order = order_of.get(id(parent))
        if order is not None and key in order:
            # ATIF's root, agent and steps are built in the schema's member order, without the
            # fields the stash restores later: a native field goes to its place in that order
            position = _place(parent, key, order)
        insert_key(parent, key, value, position)
    for built, created in emptied.values():
        if built.get("extra") == {}:
            if created == "null":
                built["extra"] = None
            else:
                del built["extra"]


def _place(obj: Doc, key: str, order: tuple[str, ...]) -> int:
    """The key position of ``key`` in ``obj`` by the member order ``order``."""
    rank = order.index(key)
    return next(
        (n for n, k in enumerate(obj) if k in order and order.index(k) > rank),
        len(obj),
    )


def _at(doc: Any, path: Sequence[str | int], default: Any = None) -> Any:
    """The value at ``path`` in ``doc``, or ``default``."""
    try:
        return resolve(doc, path)
    except LookupError:
        return default


# --- run log -> ATIF --------------------------------------------------------------------------

STEP_NAMED = ("completed_at", "outcome", "summary", "legacy_turn_id", "legacy_event_id")
"""Run-log step fields ATIF has no field for: the ATIF step's ``extra`` keys of the same name
(when not null; null is what the way back writes)."""
SUBSTEP_NAMED = ("timestamp", "legacy_turn_id", "legacy_event_id")
"""Run-log substep fields kept as named keys of the ATIF tool call's or result's ``extra``."""
CALL_PAYLOAD_NAMED = ("command", "retry_of_call_id")
"""``tool_call`` payload keys kept as named keys of the ATIF tool call's ``extra``."""
RESULT_PAYLOAD_NAMED = ("exit_code", "is_error", "message", "status")
"""``tool_output``/``tool_error`` payload keys kept as named keys of the result's ``extra``."""
DEFAULT_SOURCE = {"tool_call": "provider", "tool_output": "tool", "tool_error": "tool"}
"""The substep ``source`` the way back writes: the spec's emitter of each event."""


def to_atif(
    doc: Doc, report: ChangeReport | None, made: list[Move] | None = None, back: Sequence[Move] = ()
) -> Doc:
    """The ATIF v1.7 trajectory of a run log (see the module docstring).

    ``back`` are the moves of the ATIF→run-log lens (its ``moved`` entries and the members its
    ``named`` declaration covers), read back into ATIF fields; the named keys and lifts this
    mapping writes are appended to ``made``.
    """
    namer = _Namer(made)
    corr: dict[Path, Doc] = {}
    out: Doc = _schema_url(doc, TO_ATIF)
    out["schema_version"] = "ATIF-v1.7"
    run_id = doc.get("run_id")
    if isinstance(run_id, str):
        out["session_id"] = run_id
    provider = doc.get("provider")
    out["agent"] = {"name": provider if isinstance(provider, str) else UNKNOWN, "version": UNKNOWN}
    _decide(report, TO_ATIF, "/agent/version", "a run log records no agent version", UNKNOWN)
    sources = list(dicts(doc.get("steps")))
    steps = [_atif_step(step, i, report, corr) for i, step in sources]
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
    corr[()] = out
    _restore(back, doc, corr, RUN_LOG_OBJECTS, ATIF_OBJECTS)
    for i, step in sources:
        _name_step(step, i, corr[("steps", i)], namer)
    _lift(out, len(doc.get("steps") or []), namer)
    return out


def _schema_url(doc: Doc, lens: str) -> Doc:
    """``{"$schema": <the target's schema>}`` when ``doc``'s ``$schema`` names its own format's
    schema (an editor's reference: it names the document's format), else ``{}`` (the value is
    stashed)."""

    source, _, target = lens.partition("->")
    catalog = load_catalog()
    if doc.get("$schema") == catalog.find(source).id:
        return {"$schema": catalog.find(target).id}
    return {}


def _lift(out: Doc, n_source_steps: int, namer: _Namer) -> None:
    """Move usage from named ``extra`` keys to ATIF's fields, as a native producer writes it.

    Agent steps: ``extra.model`` (text) → ``model_name``; ``extra.metrics`` (a valid
    ``Metrics``) → ``metrics``. Root: ``extra.model`` → ``agent.model_name``;
    ``extra.agent_version`` (text) → ``agent.version`` (instead of ``"unknown"``);
    ``extra.final_metrics`` (a valid ``FinalMetrics`` whose totals equal the steps' totals, rule
    ATIF306) → ``final_metrics``. A field already set is never overwritten; an ``extra`` that
    held only usage is dropped. The way back writes these keys last, in this order
    (:func:`_usage_keys`): the lifts of an ``extra`` are recorded (``moved`` entries, for their
    key positions) only when its keys were in another place.
    """
    steps = out["steps"]
    if len(steps) == n_source_steps:
        for i, step in enumerate(steps):
            extra = step.get("extra")
            if step.get("source") != "agent" or not isinstance(extra, dict):
                continue
            plan: list[tuple[str, Doc, str, Path]] = []
            if isinstance(extra.get("model"), str) and "model_name" not in step:
                plan.append(("model", step, "model_name", ("steps", i)))
            if "metrics" not in step and _validator("Metrics").is_valid(extra.get("metrics")):
                plan.append(("metrics", step, "metrics", ("steps", i)))
            _lift_all(extra, ("steps", i, "extra"), plan, namer)
            if not extra and plan:
                del step["extra"]  # it held only usage: a native producer writes no extra
    extra = out.get("extra")
    if not isinstance(extra, dict):
        return
    plan = []
    if isinstance(extra.get("model"), str) and "model_name" not in out["agent"]:
        plan.append(("model", out["agent"], "model_name", ("agent",)))
    if isinstance(extra.get("agent_version"), str) and out["agent"].get("version") == UNKNOWN:
        del out["agent"]["version"]  # the decided placeholder gives way to the run's own
        plan.append(("agent_version", out["agent"], "version", ("agent",)))
    final = extra.get("final_metrics")
    if (
        "final_metrics" not in out
        and isinstance(final, dict)
        and _validator("FinalMetrics").is_valid(final)
        and _totals_agree(final, steps)
    ):
        plan.append(("final_metrics", out, "final_metrics", ()))
    _lift_all(extra, ("extra",), plan, namer)
    if not extra and plan:
        del out["extra"]


def _lift_all(extra: Doc, at: Path, plan: list[tuple[str, Doc, str, Path]], namer: _Namer) -> None:
    """Lift the keys ``plan`` names out of ``extra`` (see :func:`_lift`)."""
    keys = [key for key, *_ in plan]
    mine = namer.named | namer.claimed
    own = [k for k in extra if (id(extra), k) not in mine]
    record = own[len(own) - len(keys) :] != keys  # named keys are not the producer's
    before = list(extra)  # positions in the untouched object, as _restore reads them
    for key, owner, field, owner_at in plan:
        order = _atif_order(len(owner_at), ()) if owner_at[:1] == ("steps",) else None
        if owner_at == ():
            order = _atif_order(0, ())
        elif owner_at == ("agent",):
            order = _atif_order(0, ("agent",))
        pos = _place(owner, field, order) if order is not None else len(owner)
        position = before.index(key)
        namer.lift(extra, key, at, owner, field, pos, owner_at, position=position, record=record)


def _totals_agree(final: Doc, steps: list[Doc]) -> bool:
    """True when every total ``final`` sets equals the steps' total (rule ATIF306) and its
    ``total_steps``, if any, their number: lifting it draws no warning."""

    if "total_steps" in final and final["total_steps"] != len(steps):
        return False  # the total_steps rule would flag it
    totals = step_totals(steps).as_final_metrics()
    for name in ("total_prompt_tokens", "total_completion_tokens", "total_cached_tokens"):
        if name in final and name in totals and final[name] != totals[name]:
            return False
    cost, mine = final.get("total_cost_usd"), totals.get("total_cost_usd")
    return cost is None or mine is None or math.isclose(float(cost), float(mine), rel_tol=1e-6)


def _atif_step(step: Doc, i: int, report: ChangeReport | None, corr: dict[Path, Doc]) -> Doc:
    ptr = f"/steps/{i}"
    at: Path = ("steps", i)
    subs = [(j, s) for j, s in enumerate(step.get("substeps") or []) if isinstance(s, dict)]
    calls = [(j, s) for j, s in subs if s.get("type") == "tool_call"]
    results = [(j, s) for j, s in subs if s.get("type") in RESULT_TYPES]
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
    if isinstance(started, str) and ATIF_TIME.match(started):
        out["timestamp"] = started  # a null time is no timestamp, which the way back reads null
    out["source"] = source
    text = step.get("message_text")
    out["message"] = text if isinstance(text, str) else ""
    if not isinstance(text, str):
        _decide(report, TO_ATIF, f"{ptr}/message", "a step without message text: empty", "")
    sid = step.get("step_id") if isinstance(step.get("step_id"), str) else f"S{i + 1}"
    adopted = adopted_call_ids(subs)
    tool_calls = []
    for k, (j, s) in enumerate(calls):
        call = _atif_call(s, f"{sid}.{j + 1}", f"{ptr}/tool_calls/{k}", report, adopted.get(j))
        tool_calls.append(call)
        corr[(*at, "substeps", j)] = call
    if tool_calls:
        out["tool_calls"] = tool_calls
    known = {c["tool_call_id"] for c in tool_calls}
    if results:
        atif_results = []
        for _, (j, s) in enumerate(results):
            result = _atif_result(s, known)
            atif_results.append(result)
            corr[(*at, "substeps", j)] = result
        out["observation"] = {"results": atif_results}
    if isinstance(step.get("extra"), dict):
        out["extra"] = deep_copy(step["extra"])
    corr[at] = out
    return out


def _name_step(step: Doc, i: int, out: Doc, namer: _Namer) -> None:
    """The named keys of one ATIF step made from a run-log step (after the other lens's moves
    are read back, so that an ``extra`` made here is recorded as made here)."""
    at: Path = ("steps", i)
    subs = [(j, s) for j, s in enumerate(step.get("substeps") or []) if isinstance(s, dict)]
    calls = [(j, s) for j, s in subs if s.get("type") == "tool_call"]
    results = [(j, s) for j, s in subs if s.get("type") in RESULT_TYPES]
    tool_calls = out.get("tool_calls", [])
    role = step.get("message_role")
    if ROLE_OF_SOURCE.get(out["source"]) != role and "message_role" in step:
        namer.put(step, "message_role", at, out, at)
    for key in STEP_NAMED:
        value = step.get(key)
        if value is not None and not (key == "summary" and value == _label(step)):
            namer.put(step, key, at, out, at)
    for k, (j, s) in enumerate(calls):
        _name_substep(s, (*at, "substeps", j), tool_calls[k], (*at, "tool_calls", k), namer)
    for k, (j, s) in enumerate(results):
        dst = out["observation"]["results"][k]
        _name_substep(s, (*at, "substeps", j), dst, (*at, "observation", "results", k), namer)
    for j, s in subs:
        if s.get("type") not in TOOL_TYPES or s.get("type") == "tool_retry":
            namer.append((*at, "substeps", j), deep_copy(s), out, at)


def _label(step: Doc) -> str | None:
    """The summary the ATIF→run-log lens writes for this run-log step (SSL-28): a step whose
    text is blank but that holds tool events is labelled, any other step gets null."""
    text = step.get("message_text")
    blank = text is None or (isinstance(text, str) and not text.strip())
    subs = step.get("substeps")
    events = any(
        isinstance(s, dict) and s.get("type") in TOOL_TYPES
        for s in (subs if isinstance(subs, list) else [])
    )
    return NO_MESSAGE_SUMMARY if blank and events else None


def _name_substep(sub: Doc, src_at: Path, dst: Doc, dst_at: Path, namer: _Namer) -> None:
    """Named keys of a tool call's or result's ``extra``: times, sources, payload flags."""
    kind = sub.get("type")
    if "source" in sub and sub["source"] != DEFAULT_SOURCE.get(str(kind)):
        namer.put(sub, "source", src_at, dst, dst_at)
    for key in SUBSTEP_NAMED:
        if sub.get(key) is not None:
            namer.put(sub, key, src_at, dst, dst_at)
    payload = sub.get("payload")
    if isinstance(payload, dict):
        for key in CALL_PAYLOAD_NAMED if kind == "tool_call" else RESULT_PAYLOAD_NAMED:
            if key in payload:
                namer.put(payload, key, (*src_at, "payload"), dst, dst_at)


def adopted_call_ids(subs: Sequence[tuple[int, Doc]]) -> dict[int, str]:
    """Ids for a step's tool calls that have none, from the results that answer them (SSL-29).

    Keyed by substep index. The calls without ``call_id`` and the results whose ``call_id``
    names no call of the step pair in order: the first such call with the first such result
    after it, and so on; a later result with an id already taken answers the same call. gza
    0.5.0 writes Gemini run logs this way: it reads a ``tool_use`` event's id from ``id``,
    which Gemini spells ``call_id``, so only the outputs carry it.
    """
    named = {
        s["call_id"]
        for _, s in subs
        if s.get("type") == "tool_call" and isinstance(s.get("call_id"), str)
    }
    waiting: deque[int] = deque()
    out: dict[int, str] = {}
    taken: set[str] = set()
    for j, sub in subs:
        cid = sub.get("call_id")
        if sub.get("type") == "tool_call" and not isinstance(cid, str):
            waiting.append(j)
        elif (
            sub.get("type") in RESULT_TYPES
            and isinstance(cid, str)
            and cid not in named
            and cid not in taken
            and waiting
        ):
            out[waiting.popleft()] = cid
            taken.add(cid)
    return out


def _atif_call(
    sub: Doc, label: str, ptr: str, report: ChangeReport | None, adopted: str | None = None
) -> Doc:
    payload = _obj(sub.get("payload"))
    cid = sub.get("call_id")
    if not isinstance(cid, str) and adopted is not None:
        cid = adopted
        policy = "no call_id: the call_id of the result that answers it"
        _decide(report, TO_ATIF, f"{ptr}/tool_call_id", policy, cid)
    elif not isinstance(cid, str):
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

ROOT_NAMED: tuple[tuple[Path, str], ...] = (
    (("trajectory_id",), "trajectory_id"),
    (("agent", "extra"), "agent_extra"),
    (("agent", "tool_definitions"), "tool_definitions"),
    (("final_metrics",), "final_metrics"),
    (("notes",), "notes"),
    (("continued_trajectory_ref",), "continued_trajectory_ref"),
    (("subagent_trajectories",), "subagent_trajectories"),
)
"""ATIF root fields a run log has no field for, and the run ``extra`` key each goes to."""
ATIF_STEP_NAMED: tuple[tuple[str, str], ...] = (
    ("model_name", "model"),
    ("reasoning_effort", "reasoning_effort"),
    ("reasoning_content", "reasoning_content"),
    ("metrics", "metrics"),
    ("is_copied_context", "is_copied_context"),
    ("llm_call_count", "llm_call_count"),
)
"""ATIF step fields a run log has no field for, and the step ``extra`` key each goes to (the
provider-stream readers' names where they have one: ``model``, ``metrics``)."""
PARTS_KEY = "message_parts"
"""Step ``extra`` key of an ATIF content-part ``message`` that holds an image or audio part
(the run log's ``message_text`` holds only its text)."""


def to_ssl(
    doc: Doc, report: ChangeReport | None, made: list[Move] | None = None, back: Sequence[Move] = ()
) -> Doc:
    """The run log of an ATIF v1.7 trajectory (see the module docstring).

    ``back`` are the moves of the run-log→ATIF lens (its ``moved`` entries and the members its
    ``named`` declaration covers), read back into run-log fields; the named keys this mapping
    writes are appended to ``made``.
    """
    namer = _Namer(made)
    corr: dict[Path, Doc] = {}
    agent = _obj(doc.get("agent"))
    name = agent.get("name")
    provider = name if isinstance(name, str) and name else UNKNOWN
    if provider is UNKNOWN:
        _decide(report, TO_SSL, "/provider", "an agent without a name: unknown", provider)
    out: Doc = _schema_url(doc, TO_SSL)
    out["run_id"] = _run_id(doc, report)
    out["provider"] = provider
    steps = doc.get("steps")
    if isinstance(steps, list) and len(steps) == 1 and same(steps[0], PLACEHOLDER_STEP):
        # what the other lens writes for an empty run: read as one, so both round trips hold
        _decide(report, TO_SSL, "/steps", "only the empty step of an empty run: no step", [])
        out["steps"] = []
    else:
        out["steps"] = [
            _ssl_step(step, i, provider, report, corr, back) for i, step in dicts(steps)
        ]
    if isinstance(doc.get("extra"), dict):
        out["extra"] = deep_copy(doc["extra"])
    corr[()] = out
    _restore(back, doc, corr, ATIF_OBJECTS, RUN_LOG_OBJECTS)
    _usage_keys(doc, out)
    for field, key in ROOT_NAMED:
        owner = _at(doc, field[:-1], None)
        if isinstance(owner, dict) and field[-1] in owner:
            namer.put(owner, str(field[-1]), field[:-1], out, (), key)
    for i, step in dicts(doc.get("steps")):
        built = corr.get(("steps", i))
        for field_name, key in ATIF_STEP_NAMED:
            if built is not None and field_name in step:
                namer.put(step, field_name, ("steps", i), built, ("steps", i), key)
        parts = step.get("message")
        if built is not None and any(p.get("type") != "text" for _, p in dicts(parts)):
            namer.put(step, "message", ("steps", i), built, ("steps", i), PARTS_KEY)
    for i, k, result in _results(doc):
        at: Path = ("steps", i, "observation", "results", k)
        built = corr.get(at)
        if built is not None and "subagent_trajectory_ref" in result:
            subs = out["steps"][i]["substeps"]
            m = next(n for n, sub in enumerate(subs) if sub is built)
            namer.put(result, "subagent_trajectory_ref", at, built, ("steps", i, "substeps", m))
    _settle_results(out)
    return out


def _results(doc: Doc) -> list[tuple[int, int, Doc]]:
    """(step index, result index, result) of every observation result of an ATIF document."""
    out: list[tuple[int, int, Doc]] = []
    for i, step in dicts(doc.get("steps")):
        observation = step.get("observation")
        if isinstance(observation, dict):
            out.extend((i, k, r) for k, r in dicts(observation.get("results")))
    return out


def _usage_keys(doc: Doc, out: Doc) -> None:
    """ATIF usage under the run log's own usage keys (SSL-17): the step's ``model_name`` and
    ``metrics`` as ``extra.model`` and ``extra.metrics`` (agent steps), ``agent.model_name`` as
    run ``extra.model``, ``final_metrics`` as run ``extra.final_metrics`` when its totals agree
    with the steps'. A field mapping, not a named key: the run-log→ATIF lens lifts these keys of
    any run log back to the same fields (:func:`_lift`). A key already there is left alone."""

    def put(owner: Doc, key: str, value: Any) -> None:
        extra = owner.get("extra", _ABSENT)
        if extra is _ABSENT:
            owner["extra"] = extra = {}
        if isinstance(extra, dict) and key not in extra:
            extra[key] = deep_copy(value)

    steps = out["steps"]
    for i, step in dicts(doc.get("steps")):
        if step.get("source") != "agent" or i >= len(steps):
            continue
        if isinstance(step.get("model_name"), str):
            put(steps[i], "model", step["model_name"])
        if _validator("Metrics").is_valid(step.get("metrics")):
            put(steps[i], "metrics", step["metrics"])
    agent = doc.get("agent")
    if isinstance(agent, dict) and isinstance(agent.get("model_name"), str):
        put(out, "model", agent["model_name"])
    version = agent.get("version") if isinstance(agent, dict) else None
    if isinstance(version, str) and version != UNKNOWN:  # what the way back writes without one
        put(out, "agent_version", version)
    final = doc.get("final_metrics")
    if (
        isinstance(final, dict)
        and _validator("FinalMetrics").is_valid(final)
        and _totals_agree(final, [s for _, s in dicts(doc.get("steps"))])
    ):
        put(out, "final_metrics", final)


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


def _ssl_step(
    step: Doc,
    i: int,
    provider: str,
    report: ChangeReport | None,
    corr: dict[Path, Doc],
    back: Sequence[Move],
) -> Doc:
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
    if not text:
        # no text: null, as a run-log producer writes a step without a message (SSL-27)
        _decide(report, TO_SSL, f"{ptr}/message_text", "no message text: null", None)
    elif not isinstance(message, str):
        _decide(report, TO_SSL, f"{ptr}/message_text", "content parts: their text", text)
    out["message_text"] = text or None
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
    extra = deep_copy(step["extra"]) if isinstance(step.get("extra"), dict) else None
    kept, created = _kept_substeps(back, i, extra)
    subs = _ssl_substeps(step, i, sid, report, corr, kept)
    summary = None
    if not text.strip() and any(s["type"] in TOOL_TYPES for s in subs):
        summary = NO_MESSAGE_SUMMARY
        _decide(report, TO_SSL, f"{ptr}/summary", "tool events need a summary", summary)
    out["summary"] = summary
    out["legacy_turn_id"] = None
    out["legacy_event_id"] = None
    out["substeps"] = subs
    if extra is not None and not (created and not extra):
        out["extra"] = extra
    corr[("steps", i)] = out
    return out


def _kept_substeps(
    back: Sequence[Move], i: int, extra: Doc | None
) -> tuple[list[tuple[int, Doc]], bool]:
    """The run-log substeps the other lens kept in this ATIF step's ``extra`` (named key
    :data:`SUBSTEPS_KEY`), with their original index, taken out of ``extra`` (a copy); and
    whether the lens created that ``extra``."""
    if extra is None or not isinstance(extra.get(SUBSTEPS_KEY), list):
        return [], False
    held: list[Any] = extra[SUBSTEPS_KEY]
    found: list[tuple[int, int, bool]] = []
    for move in back:
        to, src = move.to, move.pointer
        if len(to) == 5 and to[:2] == ("steps", i) and to[2:4] == ("extra", SUBSTEPS_KEY):
            k = to[4]
            if len(src) == 4 and src[:3] == ("steps", i, "substeps") and isinstance(k, int):
                j = src[3]
                if isinstance(j, int) and 0 <= k < len(held) and isinstance(held[k], dict):
                    found.append((j, k, move.created is not None))
    if len({k for _, k, _ in found}) != len(held) or len(found) != len(held):
        return [], False  # not (all) the lens's own: the key stays in extra
    del extra[SUBSTEPS_KEY]
    kept = sorted(((j, deep_copy(held[k])) for j, k, _ in found), key=lambda x: x[0])
    return kept, any(created for _, _, created in found)


def _ssl_substeps(
    step: Doc,
    i: int,
    sid: str,
    report: ChangeReport | None,
    corr: dict[Path, Doc],
    kept: list[tuple[int, Doc]],
) -> list[Doc]:
    ptr = f"/steps/{i}/substeps"
    calls = [(k, c) for k, c in enumerate(step.get("tool_calls") or []) if isinstance(c, dict)]
    observation = step.get("observation")
    raw = observation.get("results") if isinstance(observation, dict) else None
    results = [(k, r) for k, r in enumerate(raw or []) if isinstance(r, dict)]
    call_set = _Identity([c for _, c in calls])

    def call_id(item: tuple[int, Doc]) -> Any:
        obj = item[1]
        return obj.get("tool_call_id") if obj in call_set else obj.get("source_call_id")

    made: list[tuple[Doc, Path]] = []
    for k, item in interleave(calls, results, call_id):
        is_call = item in call_set
        sub: Doc = {
            "substep_id": "",
            "substep_index": 0,
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
        at: Path = (
            ("steps", i, "tool_calls", k) if is_call else ("steps", i, "observation", "results", k)
        )
        corr[at] = sub
        made.append((sub, at))
    out = [sub for sub, _ in made]
    for j, sub in kept:
        out.insert(min(j, len(out)), sub)
    generated = {id(sub) for sub, _ in made}
    for m, sub in enumerate(out):
        if id(sub) not in generated:
            continue
        sub["substep_id"] = f"{sid}.{m + 1}"
        sub["substep_index"] = m + 1
        _decide(
            report,
            TO_SSL,
            f"{ptr}/{m}/source",
            "ATIF records no event source: provider for a call, tool for its output",
            sub["source"],
        )
        _decide(report, TO_SSL, f"{ptr}/{m}/timestamp", "ATIF records no event time: null", None)
    return out


def _settle_results(doc: Doc) -> None:
    """Give each result substep the type and payload spelling its (restored) payload implies:
    ``tool_error`` when flagged (``is_error: true``, a non-zero ``exit_code``, an error
    ``message``), and Codex/Gemini-style ``output`` for text next to an ``exit_code`` or
    ``status`` (the run-log schema's two payload styles)."""
    for _, step in dicts(doc.get("steps")):
        for _, sub in dicts(step.get("substeps")):
            if sub.get("type") != "tool_output" or not isinstance(sub.get("payload"), dict):
                continue
            payload = sub["payload"]
            code = payload.get("exit_code")
            failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
            if payload.get("is_error") is True or failed or "message" in payload:
                sub["type"] = "tool_error"
            if ("exit_code" in payload or "status" in payload) and isinstance(
                payload.get("content"), str
            ):
                sub["payload"] = {
                    ("output" if k == "content" else k): v for k, v in payload.items()
                }


class _Identity:
    """Membership by object identity (two equal tool calls are still two)."""

    def __init__(self, items: Sequence[object]) -> None:
        self.ids = {id(x) for x in items}

    def __contains__(self, item: object) -> bool:
        return id(item) in self.ids


# --- the lenses -------------------------------------------------------------------------------


def _check_source(doc: Any, target: str, report: ChangeReport) -> None:
    """Refuse a source that does not match its schema (``convert:invalid-source``)."""

    validator = rs_validator(load_catalog().find(Target.parse(target)).id)
    if validator.is_valid(doc):
        return
    error = refuse(report, "invalid-source", f"the source is not a valid {target} document")
    report.errors.extend(findings_of(validator, doc))
    raise error


def _read_tables() -> tuple[dict[tuple[int, str], tuple[int, Path]], ...]:
    """For each direction, the field each declared named key is read back into: by (path length
    of the object holding the ``extra``, key) in the document read, (path length of the object
    rebuilt from it, the field's path below that object)."""
    into_ssl: dict[tuple[int, str], tuple[int, Path]] = {}
    for key in (*STEP_NAMED, "message_role"):
        into_ssl[(2, key)] = (2, (key,))
    for depth, payload_keys in ((4, CALL_PAYLOAD_NAMED), (5, RESULT_PAYLOAD_NAMED)):
        for key in ("source", *SUBSTEP_NAMED):
            into_ssl[(depth, key)] = (4, (key,))
        for key in payload_keys:
            into_ssl[(depth, key)] = (4, ("payload", key))
    into_atif: dict[tuple[int, str], tuple[int, Path]] = {
        (0, key): (0, field) for field, key in ROOT_NAMED
    }
    for field_name, key in ATIF_STEP_NAMED:
        into_atif[(2, key)] = (2, (field_name,))
    into_atif[(2, PARTS_KEY)] = (2, ("message",))
    into_atif[(4, "subagent_trajectory_ref")] = (5, ("subagent_trajectory_ref",))
    return into_ssl, into_atif


def _declared_moves(doc: Doc, named: NamedKeys | None, *, atif: bool) -> list[Move]:
    """The moves a ``named`` declaration of the other lens covers in ``doc`` (ATIF when
    ``atif``), each read back into the field its mapping row gives (RFC.md §4.5.2 item 7).

    Run-log substeps kept whole in an ATIF step's ``extra.run_log_substeps`` go back to the
    place their ``substep_index`` gives (last when it gives none)."""
    if named is None:
        return []
    table = _read_tables()[0 if atif else 1]
    kinds = ATIF_OBJECTS if atif else RUN_LOG_OBJECTS
    out: list[Move] = []
    for place in named.places(doc):
        if atif and len(place) == 5 and place[2:4] == ("extra", SUBSTEPS_KEY):
            sub = _at(doc, place, None)
            index = sub.get("substep_index") if isinstance(sub, dict) else None
            usable = isinstance(index, int) and not isinstance(index, bool) and index >= 1
            j = index - 1 if usable and isinstance(index, int) else 1 << 30
            out.append(Move(("steps", place[1], "substeps", j), None, place, "absent"))
            continue
        obj = _object_path(place, kinds)
        rest = place[len(obj) :]
        if len(rest) != 2 or rest[0] != "extra" or not isinstance(rest[1], str):
            continue
        found = table.get((len(obj), rest[1]))
        if found is not None:
            depth, tail = found
            out.append(Move((), None, place, "absent", tail=tail, depth=depth))
    return out


def _declare(out: Doc, moves: Sequence[Move]) -> NamedKeys | None:
    """The ``named`` declaration of the named keys ``moves`` wrote into ``out``: the members
    its patterns match that the lens did not write (a producer's own) are ``foreign``."""
    written = [m.to for m in moves if _named(m)]
    named = NamedKeys.of(written)
    if named is None:
        return None
    mine = {make_pointer(*p) for p in written}
    return NamedKeys.of(written, [p for p in named.places(out) if make_pointer(*p) not in mine])


def _run(doc: Doc, report: ChangeReport, options: LensOptions, *, to_atif_: bool) -> Doc:
    _check_source(doc, SSL if to_atif_ else ATIF, report)
    name, inverse = (TO_ATIF, TO_SSL) if to_atif_ else (TO_SSL, TO_ATIF)
    there, back_to = (to_atif, to_ssl) if to_atif_ else (to_ssl, to_atif)
    first = len(report.decided)
    stashed, dropped = len(report.stashed), len(report.dropped)
    returning = _top_by(doc, inverse)
    doc, declared = take_named(doc, HOLDER, inverse)
    doc, entries = take_moves(doc, HOLDER, inverse)
    back = _moves_of(entries)
    made: list[Move] = []
    kept: list[Move] = []
    named: list[NamedKeys | None] = [None]

    def forward(d: Doc, r: ChangeReport | None) -> Doc:
        made.clear()
        return there(d, r, made, [*back, *_declared_moves(d, declared, atif=not to_atif_)])

    def backward(d: Doc, r: ChangeReport | None) -> Doc:
        # a move holds unless undoing the inverse's stash edited or replaced its value; the
        # way back reads the named keys from the declaration, as the inverse lens will
        kept[:] = [m for m in made if _holds_move(d, m)]
        named[0] = _declare(d, kept)
        lifts = [m for m in kept if not _named(m)]
        return back_to(d, r, None, [*lifts, *_declared_moves(d, named[0], atif=to_atif_)])

    out = run_lens(
        doc,
        report,
        name=name,
        inverse=inverse,
        forward=forward,
        backward=backward,
        source_holder=HOLDER,
        target_holder=HOLDER,
        drop=options.drop,
        reorder=True,
    )
    if returning and len(report.stashed) == stashed and len(report.dropped) == dropped:
        # the output is what the inverse lens was given: a lift there is that lens's field
        kept = [m for m in kept if _named(m)]
    for move in kept:
        report.named.append(
            Item(
                make_pointer(*move.pointer),
                name,
                f"{name.partition('->')[2]} has no field for it: a documented name",
                to=make_pointer(*move.to),
                loss=False,
            )
        )
    if not options.drop:
        pushed = len(report.stashed) > stashed
        lifts = [m.entry() for m in kept if not _named(m)]
        try:
            put_moves(out, HOLDER, name, lifts, pushed=pushed)
            put_named(out, HOLDER, name, named[0], pushed=pushed or bool(lifts))
        except StashError as exc:
            raise refuse(report, "stash-collision", exc.message, exc.pointer) from None
    report.decided[first:] = [i for i in report.decided[first:] if _holds(out, i.pointer, i.value)]
    return out


def _named(move: Move) -> bool:
    """True for a move into a named key (not a lift into a field of the target)."""
    to = move.to
    return (len(to) >= 2 and to[-2] == "extra") or (
        len(to) >= 3 and to[-3:-1] == ("extra", SUBSTEPS_KEY)
    )


def _top_by(doc: Doc, by: str) -> bool:
    """True when the top layer of ``doc``'s root stash was written by ``by``."""
    extra = doc.get("extra")
    stash = extra.get(STASH_KEY) if isinstance(extra, dict) else None
    layers = stash.get("layers") if isinstance(stash, dict) else None
    if not isinstance(layers, list) or not layers or not isinstance(layers[-1], dict):
        return False
    return bool(layers[-1].get("by") == by)


def _holds_move(out: Doc, move: Move) -> bool:
    """True when ``out`` still has the moved value, unchanged, at ``move.to``."""
    value = _at(out, move.to, _ABSENT)
    return value is move.value and canonical_json(value) == move.snapshot


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
