"""Token usage of provider streams in ATIF's shapes (``Metrics``, ``FinalMetrics``).

Each provider reports usage once per unit, and that unit is the de-duplication key: Claude
repeats a message's ``usage`` on every streamed row of that ``message.id`` (counted once, the
first time the id is seen, as gza does); Codex reports it once per turn (``turn.completed``);
Gemini once per run (``result.stats``). The provider's own numbers are kept as they are; the
ATIF shapes are derived from them.
"""

from __future__ import annotations

from typing import Any


def _int(usage: dict[str, Any], *keys: str) -> int:
    return sum(v for k in keys if isinstance(v := usage.get(k), int) and not isinstance(v, bool))


def has_tokens(usage: Any) -> bool:
    """True for a usage object holding at least one integer count."""
    return isinstance(usage, dict) and any(
        isinstance(v, int) and not isinstance(v, bool) for v in usage.values()
    )


def add_usage(total: dict[str, Any], usage: dict[str, Any]) -> None:
    """Add the integer counts of ``usage`` into ``total`` (other members are left out)."""
    for key, value in usage.items():
        if isinstance(value, int) and not isinstance(value, bool):
            total[key] = int(total.get(key, 0)) + value


def claude_metrics(usage: dict[str, Any]) -> dict[str, int]:
    """ATIF ``Metrics`` of a Claude ``message.usage``: prompt tokens count the cached ones."""
    return {
        "prompt_tokens": _int(
            usage, "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"
        ),
        "completion_tokens": _int(usage, "output_tokens"),
        "cached_tokens": _int(usage, "cache_read_input_tokens"),
    }


def codex_metrics(usage: dict[str, Any]) -> dict[str, int]:
    """ATIF ``Metrics`` of a Codex ``turn.completed`` usage (input already counts cached)."""
    return {
        "prompt_tokens": _int(usage, "input_tokens"),
        "completion_tokens": _int(usage, "output_tokens"),
        "cached_tokens": _int(usage, "cached_input_tokens"),
    }


def gemini_metrics(stats: dict[str, Any]) -> dict[str, int]:
    """ATIF ``Metrics`` of a Gemini ``result.stats``."""
    return {
        "prompt_tokens": _int(stats, "input_tokens", "prompt_tokens"),
        "completion_tokens": _int(stats, "output_tokens", "candidates_tokens"),
        "cached_tokens": _int(stats, "cached", "cached_tokens", "cached_content_tokens"),
    }


def final_metrics(
    metrics: list[dict[str, int]], cost: float | None, steps: int
) -> dict[str, Any] | None:
    """ATIF ``FinalMetrics`` summing ``metrics``; None when there is neither usage nor cost."""
    if not metrics and cost is None:
        return None
    out: dict[str, Any] = {}
    if metrics:
        for src, dst in (
            ("prompt_tokens", "total_prompt_tokens"),
            ("completion_tokens", "total_completion_tokens"),
            ("cached_tokens", "total_cached_tokens"),
        ):
            out[dst] = sum(m.get(src, 0) for m in metrics)
    if cost is not None:
        out["total_cost_usd"] = cost
    out["total_steps"] = steps
    return out
