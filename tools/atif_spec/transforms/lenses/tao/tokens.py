"""Token accounting of TAO and ATIF (MAPPING.md §2.5): counts, both directions."""

from __future__ import annotations

import itertools
from typing import Any

from atif_spec.formats.totals import step_totals
from atif_spec.jsonio.jsonvalues import objects

Doc = dict[str, Any]

CACHE_WRITES = "cache_creation_input_tokens"
"""The ATIF metrics ``extra`` key TAO's ``cache_write_tokens`` maps to (§2.5)."""


def count(value: Any) -> int | float | None:
    """A token count (a JSON integer, or a float with no fraction), else None (a bool too)."""
    if type(value) is int or (type(value) is float and value.is_integer()):
        return value
    return None


def anthropic_usage(step_model: Any, agent_model: Any, agent_name: Any) -> bool:
    """Whether usage is Anthropic's (input excludes cache reads and writes): by the step's model,
    else the agent's (``anthropic/…``, Claude), else the agent's name (``claude…``)."""
    model = step_model if isinstance(step_model, str) and step_model else None
    if model is None and isinstance(agent_model, str) and agent_model:
        model = agent_model
    if model is not None:
        lowered = model.lower()
        return lowered.startswith("anthropic/") or "claude" in lowered
    return isinstance(agent_name, str) and agent_name.lower().startswith("claude")


def repeated_usage(steps: list[Doc]) -> set[int]:
    """Positions of agent steps that repeat the previous step's usage: opentraces writes one step
    per content block of a response, each with its usage, which counts once (RFC.md §2.4)."""
    out: set[int] = set()
    for p, (prev, step) in enumerate(itertools.pairwise(steps), 1):
        usage = step.get("token_usage")
        if (
            step.get("role") == "agent"
            and prev.get("role") == "agent"
            and isinstance(usage, dict)
            and usage == prev.get("token_usage")
            and any(count(v) for v in usage.values())
            and step.get("model") == prev.get("model")
            and step.get("parent_step") == prev.get("parent_step")
        ):
            out.add(p)
    return out


def metrics_of(usage: Doc, anthropic: bool) -> Doc:
    """ATIF metrics for a TAO token usage (prompt tokens include cached ones in ATIF)."""
    given, completion = count(usage.get("input_tokens")), count(usage.get("output_tokens"))
    read, write = count(usage.get("cache_read_tokens")), count(usage.get("cache_write_tokens"))
    out: Doc = {}
    if given is not None:
        prompt = given + (read or 0) + (write or 0) if anthropic else given
        if prompt >= 0:
            out["prompt_tokens"] = prompt
    if completion is not None and completion >= 0:
        out["completion_tokens"] = completion
    if read is not None and read >= 0:
        out["cached_tokens"] = read
    if write is not None:
        out["extra"] = {CACHE_WRITES: write}
    return out


def usage_of(metrics: Doc, anthropic: bool) -> Doc:
    """TAO token usage for ATIF metrics (the inverse of :func:`metrics_of`)."""
    prompt = count(metrics.get("prompt_tokens"))
    completion = count(metrics.get("completion_tokens"))
    cached = count(metrics.get("cached_tokens"))
    extra = metrics.get("extra")
    written = count(extra.get(CACHE_WRITES)) if isinstance(extra, dict) else None
    out: Doc = {}
    if prompt is not None:
        out["input_tokens"] = prompt - (cached or 0) - (written or 0) if anthropic else prompt
    if completion is not None:
        out["output_tokens"] = completion
    if cached is not None:
        out["cache_read_tokens"] = cached
    if written is not None:
        out["cache_write_tokens"] = written
    return out


def totals(doc: Doc) -> Doc:
    """The ``final_metrics`` totals TAO → ATIF writes (RFC.md §2.4, subagents included; 0 for a
    metric no step reports; ``total_steps``: main steps)."""
    found, seen = step_totals(doc.get("steps")), {id(doc)}
    pending = list(objects(doc.get("subagent_trajectories")))
    while pending:
        node = pending.pop()
        if id(node) not in seen:
            seen.add(id(node))
            found.add(step_totals(node.get("steps")))
            pending.extend(objects(node.get("subagent_trajectories")))
    steps = doc.get("steps")
    return {
        "total_prompt_tokens": found.prompt_tokens or 0,
        "total_completion_tokens": found.completion_tokens or 0,
        "total_cached_tokens": found.cached_tokens or 0,
        "total_steps": len(steps) if isinstance(steps, list) else 0,
    }


def usage_totals(steps: list[Doc]) -> Doc:
    """TAO's ``metrics`` totals of the steps' ``token_usage`` counts (``total_input_tokens``,
    ``total_output_tokens``); a total no step reports is left out (unknown, not 0)."""
    usages = [usage for step in steps if isinstance(usage := step.get("token_usage"), dict)]
    out: Doc = {}
    for key in ("input_tokens", "output_tokens"):
        found = [count(usage[key]) for usage in usages if key in usage]
        if found:
            out[f"total_{key}"] = sum(0 if value is None else int(value) for value in found)
    return out
