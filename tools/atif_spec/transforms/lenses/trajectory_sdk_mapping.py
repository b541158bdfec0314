"""The mapping tables of the trajectory-sdk lenses (:mod:`atif_spec.transforms.mapping`).

Rendered into ``spec/trajectory-sdk/MAPPING.md`` by ``python -m atif_spec.spectools.docgen``. A
named row's ``key`` is the pointer of the member from the document root (the owner of the lenses'
stash layer); ``*`` stands for any array index.
"""

from __future__ import annotations

from atif_spec.transforms.mapping import Row, Table

TO_ATIF = "trajectory-sdk@v0.4->atif@v1.7"
TO_SDK = "atif@v1.7->trajectory-sdk@v0.4"

_ROOT = (
    Row("—", "`schema_version`", note="`ATIF-v1.7` (then migrated to the requested version)"),
    Row(
        "`task.conversation_id`",
        "`session_id`",
        note="left out when null (optional from v1.7; `atif migrate` to an older version decides)",
    ),
    Row("`task.id`", "`trajectory_id`"),
    Row(
        "—",
        "`agent.name`, `agent.version`",
        "decided",
        'the SDK has no agent identity: both `"unknown"`',
    ),
    Row("`model_id`", "`agent.model_name`"),
    Row(
        "every message's `tool_definitions`",
        "`agent.tool_definitions`",
        note='union by `name`, first occurrence wins; each wrapped as `{"type": "function", '
        '"function": {name, description, parameters}}`; the per-message placement comes back '
        "from the stash",
    ),
    Row("`task.total_cost`", "`final_metrics.total_cost_usd`"),
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
    Row(
        "`task`",
        "`extra.task`",
        "named",
        "the whole task record (data source, turn and step counts, total tokens)",
        key="/extra/task",
    ),
    Row("`reward`", "`extra.reward`", "named", "when not null", key="/extra/reward"),
    Row(
        "`metrics`",
        "`extra.trajectory_metrics`",
        "named",
        "when not null (tool calls, failures, error rate, aggregated reward)",
        key="/extra/trajectory_metrics",
    ),
    Row(
        "`execution_metrics`",
        "`extra.execution_metrics`",
        "named",
        "when not null (termination reason, environment, LLM and total time)",
        key="/extra/execution_metrics",
    ),
    Row(
        "`reference_trajectory`",
        "`extra.reference_trajectory`",
        "named",
        "when not null",
        key="/extra/reference_trajectory",
    ),
    Row(
        "`telemetry`",
        "`extra.telemetry`",
        "named",
        "when not null (source, content hash, idempotency key)",
        key="/extra/telemetry",
    ),
    Row("`idx`", "`extra.idx`", "named", "when not null", key="/extra/idx"),
    Row("`error`", "`extra.error`", "named", "the run's error, when not null", key="/extra/error"),
    Row("`trace_id`", "`extra.trace_id`", "named", "when not null", key="/extra/trace_id"),
    Row(
        "per snapshot `reward`, `info`, `trainable_status`",
        "`extra.snapshots`",
        "named",
        "one object `{reward, info, trainable_status}` per snapshot (the members the snapshot "
        "has), in snapshot order; read back when the way back cuts as many snapshots",
        key="/extra/snapshots",
    ),
)

_MESSAGES = (
    Row(
        '`role: "system"` / `"user"`',
        'a step with `source` `system` / `user`, `message` = `content` (`""` when null)',
    ),
    Row('`role: "assistant"`', '`source: "agent"`, `message` = `content` or `""`'),
    Row("`reasoning`", "`reasoning_content`"),
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
    Row(
        "`usage` that `metrics` does not give back",
        "the step's `extra.usage`",
        "named",
        "the provider's usage as written (e.g. Anthropic keys, `total_tokens`)",
        key="/steps/*/extra/usage",
    ),
    Row("`metadata`", "step `extra`"),
    Row(
        "`finish_reason`",
        "the step's `extra.finish_reason`",
        "named",
        "when not null",
        key="/steps/*/extra/finish_reason",
    ),
    Row(
        "`trainable_status`",
        "the step's `extra.trainable_status`",
        "named",
        "of every assistant message, of other messages when not `not_trainable`; information "
        "only: `atif export-sft` does not read it (DECISIONS D21)",
        key="/steps/*/extra/trainable_status",
    ),
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
    Row(
        "`tool_response.error`",
        "the result's `extra.error`",
        "named",
        "when not null: the tool failed",
        key="/steps/*/observation/results/*/extra/error",
    ),
    Row(
        "`tool_response.response`",
        "the result's `extra.response`",
        "named",
        "when it is not what the way back writes: the result's `content`, or null beside a "
        "named `error` (a structured response; DECISIONS D25)",
        key="/steps/*/observation/results/*/extra/response",
    ),
    Row(
        "`tool_response.metadata`",
        "the result's `extra.tool_response_metadata`",
        "named",
        "when not null",
        key="/steps/*/observation/results/*/extra/tool_response_metadata",
    ),
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
    Row("`reasoning_content`", "`reasoning`"),
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
    Row(
        "`metrics.cost_usd`",
        "its message's `metadata.cost_usd`",
        "named",
        "the step's cost in US dollars (the SDK keeps only the conversation's `task.total_cost`)",
        key="/steps/*/messages/*/metadata/cost_usd",
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
    Row(
        "`session_id`",
        "`task.conversation_id`",
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
    Row("`agent.model_name`", "`model_id`"),
    Row("`final_metrics.total_cost_usd`", "`task.total_cost`"),
    Row(
        "a step's `timestamp`",
        "its message's `metadata.timestamp`",
        "named",
        "system, user and agent steps (the SDK has no times)",
        key="/steps/*/messages/*/metadata/timestamp",
    ),
    Row(
        "a step's `model_name`",
        "its message's `metadata.model_name`",
        "named",
        "the model that wrote the step, when it differs per step",
        key="/steps/*/messages/*/metadata/model_name",
    ),
    Row(
        "a `replace` boundary step's `extra.context_management`",
        "the first system message of the new context: `metadata.context_management`",
        "named",
        "the way back reads the boundary's type and policy there instead of deciding "
        '`{"type": "compaction", "boundary": "replace"}` (§5)',
        key="/steps/*/messages/*/metadata/context_management",
    ),
    Row(
        "`agent.name`",
        "`telemetry.data.agent_name`",
        "named",
        "the SDK has no agent identity",
        key="/telemetry/data/agent_name",
    ),
    Row(
        "`agent.version`",
        "`telemetry.data.agent_version`",
        "named",
        "",
        key="/telemetry/data/agent_version",
    ),
    Row(
        "`final_metrics`",
        "`telemetry.data.final_metrics`",
        "named",
        "the trajectory's totals as ATIF states them (RFC.md §2.4)",
        key="/telemetry/data/final_metrics",
    ),
    Row(
        "`trajectory_id`",
        "`telemetry.data.trajectory_id`",
        "named",
        "the ATIF identity of the run, which subagent references name",
        key="/telemetry/data/trajectory_id",
    ),
    Row(
        "`subagent_trajectories[i]` (embedded subagents)",
        "`telemetry.data.subagent_trajectories[i]`",
        "named",
        "each a whole SDK trajectory, converted by these rules (its own snapshots, task, "
        "telemetry and named keys; nested subagents nest the same way); once per file, not "
        "repeated in every snapshot (DECISIONS D24)",
        key="/telemetry/data/subagent_trajectories",
        nests=True,
    ),
    Row(
        "a result's `subagent_trajectory_ref`",
        "its tool message's `tool_response.metadata.subagent_trajectory_ref`",
        "named",
        "the reference as ATIF writes it (`trajectory_id`, `session_id`, `trajectory_path`); a "
        "result without `source_call_id` is no tool message and stays in the stash",
        key="/steps/*/messages/*/tool_response/metadata/subagent_trajectory_ref",
    ),
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
