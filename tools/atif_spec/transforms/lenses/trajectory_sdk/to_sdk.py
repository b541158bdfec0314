"""The mapping ATIF v1.7 → trajectory-sdk v0.4 (MAPPING.md §2, §4, §5)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from atif_spec.jsonio.jsonvalues import objects, plain_text
from atif_spec.transforms.driver import Context
from atif_spec.transforms.lenses.trajectory_sdk import table
from atif_spec.transforms.lenses.trajectory_sdk.common import (
    DATA_SOURCE,
    SNAPSHOT_KEYS,
    Doc,
    Scope,
    sdk,
    sdk_usage,
)
from atif_spec.transforms.lenses.trajectory_sdk.snapshots import (
    TranscriptItem,
    content_hash,
    cut,
    transcript,
)
from atif_spec.transforms.sft import Turn, timeline


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
        "metadata": None,
        "reasoning": fields.get("reasoning"),
        "trainable_status": fields.get("trainable_status", "not_trainable"),
    }


def _sdk_message(turn: Turn, scope: Scope, results: dict[tuple[int, int], str]) -> Doc:
    """The SDK message of one transcript turn, with the named keys read back into their
    fields."""
    step, result = turn.step, turn.result or {}
    if turn.kind == "tool":
        raw = result.get("content")
        content = None if raw is None else plain_text(raw)
        name = turn.call.get("function_name") if turn.call is not None else None
        extra = scope.free(result.get("extra"), f"{results[turn.index, id(result)]}/extra")
        named: Doc = {"tool_response": {}}
        extra.take_all(named, table.RESULT_NAMES)
        got = named["tool_response"]
        response: Doc = {
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
    """Converted back from the SDK (``not scope.writes``), an assistant message whose status no
    named key carries had none (DECISIONS D23)."""
    raw_calls = turn.step.get("tool_calls")
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
    text = plain_text(turn.step.get("message"))
    status = "trainable" if turn.trainable else "not_trainable"
    return _message(
        "assistant",
        None if text == "" and calls else text,
        tool_calls=calls,
        usage=sdk_usage(turn.step.get("metrics")),
        reasoning=sdk(table.REASONING, turn.step),
        trainable_status=status if scope.writes else None,
    )


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


def _seconds(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError):
        return None


def to_sdk(doc: Doc, ctx: Context) -> Doc:
    """The mapping ATIF v1.7 → trajectory-sdk v0.4 (MAPPING §4, §5)."""
    return _to_sdk(doc, Scope(ctx))


def _result_places(doc: Doc) -> dict[tuple[int, int], str]:
    """(step index, identity) of each observation result → its pointer."""
    places: dict[tuple[int, int], str] = {}
    for i, step in enumerate(doc["steps"] if isinstance(doc.get("steps"), list) else []):
        observation = step.get("observation") if isinstance(step, dict) else None
        found = observation.get("results") if isinstance(observation, dict) else None
        for k, result in enumerate(found if isinstance(found, list) else []):
            places.setdefault((i, id(result)), f"/steps/{i}/observation/results/{k}")
    return places


def _to_sdk(doc: Doc, scope: Scope) -> Doc:
    results = _result_places(doc)
    items: list[TranscriptItem] = []
    sources: dict[int, Turn] = {}
    """Identity of a message → the turn it was made from."""
    for turn in timeline(doc):
        if turn.kind == "reset":
            items.append(("reset", [_message("system", plain_text(c)) for c in turn.replacement]))
            if items[-1][1]:
                sources[id(items[-1][1][0])] = turn
        else:
            items.append(("message", _sdk_message(turn, scope, results)))
            sources[id(items[-1][1])] = turn
    messages = [v for k, v in items if k == "message"]
    defs = _tool_definitions(doc)
    if defs is not None and messages:
        first = next((m for m in messages if m["role"] == "system"), messages[0])
        first["tool_definitions"] = defs
    snapshots = cut(items)
    places = _first_places(snapshots, scope)
    assistants = [m for m in messages if m["role"] == "assistant"]
    calls = sum(len(m["tool_calls"]) for m in assistants if m["tool_calls"])
    prompt = sum((m["usage"] or {}).get("prompt_tokens", 0) for m in assistants)
    completion = sum((m["usage"] or {}).get("completion_tokens", 0) for m in assistants)
    conversation = sdk(table.SESSION, doc)
    times = [
        t
        for t in (_seconds(s.get("timestamp")) for s in objects(doc.get("steps")))
        if t is not None
    ]
    out: Doc = {
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
        "reference_trajectory": None,
        "telemetry": None,
        "idx": None,
        "error": None,
        "trace_id": None,
        "model_id": sdk(table.MODEL, doc),
    }
    if not scope.writes:
        return _rebuilt(doc, out, places, scope)
    _name_steps(snapshots, sources, places, results, scope)
    digest = content_hash(out)
    own: Doc = {"conversation_id": conversation, "content_hash": digest}  # the builder's
    if conversation is not None:
        own["idempotency_key"] = f"{DATA_SOURCE}:{conversation}:{digest}"
    data, to = scope.free(own, ""), f"{scope.target}/telemetry/data"
    data.put_all(doc, table.SDK_ROOT_NAMES, scope.source, to)
    subagents = doc.get("subagent_trajectories")
    if isinstance(subagents, list) and subagents and all(isinstance(s, dict) for s in subagents):
        inner = [
            _to_sdk(
                sub, scope.nested(f"/subagent_trajectories/{i}", f"{table.EMBEDDED.pointer}/{i}")
            )
            for i, sub in enumerate(subagents)
        ]
        data.put(table.EMBEDDED.key, inner, f"{scope.source}/{table.EMBEDDED.member}", to)
    out["telemetry"] = {"source": DATA_SOURCE}
    data.place(out["telemetry"], "data")
    return out


def _rebuilt(doc: Doc, out: Doc, places: dict[int, tuple[int, int]], scope: Scope) -> Doc:
    """The SDK file that SDK→ATIF converted: its root members and per-snapshot members from the
    named keys; what no named key carries was null or absent (DECISIONS D23, D25)."""
    snapshots: list[Doc] = out["steps"]
    root: Doc = {}
    scope.free(doc.get("extra"), "/extra").take_all(root, (*table.ROOT_NAMES, table.SNAPSHOTS))
    for row in table.ROOT_NAMES:
        if row.member in root:
            out[row.member] = root[row.member]
        elif row.member in ("metrics", "execution_metrics", "telemetry"):
            out[row.member] = None
    kept = root.get(table.SNAPSHOTS.member)
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


def _first_places(snapshots: list[Doc], scope: Scope) -> dict[int, tuple[int, int]]:
    """Identity of each message → ``(snapshot index, message index)`` of the place the SDK →
    ATIF mapping reads it from (its transcript, MAPPING §3.1). A message it does not read (a
    replacement system prefix equal to the one before it) has none: no named key is written
    there, since none would be read back."""
    places: dict[int, tuple[int, int]] = {}
    for kind, value, where in transcript({"steps": snapshots}, scope):
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
            if sparse:
                _leave_out_nulls(m)


def _leave_out_nulls(m: Doc) -> None:
    """A message as a writer that leaves out null and default members wrote it: no null
    member, no non-assistant ``not_trainable`` status (DECISIONS D25)."""
    if m.get("role") != "assistant" and m.get("trainable_status") == "not_trainable":
        m["trainable_status"] = None
    for inner in (*objects(m.get("tool_calls")), m.get("tool_response"), m):
        if isinstance(inner, dict):
            for key in [key for key, v in inner.items() if v is None]:
                del inner[key]


def _name_steps(
    snapshots: list[Doc],
    sources: dict[int, Turn],
    places: dict[int, tuple[int, int]],
    results: dict[tuple[int, int], str],
    scope: Scope,
) -> None:
    """Put each step's timestamp, model name and cost into its message's ``metadata`` (named
    keys at the message's first place in the snapshots, where the way back reads them)."""
    for key_id, turn in sources.items():
        if key_id not in places:
            continue
        i, k = places[key_id]
        where = f"/steps/{i}/messages/{k}"
        message = snapshots[i]["messages"][k]
        at = f"{scope.source}/steps/{turn.index}"
        to = f"{scope.target}{where}"
        if turn.kind == "tool":
            result = turn.result or {}
            if result.get(table.REF.member) is not None:
                meta = scope.free(message["tool_response"]["metadata"], "")
                source = f"{scope.source}{results[turn.index, id(result)]}/{table.REF.member}"
                meta.put(
                    table.REF.key, result[table.REF.member], source, f"{to}/{table.REF.holder}"
                )
                meta.place(message["tool_response"], "metadata")
            continue
        meta = scope.free(message["metadata"], "")
        # a reset's message is the first system message of the new context
        meta.put_all(
            turn.step,
            (table.BOUNDARY,) if turn.kind == "reset" else table.SDK_STEP_NAMES,
            at,
            f"{to}/metadata",
        )
        meta.place(message, "metadata")
