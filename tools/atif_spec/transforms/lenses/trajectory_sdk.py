"""ATIF v1.7 ↔ trajectory-sdk v0.4 (``spec/trajectory-sdk/MAPPING.md``): one driver step each way.

ATIF → SDK flattens the trajectory into a transcript with :func:`atif_spec.transforms.sft.timeline`
(the same training-target and context-boundary rules as ``atif export-sft``) and cuts it into
cumulative snapshots the way the SDK's 0.4 builder does, restarting after a ``replace``
boundary. SDK → ATIF rebuilds the transcript from the snapshots and turns it back into steps,
tool calls and observation results. Both are plain mappings of :mod:`atif_spec.transforms.driver`,
which keeps what a side cannot hold in the stash (SDK files: ``telemetry.data``).

Named keys (MAPPING.md): a mapping writes each one whose place is free, unless its input was
converted by the inverse step (the driver lets it read named keys back): then it rebuilds the
native document, in its writer's style, and writes none (DECISIONS D23, D25).

Snapshots repeat every earlier message, so an SDK file grows quadratically with the length of
the conversation. The mappings share one message object between all snapshots (memory, the
driver's diff and :func:`content_hash` stay linear in the conversation) and :func:`json_chunks`
writes a document piece by piece, encoding each message once.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from atif_spec.formats.atif import key_order
from atif_spec.formats.totals import step_totals
from atif_spec.jsonio import jsontext
from atif_spec.jsonio.jsonequal import same_json
from atif_spec.jsonio.jsonvalues import json_int, objects, plain_text
from atif_spec.transforms.driver import Context, Refused, Step
from atif_spec.transforms.sft import Turn, timeline
from atif_spec.validation.rules.trajectory_sdk import (
    BOUNDARY,
    compare_snapshots,
    is_restart,
    leading_system,
)

Doc = dict[str, Any]

ATIF = "atif@v1.7"
SDK = "trajectory-sdk@v0.4"
DATA_SOURCE = "atif"
"""``task.data_source`` and ``telemetry.source`` of converted ATIF documents."""
UNKNOWN = "unknown"
"""``agent.name`` and ``agent.version`` of converted SDK files (the SDK has no agent identity)."""
NAMED = "a named key of the target (MAPPING.md)"

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
SDK_STEP_NAMES = ("timestamp", "model_name", "cost_usd")
"""Named message ``metadata`` keys of ATIF→SDK (MAPPING.md §4.1): a step's ``timestamp``,
``model_name`` and ``metrics.cost_usd``, which the SDK has no place for."""
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
"""Where ATIF→SDK puts the embedded subagents of a trajectory."""
ROOT_ORDER = key_order("v1.7")
STEP_ORDER = key_order("v1.7", "Step")
METRICS_ORDER = key_order("v1.7", "Metrics")


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if not isinstance(value, float) or math.isfinite(value) else None


class _Names:
    """The named keys of one mapping run, through its context, for the document mapped from
    ``source`` (a pointer in the input) to ``target`` (in the output): an embedded subagent's.

    ``exact``: the input was converted by the inverse step (the driver lets the mapping read
    named keys back); the mapping then writes none (DECISIONS D23)."""

    def __init__(self, ctx: Context, source: str = "", target: str = "") -> None:
        self.ctx, self.source, self.target = ctx, source, target
        self.exact = bool(ctx.reads)

    def nested(self, source: str, target: str) -> _Names:
        return _Names(self.ctx, self.source + source, self.target + target)

    def split(self, holder: Any, ptr: str, keys: Iterable[str]) -> tuple[Doc | None, Doc]:
        """``holder`` (the object at ``ptr``) without the named keys to read back (None when
        it is no object, or nothing else is left), and those keys' values."""
        if not isinstance(holder, dict):
            return None, {}
        at = self.source + ptr
        taken = {k: holder[k] for k in keys if k in holder and self.ctx.read(f"{at}/{k}")}
        if not taken:
            return holder, {}
        return {k: v for k, v in holder.items() if k not in taken} or None, taken

    def put(self, owner: Doc, ptr: str, holder: str, key: str, value: Any, source: str) -> bool:
        """Write ``value`` as ``<holder>.<key>`` of ``owner`` (the mapping's own object, at
        ``ptr``), unless the mapping writes no named key or the place holds a producer's member
        (the value then travels in the stash). Whether it was written."""
        extra = owner.get(holder)
        if self.exact or not (extra is None or (isinstance(extra, dict) and key not in extra)):
            return False
        owner[holder] = {**(extra or {}), key: value}
        self.ctx.name(self.source + source, f"{self.target}{ptr}/{holder}/{key}", NAMED)
        return True

    def decide(self, ptr: str, policy: str, value: Any) -> None:
        self.ctx.decide(self.target + ptr, policy, value)

    def refuse(self, code: str, ptr: str, message: str) -> Refused:
        return self.ctx.refuse(code, self.source + ptr, message)


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


def _sdk_message(turn: Turn, names: _Names) -> Doc:
    """The SDK message of one transcript turn, with the named step keys read back into their
    fields. Converted back from the SDK (``names.exact``), an assistant message whose status no
    named key carries had none (DECISIONS D23)."""
    step = turn.step
    ptr = f"/steps/{turn.index}"
    if turn.kind == "tool":
        result = turn.result or {}
        raw = result.get("content")
        content = None if raw is None else plain_text(raw)
        name = turn.call.get("function_name") if turn.call is not None else None
        k = next(i for i, r in enumerate(step["observation"]["results"]) if r is result)
        where = f"{ptr}/observation/results/{k}/extra"
        metadata, named = names.split(result.get("extra"), where, RESULT_NAMES.values())
        response: Doc = {
            "id": result.get("source_call_id"),
            "name": name if isinstance(name, str) else "",
            "arguments": {},
            "response": named.get("response", None if "error" in named else content),
            "error": named.get("error"),
            "metadata": named.get("tool_response_metadata"),
        }
        return _message("tool", content, tool_response=response, metadata=metadata)
    metadata, named = names.split(step.get("extra"), f"{ptr}/extra", STEP_NAMES)
    if turn.kind in ("system", "user"):
        return {**_message(turn.kind, plain_text(step.get("message")), metadata=metadata), **named}
    raw_calls = step.get("tool_calls")
    calls = (
        [
            {
                "name": c.get("function_name"),
                "arguments": c.get("arguments"),
                "id": c.get("tool_call_id"),
            }
            for c in objects(raw_calls)
        ]
        if isinstance(raw_calls, list)
        else None
    )
    text = plain_text(step.get("message"))
    reasoning = step.get("reasoning_content")
    status = "trainable" if turn.trainable else "not_trainable"
    m = _message(
        "assistant",
        None if text == "" and calls else text,
        tool_calls=calls,
        usage=_usage(step.get("metrics")),
        metadata=metadata,
        reasoning=reasoning if isinstance(reasoning, str) else None,
        trainable_status=None if names.exact else status,
    )
    return {**m, **named}


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
                    "parameters": parameters if isinstance(parameters, dict) else {},
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


def to_sdk(doc: Doc, ctx: Context) -> Doc:
    """The mapping ATIF v1.7 → trajectory-sdk v0.4 (MAPPING §3-§5)."""
    return _to_sdk(doc, _Names(ctx))


def _to_sdk(doc: Doc, names: _Names) -> Doc:
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
    messages = [v for k, v in items if k == "message"]
    defs = _tool_definitions(doc)
    if defs is not None and messages:
        first = next((m for m in messages if m["role"] == "system"), messages[0])
        first["tool_definitions"] = defs
    snapshots = cut(items)
    places = _first_places(snapshots, names)
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
    if names.exact:
        return _rebuilt(doc, out, places, names)
    _name_steps(snapshots, sources, places, names)
    digest = content_hash(out)
    data: Doc = {"conversation_id": conversation, "content_hash": digest}
    if conversation is not None:
        data["idempotency_key"] = f"{DATA_SOURCE}:{conversation}:{digest}"
    out["telemetry"] = telemetry = {"source": DATA_SOURCE, "data": data}
    for key, value, field in (
        ("agent_name", agent.get("name"), "/agent/name"),
        ("agent_version", agent.get("version"), "/agent/version"),
        ("final_metrics", doc.get("final_metrics"), "/final_metrics"),
        ("trajectory_id", doc.get("trajectory_id"), "/trajectory_id"),
    ):
        if value is not None:
            names.put(telemetry, "/telemetry", "data", key, value, field)
    subagents = doc.get("subagent_trajectories")
    if isinstance(subagents, list) and subagents and all(isinstance(s, dict) for s in subagents):
        inner = [
            _to_sdk(sub, names.nested(f"/subagent_trajectories/{i}", f"{SUBAGENTS}/{i}"))
            for i, sub in enumerate(subagents)
        ]
        source = "/subagent_trajectories"
        names.put(telemetry, "/telemetry", "data", "subagent_trajectories", inner, source)
    return out


def _rebuilt(doc: Doc, out: Doc, places: dict[int, tuple[int, int]], names: _Names) -> Doc:
    """The SDK file that SDK→ATIF converted: its root members and per-snapshot members from the
    named keys; what no named key carries was null or absent (DECISIONS D23, D25)."""
    snapshots: list[Doc] = out["steps"]
    _, root = names.split(doc.get("extra"), "/extra", (*ROOT_NAMES.values(), "snapshots"))
    for field, key in ROOT_NAMES.items():
        if key in root:
            out[field] = root[key]
        elif field in ("metrics", "execution_metrics", "telemetry"):
            out[field] = None
    kept = root.get("snapshots")
    sparse = _sparse(kept)
    _native_messages(snapshots, places, sparse)
    if kept is None:  # no snapshots: ATIF's one empty step was decided (MAPPING §3.2)
        snapshots.clear()
    elif isinstance(kept, list) and len(kept) == len(snapshots):
        for snapshot, values in zip(snapshots, kept, strict=True):
            if isinstance(values, dict):
                for k in SNAPSHOT_KEYS:
                    if k in values:
                        snapshot[k] = values[k]
                    else:
                        del snapshot[k]  # the SDK file left the key out
    return {k: v for k, v in out.items() if v is not None} if sparse else out


def _first_places(snapshots: list[Doc], names: _Names) -> dict[int, tuple[int, int]]:
    """Identity of each message → ``(snapshot index, message index)`` of the place the SDK →
    ATIF mapping reads it from (its transcript, MAPPING §3.1). A message it does not read (a
    replacement system prefix equal to the one before it) has none: no named key is written
    there, since none would be read back."""
    places: dict[int, tuple[int, int]] = {}
    for kind, value, where in transcript({"steps": snapshots}, names):
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
    names: _Names,
) -> None:
    """Put each step's timestamp, model name and cost into its message's ``metadata`` (named
    keys at the message's first place in the snapshots, where the way back reads them)."""
    for key_id, turn in sources.items():
        if key_id not in places:
            continue
        i, k = places[key_id]
        where = f"/steps/{i}/messages/{k}"
        message = snapshots[i]["messages"][k]
        at = f"/steps/{turn.index}"
        if turn.kind == "tool":
            result = turn.result or {}
            ref = result.get(REF)
            if ref is not None and isinstance(message.get("tool_response"), dict):
                n = next(
                    n for n, r in enumerate(turn.step["observation"]["results"]) if r is result
                )
                source = f"{at}/observation/results/{n}/{REF}"
                names.put(
                    message["tool_response"], f"{where}/tool_response", "metadata", REF, ref, source
                )
            continue
        if turn.kind == "reset":  # the first system message of the new context
            extra = turn.step.get("extra")
            policy = extra.get("context_management") if isinstance(extra, dict) else None
            if isinstance(policy, dict):
                source = f"{at}/extra/context_management"
                names.put(message, where, "metadata", "context_management", policy, source)
            continue
        for key in ("timestamp", "model_name"):
            if isinstance(turn.step.get(key), str):
                names.put(message, where, "metadata", key, turn.step[key], f"{at}/{key}")
        metrics = turn.step.get("metrics")
        if isinstance(metrics, dict) and _number(metrics.get("cost_usd")) is not None:
            source = f"{at}/metrics/cost_usd"
            names.put(message, where, "metadata", "cost_usd", metrics["cost_usd"], source)


# --- SDK -> ATIF ------------------------------------------------------------------------------


def transcript(doc: Doc, names: _Names) -> list[tuple[str, Any, str]]:
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
        start = 0
        if prev is not None and is_restart(prev_step, prev, msgs):
            start = leading_system(msgs)
            out.append(("reset", msgs[:start], where))
        elif prev is not None:
            new_from, swapped = compare_snapshots(prev, msgs)
            if new_from is None:
                message = f"step {i} does not repeat the messages of step {i - 1} (TSDK101)"
                raise names.refuse("broken-prefix", where, message)
            if swapped:
                out.extend(
                    ("message", m, f"{where}/{k}")
                    for k, m in enumerate(msgs[: leading_system(msgs)])
                )
            start = new_from
        out.extend(("message", m, f"{where}/{k}") for k, m in enumerate(msgs[start:], start=start))
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


class _Steps:
    """Builds ATIF steps from transcript messages, linking tool results to their calls."""

    def __init__(self, names: _Names) -> None:
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

    def new(self, source: str, message: Any) -> Doc:
        step: Doc = {"step_id": len(self.steps) + 1, "source": source, "message": message}
        self.index[id(step)] = len(self.steps)
        self.steps.append(step)
        return step

    def reset(self, messages: list[Any], where: str) -> None:
        step = self.new("system", "")
        step["observation"] = {
            "results": [
                {"content": m.get("content") if isinstance(m.get("content"), str) else ""}
                for m in messages
                if isinstance(m, dict)
            ]
        }
        first = messages[0] if messages and isinstance(messages[0], dict) else {}
        keys = ("context_management",)
        policy = self.names.split(first.get("metadata"), f"{where}/0/metadata", keys)[1].get(
            keys[0]
        )
        if not isinstance(policy, dict):  # else the boundary's own policy, named by ATIF→SDK
            policy = {"type": "compaction", "boundary": "replace"}
            self.names.decide(
                f"/steps/{len(self.steps) - 1}/extra/context_management",
                "a restart after a summarization_boundary step is a replace boundary of type "
                "compaction (MAPPING §5)",
                policy,
            )
        step["extra"] = {"context_management": policy}

    def add(self, m: Any, k: int, where: str) -> None:
        if not isinstance(m, dict):
            return
        for d in objects(m.get("tool_definitions")):
            if isinstance(d.get("name"), str) and d["name"] not in self.definitions:
                self.definitions[d["name"]] = d
        role = m.get("role")
        content = m.get("content")
        if role == "tool":
            self._tool(m, where)
        elif role in ("system", "user", "assistant"):
            step = self.new(
                "agent" if role == "assistant" else role,
                content if isinstance(content, str) else "",
            )
            if role == "assistant":
                self._assistant(step, m, k)
            extra, named = self.names.split(m.get("metadata"), f"{where}/metadata", SDK_STEP_NAMES)
            if extra is not None:
                step["extra"] = extra
            for key in ("timestamp", "model_name"):
                if key in named:
                    step[key] = named[key]
            if "cost_usd" in named:
                metrics = {**step.get("metrics", {}), "cost_usd": named["cost_usd"]}
                step["metrics"] = {k: metrics[k] for k in METRICS_ORDER if k in metrics}
            self._name_message(step, m, where)

    def _name_message(self, step: Doc, m: Doc, where: str) -> None:
        """Message fields ATIF has no place for, as named step ``extra`` keys (§2.2): a finish
        reason; the trainable status of an assistant message (of another message when it is
        not the default); provider usage that the step metrics do not give back."""
        ptr = f"/steps/{len(self.steps) - 1}"
        status = m.get("trainable_status")
        usage = m.get("usage")
        for key, write in (
            ("finish_reason", m.get("finish_reason") is not None),
            (
                "trainable_status",
                status is not None and (m.get("role") == "assistant" or status != "not_trainable"),
            ),
            ("usage", usage is not None and not same_json(_usage(_metrics(usage)), usage)),
        ):
            if write:
                self.names.put(step, ptr, "extra", key, m[key], f"{where}/{key}")
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
                    self.names.decide(
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
                        "arguments": args if isinstance(args, dict) else {},
                    }
                )
            step["tool_calls"] = calls
        metrics = _metrics(m.get("usage"))
        if metrics is not None:
            step["metrics"] = metrics

    def _linked(self, response: Any, result: Doc, where: str) -> Doc:
        """The agent step whose call ``response`` answers (its ``source_call_id`` put into
        ``result``): by id, else the oldest id-less call of the function (D12); the last agent
        step for a tool message without ``tool_response`` (TSDK203)."""
        if not isinstance(response, dict):
            if self.last_agent is None:
                message = "a tool message without tool_response comes before any assistant message"
                raise self.names.refuse("unlinked-tool-response", where, message)
            return self.last_agent
        rid, name = response.get("id"), response.get("name")
        if isinstance(rid, str) and rid in self.calls:
            result["source_call_id"] = rid
            return self.calls[rid]
        if isinstance(name, str) and self.idless.get(name):
            target, result["source_call_id"] = self.idless[name].pop(0)
            return target
        message = f"tool response {rid!r} answers no earlier tool call (TSDK201)"
        raise self.names.refuse("unlinked-tool-response", f"{where}/tool_response/id", message)

    def _tool(self, m: Doc, where: str) -> None:
        response = m.get("tool_response")
        result: Doc = {}
        target = self._linked(response, result, where)
        content = m.get("content")
        reply = response.get("response") if isinstance(response, dict) else None
        if isinstance(content, str):
            result["content"] = content
        elif isinstance(reply, str):
            result["content"] = reply
        elif reply is not None:
            result["content"] = json.dumps(reply, ensure_ascii=False)
        fields: Doc = dict(response) if isinstance(response, dict) else {}
        at = f"{where}/tool_response/metadata"
        meta, named = self.names.split(fields.get("metadata"), at, (REF,))
        if REF in named:  # a subagent link named by ATIF→SDK
            result[REF] = named[REF]
            fields["metadata"] = meta
        if isinstance(m.get("metadata"), dict):
            result["extra"] = m["metadata"]
        observation = target.setdefault("observation", {"results": []})
        ptr = f"/steps/{self.index[id(target)]}/observation/results/{len(observation['results'])}"
        observation["results"].append(result)
        if isinstance(response, dict):
            # the way back's response: null beside a named error, else the content (§2.2)
            default = result.get("content")
            for field, key in RESULT_NAMES.items():
                value = fields.get(field)
                if value is None or (field == "response" and same_json(value, default)):
                    continue
                source = f"{where}/tool_response/{field}"
                if self.names.put(result, ptr, "extra", key, value, source) and field == "error":
                    default = None
            if result.get("extra") == {}:
                del result["extra"]


def to_atif(doc: Doc, ctx: Context) -> Doc:
    """The mapping trajectory-sdk v0.4 → ATIF v1.7 (MAPPING §2)."""
    return _to_atif(doc, _Names(ctx))


def _to_atif(doc: Doc, names: _Names) -> Doc:
    builder = _Steps(names)
    for kind, value, where in transcript(doc, names):
        if kind == "reset":
            builder.reset(value, where)
        else:
            builder.add(value, int(where.rpartition("/")[2]), where)
    if not builder.steps:
        builder.new("system", "")
        names.decide("/steps/0", "ATIF needs one step: an empty system step", builder.steps[0])
    task: Doc = doc["task"] if isinstance(doc.get("task"), dict) else {}
    out: Doc = {"schema_version": "ATIF-v1.7"}
    if isinstance(task.get("conversation_id"), str):
        out["session_id"] = task["conversation_id"]
    if isinstance(task.get("id"), str):
        out["trajectory_id"] = task["id"]
    telemetry = doc.get("telemetry")
    data = telemetry.get("data") if isinstance(telemetry, dict) else None
    named = names.split(data, "/telemetry/data", SDK_ROOT_NAMES)[1]
    agent: Doc = {"name": UNKNOWN, "version": UNKNOWN}
    for key in ("name", "version"):
        if isinstance(named.get(f"agent_{key}"), str):
            agent[key] = named[f"agent_{key}"]
        else:
            names.decide(f"/agent/{key}", f"the SDK records no agent {key}", UNKNOWN)
    if isinstance(doc.get("model_id"), str):
        agent["model_name"] = doc["model_id"]
    if builder.definitions:
        agent["tool_definitions"] = [
            {
                "type": "function",
                "function": {k: d[k] for k in ("name", "description", "parameters") if k in d},
            }
            for d in builder.definitions.values()
        ]
    out["agent"] = agent
    out["steps"] = [{k: s[k] for k in STEP_ORDER if k in s} for s in builder.steps]
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
            _to_atif(sub, names.nested(f"{SUBAGENTS}/{i}", f"/subagent_trajectories/{i}"))
            if isinstance(sub, dict)
            else sub
            for i, sub in enumerate(subagents)
        ]
    for field, key in ROOT_NAMES.items():
        if doc.get(field) is not None:
            names.put(out, "", "extra", key, doc[field], f"/{field}")
    steps = doc.get("steps")
    if isinstance(steps, list) and steps and not names.exact:
        kept = [
            {k: s[k] for k in SNAPSHOT_KEYS if k in s} if isinstance(s, dict) else None
            for s in steps
        ]
        names.put(out, "", "extra", "snapshots", kept, "/steps")
    return {k: out[k] for k in ROOT_ORDER if k in out}


STEP = Step(ATIF, SDK, to_sdk, to_atif)
TO_SDK, TO_ATIF = STEP.name, STEP.inverse.name
LENSES = [STEP, STEP.inverse]


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
