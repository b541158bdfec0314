"""The mapping ATIF v1.7 → trajectory-sdk v0.4 (MAPPING.md §2, §4, §5)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from atif_spec.jsonio.jsonvalues import objects, plain_text
from atif_spec.transforms.driver import Context
from atif_spec.transforms.lenses.trajectory_sdk import table
from atif_spec.transforms.lenses.trajectory_sdk.snapshots import content_hash, cut, transcript
from atif_spec.transforms.lenses.trajectory_sdk.table import DATA_SOURCE, Doc, Scope, sdk
from atif_spec.transforms.sft import Turn, timeline

Places = dict[int, tuple[int, int]]  # identity of a message → (snapshot, index) of its first place
Results = dict[tuple[int, int], str]  # (step index, identity) of a result → its pointer
Made = list[tuple[Turn, list[Doc]]]  # each turn and the messages made of it


_MESSAGE = {
    **dict.fromkeys(("role", "content", "tool_calls", "tool_response", "tool_definitions")),
    **dict.fromkeys(("usage", "finish_reason", "metadata", "reasoning")),
    "trainable_status": "not_trainable",
}
"""An SDK message with every key, in the dataclass order (ref §7)."""
_CALL = {"name": "function_name", "arguments": "arguments", "id": "tool_call_id"}
"""SDK tool call member → ATIF tool call member."""


def _message(role: str, content: str | None, **fields: Any) -> Doc:
    return {**_MESSAGE, "role": role, "content": content, **fields}


def _sdk_message(turn: Turn, scope: Scope, results: Results) -> Doc:
    """The SDK message of one transcript turn, named keys read back into their fields."""
    step, result = turn.step, turn.result or {}
    if turn.kind == "tool":
        content = None if result.get("content") is None else plain_text(result["content"])
        name = turn.call.get("function_name") if turn.call is not None else None
        extra = scope.free(result.get("extra"), f"{results[turn.index, id(result)]}/extra")
        named: Doc = {}
        extra.take_all(named, table.RESULT_NAMES)
        got = named.get("tool_response", {})
        response = {
            "id": result.get("source_call_id"),
            "name": name if isinstance(name, str) else "",
            "arguments": {},
            "response": got.get("response", None if "error" in got else content),
            "error": got.get("error"),
            "metadata": got.get("metadata"),
        }
        m = _message("tool", content, tool_response=response)
    else:
        extra = scope.free(step.get("extra"), f"/steps/{turn.index}/extra")
        if turn.kind in ("system", "user"):
            m = _message(turn.kind, plain_text(step.get("message")))
        else:
            m = _assistant(turn, scope)
        extra.take_all(m, table.STEP_NAMES)
    extra.place(m, "metadata")
    return m


def _assistant(turn: Turn, scope: Scope) -> Doc:
    """Converted back (``not scope.writes``), a status no named key carries was none (D23)."""
    raw = turn.step.get("tool_calls")
    calls = (
        [{k: c.get(a) for k, a in _CALL.items()} for c in objects(raw)]
        if isinstance(raw, list)
        else None
    )
    text = plain_text(turn.step.get("message"))
    status = "trainable" if turn.trainable else "not_trainable"
    return _message(
        "assistant",
        None if text == "" and calls else text,
        tool_calls=calls,
        usage=table.sdk_usage(turn.step.get("metrics")),
        reasoning=sdk(table.REASONING, turn.step),
        trainable_status=status if scope.writes else None,
    )


def _tool_definitions(doc: Doc) -> list[Doc] | None:
    """``agent.tool_definitions`` in the SDK's shape (function definitions only)."""
    agent = doc.get("agent")
    defs = [
        {
            "name": fn["name"],
            "description": fn["description"] if isinstance(fn.get("description"), str) else "",
            "parameters": fn["parameters"] if isinstance(fn.get("parameters"), dict) else {},
        }
        for d in objects(agent.get("tool_definitions") if isinstance(agent, dict) else None)
        if d.get("type") == "function"
        and isinstance(fn := d.get("function"), dict)
        and isinstance(fn.get("name"), str)
    ]
    return defs or None


def _seconds(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError):
        return None


def _result_places(doc: Doc) -> Results:
    places: Results = {}
    for i, step in enumerate(doc["steps"] if isinstance(doc.get("steps"), list) else []):
        observation = step.get("observation") if isinstance(step, dict) else None
        found = observation.get("results") if isinstance(observation, dict) else None
        for k, result in enumerate(found if isinstance(found, list) else []):
            places.setdefault((i, id(result)), f"/steps/{i}/observation/results/{k}")
    return places


def to_sdk(doc: Doc, ctx: Context, scope: Scope | None = None) -> Doc:
    """The mapping ATIF v1.7 → trajectory-sdk v0.4 (MAPPING §4, §5); ``scope``: an embedded
    subagent's place."""
    scope = scope or Scope(ctx)
    results = _result_places(doc)
    made: Made = []
    for turn in timeline(doc):
        if turn.kind == "reset":
            made.append((turn, [_message("system", plain_text(c)) for c in turn.replacement]))
        else:
            made.append((turn, [_sdk_message(turn, scope, results)]))
    items = [("reset", ms) if t.kind == "reset" else ("message", ms[0]) for t, ms in made]
    messages = [ms[0] for t, ms in made if t.kind != "reset"]
    defs = _tool_definitions(doc)
    if defs is not None and messages:
        next((m for m in messages if m["role"] == "system"), messages[0])["tool_definitions"] = defs
    snapshots = cut(items)
    places: Places = {}  # where the SDK → ATIF mapping reads each message (MAPPING §3.1)
    for kind, value, i, k in transcript({"steps": snapshots}, scope):
        for n, m in enumerate(value) if kind == "reset" else [(k, value)]:
            places.setdefault(id(m), (i, n))
    out = _builder_fields(doc, messages, snapshots)
    if not scope.writes:
        return _rebuilt(doc, out, places, [m for _, ms in made for m in ms], scope)
    _name_steps(made, places, results, scope)
    conversation = out["task"]["conversation_id"]
    own: Doc = {"conversation_id": conversation, "content_hash": content_hash(out)}  # the builder's
    if conversation is not None:
        own["idempotency_key"] = f"{DATA_SOURCE}:{conversation}:{own['content_hash']}"
    data, to = scope.free(own, ""), f"{scope.target}/telemetry/data"
    data.put_all(doc, table.SDK_ROOT_NAMES, scope.source, to)
    subagents = doc.get("subagent_trajectories")
    if isinstance(subagents, list) and subagents and all(isinstance(s, dict) for s in subagents):
        at = table.EMBEDDED.pointer
        inner = [
            to_sdk(sub, ctx, scope.nested(f"/subagent_trajectories/{n}", f"{at}/{n}"))
            for n, sub in enumerate(subagents)
        ]
        data.put(table.EMBEDDED.key, inner, f"{scope.source}/{table.EMBEDDED.member}", to)
    out["telemetry"] = {"source": DATA_SOURCE}
    data.place(out["telemetry"], "data")
    return out


def _builder_fields(doc: Doc, messages: list[Doc], snapshots: list[Doc]) -> Doc:
    """The SDK file around the snapshots, its members filled as the SDK's builder fills them."""
    assistants = [m for m in messages if m["role"] == "assistant"]
    calls = sum(len(m["tool_calls"]) for m in assistants if m["tool_calls"])
    prompt = sum((m["usage"] or {}).get("prompt_tokens", 0) for m in assistants)
    completion = sum((m["usage"] or {}).get("completion_tokens", 0) for m in assistants)
    conversation = sdk(table.SESSION, doc)
    times = [
        t for s in objects(doc.get("steps")) if (t := _seconds(s.get("timestamp"))) is not None
    ]
    return {
        "task": {
            "id": f"{DATA_SOURCE}:{conversation}" if conversation is not None else None,
            "data_source": DATA_SOURCE,
            "conversation_id": conversation,
            "num_turns": sum(1 for m in messages if m["role"] == "user"),
            "num_steps": len(snapshots),
            "total_tokens": (prompt + completion) or None,
            "total_cost": sdk(table.COST, doc),
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
        **dict.fromkeys(("reference_trajectory", "telemetry", "idx", "error", "trace_id")),
        "model_id": sdk(table.MODEL, doc),
    }


def _rebuilt(doc: Doc, out: Doc, places: Places, messages: list[Doc], scope: Scope) -> Doc:
    """The SDK file that SDK→ATIF converted: its root members and per-snapshot members from the
    named keys; what no named key carries was null or absent (DECISIONS D23, D25). The file is
    ``sparse`` when ``extra.snapshots`` shows that its writer left out members its builder
    writes."""
    snapshots: list[Doc] = out["steps"]
    root: Doc = {}
    scope.free(doc.get("extra"), "/extra").take_all(root, (*table.ROOT_NAMES, table.SNAPSHOTS))
    kept = root.pop(table.SNAPSHOTS.member, None)
    out |= dict.fromkeys(("metrics", "execution_metrics", "telemetry")) | root
    sparse = isinstance(kept, list) and any(
        isinstance(v, dict) and any(k not in v for k in table.SNAPSHOT_KEYS) for v in kept
    )
    for m in messages:
        _native(m, places.get(id(m), (0, -1))[1], sparse)
    if kept is None:  # no snapshots: ATIF's one empty step was decided (MAPPING §3.2)
        snapshots.clear()
    elif isinstance(kept, list) and len(kept) == len(snapshots):
        for snapshot, values in zip(snapshots, kept, strict=True):
            for k in table.SNAPSHOT_KEYS if isinstance(values, dict) else ():
                if k in values:
                    snapshot[k] = values[k]
                else:
                    del snapshot[k]  # the SDK file left the key out
    return {k: v for k, v in out.items() if v is not None} if sparse else out


def _native(m: Doc, k: int, sparse: bool) -> None:
    """A message as its writer wrote it (D25): an id SDK → ATIF generates at its index ``k`` was
    null; ``sparse``: no null members, no non-assistant ``not_trainable`` status."""
    for j, c in enumerate(m["tool_calls"] or []):
        if isinstance(c, dict) and c.get("id") == f"tsdk-{k}-{j}":
            c["id"] = None
    if sparse and m["role"] != "assistant" and m["trainable_status"] == "not_trainable":
        m["trainable_status"] = None
    for inner in (*objects(m["tool_calls"]), m["tool_response"], m) if sparse else ():
        for key in [key for key, v in (inner or {}).items() if v is None]:
            del inner[key]


def _name_steps(made: Made, places: Places, results: Results, scope: Scope) -> None:
    """Write each step's named keys into its (first) message at the message's first place in
    the snapshots, where the way back reads them; a message it does not read (a system prefix
    replaced by an equal one) gets none, since none would be read back."""
    for turn, ms in made:
        if not ms or id(ms[0]) not in places:
            continue
        i, k = places[id(ms[0])]
        to = f"{scope.target}/steps/{i}/messages/{k}"
        if turn.kind == "tool":
            holder, obj, names = ms[0]["tool_response"], turn.result or {}, [table.REF]
            at, to = results[turn.index, id(obj)], f"{to}/tool_response/metadata"
        else:  # a reset's message is the first system message of the new context
            holder, obj, at, to = ms[0], turn.step, f"/steps/{turn.index}", f"{to}/metadata"
            names = [table.BOUNDARY] if turn.kind == "reset" else list(table.SDK_STEP_NAMES)
        meta = scope.free(holder["metadata"], "")
        meta.put_all(obj, names, scope.source + at, to)
        meta.place(holder, "metadata")
