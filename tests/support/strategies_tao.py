"""Hypothesis strategies for opentraces TAO v0.2.0 trace records, written as producers write them.

``tao_records()`` draws records that pass the v0.2.0 schema and the error-level rules, shaped
like the output of opentraces' parsers (spec/tao/MAPPING.md, DECISIONS D12, D20):

- a Claude Code session (``devtime``): a user prompt, sometimes a warm-up call, then API calls
  written one step per content block (thinking, text, each ``tool_use``), every step of one call
  carrying that call's ``token_usage`` and model; tool results as observations on the calling
  step (errors ``tool_error``, ``exit_code:N``, ``interrupted``, ``no_result``), snippets from
  ``Read``; a ``Task``/``Agent`` call launches a sub-agent whose steps (its prompt as a user step,
  then its own calls, nested sub-agents down to two levels) carry ``parent_step`` = the launching
  step's index and are placed as the parser places them (all before the launching step, so
  ``parent_step`` points forward), right after it, or interleaved with the later main steps
  (a chronological record);
- a Hermes-style runtime episode: a referenced system prompt, ``tc_<step>_<i>`` call ids, a
  result the importer could not match marked ``unlinked_response``, a reward outcome;
- system prompts stored and referenced by ``system_prompt_hash``, or stored and referenced by
  no step (the usual Claude trace), or absent;
- totals as the parser computes them (or trimmed), ``content_hash`` sometimes set;
- every field written out (a model dump), trimmed to what is not at its default, or a mix.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from atif_spec.formats.tao import content_hash
from tests.support.strategies import timestamps
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

Doc = dict[str, Any]
MAIN_MODELS = ("anthropic/claude-sonnet-4-20250514", "anthropic/claude-opus-4-1-20250805")
SMALL_MODEL = "anthropic/claude-3-5-haiku-20241022"
ROLES = {"Explore": "explore", "Plan": "plan", "general-purpose": "general", "Reviewer": "reviewer"}
ERRORS = ("tool_error", "exit_code:1", "exit_code:2", "interrupted", "no_result")
USAGE_DEFAULT = {
    "input_tokens": 0,
    "output_tokens": 0,
    "cache_read_tokens": 0,
    "cache_write_tokens": 0,
    "prefix_reuse_tokens": 0,
}


@dataclass
class _Step:
    """A step before numbering: its fields, and the step that launched its sub-agent."""

    fields: dict[str, Any]
    parent: _Step | None = None
    subagents: list[list[Any]] = field(default_factory=list)
    """The items of each sub-agent this step launched."""
    where: str = "before"
    """Where they go: ``before`` the step, ``after`` it or ``interleaved`` with later steps."""
    index: int = -1


@dataclass
class _Session:
    """What the steps of one session share."""

    style: Style
    depth: int
    parent: _Step | None
    prompt: str | None
    agent_role: str | None
    calls: list[int] = field(default_factory=lambda: [0])


def _usage(draw: Draw, warmup: bool = False) -> dict[str, int]:
    """One API call's usage, Anthropic style (input excludes cache reads and writes)."""
    return {
        "input_tokens": draw(st.integers(0, 40)),
        "output_tokens": draw(st.integers(0, 10)) if warmup else draw(st.integers(1, 900)),
        "cache_read_tokens": draw(st.sampled_from((0, 0, 2904, 11873, 12010))),
        "cache_write_tokens": draw(st.sampled_from((0, 0, 310, 2904))),
        "prefix_reuse_tokens": 0,
    }


def _written_usage(draw: Draw, style: Style, usage: dict[str, int]) -> dict[str, int]:
    """``usage`` as the producer writes it (zero counters left out when trimming)."""
    if usage == USAGE_DEFAULT:
        return usage
    return emit(draw, style, [(k, v, 0) for k, v in usage.items()])


def _tool_input(draw: Draw, name: str) -> dict[str, Any]:
    if name == "Bash":
        return {"command": draw(st.sampled_from(("pytest -q", "ls", "git diff")) | prose)}
    if name in ("Read", "Edit", "Write"):
        out: dict[str, Any] = {"file_path": draw(st.sampled_from(("src/app.py", "README.md")))}
        if name == "Read" and draw(st.booleans()):
            out["offset"] = draw(st.integers(1, 80))
        if name == "Edit":
            out |= {"old_string": draw(prose), "new_string": draw(prose)}
        return out
    if name == "Grep":
        return {"pattern": draw(prose), "path": "src"}
    return draw(small_objects)


def _summary(content: str | None) -> str | None:
    """What the parser writes as ``output_summary``: the first 200 characters plus ``...``."""
    if not content:
        return None
    return content if len(content) <= 200 else content[:200] + "..."


def _observation(draw: Draw, s: _Session, call_id: str) -> dict[str, Any]:
    error = draw(st.sampled_from((None, None, None, *ERRORS)))
    content = None if error == "no_result" else draw(st.none() | prose | st.text(min_size=201))
    if content == "":
        content = None  # the parser writes null for an empty result
    return emit(
        draw,
        s.style,
        [
            ("source_call_id", call_id, OMIT),
            ("content", content, None),
            ("output_summary", _summary(content), None),
            ("error", error, None),
        ],
    )


def _step(draw: Draw, s: _Session, role: str, **given: Any) -> _Step:
    """A step in declaration order with the session's shared fields."""
    agent = role == "agent"
    call_type = given.pop("call_type", "subagent" if s.depth else "main")
    values: dict[str, Any] = {
        "content": None,
        "reasoning_content": None,
        "model": None,
        "system_prompt_hash": s.prompt if agent else None,
        "agent_role": s.agent_role if agent else None,
        "call_type": call_type,
        "subagent_trajectory_ref": None,
        "tools_available": [],
        "tool_calls": [],
        "observations": [],
        "snippets": [],
        "token_usage": dict(USAGE_DEFAULT),
        "timestamp": maybe(draw, timestamps, 5),
    } | given
    usage = values["token_usage"]
    fields = [
        ("step_index", 0, OMIT),
        ("role", role, OMIT),
        ("content", values["content"], None),
        ("reasoning_content", values["reasoning_content"], None),
        ("model", values["model"], None),
        ("system_prompt_hash", values["system_prompt_hash"], None),
        ("agent_role", values["agent_role"], None),
        ("parent_step", None if s.parent is None else 0, None),
        ("call_type", values["call_type"], None),
        ("subagent_trajectory_ref", values["subagent_trajectory_ref"], None),
        ("tools_available", values["tools_available"], []),
        ("tool_calls", values["tool_calls"], []),
        ("observations", values["observations"], []),
        ("snippets", values["snippets"], []),
        ("token_usage", usage, USAGE_DEFAULT),
        ("timestamp", values["timestamp"], None),
    ]
    return _Step(emit(draw, s.style, fields), parent=s.parent)


def _api_call(draw: Draw, s: _Session, model: str, runtime: bool) -> list[Any]:
    """The steps of one API call: one per content block, each with the call's usage."""
    usage = USAGE_DEFAULT if runtime else _usage(draw)
    # one serialization for the call: every step of it writes the same object
    usage = _written_usage(draw, s.style, usage)
    items: list[Any] = []
    thinking = draw(st.booleans())
    text = draw(st.booleans())
    n_tools = draw(st.integers(0, 2))
    if not (thinking or text or n_tools):
        text = True
    # Hermes folds one turn into one step; Claude Code writes one row per block.
    per_block = not runtime and draw(st.integers(0, 3)) > 0
    blocks: list[dict[str, Any]] = []
    if thinking:
        blocks.append({"reasoning_content": draw(prose) or "[redacted: withheld]"})
    if text:
        blocks.append({"content": draw(prose) or "ok"})
    s.calls[0] += 1
    for k in range(n_tools):
        can_launch = not runtime and s.depth < 2 and draw(st.integers(0, 3)) == 0
        name = "Task" if can_launch else draw(st.sampled_from(("Bash", "Read", "Edit", "Grep")))
        call_id = f"tc_{s.calls[0]}_{k}" if runtime else f"toolu_{s.calls[0]:02d}{k}{s.depth}"
        call = {"tool_call_id": call_id, "tool_name": name, "input": _tool_input(draw, name)}
        if not runtime:
            call["duration_ms"] = maybe(draw, st.integers(0, 20000))
        call = emit(
            draw, s.style, [(k_, v, {} if k_ == "input" else None) for k_, v in call.items()]
        )
        obs = [_observation(draw, s, call_id)]
        if runtime and draw(st.integers(0, 4)) == 0:  # a result the importer could not match
            orphan = _observation(draw, s, f"tc_0_{k}9")
            obs.append(orphan | {"error": "unlinked_response"})
        snippets = []
        if name == "Read" and obs[0].get("content"):
            snippets.append(
                emit(
                    draw,
                    s.style,
                    [
                        ("file_path", call["input"]["file_path"], OMIT),
                        ("start_line", call["input"].get("offset", 1), None),
                        ("end_line", call["input"].get("offset", 1) + 3, None),
                        ("language", "python", None),
                        ("text", obs[0]["content"], None),
                        ("source_step", draw(st.integers(1, 40)), None),
                    ],
                )
            )
        blocks.append(
            {
                "tools_available": [name],
                "tool_calls": [call],
                "observations": obs,
                "snippets": snippets,
                "launch": int(name == "Task"),
            }
        )
    if not per_block:  # one step for the whole call
        merged: dict[str, Any] = {"tools_available": [], "tool_calls": [], "observations": []}
        merged |= {"snippets": [], "launch": 0}
        for b in blocks:
            for key in ("tools_available", "tool_calls", "observations", "snippets"):
                merged[key] = merged[key] + b.pop(key, [])
            launches = b.pop("launch", 0)
            merged["launch"] += launches
            merged |= b
        blocks = [merged]
    for b in blocks:
        launch = b.pop("launch", 0)
        step = _step(draw, s, "agent", model=model, token_usage=dict(usage), **b)
        if launch:  # the parser keeps the last launched sub-agent's file stem
            ref = f"agent-{draw(st.integers(0, 2**32)):08x}"
            step.fields = _with_ref(step.fields, ref)
            step.where = draw(st.sampled_from(("before", "before", "after", "interleaved")))
        for _ in range(launch):
            kind = draw(st.sampled_from(sorted(ROLES)))
            sub = _Session(
                s.style,
                s.depth + 1,
                step,
                s.prompt and draw(st.sampled_from(_PROMPTS)),
                ROLES[kind],
            )
            step.subagents.append(_session(draw, sub, runtime=False))
        items.append(step)
    return items


def _with_ref(fields: dict[str, Any], ref: str) -> dict[str, Any]:
    """``fields`` with ``subagent_trajectory_ref`` set at its declared place."""
    out: dict[str, Any] = {}
    for k, v in fields.items():
        if k in ("tools_available", "tool_calls", "observations", "snippets", "token_usage"):
            out.setdefault("subagent_trajectory_ref", ref)
        if k != "subagent_trajectory_ref":
            out[k] = v
    out.setdefault("subagent_trajectory_ref", ref)
    return out


_PROMPTS = ("b8f73e50c5f5241d", "eb26305a5e9adbb5")


def _session(draw: Draw, s: _Session, *, runtime: bool) -> list[Any]:
    """A session's steps (sub-agents still nested in their launching steps)."""
    items: list[Any] = [_step(draw, s, "user", content=draw(prose))]
    model = SMALL_MODEL if s.depth else draw(st.sampled_from(MAIN_MODELS))
    if not runtime and s.depth == 0 and draw(st.integers(0, 3)) == 0:
        items.append(
            _step(
                draw,
                s,
                "agent",
                model=SMALL_MODEL,
                call_type="warmup",
                token_usage=_written_usage(draw, s.style, _usage(draw, warmup=True)),
            )
        )
    for turn in range(draw(st.integers(1, 2 if s.depth else 3))):
        if turn:
            items.append(_step(draw, s, "user", content=draw(prose)))
        for _ in range(draw(st.integers(1, 2))):
            items.extend(_api_call(draw, s, model, runtime))
    return items


def _flatten(draw: Draw, items: list[Any]) -> list[_Step]:
    """The record's step order: sub-agents placed as their launching step says."""
    out: list[_Step] = []
    later: list[tuple[int, list[_Step]]] = []
    for step in items:
        subs = [_flatten(draw, items) for items in step.subagents]
        if step.where == "before":  # opentraces' Claude Code parser
            out.extend(s for sub in subs for s in sub)
            out.append(step)
        elif step.where == "after":
            out.append(step)
            out.extend(s for sub in subs for s in sub)
        else:
            out.append(step)
            later.extend((len(out), sub) for sub in subs)
    for start, sub in reversed(later):  # a chronological record interleaves them
        slots = sorted(
            draw(st.lists(st.integers(start, len(out)), min_size=len(sub), max_size=len(sub)))
        )
        for slot, step in reversed(list(zip(slots, sub, strict=True))):
            out.insert(slot, step)
    return out


@st.composite
def tao_records(draw: Draw) -> Doc:
    """A TAO v0.2.0 record that passes the schema and the error-level rules (see the module)."""
    style = draw(styles)
    runtime = draw(st.integers(0, 3)) == 0
    prompts: dict[str, str] = {}
    prompt: str | None = None
    if runtime:
        text = "You are a function-calling agent in a sandboxed Linux terminal."
        prompt = hashlib.md5(text.encode()).hexdigest()[:12]
        prompts[prompt] = text
    elif draw(st.booleans()):
        prompts = {
            _PROMPTS[1]: "You are Claude Code, an interactive CLI tool.",
            _PROMPTS[0]: "You are a read-only search agent.",
        }
        if draw(st.booleans()):
            prompt = _PROMPTS[1]  # referenced by the agent steps (else: stored, unreferenced)
    session = _Session(style, 0, None, prompt, "main")
    steps = _flatten(draw, _session(draw, session, runtime=runtime))
    if draw(st.integers(0, 5)) == 0:
        steps = []
    index = draw(st.sampled_from((0, 1, 1, 2)))
    gaps = draw(st.integers(0, 4)) == 0
    for step in steps:
        step.index = index
        index += draw(st.sampled_from((1, 1, 2))) if gaps else 1
    out_steps = []
    for step in steps:
        fields = dict(step.fields)
        fields["step_index"] = step.index
        if step.parent is not None:
            fields["parent_step"] = step.parent.index
        out_steps.append(fields)
    usage = [s.get("token_usage") or {} for s in out_steps]
    total_in = sum(u.get("input_tokens", 0) for u in usage)
    total_out = sum(u.get("output_tokens", 0) for u in usage)
    cached = sum(u.get("cache_read_tokens", 0) for u in usage)
    rate = round(cached / (total_in + cached), 4) if total_in + cached else None
    first_user = next((s.get("content") for s in out_steps if s["role"] == "user"), None)
    if runtime:
        execution_context: Any = "runtime"
        agent = {"name": "hermes-agent", "version": None, "model": "nousresearch/hermes-3"}
        outcome = {
            "success": draw(st.booleans() | st.none()),
            "signal_source": "rl_environment",
            "signal_confidence": "derived",
            "terminal_state": draw(st.sampled_from(("goal_reached", "error", "abandoned", None))),
            "reward": draw(st.none() | st.floats(-1, 1)),
            "reward_source": draw(st.sampled_from(("rl_environment", "judge", None))),
        }
        metrics: dict[str, Any] = {"total_steps": len(out_steps)}
        metadata: dict[str, Any] = {"step_fidelity": "conversation_turn", "dataset_row": 17}
    else:
        execution_context = draw(st.sampled_from(("devtime", None)))
        agent = {"name": "claude-code", "version": "1.0.44", "model": MAIN_MODELS[0]}
        stop = draw(st.sampled_from((None, "end_turn", "error_max_turns", "tool_use")))
        outcome = {}
        if stop is not None:
            outcome = {
                "success": False if stop.startswith("error") else None,
                "signal_source": "result_message",
                "signal_confidence": "inferred",
                "description": stop,
            }
        metrics = {
            "total_steps": len(out_steps),
            "total_input_tokens": total_in,
            "total_output_tokens": total_out,
            "total_duration_s": maybe(draw, st.floats(0, 1e4)),
            "cache_hit_rate": rate,
            "estimated_cost_usd": maybe(draw, st.floats(0, 5)),
        }
        metadata = {"project": "-home-dev-ledger"}
        if stop is not None:
            metadata |= {"stop_reason": stop, "num_turns": draw(st.integers(1, 9))}
    outcome_defaults = {
        "success": None,
        "signal_source": "deterministic",
        "signal_confidence": "derived",
        "description": None,
        "patch": None,
        "committed": False,
        "commit_sha": None,
        "terminal_state": None,
        "reward": None,
        "reward_source": None,
    }
    metric_defaults = {
        "total_steps": 0,
        "total_input_tokens": 0,
        "total_output_tokens": 0,
        "total_duration_s": None,
        "cache_hit_rate": None,
        "estimated_cost_usd": None,
    }
    if draw(st.integers(0, 4)) == 0:  # a producer that leaves the totals unfilled
        metrics = {}

    def obj(values: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
        return emit(draw, style, [(k, values.get(k, d), d) for k, d in defaults.items()])

    vcs = {"type": "git", "base_commit": None, "branch": "fix/csv-bom", "diff": None}
    if runtime or draw(st.booleans()):
        vcs = {"type": "none", "base_commit": None, "branch": None, "diff": None}
    environment = {
        "os": None if runtime else "linux",
        "shell": None if runtime else "bash",
        "vcs": obj(vcs, {"type": "none", "base_commit": None, "branch": None, "diff": None}),
        "language_ecosystem": [],
    }
    tools = [] if runtime else [{"name": "Bash", "description": "Run a shell command."}]
    attribution = None
    if not runtime and draw(st.integers(0, 5)) == 0:
        attribution = {
            "experimental": True,
            "files": [
                {
                    "path": "src/app.py",
                    "conversations": [
                        {
                            "contributor": {"type": "ai", "model_id": MAIN_MODELS[0]},
                            "url": "opentraces://t/step_3",
                            "ranges": [{"start_line": 1, "end_line": 4, "confidence": "high"}],
                        }
                    ],
                }
            ],
        }
    task = {"description": first_user, "source": "user_prompt", "repository": None}
    doc = emit(
        draw,
        style,
        [
            ("schema_version", "0.2.0", OMIT if draw(st.integers(0, 5)) == 0 else "0.2.0"),
            ("trace_id", f"{draw(st.uuids())}", OMIT),
            (
                "session_id",
                draw(st.sampled_from(("9e2f4b7a-1c3d", "hermes:default:8c1f:17"))),
                OMIT,
            ),
            ("content_hash", None, None),
            ("timestamp_start", maybe(draw, timestamps), None),
            ("timestamp_end", maybe(draw, timestamps), None),
            ("execution_context", execution_context, None),
            (
                "task",
                obj(
                    task,
                    {"description": None, "source": None, "repository": None, "base_commit": None},
                ),
                {},
            ),
            (
                "agent",
                emit(
                    draw,
                    style,
                    [("name", agent["name"], OMIT)]
                    + [(k, agent[k], None) for k in ("version", "model")],
                ),
                OMIT,
            ),
            (
                "environment",
                obj(environment, {"os": None, "shell": None, "vcs": {}, "language_ecosystem": []}),
                {},
            ),
            ("system_prompts", prompts, {}),
            ("tool_definitions", tools, []),
            ("steps", out_steps, []),
            ("outcome", obj(outcome, outcome_defaults), {}),
            ("dependencies", [], []),
            ("metrics", obj(metrics, metric_defaults), {}),
            (
                "security",
                obj(
                    {},
                    {
                        "scanned": False,
                        "flags_reviewed": 0,
                        "redactions_applied": 0,
                        "classifier_version": None,
                    },
                ),
                {},
            ),
            ("attribution", attribution, None),
            ("metadata", metadata, {}),
        ],
    )
    if draw(st.integers(0, 2)) == 0:  # to_jsonl_line sets it; trimmed records often lack it
        hashed = content_hash(doc, "v0.2.0")
        doc.pop("content_hash", None)
        doc = dict(_after(doc, "session_id", ("content_hash", hashed)))
    return doc


def _after(doc: dict[str, Any], key: str, item: tuple[str, Any]) -> list[tuple[str, Any]]:
    """``doc``'s items with ``item`` placed right after ``key``."""
    out: list[tuple[str, Any]] = []
    for k, v in doc.items():
        out.append((k, v))
        if k == key:
            out.append(item)
    return out
