"""What both directions share: the field rows (plain copies and named keys, rendered into
MAPPING.md by ``trajectory_sdk_mapping``), usage ↔ metrics, and :class:`Scope`."""

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
DATA_SOURCE = "atif"  # `task.data_source` and `telemetry.source` of converted ATIF documents
UNKNOWN = "unknown"  # `agent.name` and `agent.version` of converted SDK files
SNAPSHOT_KEYS = ("reward", "info", "trainable_status")  # kept per snapshot: `extra.snapshots`
ROOT_ORDER = key_order("v1.7")
STEP_ORDER = key_order("v1.7", "Step")
METRICS_ORDER = key_order("v1.7", "Metrics")
_METRICS = ("prompt_tokens", "completion_tokens", "cached_tokens")


def sdk_usage(metrics: Any) -> Doc | None:
    """OpenAI-style usage from ATIF step metrics."""
    if not isinstance(metrics, dict):
        return None
    prompt, completion, cached = (json_int(metrics.get(k)) for k in _METRICS)
    usage = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": None if prompt is None or completion is None else prompt + completion,
        "prompt_tokens_details": None if cached is None else {"cached_tokens": cached},
    }
    return {k: v for k, v in usage.items() if v is not None} or None


def atif_metrics(usage: Any) -> Doc | None:
    """ATIF step metrics from provider usage (OpenAI or Anthropic keys; MAPPING §3.3)."""
    if not isinstance(usage, dict):
        return None
    if "input_tokens" in usage or "output_tokens" in usage:  # Anthropic
        keys = ("input_tokens", "output_tokens", "cache_read_input_tokens")
        prompt, out, read = (json_int(usage.get(k)) for k in keys)
        made = json_int(usage.get("cache_creation_input_tokens"))
        total = None if prompt is None else prompt + (read or 0) + (made or 0)
        values: tuple[int | None, ...] = (total, out, read)
    else:
        keys = ("prompt_tokens", "completion_tokens", "prompt_tokens_details/cached_tokens")
        values = tuple(json_int(get(usage, k)) for k in keys)
    return {k: v for k, v in zip(_METRICS, values, strict=True) if v is not None} or None


def sdk(row: Field, obj: Any) -> Any:
    """What ATIF → SDK writes for a plain row from the ATIF object ``obj``: its value, or null
    when it is absent or the row's condition rejects it (the SDK writes every key)."""
    value = get(obj, row.target)
    return value if value is not ABSENT and (row.when is None or row.when(value)) else None


@dataclass(frozen=True, slots=True)
class Scope:
    """One document of a run: its context, and the pointers of an embedded subagent in the
    input (``source``) and the output (``target``)."""

    ctx: Context
    source: str = ""
    target: str = ""

    @property
    def writes(self) -> bool:
        """The input was not converted by the inverse step, so the mapping writes named keys;
        else it rebuilds the native document and writes none (DECISIONS D23)."""
        return not self.ctx.reads

    def nested(self, source: str, target: str) -> Scope:
        return Scope(self.ctx, self.source + source, self.target + target)

    def free(self, given: Any, at: str) -> FreeForm:
        """The free-form object ``given`` at ``at`` in the input (``""``: one of the output)."""
        return FreeForm(given, self.source + at, self.ctx, writes=self.writes)

    def decide(self, ptr: str, policy: str, value: Any) -> None:
        self.ctx.decide(self.target + ptr, policy, value)

    def refuse(self, code: str, ptr: str, message: str) -> Refused:
        return self.ctx.refuse(code, self.source + ptr, message)


def _present(value: Any) -> bool:
    return value is not None


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _finite(value: Any) -> bool:  # a number (no boolean), not NaN or infinite
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return not isinstance(value, float) or math.isfinite(value)


def _usage_lost(usage: Any) -> bool:  # the step metrics made of it do not give it back
    return usage is not None and not same_json(sdk_usage(atif_metrics(usage)), usage)


# Plain copies, SDK member → ATIF member of the same object.
SESSION = Field(
    "task/conversation_id",
    "session_id",
    "left out when null (optional from v1.7; `atif migrate` to an older version decides)",
    _text,
)
TASK_ID = Field("task/id", "trajectory_id", when=_text)  # SDK → ATIF only
MODEL = Field("model_id", "agent/model_name", when=_text)
COST = Field("task/total_cost", "final_metrics/total_cost_usd", when=_finite)
REASONING = Field("reasoning", "reasoning_content", when=_text)

# Named keys of SDK → ATIF (MAPPING.md §3): SDK root members → the root `extra`.
_NOT_NULL = "when not null"
ROOT_NAMES = tuple(
    Named(member, key or member, note=f"{_NOT_NULL} ({what})" if what else _NOT_NULL, when=_present)
    for member, key, what in (
        ("task", "", "the whole task record: data source, turn and step counts, total tokens"),
        ("reward", "", ""),
        ("metrics", "trajectory_metrics", "tool calls, failures, error rate, aggregated reward"),
        ("execution_metrics", "", "termination reason, environment, LLM and total time"),
        ("reference_trajectory", "", ""),
        ("telemetry", "", "source, content hash, idempotency key"),
        ("idx", "", ""),
        ("error", "", "the run's error"),
        ("trace_id", "", ""),
    )
)
SNAPSHOTS = Named(  # written from the snapshots' SNAPSHOT_KEYS, not copied
    "steps",
    "snapshots",
    label="per snapshot `reward`, `info`, `trainable_status`",
    note="one object `{reward, info, trainable_status}` per snapshot (the members the snapshot "
    "has), in snapshot order; read back when the way back cuts as many snapshots",
)
FINISH = Named("finish_reason", "finish_reason", "/steps/*", note=_NOT_NULL, when=_present)
STATUS = Named(
    "trainable_status",
    "trainable_status",
    "/steps/*",
    note="of every assistant message, of other messages when not `not_trainable`; information "
    "only: `atif export-sft` does not read it (DECISIONS D21)",
    when=_present,
)
USAGE = Named(
    "usage",
    "usage",
    "/steps/*",
    note="the provider's usage as written (e.g. Anthropic keys, `total_tokens`)",
    label="`usage` that `metrics` does not give back",
    when=_usage_lost,
)
STEP_NAMES = (FINISH, STATUS, USAGE)  # message fields → the step's `extra`
_RESULT = "/steps/*/observation/results/*"
ERROR = Named("tool_response/error", "error", _RESULT, note=f"{_NOT_NULL}: the tool failed")
RESPONSE = Named(
    "tool_response/response",
    "response",
    _RESULT,
    note="when it is not what the way back writes: the result's `content`, or null beside a "
    "named `error` (a structured response; DECISIONS D25)",
)
METADATA = Named("tool_response/metadata", "tool_response_metadata", _RESULT, note=_NOT_NULL)
RESULT_NAMES = (ERROR, RESPONSE, METADATA)  # a tool message's members → its result's `extra`

# Named keys of ATIF → SDK (MAPPING.md §4.1): a step's members → its message's `metadata`.
_MESSAGE = "/steps/*/messages/*"
SDK_STEP_NAMES = tuple(
    Named(member, member.rpartition("/")[2], _MESSAGE, "metadata", note, when=when)
    for member, note, when in (
        ("timestamp", "system, user and agent steps (the SDK has no times)", _text),
        ("model_name", "the model that wrote the step, when it differs per step", _text),
        (
            "metrics/cost_usd",
            "the step's cost in US dollars (the SDK keeps only the "
            "conversation's `task.total_cost`)",
            _finite,
        ),
    )
)
BOUNDARY = Named(
    "extra/context_management",
    "context_management",
    _MESSAGE,
    "metadata",
    "the way back reads the boundary's type and policy there instead of deciding "
    '`{"type": "compaction", "boundary": "replace"}` (§5)',
    label="a `replace` boundary step's `extra.context_management`",
    when=lambda value: isinstance(value, dict),
)
REF = Named(
    "subagent_trajectory_ref",
    "subagent_trajectory_ref",
    _MESSAGE,
    "tool_response/metadata",
    "the reference as ATIF writes it (`trajectory_id`, `session_id`, `trajectory_path`); a "
    "result without `source_call_id` is no tool message and stays in the stash",
    label="a result's `subagent_trajectory_ref`",
    when=_present,
)
_DATA = "telemetry/data"  # ATIF root members → the SDK's `telemetry.data`
SDK_ROOT_NAMES = tuple(
    Named(member, member.replace("/", "_"), "", _DATA, note, when=_present)
    for member, note in (
        ("agent/name", "the SDK has no agent identity"),
        ("agent/version", ""),
        ("final_metrics", "the trajectory's totals as ATIF states them (RFC.md §2.4)"),
        ("trajectory_id", "the ATIF identity of the run, which subagent references name"),
    )
)
EMBEDDED = Named(
    "subagent_trajectories",
    "subagent_trajectories",
    "",
    _DATA,
    "each a whole SDK trajectory, converted by these rules (its own snapshots, task, telemetry "
    "and named keys; nested subagents nest the same way); once per file, not repeated in every "
    "snapshot (DECISIONS D24)",
)
