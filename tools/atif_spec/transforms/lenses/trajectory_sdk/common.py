"""What both directions of the trajectory-sdk lens share: its targets, the named keys
(MAPPING.md), the run's view of them (:class:`Names`) and usage ↔ metrics."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from atif_spec.formats.atif import key_order
from atif_spec.jsonio.jsonvalues import json_int
from atif_spec.transforms.driver import Context, Refused

Doc = dict[str, Any]

ATIF = "atif@v1.7"
SDK = "trajectory-sdk@v0.4"
DATA_SOURCE = "atif"
"""``task.data_source`` and ``telemetry.source`` of converted ATIF documents."""
UNKNOWN = "unknown"
"""``agent.name`` and ``agent.version`` of converted SDK files (the SDK has no agent identity)."""
NAMED = "a named key of the target (MAPPING.md)"
STEP_NAMES = ("finish_reason", "trainable_status", "usage")
"""Named step ``extra`` keys of SDK→ATIF (MAPPING.md §3.3): message fields ATIF has no place for."""
RESULT_NAMES = {"error": "error", "response": "response", "metadata": "tool_response_metadata"}
"""``tool_response`` member → named observation-result ``extra`` key (MAPPING.md §3.3)."""
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
"""SDK root member → named root ``extra`` key of SDK→ATIF (MAPPING.md §3.2)."""
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


def number(value: Any) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if not isinstance(value, float) or math.isfinite(value) else None


class Names:
    """The named keys of one mapping run, through its context, for the document mapped from
    ``source`` (a pointer in the input) to ``target`` (in the output): an embedded subagent's.

    ``exact``: the input was converted by the inverse step (the driver lets the mapping read
    named keys back); the mapping then writes none (DECISIONS D23)."""

    def __init__(self, ctx: Context, source: str = "", target: str = "") -> None:
        self.ctx, self.source, self.target = ctx, source, target
        self.exact = bool(ctx.reads)

    def nested(self, source: str, target: str) -> Names:
        return Names(self.ctx, self.source + source, self.target + target)

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


def sdk_usage(metrics: Any) -> Doc | None:
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


def atif_metrics(usage: Any) -> Doc | None:
    """ATIF step metrics from provider usage (OpenAI or Anthropic keys; MAPPING §3.3)."""
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
