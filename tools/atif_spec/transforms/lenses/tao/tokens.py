"""Token accounting of TAO and ATIF (MAPPING.md §2.5): counts, both directions."""

from __future__ import annotations

from typing import Any

from atif_spec.formats.totals import trajectory_totals

Doc = dict[str, Any]

CACHE_WRITES = "cache_creation_input_tokens"
"""The ATIF metrics ``extra`` key TAO's ``cache_write_tokens`` maps to (§2.5)."""


def count(value: Any) -> int | float | None:
    """A token count (an integer, or a float with no fraction), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return value
    return None


def anthropic_usage(step_model: Any, agent_model: Any, agent_name: Any) -> bool:
    """Whether token usage follows Anthropic's convention (input excludes cache reads/writes).

    Decided by the step's model, else the agent's model (``anthropic/…`` or a Claude model),
    else the agent's name (``claude…``); otherwise input is taken to include cached tokens.
    """
    model = step_model if isinstance(step_model, str) and step_model else None
    if model is None and isinstance(agent_model, str) and agent_model:
        model = agent_model
    if model is not None:
        lowered = model.lower()
        return lowered.startswith("anthropic/") or "claude" in lowered
    return isinstance(agent_name, str) and agent_name.lower().startswith("claude")


def repeated_usage(steps: list[Doc]) -> set[int]:
    """Positions of agent steps that repeat the previous step's API call usage.

    opentraces' Claude Code parser writes one step per content block of a response, each with
    that response's ``message.usage``: adjacent agent steps with the same ``model``,
    ``parent_step`` and an equal, non-zero ``token_usage`` are one call, whose usage counts once
    (RFC.md §2.4 rule 4): ATIF ``metrics`` go on the first of them only."""
    out: set[int] = set()
    for p in range(1, len(steps)):
        step, prev = steps[p], steps[p - 1]
        usage = step.get("token_usage")
        if (
            step.get("role") == "agent"
            and prev.get("role") == "agent"
            and isinstance(usage, dict)
            and any(count(v) for v in usage.values())
            and usage == prev.get("token_usage")
            and step.get("model") == prev.get("model")
            and step.get("parent_step") == prev.get("parent_step")
        ):
            out.add(p)
    return out


def metrics_of(usage: Doc, anthropic: bool) -> Doc:
    """ATIF metrics for a TAO token usage (prompt tokens include cached ones in ATIF)."""
    given = {
        k: count(usage.get(k))
        for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
    }
    read, write = given["cache_read_tokens"], given["cache_write_tokens"]
    out: Doc = {}
    if given["input_tokens"] is not None:
        prompt = given["input_tokens"]
        if anthropic:
            prompt = prompt + (read or 0) + (write or 0)
        if prompt >= 0:
            out["prompt_tokens"] = prompt
    if given["output_tokens"] is not None and given["output_tokens"] >= 0:
        out["completion_tokens"] = given["output_tokens"]
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
    """The ``final_metrics`` totals TAO → ATIF writes for an ATIF trajectory (RFC.md §2.4,
    subagents included; 0 for a metric no step reports; ``total_steps``: the main steps)."""
    found = trajectory_totals(doc)
    steps = doc.get("steps")
    return {
        "total_prompt_tokens": found.prompt_tokens or 0,
        "total_completion_tokens": found.completion_tokens or 0,
        "total_cached_tokens": found.cached_tokens or 0,
        "total_steps": len(steps) if isinstance(steps, list) else 0,
    }


def counted(steps: list[Doc], key: str) -> bool:
    """Whether some step's ``token_usage`` reports ``key``."""
    return any(isinstance(s.get("token_usage"), dict) and key in s["token_usage"] for s in steps)


def total(steps: list[Doc], key: str) -> int:
    """The sum of the steps' ``token_usage`` counts ``key``."""
    found = 0
    for step in steps:
        usage = step.get("token_usage")
        value = count(usage.get(key)) if isinstance(usage, dict) else None
        if value is not None:
            found += int(value)
    return found
