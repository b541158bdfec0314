"""What both directions of the trajectory-sdk lens share: its targets, where a document sits in
its run (:class:`Scope`), usage ↔ metrics, and what ATIF → SDK writes for a plain row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from atif_spec.formats.atif import key_order
from atif_spec.jsonio.jsonvalues import json_int
from atif_spec.transforms.driver import Context, Refused
from atif_spec.transforms.fields import ABSENT, Field, FreeForm, get

Doc = dict[str, Any]

ATIF = "atif@v1.7"
SDK = "trajectory-sdk@v0.4"
DATA_SOURCE = "atif"
"""``task.data_source`` and ``telemetry.source`` of converted ATIF documents."""
UNKNOWN = "unknown"
"""``agent.name`` and ``agent.version`` of converted SDK files (the SDK has no agent identity)."""
SNAPSHOT_KEYS = ("reward", "info", "trainable_status")
"""Per-snapshot members kept, one object per snapshot, in the root ``extra.snapshots``."""
ROOT_ORDER = key_order("v1.7")
STEP_ORDER = key_order("v1.7", "Step")
METRICS_ORDER = key_order("v1.7", "Metrics")


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


def sdk(row: Field, obj: Any) -> Any:
    """What ATIF → SDK writes for a plain row from the ATIF object ``obj``: its value, or null
    when it is absent or the row's condition rejects it (the SDK writes every key)."""
    value = get(obj, row.target)
    return value if value is not ABSENT and (row.when is None or row.when(value)) else None


@dataclass(frozen=True, slots=True)
class Scope:
    """One document of a mapping run: its context, and where the document sits in the input
    (``source``) and the output (``target``): an embedded subagent's pointers. ``writes``: the
    input was not converted by the inverse step (the driver lets the mapping read no named key
    back); else the mapping rebuilds the native document and writes none (DECISIONS D23)."""

    ctx: Context
    source: str = ""
    target: str = ""

    @property
    def writes(self) -> bool:
        return not self.ctx.reads

    def nested(self, source: str, target: str) -> Scope:
        return Scope(self.ctx, self.source + source, self.target + target)

    def free(self, given: Any, at: str) -> FreeForm:
        """The free-form object ``given``, at ``at`` in the input (where named keys are read
        back; ``""`` for an object of the output, which only receives named keys)."""
        return FreeForm(given, self.source + at, self.ctx, writes=self.writes)

    def decide(self, ptr: str, policy: str, value: Any) -> None:
        self.ctx.decide(self.target + ptr, policy, value)

    def refuse(self, code: str, ptr: str, message: str) -> Refused:
        return self.ctx.refuse(code, self.source + ptr, message)
