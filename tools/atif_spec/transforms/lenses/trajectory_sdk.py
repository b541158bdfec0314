"""ATIF v1.7 ↔ trajectory-sdk v0.4 (``spec/trajectory-sdk/MAPPING.md``).

ATIF → SDK flattens the trajectory into a transcript with :func:`atif_spec.transforms.sft.timeline`
(the same training-target and context-boundary rules as ``atif export-sft``) and cuts it into
cumulative snapshots the way the SDK's 0.4 builder does, restarting after a ``replace``
boundary. SDK → ATIF rebuilds the transcript from the snapshots and turns it back into steps,
tool calls and observation results. What a side cannot hold travels in the stash
(:mod:`atif_spec.transforms.lenses.residual`): SDK files keep it in ``telemetry.data``, ATIF
documents in the root ``extra``.

Snapshots repeat every earlier message, so an SDK file grows quadratically with the length of
the conversation. The converter shares one message object between all snapshots (memory stays
linear) and :func:`json_chunks` writes a document piece by piece, encoding each message once.
"""

from __future__ import annotations

import hashlib
import json
import math
import operator
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from atif_spec.formats.atif import key_order
from atif_spec.formats.totals import step_totals
from atif_spec.jsonio import jsontext
from atif_spec.jsonio.jsonvalues import json_int, objects, plain_text
from atif_spec.jsonio.pointers import parse_pointer
from atif_spec.transforms.changes import ChangeReport, Item
from atif_spec.transforms.lenses import ConversionError, Lens, LensOptions, refuse
from atif_spec.transforms.lenses.residual import (
    Holder,
    put_named,
    run_lens,
    same,
    take_moves,
    take_named,
)
from atif_spec.transforms.sft import Turn, timeline
from atif_spec.transforms.stash_v1 import STASH_KEY, NamedKeys, deep_copy, layer_holder, resolve
from atif_spec.validation.rules.trajectory_sdk import (
    BOUNDARY,
    compare_snapshots,
    is_restart,
    leading_system,
)

Doc = dict[str, Any]

ATIF = "atif@v1.7"
SDK = "trajectory-sdk@v0.4"
TO_SDK = f"{ATIF}->{SDK}"
TO_ATIF = f"{SDK}->{ATIF}"
DATA_SOURCE = "atif"
"""``task.data_source`` and ``telemetry.source`` of converted ATIF documents."""
UNKNOWN = "unknown"
"""``agent.name`` and ``agent.version`` of converted SDK files (the SDK has no agent identity)."""
SDK_HOLDER = Holder(("telemetry", "data"))
ATIF_HOLDER = Holder(("extra",))


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if not isinstance(value, float) or math.isfinite(value) else None


def _obj(value: Any) -> Doc | None:
    """A private copy of an object value, None for anything else."""
    return deep_copy(value) if isinstance(value, dict) else None


# --- named keys (RFC.md §4.5.3 item 8; MAPPING.md §2.2) -------------------------------------


class Names:
    """The named keys one mapping writes and the ones it reads back.

    ``write`` is None for "every named key whose place is free" (a lens run on a source of its
    own), else the exact set of target pointers to write (the way back of a converted
    document writes what the inverse lens read). ``read`` tells which source pointers hold a
    named key to read back into its field: the places the inverse lens's ``named`` declaration
    owns (RFC.md §4.5.2 item 7). ``written`` collects ``(source pointer, target pointer)`` of
    every key written, ``taken`` the pointers of every key read back. ``exact`` is set when
    the document declares the inverse lens's named keys: the members they stand for that no
    named key carries were null or absent in the original, and the way back does not synthesize
    them (DECISIONS D23).
    """

    def __init__(
        self,
        write: frozenset[str] | None = None,
        read: Callable[[str], bool] | None = None,
        *,
        exact: bool = False,
    ):
        self.write = write
        self.read = read or _nothing
        self.exact = exact
        self.written: list[tuple[str, str]] = []
        self.taken: list[str] = []
        self.source = ""
        """Pointer of the mapped document in the whole source (an embedded subagent's)."""
        self.target = ""
        """Pointer of the mapping's result in the whole target."""

    def nested(self, source: str, target: str) -> Names:
        """The names of an embedded document mapped at ``source`` into ``target`` (pointers
        relative to this mapping's document and result); lists and choices are shared."""
        inner = Names(self.write, self.read, exact=self.exact)
        inner.written, inner.taken = self.written, self.taken
        inner.source, inner.target = self.source + source, self.target + target
        return inner

    def put(
        self,
        owner: Doc,
        ptr: str,
        key: str,
        value: Any,
        source: str,
        holder: str = "extra",
        *,
        copy: bool = True,
    ) -> bool:
        """Write ``value`` as ``owner.<holder>.<key>`` (``ptr`` is the owner's pointer), unless
        the key is not to be written or the producer's ``<holder>`` holds that key (a collision:
        the value then travels in the stash). ``copy=False`` keeps ``value`` itself (shared
        snapshot messages stay shared). Whether the key was written."""
        to = f"{self.target}{ptr}/{holder}/{key}"
        if self.write is not None and to not in self.write:
            return False
        extra = owner.get(holder)
        if extra is None:
            extra = owner[holder] = {}
        if not isinstance(extra, dict) or key in extra:
            return False
        extra[key] = deep_copy(value) if copy else value
        self.written.append((self.source + source, to))
        return True

    def take(self, extra: Any, ptr: str, key: str, holder: str = "extra") -> Any:
        """The named key ``<holder>.<key>`` of the owner at ``ptr`` when it is to be read back
        (it is removed from ``extra``, the holder object), else ``_NONE``."""
        at = f"{self.source}{ptr}/{holder}/{key}"
        if not isinstance(extra, dict) or key not in extra or not self.read(at):
            return _NONE
        self.taken.append(at)
        return extra.pop(key)


def _nothing(_: str) -> bool:
    return False


_NONE: Any = object()


# --- ATIF -> SDK ------------------------------------------------------------------------------


def _message(role: str, content: str | None, **fields: Any) -> Doc:
    """An SDK message with every key, in the dataclass order (ref §7)."""
    return {
        "role": role,
        "content": content,
        "tool_calls": fields.get("tool_calls"),
        "tool_response": fields.get("tool_response"),
        "tool_definitions": None,
        "usage": fields.get("usage"),
        "finish_reason": None,
        "metadata": fields.get("metadata"),
        "reasoning": fields.get("reasoning"),
        "trainable_status": fields.get("trainable_status", "not_trainable"),
    }


def _usage(metrics: Any) -> Doc | None:
    """OpenAI-style usage from ATIF step metrics."""
    if not isinstance(metrics, dict):
        return None
    usage: Doc = {}
    prompt, completion = (
        json_int(metrics.get("prompt_tokens")),
        json_int(metrics.get("completion_tokens")),
    )
    if prompt is not None:
        usage["prompt_tokens"] = prompt
    if completion is not None:
        usage["completion_tokens"] = completion
    if prompt is not None and completion is not None:
        usage["total_tokens"] = prompt + completion
    cached = json_int(metrics.get("cached_tokens"))
    if cached is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    return usage or None


STEP_NAMES = ("finish_reason", "trainable_status", "usage")
"""Named step ``extra`` keys of SDK→ATIF (MAPPING.md §2.2): message fields ATIF has no place for."""
RESULT_NAMES = {"error": "error", "response": "response", "metadata": "tool_response_metadata"}
"""``tool_response`` member → named observation-result ``extra`` key (MAPPING.md §2.2)."""
ROOT_NAMES = {
    "task": "task",
    "reward": "reward",
    "metrics": "trajectory_metrics",
    "execution_metrics": "execution_metrics",
    "reference_trajectory": "reference_trajectory",
    "telemetry": "telemetry",
    "idx": "idx",
    "error": "error",
    "trace_id": "trace_id",
}
"""SDK root member → named root ``extra`` key of SDK→ATIF (MAPPING.md §2.2)."""
SNAPSHOT_KEYS = ("reward", "info", "trainable_status")
"""Per-snapshot members kept, one object per snapshot, in the root ``extra.snapshots``."""


def _split(extra: Any, ptr: str, keys: Any, names: Names) -> tuple[Doc | None, Doc]:
    """``extra`` without the named keys to read back (None when nothing else is left), and
    those keys' values. ``extra`` is not modified."""
    rest = _obj(extra)
    taken: Doc = {}
    for key in keys:
        value = names.take(rest, ptr, key)
        if value is not _NONE:
            taken[key] = value
    if taken and rest == {}:
        rest = None
    return rest, taken


def _sdk_message(turn: Turn, names: Names) -> Doc:
    """The SDK message of one transcript turn. Converted back from the SDK (``names.exact``),
    an assistant message whose status no named key carries had none (DECISIONS D23)."""
    step = turn.step
    ptr = f"/steps/{turn.index}"
    if turn.kind in ("system", "user"):
        metadata, named = _split(step.get("extra"), ptr, STEP_NAMES, names)
        m = _message(turn.kind, plain_text(step.get("message")), metadata=metadata)
        _restore(m, named)
        return m
    if turn.kind == "tool":
        result = turn.result or {}
        raw = result.get("content")
        content = None if raw is None else plain_text(raw)
        name = turn.call.get("function_name") if turn.call is not None else None
        k = next(i for i, r in enumerate(step["observation"]["results"]) if r is result)
        metadata, named = _split(
            result.get("extra"),
            f"{ptr}/observation/results/{k}",
            RESULT_NAMES.values(),
            names,
        )
        response: Doc = {
            "id": result.get("source_call_id"),
            "name": name if isinstance(name, str) else "",
            "arguments": {},
            "response": named.get("response", None if "error" in named else content),
            "error": named.get("error"),
            "metadata": named.get("tool_response_metadata"),
        }
        return _message("tool", content, tool_response=response, metadata=metadata)
    raw_calls = step.get("tool_calls")
    calls = (
        [
            {
                "name": c.get("function_name"),
                "arguments": deep_copy(c.get("arguments")),
                "id": c.get("tool_call_id"),
            }
            for c in objects(raw_calls)
        ]
        if isinstance(raw_calls, list)
        else None
    )
    text = plain_text(step.get("message"))
    reasoning = step.get("reasoning_content")
    metadata, named = _split(step.get("extra"), ptr, STEP_NAMES, names)
    m = _message(
        "assistant",
        None if text == "" and calls else text,
        tool_calls=calls,
        usage=_usage(step.get("metrics")),
        metadata=metadata,
        reasoning=reasoning if isinstance(reasoning, str) else None,
        trainable_status=None
        if names.exact
        else "trainable"
        if turn.trainable
        else "not_trainable",
    )
    _restore(m, named)
    return m


def _restore(m: Doc, named: Doc) -> None:
    """Put named step keys back into their message fields."""
    for key, value in named.items():
        m[key] = value


def _tool_definitions(doc: Doc) -> list[Doc] | None:
    """``agent.tool_definitions`` in the SDK's shape (function definitions only)."""
    agent = doc.get("agent")
    defs = agent.get("tool_definitions") if isinstance(agent, dict) else None
    out: list[Doc] = []
    for d in objects(defs):
        fn = d.get("function")
        if d.get("type") == "function" and isinstance(fn, dict) and isinstance(fn.get("name"), str):
            description = fn.get("description")
            parameters = fn.get("parameters")
            out.append(
                {
                    "name": fn["name"],
                    "description": description if isinstance(description, str) else "",
                    "parameters": deep_copy(parameters) if isinstance(parameters, dict) else {},
                }
            )
    return out or None


Item_ = tuple[str, Any]
"""A transcript item: ``("message", message)`` or ``("reset", [system messages])``."""


def cut(items: list[Item_]) -> list[Doc]:
    """Cumulative snapshots, as the SDK 0.4 builder cuts them (ref §5; DECISIONS D2, D3, D8,
    D9), with a restart after each reset (D18). Snapshots share the message objects."""
    snapshots: list[Doc] = []
    prefix: list[Doc] = []
    body: list[Doc] = []
    user_seen = prev_system = pending = trainable = False

    def emit() -> None:
        nonlocal pending, trainable
        status = "trainable" if trainable else "not_trainable"
        snapshots.append(
            {"messages": [*prefix, *body], "reward": None, "info": None, "trainable_status": status}
        )
        pending = trainable = False

    for kind, value in items:
        if kind == "reset":
            if pending:
                emit()
            if snapshots:
                snapshots[-1]["trainable_status"] = BOUNDARY
            prefix, body = list(value), []
            prev_system, pending, trainable = True, bool(prefix), False
            continue
        m: Doc = value
        role = m.get("role")
        if role == "system" and (user_seen or not body):
            if user_seen and not prev_system:
                prefix = [m]
            else:
                prefix.append(m)
            prev_system = pending = True
            continue
        prev_system = False
        body.append(m)
        pending = True
        trainable = trainable or m.get("trainable_status") == "trainable"
        if not user_seen:
            if role == "user":
                user_seen = True
                emit()
        elif role == "tool" or (role == "assistant" and not m.get("tool_calls")):
            emit()
    if pending:
        emit()
    return snapshots


def _seconds(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError):
        return None


def _canonical(value: Any) -> Any:
    """The content-hash form of a value: null members and ``idx`` keys dropped (ref §8)."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items() if v is not None and k != "idx"}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def _dumps(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def content_hash(doc: Doc) -> str:
    """SHA-256 of the builder's hash input (ref §8), fed snapshot by snapshot.

    The input is the trajectory without telemetry, error and trace id; each message is
    encoded once however many snapshots repeat it, and a snapshot that extends the one before
    it reuses that one's encoding.
    """
    h = hashlib.sha256()
    cache: dict[int, bytes] = {}
    prev: list[Any] = []
    joined = b""

    def encoded(m: Any) -> bytes:
        part = cache.get(id(m))
        if part is None:
            part = cache[id(m)] = _dumps(_canonical(m))
        return part

    top = {
        k: doc.get(k)
        for k in ("execution_metrics", "metrics", "model_id", "reward", "steps", "task")
        if doc.get(k) is not None
    }
    h.update(b"{")
    for n, (key, value) in enumerate(top.items()):
        h.update((b"," if n else b"") + _dumps(key) + b":")
        if key != "steps" or not isinstance(value, list):
            h.update(_dumps(_canonical(value)))
            continue
        h.update(b"[")
        for i, step in enumerate(value):
            h.update(b"," if i else b"")
            rest = {k: v for k, v in step.items() if v is not None and k != "idx"}
            h.update(b"{")
            for j, k in enumerate(sorted(rest)):
                h.update((b"," if j else b"") + _dumps(k) + b":")
                if k != "messages":
                    h.update(_dumps(_canonical(rest[k])))
                    continue
                msgs = rest[k]
                n = len(prev)
                if n and len(msgs) >= n and msgs[:n] == prev:  # C speed: shared objects
                    new = [encoded(m) for m in msgs[n:]]
                    joined = b",".join([joined, *new]) if new else joined
                else:
                    joined = b",".join([encoded(m) for m in msgs])
                prev = msgs
                h.update(b"[")
                h.update(joined)
                h.update(b"]")
            h.update(b"}")
        h.update(b"]")
    h.update(b"}")
    return h.hexdigest()


def to_sdk(doc: Doc, report: ChangeReport | None, names: Names | None = None) -> Doc:
    """The mapping ATIF v1.7 → trajectory-sdk v0.4 (MAPPING §3-§5); ``names.read`` lists the
    named ATIF keys to read back into SDK fields."""
    names = names or Names(frozenset())
    items: list[Item_] = []
    sources: dict[int, Turn] = {}
    """Identity of a message → the turn it was made from."""
    for turn in timeline(doc):
        if turn.kind == "reset":
            items.append(("reset", [_message("system", plain_text(c)) for c in turn.replacement]))
            if items[-1][1]:
                sources[id(items[-1][1][0])] = turn
        else:
            items.append(("message", _sdk_message(turn, names)))
            sources[id(items[-1][1])] = turn
    defs = _tool_definitions(doc)
    if defs is not None:
        messages = [v for k, v in items if k == "message"]
        first = next((m for m in messages if m["role"] == "system"), None) or next(
            iter(messages), None
        )
        if first is not None:
            first["tool_definitions"] = defs
    snapshots = cut(items)
    messages = [v for k, v in items if k == "message"]
    places = _first_places(snapshots)
    if names.write is None or names.write:
        _name_steps(snapshots, sources, places, names)
    assistants = [m for m in messages if m["role"] == "assistant"]
    calls = sum(len(m["tool_calls"]) for m in assistants if m["tool_calls"])
    prompt = sum((m["usage"] or {}).get("prompt_tokens", 0) for m in assistants)
    completion = sum((m["usage"] or {}).get("completion_tokens", 0) for m in assistants)
    conversation = doc.get("session_id") if isinstance(doc.get("session_id"), str) else None
    final: Doc = doc["final_metrics"] if isinstance(doc.get("final_metrics"), dict) else {}
    times = [
        t
        for t in (_seconds(s.get("timestamp")) for s in objects(doc.get("steps")))
        if t is not None
    ]
    agent: Doc = doc["agent"] if isinstance(doc.get("agent"), dict) else {}
    out: Doc = {
        "task": {
            "id": f"{DATA_SOURCE}:{conversation}" if conversation is not None else None,
            "data_source": DATA_SOURCE,
            "conversation_id": conversation,
            "num_turns": sum(1 for m in messages if m["role"] == "user"),
            "num_steps": len(snapshots),
            "total_tokens": (prompt + completion) or None,
            "total_cost": _number(final.get("total_cost_usd")),
        },
        "steps": snapshots,
        "reward": None,
        "metrics": {
            "steps": len(snapshots),
            "tokens_generated": completion or None,
            "aggregated_reward": None,
            "num_tool_calls": calls,
            "num_tool_failures": 0,
            "num_tool_response_none": None,
            "tool_error_rate": 0.0,
        },
        "execution_metrics": {
            "env_time": None,
            "llm_time": None,
            "total_time": max(times) - min(times) if len(times) > 1 else None,
            "termination_reason": "ENV_DONE",
        },
        "reference_trajectory": None,
        "telemetry": None,
        "idx": None,
        "error": None,
        "trace_id": None,
        "model_id": agent.get("model_name") if isinstance(agent.get("model_name"), str) else None,
    }
    _, root = _split(doc.get("extra"), "", ROOT_NAMES.values(), names)
    for field, key in ROOT_NAMES.items():
        if key in root and field != "telemetry":
            out[field] = root[key]
    _, per_step = _split(doc.get("extra"), "", ("snapshots",), names)
    kept = per_step.get("snapshots")
    sparse = names.exact and _sparse(kept)
    if names.exact:
        _native_messages(snapshots, places, sparse)
    if isinstance(kept, list) and len(kept) == len(snapshots):
        for snapshot, values in zip(snapshots, kept, strict=True):
            if isinstance(values, dict):
                for k in SNAPSHOT_KEYS:
                    if k in values:
                        snapshot[k] = values[k]
                    else:
                        del snapshot[k]  # the SDK file left the key out
    if names.exact:  # converted from the SDK: what no named key carries was null or absent
        if kept is None:  # no snapshots: ATIF's one empty step was decided (MAPPING §3.2)
            snapshots.clear()
        for field, key in ROOT_NAMES.items():
            if key not in root and field in ("metrics", "execution_metrics", "telemetry"):
                out[field] = None
    if "telemetry" in root or names.exact:
        out["telemetry"] = root.get("telemetry")
        return {k: v for k, v in out.items() if v is not None} if sparse else out
    digest = content_hash(out)
    data: Doc = {"conversation_id": conversation, "content_hash": digest}
    if conversation is not None:
        data["idempotency_key"] = f"{DATA_SOURCE}:{conversation}:{digest}"
    out["telemetry"] = {"source": DATA_SOURCE, "data": data}
    for key, value, field in (
        ("agent_name", agent.get("name"), "/agent/name"),
        ("agent_version", agent.get("version"), "/agent/version"),
        ("final_metrics", doc.get("final_metrics"), "/final_metrics"),
        ("trajectory_id", doc.get("trajectory_id"), "/trajectory_id"),
    ):
        if value is not None:
            names.put(out["telemetry"], "/telemetry", key, value, field, "data")
    subagents = doc.get("subagent_trajectories")
    if isinstance(subagents, list) and subagents and all(isinstance(s, dict) for s in subagents):
        inner = [
            to_sdk(sub, None, names.nested(f"/subagent_trajectories/{i}", f"{SUBAGENTS}/{i}"))
            for i, sub in enumerate(subagents)
        ]
        names.put(
            out["telemetry"],
            "/telemetry",
            "subagent_trajectories",
            inner,
            "/subagent_trajectories",
            "data",
            copy=False,
        )
    return out


SDK_STEP_NAMES = ("timestamp", "model_name")
"""ATIF step fields the SDK has no place for, as named message ``metadata`` keys of
ATIF→SDK (MAPPING.md §4.1); so is the step's ``metrics.cost_usd`` (``metadata.cost_usd``)."""
METRICS_ORDER = key_order("v1.7", "Metrics")
SDK_ROOT_NAMES = (
    "agent_name",
    "agent_version",
    "final_metrics",
    "trajectory_id",
    "subagent_trajectories",
)
"""Named ``telemetry.data`` keys of ATIF→SDK: ``agent.name``, ``agent.version``,
``final_metrics``, ``trajectory_id`` and the embedded subagents, each an SDK trajectory
(MAPPING.md §4.1)."""
REF = "subagent_trajectory_ref"
SUBAGENTS = "/telemetry/data/subagent_trajectories"
ROOT_ORDER = key_order("v1.7")
"""Where ATIF→SDK puts the embedded subagents of a trajectory."""


def _first_places(snapshots: list[Doc]) -> dict[int, tuple[int, int]]:
    """Identity of each message → ``(snapshot index, message index)`` of the place the SDK →
    ATIF lens reads it from (its transcript, MAPPING §3.1). A message it does not read (a
    replacement system prefix equal to the one before it) has none: no named key is written
    there, since none would be read back."""
    places: dict[int, tuple[int, int]] = {}
    for kind, value, where in transcript({"steps": snapshots}, None):
        _, _, i, _, *k = where.split("/")
        items = enumerate(value) if kind == "reset" else [(int(k[0]), value)]
        for n, m in items:
            places.setdefault(id(m), (int(i), n))
    return places


def _sparse(kept: Any) -> bool:
    """Whether ``extra.snapshots`` says the SDK file left out a snapshot member its builder
    writes: the file's writer leaves out null and default members (DECISIONS D25)."""
    return isinstance(kept, list) and any(
        isinstance(v, dict) and any(k not in v for k in SNAPSHOT_KEYS) for v in kept
    )


def _native_messages(
    snapshots: list[Doc], places: dict[int, tuple[int, int]], sparse: bool
) -> None:
    """Converted back from the SDK: a tool call id the SDK → ATIF lens generated
    (``tsdk-<message index>-<call index>`` at that very place) was null; with ``sparse``, null
    members and a non-assistant ``not_trainable`` status are left out (DECISIONS D25)."""
    done: set[int] = set()
    for snapshot in snapshots:
        for m in snapshot["messages"]:
            if id(m) in done:
                continue
            done.add(id(m))
            k = places.get(id(m), (0, -1))[1]
            calls = m.get("tool_calls")
            for j, c in enumerate(calls if isinstance(calls, list) else []):
                if isinstance(c, dict) and c.get("id") == f"tsdk-{k}-{j}":
                    c["id"] = None
            if not sparse:
                continue
            if m.get("role") != "assistant" and m.get("trainable_status") == "not_trainable":
                m["trainable_status"] = None
            for inner in (*objects(calls), m.get("tool_response")):
                if isinstance(inner, dict):
                    for key in [key for key, v in inner.items() if v is None]:
                        del inner[key]
            for key in [key for key, v in m.items() if v is None]:
                del m[key]


def _name_steps(
    snapshots: list[Doc],
    sources: dict[int, Turn],
    places: dict[int, tuple[int, int]],
    names: Names,
) -> None:
    """Put each step's timestamp and model name into its message's ``metadata`` (named keys;
    the pointer is the message's first place in the snapshots, where the way back reads it)."""
    where = {key: f"/steps/{i}/messages/{k}" for key, (i, k) in places.items()}
    for key_id, turn in sources.items():
        if key_id not in where:
            continue
        message = next(m for m in _find(snapshots, where[key_id]))
        if turn.kind == "tool":
            result = turn.result or {}
            ref = result.get("subagent_trajectory_ref")
            if ref is not None and isinstance(message.get("tool_response"), dict):
                k = next(
                    i for i, r in enumerate(turn.step["observation"]["results"]) if r is result
                )
                source = f"/steps/{turn.index}/observation/results/{k}/subagent_trajectory_ref"
                ptr = f"{where[key_id]}/tool_response"
                tool_response = message["tool_response"]
                names.put(tool_response, ptr, "subagent_trajectory_ref", ref, source, "metadata")
            continue
        if turn.kind == "reset":  # the first system message of the new context
            extra = turn.step.get("extra")
            policy = extra.get("context_management") if isinstance(extra, dict) else None
            if isinstance(policy, dict):
                source = f"/steps/{turn.index}/extra/context_management"
                names.put(message, where[key_id], "context_management", policy, source, "metadata")
            continue
        for key in SDK_STEP_NAMES:
            value = turn.step.get(key)
            if isinstance(value, str):
                source = f"/steps/{turn.index}/{key}"
                names.put(message, where[key_id], key, value, source, "metadata")
        metrics = turn.step.get("metrics")
        if isinstance(metrics, dict) and _number(metrics.get("cost_usd")) is not None:
            source = f"/steps/{turn.index}/metrics/cost_usd"
            names.put(message, where[key_id], "cost_usd", metrics["cost_usd"], source, "metadata")


def _find(snapshots: list[Doc], ptr: str) -> Iterator[Doc]:
    _, _, i, _, k = ptr.split("/")
    yield snapshots[int(i)]["messages"][int(k)]


# --- SDK -> ATIF ------------------------------------------------------------------------------


def _refuse(report: ChangeReport | None, what: str, message: str, ptr: str) -> ConversionError:
    return refuse(report if report is not None else ChangeReport(), what, message, ptr)


def transcript(doc: Doc, report: ChangeReport | None) -> list[tuple[str, Any, str]]:
    """The whole conversation as ``(kind, value, pointer)`` items (MAPPING §2.1).

    The last snapshot of each context segment gives the messages; a replaced system prefix is
    put back as system messages just before the messages of the snapshot that first lacks it;
    a restart after a ``summarization_boundary`` snapshot becomes a ``reset`` item holding the
    new snapshot's leading system messages.
    """
    out: list[tuple[str, Any, str]] = []
    prev: list[Any] | None = None
    prev_step: Any = None
    steps = doc.get("steps")
    for i, step in enumerate(steps if isinstance(steps, list) else []):
        msgs = step.get("messages") if isinstance(step, dict) else None
        if not isinstance(msgs, list):
            continue
        where = f"/steps/{i}/messages"
        if prev is None:
            out.extend(("message", m, f"{where}/{k}") for k, m in enumerate(msgs))
        elif is_restart(prev_step, prev, msgs):
            s = leading_system(msgs)
            out.append(("reset", msgs[:s], where))
            out.extend(("message", m, f"{where}/{k}") for k, m in enumerate(msgs[s:], start=s))
        else:
            new_from, swapped = compare_snapshots(prev, msgs)
            if new_from is None:
                raise _refuse(
                    report,
                    "broken-prefix",
                    f"step {i} does not repeat the messages of step {i - 1} (TSDK101)",
                    where,
                )
            if swapped:
                s = leading_system(msgs)
                out.extend(("message", m, f"{where}/{k}") for k, m in enumerate(msgs[:s]))
            out.extend(
                ("message", m, f"{where}/{k}")
                for k, m in enumerate(msgs[new_from:], start=new_from)
            )
        prev, prev_step = msgs, step
    return out


def _metrics(usage: Any) -> Doc | None:
    """ATIF step metrics from provider usage (OpenAI or Anthropic keys; MAPPING §2.3)."""
    if not isinstance(usage, dict):
        return None
    metrics: Doc = {}
    if "input_tokens" in usage or "output_tokens" in usage:
        parts = [
            json_int(usage.get(k))
            for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        ]
        if parts[0] is not None:
            metrics["prompt_tokens"] = sum(p or 0 for p in parts)
        if json_int(usage.get("output_tokens")) is not None:
            metrics["completion_tokens"] = usage["output_tokens"]
        if parts[1] is not None:
            metrics["cached_tokens"] = parts[1]
        return metrics or None
    for key in ("prompt_tokens", "completion_tokens"):
        if json_int(usage.get(key)) is not None:
            metrics[key] = usage[key]
    details = usage.get("prompt_tokens_details")
    if isinstance(details, dict) and json_int(details.get("cached_tokens")) is not None:
        metrics["cached_tokens"] = details["cached_tokens"]
    return metrics or None


def _decide(report: ChangeReport | None, ptr: str, policy: str, value: Any) -> None:
    if report is not None:
        report.decided.append(Item(ptr, TO_ATIF, policy, value=value, has_value=True))


class _Steps:
    """Builds ATIF steps from transcript messages, linking tool results to their calls."""

    def __init__(self, report: ChangeReport | None, names: Names) -> None:
        self.report = report
        self.names = names
        self.steps: list[Doc] = []
        self.calls: dict[str, Doc] = {}
        """Call id → the agent step that made the call (the latest one wins)."""
        self.idless: dict[str, list[tuple[Doc, str]]] = {}
        """Function name → (step, generated id) of calls that had no id."""
        self.last_agent: Doc | None = None
        self.definitions: dict[str, Doc] = {}
        self.index: dict[int, int] = {}
        """Identity of a step → its index in ``steps``."""

    def _new(self, source: str, message: Any) -> Doc:
        step: Doc = {"step_id": len(self.steps) + 1, "source": source, "message": message}
        self.index[id(step)] = len(self.steps)
        self.steps.append(step)
        return step

    def reset(self, messages: list[Any], where: str) -> None:
        step = self._new("system", "")
        step["observation"] = {
            "results": [
                {"content": m.get("content") if isinstance(m.get("content"), str) else ""}
                for m in messages
                if isinstance(m, dict)
            ]
        }
        first = messages[0] if messages and isinstance(messages[0], dict) else {}
        metadata = _obj(first.get("metadata"))
        named = self.names.take(metadata, f"{where}/0", "context_management", "metadata")
        if isinstance(named, dict):  # the boundary's own policy, named by ATIF→SDK
            step["extra"] = {"context_management": named}
            return
        policy = {"type": "compaction", "boundary": "replace"}
        step["extra"] = {"context_management": policy}
        _decide(
            self.report,
            f"/steps/{len(self.steps) - 1}/extra/context_management",
            "a restart after a summarization_boundary step is a replace boundary of type "
            "compaction (MAPPING §5)",
            policy,
        )

    def add(self, m: Any, k: int, where: str) -> None:
        if not isinstance(m, dict):
            return
        for d in objects(m.get("tool_definitions")):
            if isinstance(d.get("name"), str) and d["name"] not in self.definitions:
                self.definitions[d["name"]] = d
        role = m.get("role")
        content = m.get("content")
        if role in ("system", "user", "assistant"):
            step = self._new(
                "agent" if role == "assistant" else role,
                content if isinstance(content, str) else "",
            )
            if role == "assistant":
                self._assistant(step, m, k)
            if isinstance(m.get("metadata"), dict):
                step["extra"] = deep_copy(m["metadata"])
                taken = False
                for key in SDK_STEP_NAMES:
                    value = self.names.take(step["extra"], where, key, "metadata")
                    if value is not _NONE:
                        step[key], taken = value, True
                cost = self.names.take(step["extra"], where, "cost_usd", "metadata")
                if cost is not _NONE:
                    metrics = {**step.get("metrics", {}), "cost_usd": cost}
                    step["metrics"] = {k: metrics[k] for k in METRICS_ORDER if k in metrics}
                    taken = True
                if taken and step["extra"] == {}:
                    del step["extra"]
            self._name_message(step, m, where)
        elif role == "tool":
            self._tool(m, where)

    def _name_message(self, step: Doc, m: Doc, where: str) -> None:
        """Message fields ATIF has no place for, as named step ``extra`` keys (§2.2): a finish
        reason; the trainable status of an assistant message (of another message when it is
        not the default); provider usage that the step metrics do not give back."""
        ptr = f"/steps/{len(self.steps) - 1}"
        if m.get("finish_reason") is not None:
            self.names.put(step, ptr, "finish_reason", m["finish_reason"], f"{where}/finish_reason")
        status = m.get("trainable_status")
        if status is not None and (m.get("role") == "assistant" or status != "not_trainable"):
            self.names.put(step, ptr, "trainable_status", status, f"{where}/trainable_status")
        usage = m.get("usage")
        if usage is not None and not same(_usage(_metrics(usage)), usage):
            self.names.put(step, ptr, "usage", usage, f"{where}/usage")
        if step.get("extra") == {}:
            del step["extra"]

    def _assistant(self, step: Doc, m: Doc, k: int) -> None:
        self.last_agent = step
        if isinstance(m.get("reasoning"), str):
            step["reasoning_content"] = m["reasoning"]
        raw = m.get("tool_calls")
        if isinstance(raw, list):
            calls = []
            for j, c in enumerate(objects(raw)):
                name: str = c["name"] if isinstance(c.get("name"), str) else ""
                cid = c.get("id")
                if not isinstance(cid, str):
                    cid = f"tsdk-{k}-{j}"
                    self.idless.setdefault(name, []).append((step, cid))
                    _decide(
                        self.report,
                        f"/steps/{len(self.steps) - 1}/tool_calls/{j}/tool_call_id",
                        "a tool call without an id gets tsdk-<message index>-<call index>",
                        cid,
                    )
                self.calls[cid] = step
                args = c.get("arguments")
                calls.append(
                    {
                        "tool_call_id": cid,
                        "function_name": name,
                        "arguments": deep_copy(args) if isinstance(args, dict) else {},
                    }
                )
            step["tool_calls"] = calls
        metrics = _metrics(m.get("usage"))
        if metrics is not None:
            step["metrics"] = metrics

    def _tool(self, m: Doc, where: str) -> None:
        response = m.get("tool_response")
        result: Doc = {}
        target: Doc | None = None
        if isinstance(response, dict):
            rid, name = response.get("id"), response.get("name")
            if isinstance(rid, str) and rid in self.calls:
                target = self.calls[rid]
                result["source_call_id"] = rid
            elif isinstance(name, str) and self.idless.get(name):
                target, cid = self.idless[name].pop(0)
                result["source_call_id"] = cid
            else:
                raise _refuse(
                    self.report,
                    "unlinked-tool-response",
                    f"tool response {rid!r} answers no earlier tool call (TSDK201)",
                    f"{where}/tool_response/id",
                )
        if target is None:
            target = self.last_agent
        if target is None:
            raise _refuse(
                self.report,
                "unlinked-tool-response",
                "a tool message without tool_response comes before any assistant message",
                where,
            )
        content = m.get("content")
        reply = response.get("response") if isinstance(response, dict) else None
        if isinstance(content, str):
            result["content"] = content
        elif isinstance(reply, str):
            result["content"] = reply
        elif reply is not None:
            result["content"] = json.dumps(reply, ensure_ascii=False)
        fields: Doc = dict(response) if isinstance(response, dict) else {}
        if isinstance(fields.get("metadata"), dict):  # a subagent link named by ATIF→SDK
            meta = deep_copy(fields["metadata"])
            ref = self.names.take(meta, f"{where}/tool_response", REF, "metadata")
            if ref is not _NONE:
                result[REF] = ref
                fields["metadata"] = meta or None
        if isinstance(m.get("metadata"), dict):
            result["extra"] = deep_copy(m["metadata"])
        observation = target.setdefault("observation", {"results": []})
        ptr = f"/steps/{self.index[id(target)]}/observation/results/{len(observation['results'])}"
        observation["results"].append(result)
        if isinstance(response, dict):
            # the way back's response: null beside a named error, else the content (§2.2)
            default = result.get("content")
            for field, key in RESULT_NAMES.items():
                value = fields.get(field)
                if value is None or (field == "response" and same(value, default)):
                    continue
                if self.names.put(result, ptr, key, value, f"{where}/tool_response/{field}"):
                    default = None if field == "error" else default
            if result.get("extra") == {}:
                del result["extra"]


def to_atif(doc: Doc, report: ChangeReport | None, names: Names | None = None) -> Doc:
    """The mapping trajectory-sdk v0.4 → ATIF v1.7 (MAPPING §2), with the named keys of
    ``names`` (every free one by default)."""
    names = names or Names()
    builder = _Steps(report, names)
    for kind, value, where in transcript(doc, report):
        if kind == "reset":
            builder.reset(value, where)
        else:
            builder.add(value, int(where.rpartition("/")[2]), where)
    if not builder.steps:
        builder._new("system", "")
        _decide(report, "/steps/0", "ATIF needs one step: an empty system step", builder.steps[0])
    task: Doc = doc["task"] if isinstance(doc.get("task"), dict) else {}
    out: Doc = {"schema_version": "ATIF-v1.7"}
    conversation = task.get("conversation_id")
    task_id = task.get("id")
    if isinstance(conversation, str):
        out["session_id"] = conversation
    if isinstance(task_id, str):
        out["trajectory_id"] = task_id
    telemetry = doc.get("telemetry")
    data = _obj(telemetry.get("data")) if isinstance(telemetry, dict) else None
    named = {
        key: value
        for key in SDK_ROOT_NAMES
        if (value := builder.names.take(data, "/telemetry", key, "data")) is not _NONE
    }
    agent: Doc = {"name": UNKNOWN, "version": UNKNOWN}
    for key in ("name", "version"):
        if isinstance(named.get(f"agent_{key}"), str):
            agent[key] = named[f"agent_{key}"]
        else:
            _decide(report, f"/agent/{key}", f"the SDK records no agent {key}", UNKNOWN)
    if isinstance(doc.get("model_id"), str):
        agent["model_name"] = doc["model_id"]
    if builder.definitions:
        agent["tool_definitions"] = [
            {
                "type": "function",
                "function": {
                    k: deep_copy(d[k]) for k in ("name", "description", "parameters") if k in d
                },
            }
            for d in builder.definitions.values()
        ]
    out["agent"] = agent
    order = key_order("v1.7", "Step")
    out["steps"] = [{k: s[k] for k in order if k in s} for s in builder.steps]
    final: Doc = {
        k: v
        for k, v in step_totals(builder.steps).as_final_metrics().items()
        if k != "total_cost_usd"
    }  # RFC.md §2.4; the cost is the task's own total
    cost = _number(task.get("total_cost"))
    if cost is not None:
        final["total_cost_usd"] = cost
    final["total_steps"] = len(builder.steps)
    out["final_metrics"] = named.get("final_metrics", final)
    if "trajectory_id" in named:
        out["trajectory_id"] = named["trajectory_id"]
    if names.exact:  # converted from ATIF: what no named key carries was not there
        for key in ("trajectory_id", "final_metrics"):
            if key not in named:
                out.pop(key, None)
    subagents = named.get("subagent_trajectories")
    if isinstance(subagents, list):
        out["subagent_trajectories"] = [
            to_atif(sub, None, names.nested(f"{SUBAGENTS}/{i}", f"/subagent_trajectories/{i}"))
            if isinstance(sub, dict)
            else sub
            for i, sub in enumerate(subagents)
        ]
    for field, key in ROOT_NAMES.items():
        value = doc.get(field)
        data = value.get("data") if isinstance(value, dict) else None
        if value is None or (isinstance(data, dict) and STASH_KEY in data):
            continue  # a telemetry that holds a stash is the stash's, not the producer's
        names.put(out, "", key, value, f"/{field}")
    steps = doc.get("steps")
    if isinstance(steps, list) and steps:
        kept = [
            {k: s[k] for k in SNAPSHOT_KEYS if k in s} if isinstance(s, dict) else None
            for s in steps
        ]
        names.put(out, "", "snapshots", kept, "/steps")
    if out.get("extra") == {}:
        del out["extra"]
    return {k: out[k] for k in ROOT_ORDER if k in out}


# --- the lenses -------------------------------------------------------------------------------


def _converted(doc: Doc, holder: Holder, by: str) -> bool:
    """Whether the top layer of the stash in ``doc``'s holder was written by ``by``."""
    node: Any = doc
    for key in holder.path:
        node = node.get(key) if isinstance(node, dict) else None
    stash = node.get(STASH_KEY) if isinstance(node, dict) else None
    layers = stash.get("layers") if isinstance(stash, dict) else None
    top = layers[-1] if isinstance(layers, list) and layers else None
    return isinstance(top, dict) and top.get("by") == by and layer_holder(top) == holder.pointer


def _run(doc: Doc, report: ChangeReport, options: LensOptions, *, to_target: bool) -> Doc:
    name, inverse = (TO_SDK, TO_ATIF) if to_target else (TO_ATIF, TO_SDK)
    source_holder, target_holder = (
        (ATIF_HOLDER, SDK_HOLDER) if to_target else (SDK_HOLDER, ATIF_HOLDER)
    )
    converted = _converted(doc, source_holder, inverse)
    doc, declared = take_named(doc, source_holder, inverse)
    doc, moves = take_moves(doc, source_holder, inverse)  # files written before declarations
    tos = frozenset(e["to"] for e in moves if isinstance(e.get("to"), str))

    def read(ptr: str) -> bool:
        return ptr in tos or (declared is not None and declared.owns(ptr))

    forward_names = Names(frozenset() if converted else None, read, exact=declared is not None)
    forward, backward = (to_sdk, to_atif) if to_target else (to_atif, to_sdk)
    out = run_lens(
        doc,
        report,
        name=name,
        inverse=inverse,
        forward=lambda d, r: forward(d, r, forward_names),
        backward=lambda d, r: backward(
            d,
            r,
            Names(
                frozenset(forward_names.taken),
                frozenset(to for _, to in forward_names.written).__contains__,
                exact=bool(forward_names.written) and not options.drop,
            ),
        ),
        source_holder=source_holder,
        target_holder=target_holder,
        drop=options.drop,
        compact=True,
        compact_lists=True,
        reorder=True,
    )
    if forward_names.written:
        for source, to in forward_names.written:
            report.named.append(Item(source, name, "a named key of the target (MAPPING.md)", to=to))
        if not options.drop:
            named = _declaration(out, forward_names.written)
            put_named(out, target_holder, name, named, pushed=_converted(out, target_holder, name))
    return out


def _declaration(out: Doc, written: list[tuple[str, str]]) -> NamedKeys | None:
    """The ``named`` declaration of the keys written into ``out``, with every place its
    patterns match that holds a producer's member (``foreign``).

    A message that several snapshots repeat is one object: the key written at its first place
    is written at every place (compared by identity, walking each shared object once).
    """
    paths = [_typed(out, to) for _, to in written]
    named = NamedKeys.of(paths)
    if named is None:
        return None
    mine = {(id(resolve(out, path[:-1])), path[-1]) for path in paths}
    if not any((id(parent), key) not in mine for parent, key in _members(out, named)):
        return named
    foreign = [
        path for path in named.places(out) if (id(resolve(out, path[:-1])), path[-1]) not in mine
    ]
    return NamedKeys.of(paths, foreign)


def _typed(doc: Doc, pointer: str) -> tuple[str | int, ...]:
    """The path of ``pointer`` in ``doc`` with list indexes as ints."""
    out: list[str | int] = []
    node: Any = doc
    for token in parse_pointer(pointer):
        if isinstance(node, list):
            out.append(int(token))
            node = node[int(token)]
        else:
            out.append(token)
            node = node.get(token) if isinstance(node, dict) else None
    return tuple(out)


def _members(doc: Doc, named: NamedKeys) -> Iterator[tuple[Doc, str]]:
    """``(holder object, key)`` of every member a pattern of ``named`` matches, each holder
    object once (a list that extends the one before it by identity adds only its tail)."""
    for pattern in named.patterns:
        tokens = parse_pointer(pattern)
        nodes: list[Any] = [doc]
        for token in tokens[:-1]:
            found: list[Any] = []
            seen: set[int] = set()
            last: list[Any] = []
            for node in nodes:
                if token == "*" and isinstance(node, list):
                    extends = len(last) <= len(node) and all(map(operator.is_, last, node))
                    tail = node[len(last) :] if extends else node
                    last = node
                    for v in tail:
                        if id(v) not in seen:
                            seen.add(id(v))
                            found.append(v)
                elif isinstance(node, dict) and token in node:
                    v = node[token]
                    if id(v) not in seen:
                        seen.add(id(v))
                        found.append(v)
            nodes = found
        key = tokens[-1]
        yield from ((node, key) for node in nodes if isinstance(node, dict) and key in node)


def atif_to_sdk(doc: Doc, report: ChangeReport, options: LensOptions) -> Doc:
    """Lens ``atif@v1.7->trajectory-sdk@v0.4``."""
    return _run(doc, report, options, to_target=True)


def sdk_to_atif(doc: Doc, report: ChangeReport, options: LensOptions) -> Doc:
    """Lens ``trajectory-sdk@v0.4->atif@v1.7``."""
    return _run(doc, report, options, to_target=False)


LENSES = [
    Lens(source=ATIF, target=SDK, run=atif_to_sdk),
    Lens(source=SDK, target=ATIF, run=sdk_to_atif),
]


# --- writing ----------------------------------------------------------------------------------


def json_chunks(doc: Any) -> Iterator[bytes]:
    """Compact JSON of ``doc`` in pieces, encoding each shared object once.

    A trajectory-sdk document made by this module repeats its messages in every snapshot;
    writing the pieces as they come keeps memory linear in the conversation although the
    output grows quadratically.
    """
    cache: dict[int, bytes] = {}

    def walk(value: Any, depth: int) -> Iterator[bytes]:
        if isinstance(value, dict) and depth < 4:
            yield b"{"
            for n, (k, v) in enumerate(value.items()):
                yield (b"," if n else b"") + jsontext.dumps(k) + b":"
                yield from walk(v, depth + 1)
            yield b"}"
        elif isinstance(value, list) and depth < 4:
            yield b"["
            for n, v in enumerate(value):
                if n:
                    yield b","
                yield from walk(v, depth + 1)
            yield b"]"
        elif isinstance(value, (dict, list)):
            key = id(value)
            if key not in cache:
                cache[key] = _encode(value)
            yield cache[key]
        else:
            yield _encode(value)

    yield from walk(doc, 0)


def _encode(value: Any) -> bytes:
    return jsontext.dumps(value)
