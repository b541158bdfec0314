"""The mapping tables of the trajectory-sdk lenses (:mod:`atif_spec.transforms.mapping`).

Rendered into ``spec/trajectory-sdk/MAPPING.md`` by ``python -m atif_spec.spectools.docgen``.
The plain copies and named keys come from the lens's field rows
(:mod:`atif_spec.transforms.lenses.trajectory_sdk.table`); the rows written here are what the
code does structurally (messages ↔ steps and results, snapshots, decisions, the stash).
"""

from __future__ import annotations

from dataclasses import replace

from atif_spec.transforms.fields import rows
from atif_spec.transforms.lenses.trajectory_sdk import TO_ATIF, TO_SDK, table
from atif_spec.transforms.mapping import Row, Table

_ROOT = (
    Row("—", "`schema_version`", note="`ATIF-v1.7` (then migrated to the requested version)"),
    table.SESSION.row(),
    table.TASK_ID.row(),
    Row(
        "—",
        "`agent.name`, `agent.version`",
        "decided",
        'the SDK has no agent identity: both `"unknown"`',
    ),
    table.MODEL.row(),
    Row(
        "every message's `tool_definitions`",
        "`agent.tool_definitions`",
        note='union by `name`, first occurrence wins; each wrapped as `{"type": "function", '
        '"function": {name, description, parameters}}`; the per-message placement comes back '
        "from the stash",
    ),
    table.COST.row(),
    Row(
        "—",
        "`final_metrics.total_prompt_tokens`, `total_completion_tokens`, `total_cached_tokens`",
        note="sums of the step metrics (RFC.md §2.4), when any step has them",
    ),
    Row(
        "—",
        "`final_metrics.total_steps`",
        note="the number of ATIF steps (not `task.num_steps`: the counts mean different things)",
    ),
    Row("no steps at all", 'one system step with `message: ""`', "decided", "ATIF needs a step"),
    *rows(table.ROOT_NAMES, ""),
    table.SNAPSHOTS.row(""),
)

_MESSAGES = (
    Row(
        '`role: "system"` / `"user"`',
        'a step with `source` `system` / `user`, `message` = `content` (`""` when null)',
    ),
    Row('`role: "assistant"`', '`source: "agent"`, `message` = `content` or `""`'),
    table.REASONING.row(),
    Row(
        "`tool_calls[j]`",
        "`tool_calls[j]` = `{tool_call_id: id, function_name: name, arguments}`",
        note="a null `id` gets `tsdk-<message index>-<j>` (index in the snapshot that adds the "
        "message; decided)",
    ),
    Row(
        "`usage`",
        "`metrics`",
        note="OpenAI keys as they are (`prompt_tokens`, `completion_tokens`, "
        "`prompt_tokens_details.cached_tokens` → `cached_tokens`); Anthropic keys: "
        "`prompt_tokens` = `input_tokens` + `cache_read_input_tokens` + "
        "`cache_creation_input_tokens`, `completion_tokens` = `output_tokens`, `cached_tokens` = "
        "`cache_read_input_tokens`",
    ),
    Row("`metadata`", "step `extra`"),
    *rows(table.STEP_NAMES, "the step's"),
    Row("`tool_definitions`", "—", "stashed", "their union is `agent.tool_definitions`"),
    Row(
        '`role: "tool"`',
        "no step of its own: one `observation.results[]` entry on the agent step whose call has "
        "`tool_response.id`; when that call had no id, the oldest unanswered id-less call of the "
        "same function (D12)",
        note="a response that answers no call (TSDK201) is refused "
        "(`convert:unlinked-tool-response`); a tool message without `tool_response` (TSDK203) "
        "becomes a result without `source_call_id` on the last agent step",
    ),
    Row(
        "`content` (or `tool_response.response` when `content` is null, JSON-encoded unless a "
        "string)",
        "result `content`",
    ),
    Row("tool message `metadata`", "result `extra`"),
    *rows(table.RESULT_NAMES, "the result's"),
    Row("`tool_response.name`, `arguments`", "—", "stashed", "when the way back differs"),
    Row(
        "a new context after a `summarization_boundary` step",
        "the boundary system step's `extra.context_management`",
        note="ATIF's context-management convention (RFC.md §2.1): the policy the ATIF→SDK lens "
        "named in the first system message's `metadata.context_management`, else "
        '`{"type": "compaction", "boundary": "replace"}`, decided (§5)',
        key="/steps/*/extra/context_management",
    ),
)

_TO_SDK = (
    Row(
        "system step",
        '`role: "system"`, `content` = message text',
        note="a `ContentPart[]` message is flattened as the SDK's recipes do: text parts joined "
        "with `\\n`, image and audio parts dropped (stashed)",
    ),
    Row("user step", '`role: "user"`, `content` = message text', note="same flattening"),
    Row(
        "agent step",
        '`role: "assistant"`, `content` = message text, or **null** when it is `""` and the '
        "step has tool calls",
    ),
    table.REASONING.row(back=True),
    Row(
        "`tool_calls[j]`",
        "`tool_calls[j]` = `{name: function_name, arguments, id: tool_call_id}`",
        note="`ToolCall.extra` stashed; converted back from the SDK, an id `tsdk-<k>-<j>` at the "
        "place where the SDK → ATIF lens generates it becomes null (D25)",
    ),
    Row(
        "`metrics.prompt_tokens`, `completion_tokens`, `cached_tokens`",
        "`usage = {prompt_tokens, completion_tokens, total_tokens, prompt_tokens_details: "
        "{cached_tokens}}` (the keys that apply)",
        note="token ids and logprobs stashed",
    ),
    Row("step `extra`", "message `metadata`"),
    Row(
        "each `observation.results[k]` with a `source_call_id`",
        "a `tool` message right after the step's assistant message, in result order: `content` "
        "= text of `content`, `tool_response = {id: source_call_id, name: the call's "
        "function_name, arguments: {}, response: content (null beside a named error), "
        "error: null, metadata: null}`, "
        "`metadata` = result `extra`",
        note="`arguments: {}` follows the OpenAI recipe",
    ),
    Row(
        "results without `source_call_id` (system observations, subagent references)",
        "not messages",
        "stashed",
        "except the `replace` boundary (§5)",
    ),
    Row(
        "`agent.tool_definitions`",
        "`tool_definitions` on the first system message (or the first message when there is "
        "none), unwrapped to `{name, description, parameters}`",
        note="only function definitions; the rest is stashed",
    ),
    table.SESSION.row(
        back=True,
        note='`task.data_source` = `telemetry.source` = `"atif"`; `task.id` = '
        '`"atif:<conversation_id>"`',
    ),
    Row(
        "the converted document",
        "`telemetry.data.conversation_id`",
        note="the SDK's own telemetry identity, as its builder writes it: the `session_id`",
        key="/telemetry/data/conversation_id",
    ),
    Row(
        "the converted document",
        "`telemetry.data.content_hash`",
        note="the SDK's own telemetry member: the SHA-256 its builder computes over the trajectory",
        key="/telemetry/data/content_hash",
    ),
    Row(
        "the converted document",
        "`telemetry.data.idempotency_key`",
        note='the SDK\'s own telemetry member: `"atif:<conversation_id>:<content_hash>"`',
        key="/telemetry/data/idempotency_key",
    ),
    table.MODEL.row(back=True),
    table.COST.row(back=True),
    *rows(table.SDK_STEP_NAMES, "its message's"),
    table.BOUNDARY.row("the first system message of the new context:"),
    *rows(table.SDK_ROOT_NAMES, ""),
    replace(table.EMBEDDED.row(""), nests=True),
    table.REF.row("its tool message's"),
    Row(
        "`reasoning_effort`, `llm_call_count`, `is_copied_context` (their training meaning is "
        "the message's `trainable_status`, §5), `notes`, root `extra`, "
        "`continued_trajectory_ref`",
        "—",
        "stashed",
    ),
    Row(
        "the named keys of §3 (`extra.task`, `extra.reward`, a step's `extra.finish_reason`, a "
        "result's `extra.error`, …)",
        "their SDK fields",
        note="only at the places the SDK→ATIF step's stash layer lists in `wrote` (RFC.md "
        "§4.5); a producer's own key of that name stays in `extra`/`metadata`",
    ),
)

MAPPING_TABLES: tuple[Table, ...] = (
    Table(
        id="trajectory-sdk-root",
        steps=(TO_ATIF,),
        columns=("trajectory-sdk", "ATIF"),
        rows=_ROOT,
    ),
    Table(
        id="trajectory-sdk-messages",
        steps=(TO_ATIF,),
        columns=("trajectory-sdk message", "ATIF"),
        rows=_MESSAGES,
    ),
    Table(
        id="trajectory-sdk-from-atif",
        steps=(TO_SDK,),
        columns=("ATIF", "trajectory-sdk message"),
        rows=_TO_SDK,
    ),
)
