"""Hypothesis strategies for trajectory-sdk v0.4 files, written as the SDK's builder writes them.

``sdk_trajectories()`` draws a conversation (a system prompt with tool definitions or none, a
greeting before the first user message sometimes, turns of assistant tool calls answered by tool
messages, some failing with an ``error`` and a null response, call ids missing sometimes, a final
assistant answer; now and then a system message mid-conversation or a context restart after a
``summarization_boundary`` step) and cuts it into cumulative snapshots with the builder's rule,
written here from the format's description (spec/trajectory-sdk/MAPPING.md, DECISIONS D1 to D3,
D18), not taken from the lens:

- step 0 closes at the first user message; after it, every tool message and every assistant
  message without ``tool_calls`` closes a step; what is left over makes a final step;
- each step repeats every message so far; a system message after the first user message
  replaces the running system prefix of later steps (a run of them is one replacement);
- after a step curated as ``summarization_boundary``, the context restarts from a summary and is
  cut like a fresh conversation.

The totals are the builder's (``task.num_steps``, ``metrics``, ``termination_reason``, the first
error, ``telemetry`` with the content hash and idempotency key), with every key written out or
trimmed to what is set (a producer that writes its own files).
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from hypothesis import strategies as st

from tests.support.strategies import json_values
from tests.support.strategies_shape import (
    OMIT,
    Draw,
    Style,
    emit,
    maybe,
    prose,
    small_objects,
    styles,
)

TOOLS = ("get_booking", "search_flights", "get_weather", "run_sql", "read_file")
MESSAGE_KEYS = (
    "tool_calls",
    "tool_response",
    "tool_definitions",
    "usage",
    "finish_reason",
    "metadata",
    "reasoning",
)


def _message(draw: Draw, style: Style, role: str, **values: Any) -> dict[str, Any]:
    """A Message in declaration order; ``trainable_status`` as curated (mostly the default)."""
    status = "not_trainable"
    if role == "assistant" and draw(st.integers(0, 4)) == 0:
        status = "trainable"
    fields = [("role", role, OMIT), ("content", values.get("content"), None)]
    fields += [(k, values.get(k), None) for k in MESSAGE_KEYS]
    fields.append(("trainable_status", status, "not_trainable"))
    return emit(draw, style, fields)


def _usage(draw: Draw) -> dict[str, int]:
    prompt, completion = draw(st.integers(1, 2000)), draw(st.integers(1, 300))
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _conversation(draw: Draw, style: Style) -> list[tuple[str, Any]]:
    """The messages in order, with ``("restart", summary)`` marks for context restarts."""
    out: list[tuple[str, Any]] = []
    definitions = None
    if draw(st.booleans()):
        definitions = [
            {"name": name, "description": draw(prose), "parameters": {"type": "object"}}
            for name in draw(st.lists(st.sampled_from(TOOLS), min_size=1, max_size=2, unique=True))
        ]
    if draw(st.integers(0, 4)) > 0:
        system = _message(draw, style, "system", content=draw(prose), tool_definitions=definitions)
        out.append(("message", system))
    if draw(st.integers(0, 6)) == 0:  # a greeting before the first user message
        out.append(("message", _message(draw, style, "assistant", content=draw(prose))))
    n_calls = 0
    for turn in range(draw(st.integers(1, 3))):
        if turn and draw(st.integers(0, 3)) == 0:  # a new system prompt mid-conversation
            for _ in range(draw(st.integers(1, 2))):
                out.append(("message", _message(draw, style, "system", content=draw(prose))))
        if turn and draw(st.integers(0, 7)) == 0:
            summary = _message(draw, style, "system", content="Summary: " + draw(prose))
            out.append(("restart", summary))
        out.append(("message", _message(draw, style, "user", content=draw(prose))))
        for _ in range(draw(st.integers(0, 2))):
            calls = []
            for k in range(draw(st.integers(1, 2))):
                n_calls += 1
                name = draw(st.sampled_from(TOOLS))
                cid = None if draw(st.integers(0, 5)) == 0 else f"call_{n_calls:02d}"
                call = {"name": name, "arguments": draw(small_objects), "id": cid}
                calls.append((emit(draw, style, [(k_, v, None) for k_, v in call.items()]), k))
            usage = _usage(draw) if draw(st.integers(0, 3)) else None
            assistant = _message(
                draw,
                style,
                "assistant",
                content=draw(st.sampled_from((None, "")) | prose),
                tool_calls=[c for c, _ in calls],
                usage=usage,
                finish_reason="tool_calls" if usage else None,
                reasoning=maybe(draw, prose, 2),
            )
            out.append(("message", assistant))
            for call, k in calls:
                failed = draw(st.integers(0, 3)) == 0
                response: Any = None if failed else draw(json_values)
                error = draw(prose.filter(bool)) if failed else maybe(draw, st.just(""), 6)
                rid = call.get("id") or f"{call['name']}-{k}"
                tool_response = emit(
                    draw,
                    style,
                    [
                        ("id", rid, OMIT),
                        ("name", call["name"], OMIT),
                        ("arguments", {}, OMIT),
                        ("response", response, None),
                        ("error", error, None),
                        ("metadata", maybe(draw, small_objects, 3), None),
                    ],
                )
                content = f"Error: {error}" if failed else json.dumps(response)
                metadata = (
                    {"latency_ms": draw(st.integers(1, 900))} if draw(st.booleans()) else None
                )
                out.append(
                    (
                        "message",
                        _message(
                            draw,
                            style,
                            "tool",
                            content=content,
                            tool_response=tool_response,
                            metadata=metadata,
                        ),
                    )
                )
        if draw(st.integers(0, 5)) > 0:  # a run cut short ends after a call
            usage = _usage(draw) if draw(st.integers(0, 3)) else None
            final = _message(
                draw,
                style,
                "assistant",
                content=draw(prose),
                usage=usage,
                finish_reason="stop" if usage else None,
            )
            out.append(("message", final))
    return out


def cumulative(items: list[tuple[str, Any]]) -> tuple[list[list[Any]], list[int]]:
    """The builder's snapshots of ``items`` and the indexes of the steps before a restart."""
    snapshots: list[list[Any]] = []
    boundaries: list[int] = []
    prefix: list[Any] = []
    body: list[Any] = []
    user_seen = False
    replacing = False
    for kind, m in items:
        role = m["role"]
        if kind == "restart":
            if snapshots:
                boundaries.append(len(snapshots) - 1)
            prefix, body, replacing = [m], [], False
            user_seen = False  # the restarted context is cut like a fresh conversation
            continue
        if role == "system" and (user_seen or body):
            prefix = [*prefix, m] if replacing else [m]
            replacing = True
            continue
        replacing = False
        if role == "system":
            prefix.append(m)
            continue
        body.append(m)
        first_user = role == "user" and not user_seen
        user_seen = user_seen or role == "user"
        closes = first_user or (
            user_seen and (role == "tool" or (role == "assistant" and not m.get("tool_calls")))
        )
        if closes:
            snapshots.append(prefix + body)
    running = prefix + body
    if running and (not snapshots or snapshots[-1] != running):
        snapshots.append(running)
    return snapshots, boundaries


def _content_hash(reduced: dict[str, Any]) -> str:
    """The builder's hash: keys sorted, nulls and ``idx`` keys dropped, compact, UTF-8."""

    def canon(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: canon(x) for k, x in v.items() if x is not None and k != "idx"}
        return [canon(x) for x in v] if isinstance(v, list) else v

    text = json.dumps(canon(reduced), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _reward(draw: Draw, style: Style) -> dict[str, Any]:
    components = []
    for name in draw(st.lists(st.sampled_from(("resolved", "efficiency", "score")), unique=True)):
        value = draw(st.floats(0, 1))
        components.append(
            emit(
                draw,
                style,
                [
                    ("name", name, OMIT),
                    ("value", value, OMIT),
                    ("scaled_value", maybe(draw, st.just(value)), None),
                    ("explanation", maybe(draw, prose), None),
                    ("weight", draw(st.sampled_from((1.0, 0.7, 0.3))), 1.0),
                    ("range", maybe(draw, st.just([0.0, 1.0])), None),
                    ("metadata", maybe(draw, small_objects, 3), None),
                ],
            )
        )
    return emit(
        draw,
        style,
        [
            ("aggregated_value", maybe(draw, st.floats(0, 1)), None),
            (
                "aggregation_method",
                maybe(draw, st.sampled_from(("identity", "weighted_mean"))),
                None,
            ),
            ("components", components or None, None),
        ],
    )


@st.composite
def sdk_trajectories(draw: Draw) -> dict[str, Any]:
    """A trajectory-sdk v0.4 file that passes the schema and the error-level rules."""
    style = draw(styles)
    items = _conversation(draw, style)
    snapshots, boundaries = cumulative(items)
    steps = []
    for i, messages in enumerate(snapshots):
        status = "not_trainable"
        if i in boundaries:
            status = "summarization_boundary"
        elif any(m.get("trainable_status") == "trainable" for m in messages[-1:]):
            status = "trainable"
        reward = _reward(draw, style) if draw(st.integers(0, 6)) == 0 else None
        info = maybe(draw, small_objects, 4)
        steps.append(
            emit(
                draw,
                style,
                [
                    ("messages", copy.deepcopy(messages), OMIT),
                    ("reward", reward, None),
                    ("info", info, None),
                    ("trainable_status", status, "not_trainable"),
                ],
            )
        )
    transcript = [m for kind, m in items if kind == "message"]
    tool_messages = [m for m in transcript if m["role"] == "tool"]
    calls = sum(len(m.get("tool_calls") or []) for m in transcript)
    errors = [m["tool_response"].get("error") for m in tool_messages]
    failures = sum(1 for e in errors if e)
    usages = [m.get("usage") for m in transcript if m.get("usage")]
    source = draw(st.sampled_from(("langsmith", "example", "custom")))
    conversation = draw(st.sampled_from(("thr_5b0e7c21", "conv_1", "abc")))
    task = emit(
        draw,
        style,
        [
            ("id", f"{source}:{conversation}", None),
            ("data_source", source, None),
            ("conversation_id", conversation, None),
            ("num_turns", sum(1 for m in transcript if m["role"] == "user"), None),
            ("num_steps", len(steps), None),
            ("total_tokens", sum(u["total_tokens"] for u in usages) or None, None),
            ("total_cost", maybe(draw, st.floats(0, 1), 2), None),
        ],
    )
    metrics = emit(
        draw,
        style,
        [
            ("steps", len(steps), None),
            ("tokens_generated", sum(u["completion_tokens"] for u in usages) or None, None),
            ("aggregated_reward", None, None),
            ("num_tool_calls", calls, None),
            ("num_tool_failures", failures, None),
            ("num_tool_response_none", None, None),
            ("tool_error_rate", failures / calls if calls else 0.0, None),
        ],
    )
    reason = "ERROR" if failures else "ENV_DONE"
    reason = draw(st.sampled_from((reason, reason, "TIMEOUT", "MAX_STEPS", "TRUNCATION", "NONE")))
    execution = emit(
        draw,
        style,
        [
            ("env_time", maybe(draw, st.floats(0, 100), 2), None),
            ("llm_time", maybe(draw, st.floats(0, 100), 2), None),
            ("total_time", maybe(draw, st.floats(0, 1000)), None),
            ("termination_reason", reason, None),
        ],
    )
    reward = _reward(draw, style) if draw(st.integers(0, 2)) == 0 else None
    model_id = maybe(draw, st.sampled_from(("gpt-4o-2024-08-06", "claude-3-5-sonnet-20241022")))
    trace_id = maybe(draw, st.just("lsm_tr_9d27a1"), 2)
    reduced = {
        "task": task,
        "steps": steps,
        "reward": reward,
        "metrics": metrics,
        "execution_metrics": execution,
        "model_id": model_id,
    }
    telemetry = None
    if draw(st.integers(0, 3)) > 0:
        digest = _content_hash(reduced)
        data = {
            "conversation_id": conversation,
            "content_hash": digest,
            "idempotency_key": f"{source}:{conversation}:{digest}",
        }
        if draw(st.booleans()):
            data["source_run_ids"] = ["run_01HZ8Q", "run_01HZ8T"]
        if trace_id is not None:
            data["trace_id"] = trace_id
        data |= draw(st.dictionaries(st.sampled_from(("project", "env")), json_values, max_size=1))
        telemetry = {"source": source, "data": data}
    first_error = next((e for e in errors if e), None)
    return emit(
        draw,
        style,
        [
            ("task", task, OMIT),
            ("steps", steps, OMIT),
            ("reward", reward, None),
            ("metrics", metrics, None),
            ("execution_metrics", execution, None),
            ("reference_trajectory", None, None),
            ("telemetry", telemetry, None),
            ("idx", None, None),
            ("error", first_error, None),
            ("trace_id", trace_id, None),
            ("model_id", model_id, None),
        ],
    )
