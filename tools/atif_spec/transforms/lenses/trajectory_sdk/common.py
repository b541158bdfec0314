"""What both directions of the trajectory-sdk lens share: its targets, its field rows (plain
copies and named keys, :mod:`atif_spec.transforms.fields`; ``trajectory_sdk_mapping`` renders
them into MAPPING.md), where a document sits in its run (:class:`Scope`) and usage ↔ metrics."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from atif_spec.formats.atif import key_order
from atif_spec.jsonio.jsonequal import same_json
from atif_spec.jsonio.jsonvalues import json_int
from atif_spec.transforms.driver import Context, Refused
from atif_spec.transforms.fields import ABSENT, Field, FreeForm, Named, get

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


def _present(value: Any) -> bool:
    return value is not None


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _finite(value: Any) -> bool:  # a number (no boolean), not NaN or infinite
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return not isinstance(value, float) or math.isfinite(value)


def _object(value: Any) -> bool:
    return isinstance(value, dict)


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


def _usage_lost(usage: Any) -> bool:
    """Whether the step metrics made of ``usage`` do not give it back."""
    return usage is not None and not same_json(sdk_usage(atif_metrics(usage)), usage)


# Plain copies, SDK member → ATIF member of the same object (both ways where the tables say).
SESSION = Field(
    "task/conversation_id",
    "session_id",
    "left out when null (optional from v1.7; `atif migrate` to an older version decides)",
    _text,
)
TASK_ID = Field("task/id", "trajectory_id", when=_text)
"""SDK → ATIF only: ATIF → SDK writes ``task.id`` from the session id."""
MODEL = Field("model_id", "agent/model_name", when=_text)
COST = Field("task/total_cost", "final_metrics/total_cost_usd", when=_finite)
REASONING = Field("reasoning", "reasoning_content", when=_text)


def sdk(row: Field, obj: Any) -> Any:
    """What ATIF → SDK writes for a plain row from the ATIF object ``obj``: its value, or null
    when it is absent or the row's condition rejects it (the SDK writes every key)."""
    value = get(obj, row.target)
    return value if value is not ABSENT and (row.when is None or row.when(value)) else None


# Named keys of SDK → ATIF (MAPPING.md §3): SDK root members → the root `extra`.
ROOT_NAMES = (
    Named(
        "task",
        "task",
        note="the whole task record (data source, turn and step counts, total tokens)",
        when=_present,
    ),
    Named("reward", "reward", note="when not null", when=_present),
    Named(
        "metrics",
        "trajectory_metrics",
        note="when not null (tool calls, failures, error rate, aggregated reward)",
        when=_present,
    ),
    Named(
        "execution_metrics",
        "execution_metrics",
        note="when not null (termination reason, environment, LLM and total time)",
        when=_present,
    ),
    Named("reference_trajectory", "reference_trajectory", note="when not null", when=_present),
    Named(
        "telemetry",
        "telemetry",
        note="when not null (source, content hash, idempotency key)",
        when=_present,
    ),
    Named("idx", "idx", note="when not null", when=_present),
    Named("error", "error", note="the run's error, when not null", when=_present),
    Named("trace_id", "trace_id", note="when not null", when=_present),
)
SNAPSHOTS = Named(
    "steps",
    "snapshots",
    label="per snapshot `reward`, `info`, `trainable_status`",
    note="one object `{reward, info, trainable_status}` per snapshot (the members the snapshot "
    "has), in snapshot order; read back when the way back cuts as many snapshots",
)
"""Written from the snapshots' :data:`SNAPSHOT_KEYS`, not copied."""
_STEP = "/steps/*"
FINISH = Named("finish_reason", "finish_reason", _STEP, note="when not null", when=_present)
STATUS = Named(
    "trainable_status",
    "trainable_status",
    _STEP,
    note="of every assistant message, of other messages when not `not_trainable`; information "
    "only: `atif export-sft` does not read it (DECISIONS D21)",
    when=_present,
)
USAGE = Named(
    "usage",
    "usage",
    _STEP,
    note="the provider's usage as written (e.g. Anthropic keys, `total_tokens`)",
    label="`usage` that `metrics` does not give back",
    when=_usage_lost,
)
STEP_NAMES = (FINISH, STATUS, USAGE)
"""Message fields → the step's ``extra``."""
_RESULT = "/steps/*/observation/results/*"
ERROR = Named("tool_response/error", "error", _RESULT, note="when not null: the tool failed")
RESPONSE = Named(
    "tool_response/response",
    "response",
    _RESULT,
    note="when it is not what the way back writes: the result's `content`, or null beside a "
    "named `error` (a structured response; DECISIONS D25)",
)
RESULT_NAMES = (
    ERROR,
    RESPONSE,
    Named("tool_response/metadata", "tool_response_metadata", _RESULT, note="when not null"),
)
"""A tool message's ``tool_response`` members → its result's ``extra``."""

# Named keys of ATIF → SDK (MAPPING.md §4.1).
_MESSAGE = "/steps/*/messages/*"
SDK_STEP_NAMES = (
    Named(
        "timestamp",
        "timestamp",
        _MESSAGE,
        "metadata",
        "system, user and agent steps (the SDK has no times)",
        when=_text,
    ),
    Named(
        "model_name",
        "model_name",
        _MESSAGE,
        "metadata",
        "the model that wrote the step, when it differs per step",
        when=_text,
    ),
    Named(
        "metrics/cost_usd",
        "cost_usd",
        _MESSAGE,
        "metadata",
        "the step's cost in US dollars (the SDK keeps only the conversation's `task.total_cost`)",
        when=_finite,
    ),
)
"""A step's members → its message's ``metadata``."""
BOUNDARY = Named(
    "extra/context_management",
    "context_management",
    _MESSAGE,
    "metadata",
    "the way back reads the boundary's type and policy there instead of deciding "
    '`{"type": "compaction", "boundary": "replace"}` (§5)',
    label="a `replace` boundary step's `extra.context_management`",
    when=_object,
)
REF = Named(
    "subagent_trajectory_ref",
    "subagent_trajectory_ref",
    _MESSAGE,
    "tool_response/metadata",
    "the reference as ATIF writes it (`trajectory_id`, `session_id`, `trajectory_path`); a "
    "result without `source_call_id` is no tool message and stays in the stash",
    label="a result's `subagent_trajectory_ref`",
)
_DATA = "telemetry/data"
SDK_ROOT_NAMES = (
    Named("agent/name", "agent_name", "", _DATA, "the SDK has no agent identity", when=_present),
    Named("agent/version", "agent_version", "", _DATA, when=_present),
    Named(
        "final_metrics",
        "final_metrics",
        "",
        _DATA,
        "the trajectory's totals as ATIF states them (RFC.md §2.4)",
        when=_present,
    ),
    Named(
        "trajectory_id",
        "trajectory_id",
        "",
        _DATA,
        "the ATIF identity of the run, which subagent references name",
        when=_present,
    ),
)
"""ATIF root members → ``telemetry.data``."""
EMBEDDED = Named(
    "subagent_trajectories",
    "subagent_trajectories",
    "",
    _DATA,
    "each a whole SDK trajectory, converted by these rules (its own snapshots, task, telemetry "
    "and named keys; nested subagents nest the same way); once per file, not repeated in every "
    "snapshot (DECISIONS D24)",
)
"""The embedded subagents, each converted: ``telemetry.data.subagent_trajectories[i]``."""


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
