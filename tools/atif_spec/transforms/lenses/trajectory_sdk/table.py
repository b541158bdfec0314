"""The trajectory-sdk lens's field table (:mod:`atif_spec.transforms.fields`): the plain copies
both directions make and the named keys each writes and the other reads back. The mappings run
these rows; ``trajectory_sdk_mapping`` renders them into MAPPING.md."""

from __future__ import annotations

import math
from typing import Any

from atif_spec.jsonio.jsonequal import same_json
from atif_spec.transforms.fields import Field, Named
from atif_spec.transforms.lenses.trajectory_sdk.common import atif_metrics, sdk_usage


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
