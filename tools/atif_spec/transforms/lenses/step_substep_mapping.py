"""The mapping tables of the step-substep lenses (:mod:`atif_spec.transforms.mapping`).

Rendered into ``spec/step-substep/MAPPING.md`` by ``python -m atif_spec.spectools.docgen``. A named
row's ``key`` is the pointer of the named member from the document root, ``*`` standing for any
array index; the lens writes exactly these keys
(:mod:`atif_spec.transforms.lenses.step_substep.common`, ``STEP_NAMED``, ``SUBSTEP_NAMED``,
``CALL_PAYLOAD_NAMED``, ``RESULT_PAYLOAD_NAMED``, ``SUBSTEPS_KEY``, ``ROOT_NAMED``,
``ATIF_STEP_NAMED``, ``PARTS_KEY``, ``REF_KEY``) and lists each
one written in its stash layer's ``wrote``.
"""

from __future__ import annotations

from atif_spec.transforms.mapping import Row, Table

TO_ATIF = ("step-substep@v1.0->atif@v1.7",)
TO_SSL = ("atif@v1.7->step-substep@v1.0",)

_NON_NULL = "When not null (null is what the way back writes)."


def _step_named(field: str, note: str = _NON_NULL) -> Row:
    return Row(f"`{field}`", f"step `extra.{field}`", "named", note, key=f"/steps/*/extra/{field}")


def _sub_named(field: str, note: str) -> tuple[Row, Row]:
    return (
        Row(
            f"`{field}`",
            f"`ToolCall.extra.{field}`",
            "named",
            note,
            key=f"/steps/*/tool_calls/*/extra/{field}",
        ),
        Row(
            f"`{field}`",
            f"`ObservationResult.extra.{field}`",
            "named",
            note,
            key=f"/steps/*/observation/results/*/extra/{field}",
        ),
    )


ROOT = Table(
    id="step-substep-root",
    steps=TO_ATIF,
    columns=("Run log", "ATIF v1.7"),
    rows=(
        Row("(constant)", '`schema_version: "ATIF-v1.7"`'),
        Row("`run_id`", "`session_id`", note="The run is the session (the gza task id)."),
        Row("`provider`", "`agent.name`", note="`codex`, `claude`, `gemini`, …"),
        Row(
            "`extra.agent_version` (a string)",
            "`agent.version`",
            note="Lifted (§2.1): the version the ATIF→run-log lens keeps there.",
        ),
        Row(
            "—",
            '`agent.version: "unknown"`',
            "decided",
            "Required by ATIF, unknown to the run log (without `extra.agent_version`).",
        ),
        Row(
            "`steps`",
            "`steps`",
            note="One ATIF step per run-log step, `step_id` 1…n (§3). An empty run gets one "
            'step `{"step_id": 1, "source": "system", "message": ""}` (decided; ATIF needs at '
            "least one); the way back reads a lone step exactly like it as an empty run (SSL-26).",
        ),
        Row("`extra.model` (a string)", "`agent.model_name`", note="Lifted (§2.1)."),
        Row(
            "`extra.final_metrics`",
            "`final_metrics`",
            note="Lifted (§2.1) when it is a valid ATIF `FinalMetrics`, its "
            "`total_prompt_tokens`, `total_completion_tokens`, `total_cached_tokens` and "
            "`total_cost_usd` equal the totals of the ATIF steps' `metrics` (RFC.md §2.4; "
            "`atif_spec.formats.totals`, rule ATIF306; a total no step reports is not compared) "
            "and its `total_steps`, if set, the number of ATIF steps; otherwise it stays in "
            "`extra`.",
        ),
        Row("`extra`", "`extra`", note="Copied without the lifted keys; the stash is added to it."),
        Row(
            "`$schema`",
            "`$schema`",
            note="The run-log schema's `$id` becomes ATIF v1.7's (an editor's reference names "
            "the document's own format; SSL-28); any other value is stashed.",
        ),
    ),
)

STEPS = Table(
    id="step-substep-steps",
    steps=TO_ATIF,
    columns=("Run-log step", "ATIF step"),
    rows=(
        Row(
            "position",
            "`step_id`",
            note="1…n; `step_id` `S<n>` and `step_index` come back from the position (stashed "
            "when they differ from it).",
        ),
        Row(
            "`message_role`",
            "`source`",
            note="`assistant` → `agent`; `user`, `system` kept. Decided: a step holding "
            "`tool_call` substeps is an `agent` step whatever its role (ATIF allows tool calls "
            "on agent steps only); any other role (`runner` status lines, SSL-7) becomes "
            "`system`.",
        ),
        _step_named(
            "message_role",
            "A role the way back would not write from `source` (`runner`, or a role of a step "
            "that calls tools).",
        ),
        Row(
            "`message_text`",
            "`message`",
            note='A null or absent text becomes `""` (decided; ATIF requires a string), which '
            "the way back reads as null (SSL-27; an absent text is stashed). A synthetic step is "
            "an agent step with an empty message and tool calls.",
        ),
        Row(
            "`started_at`",
            "`timestamp`",
            note="Copied when it matches ATIF's pattern (uppercase `T`/`Z`, no leap second); "
            "`null` gives no `timestamp` (the way back reads its absence as `null`); other "
            "spellings are stashed.",
        ),
        Row(
            "`provider`",
            "—",
            "stashed",
            "Comes back from the run's `provider`; stashed when a step names another one.",
        ),
        _step_named("completed_at"),
        _step_named("outcome", "How the step ended. " + _NON_NULL),
        _step_named(
            "summary",
            "The machine summary (`Pre-message tool activity`). When not null and not the label "
            "the way back writes for the step (`Tool activity without a message` on a step "
            "without text that holds tool events; SSL-28).",
        ),
        _step_named("legacy_turn_id"),
        _step_named("legacy_event_id"),
        Row("`substeps` of type `tool_call`", "`tool_calls[]` (§4)", note="In substep order."),
        Row(
            "`substeps` of type `tool_output`, `tool_error`",
            "`observation.results[]` (§4)",
            note="In substep order; `observation` is omitted when there is none.",
        ),
        Row(
            "`substeps` of type `tool_retry`, `status_update`, `artifact`",
            "step `extra.run_log_substeps[]`",
            "named",
            "ATIF has no event for them: each substep, whole and unchanged, in substep order "
            "(each element a named key); the way back puts each at the index its "
            "`substep_index` gives. A retried call also carries `extra.retry_of_call_id` (§4).",
            key="/steps/*/extra/run_log_substeps/*",
        ),
        Row(
            "substep order",
            "—",
            "stashed",
            "The way back interleaves (§6); an order it would not reproduce (parallel calls "
            "answered later) is stashed.",
        ),
        Row(
            "`extra.model` (a string)",
            "`model_name`",
            note="Lifted (§2.1) on `agent` steps.",
        ),
        Row(
            "`extra.metrics`",
            "`metrics`",
            note="Lifted (§2.1) on `agent` steps when it is a valid ATIF `Metrics` (ATIF forbids "
            "metrics on other steps: there it stays in `extra`).",
        ),
        Row(
            "`extra`",
            "`extra`",
            note="Copied without the lifted keys (an `extra` they emptied is left out); the "
            "named keys are added to it.",
        ),
    ),
)

SUBSTEPS = Table(
    id="step-substep-substeps",
    steps=TO_ATIF,
    columns=("Run-log substep", "ATIF"),
    rows=(
        Row(
            "`tool_call`.`call_id`",
            "`ToolCall.tool_call_id`",
            note="A null or absent id becomes the `call_id` of the result that answers the "
            "call: calls without id and results whose `call_id` names no call of the step pair "
            "in order, each call with the first such result after it (gza's Gemini run logs, "
            "DECISIONS SSL-29); a call no such result answers gets the substep's id "
            "`S<n>.<m>`. Both are decided (ATIF requires a string).",
        ),
        Row("`payload.tool_name`", "`ToolCall.function_name`"),
        Row(
            "`payload.tool_input`",
            "`ToolCall.arguments`",
            note="When it is not an object (or absent): `{}` (decided) and the original is "
            "stashed.",
        ),
        Row(
            "`payload.command`",
            "`ToolCall.extra.command`",
            "named",
            "Codex's command line.",
            key="/steps/*/tool_calls/*/extra/command",
        ),
        Row(
            "`payload.retry_of_call_id`",
            "`ToolCall.extra.retry_of_call_id`",
            "named",
            "The call this one retries.",
            key="/steps/*/tool_calls/*/extra/retry_of_call_id",
        ),
        Row("other payload keys", "—", "stashed"),
        Row(
            "`tool_output`/`tool_error`.`call_id`",
            "`ObservationResult.source_call_id`",
            note="Kept when it names a call of the same ATIF step (always so for rule-valid "
            "logs, SSL-3); otherwise `null` and stashed. Absent stays absent.",
        ),
        Row(
            "`payload.output` (Codex) or `payload.content` (Claude)",
            "`ObservationResult.content`",
            note="Copied when ATIF can hold it (a string, `null`, or a list of ATIF content "
            "parts); otherwise stashed. The way back writes `output` next to an `exit_code` or "
            "`status`, else `content` (SSL-22).",
        ),
        *(
            Row(
                f"`payload.{key}`",
                f"`ObservationResult.extra.{key}`",
                "named",
                note,
                key=f"/steps/*/observation/results/*/extra/{key}",
            )
            for key, note in (
                ("exit_code", "The command's exit status."),
                ("is_error", "The provider's error flag."),
                ("message", "The error message."),
                ("status", "The provider's status label."),
            )
        ),
        Row(
            "`type` (`tool_output` vs `tool_error`)",
            "—",
            "stashed",
            "Not stashed when the way back infers it: `tool_error` when `is_error` is true, "
            "`exit_code` is not 0 or a `message` is given (SSL-22).",
        ),
        Row("`substep_id`, `substep_index`", "—", note="Come back from the position."),
        *_sub_named(
            "source",
            "When it is not the spec's emitter of the event (`provider` for a call, `tool` for "
            "its output), which the way back writes.",
        ),
        *_sub_named("timestamp", _NON_NULL),
        *_sub_named("legacy_turn_id", _NON_NULL),
        *_sub_named("legacy_event_id", _NON_NULL),
        Row(
            "`extra`",
            "`ToolCall.extra` / `ObservationResult.extra`",
            note="Copied (v1.7 has both).",
        ),
    ),
)


def _atif_named(source: str, name: str, key: str, note: str = "") -> Row:
    return Row(source, name, "named", note, key=key)


TO_RUN_LOG = Table(
    id="step-substep-from-atif",
    steps=TO_SSL,
    columns=("ATIF v1.7", "Run log"),
    rows=(
        Row(
            "`session_id`",
            "`run_id`",
            note="When absent, null or empty: the `trajectory_id`, else `run-` and the first 16 "
            "hex digits of the SHA-256 of the document as canonical JSON (decided; the same "
            "scheme as SSL-10).",
        ),
        Row(
            "`agent.name`",
            "`provider` (run and every step)",
            note="An empty name gives `unknown` (decided; `provider` must not be empty).",
        ),
        Row(
            "`agent.model_name`, `final_metrics`",
            "run `extra.model`, `extra.final_metrics`",
            note="The run log's own usage keys (SSL-17), which the run-log→ATIF lens lifts back "
            "(§2.1): a mapping, no stash entry. `final_metrics` only when its totals agree "
            "with the steps' (the lift's condition); otherwise it is named at the same key.",
            key="/extra/model",
        ),
        Row(
            "`agent.version`",
            "run `extra.agent_version`",
            note="The run log's key for it, which the run-log→ATIF lens lifts back (§2.1): a "
            'mapping, no stash entry. Not for `"unknown"`, which the way back writes anyway.',
            key="/extra/agent_version",
        ),
        _atif_named(
            "`agent.tool_definitions`", "run `extra.tool_definitions`", "/extra/tool_definitions"
        ),
        _atif_named(
            "`final_metrics` (totals that disagree with the steps')",
            "run `extra.final_metrics`",
            "/extra/final_metrics",
        ),
        _atif_named("`notes`", "run `extra.notes`", "/extra/notes"),
        _atif_named(
            "`continued_trajectory_ref`",
            "run `extra.continued_trajectory_ref`",
            "/extra/continued_trajectory_ref",
        ),
        _atif_named(
            "`subagent_trajectories`",
            "run `extra.subagent_trajectories`",
            "/extra/subagent_trajectories",
            "The embedded ATIF trajectories, whole (their own stashes included).",
        ),
        _atif_named(
            "`trajectory_id`",
            "run `extra.trajectory_id`",
            "/extra/trajectory_id",
            "The trajectory's own id (subagent references name it), beside the `run_id`.",
        ),
        _atif_named("`agent.extra`", "run `extra.agent_extra`", "/extra/agent_extra"),
        Row("`extra`", "`extra`", note="Copied when it is an object; `null` is stashed."),
        Row(
            "`$schema`",
            "`$schema`",
            note="ATIF v1.7's `$id` becomes the run-log schema's (SSL-28); any other value is "
            "stashed.",
        ),
        Row("step position", "`step_id` `S<n>`, `step_index` n"),
        Row("`source`", "`message_role`", note="`agent` → `assistant`; `user`, `system` kept."),
        Row(
            "`message`",
            "`message_text`",
            note="A content-part list becomes the text of its text parts joined by newlines "
            '(decided); a list of text parts only is stashed. No text (`""`) is `null` '
            "(decided, SSL-27).",
        ),
        _atif_named(
            "`message` (content parts with an image or audio part)",
            "step `extra.message_parts`",
            "/steps/*/extra/message_parts",
            "The whole list, unchanged (SSL-28): the run log's text has no place for media.",
        ),
        Row(
            "`timestamp`",
            "`started_at`",
            note="Copied when it is RFC 3339 with seconds and an offset; otherwise `null` "
            "(decided, SSL-2: no time is invented) and the original is stashed.",
        ),
        Row(
            "—",
            "`completed_at: null`, `legacy_turn_id: null`, `legacy_event_id: null`",
            note="Unknown in ATIF.",
        ),
        Row(
            "—", "`outcome: null`", "decided", 'ATIF records no outcome; null means "not recorded".'
        ),
        Row(
            "—",
            "`summary`",
            "decided",
            "`null`, except a step whose message is blank but that holds tool events gets "
            '`"Tool activity without a message"` (rule SSL109 requires a label).',
        ),
        Row(
            "`model_name`, `metrics`",
            "step `extra.model`, `extra.metrics`",
            note="The run log's own usage keys (SSL-17), which the run-log→ATIF lens lifts back "
            "(§2.1): a mapping, no stash entry.",
        ),
        _atif_named(
            "`model_name` of a step the lift skips (not an `agent` step)",
            "step `extra.model`",
            "/steps/*/extra/model",
        ),
        _atif_named(
            "`metrics` of a step the lift skips (not an `agent` step)",
            "step `extra.metrics`",
            "/steps/*/extra/metrics",
        ),
        *(
            _atif_named(f"`{field}`", f"step `extra.{field}`", f"/steps/*/extra/{field}")
            for field in (
                "reasoning_effort",
                "reasoning_content",
                "is_copied_context",
                "llm_call_count",
            )
        ),
        Row(
            "`tool_calls[]`",
            "`tool_call` substeps",
            note="`tool_call_id` → `call_id`, `function_name` → `payload.tool_name`, `arguments` "
            "→ `payload.tool_input`, `extra` → `extra`.",
        ),
        Row(
            "`observation.results[]`",
            "`tool_output` substeps",
            note="`source_call_id` → `call_id` (absent stays absent), `content` → "
            "`payload.content` (payload `{}` without content), `extra` → `extra`.",
        ),
        _atif_named(
            "`ObservationResult.subagent_trajectory_ref`",
            "substep `extra.subagent_trajectory_ref`",
            "/steps/*/substeps/*/extra/subagent_trajectory_ref",
        ),
        Row(
            "—",
            'substep `source`: `"provider"` for a `tool_call`, `"tool"` for a `tool_output`; '
            "`timestamp: null`",
            "decided",
            "For every substep (ATIF records neither); the spec's emitters of each event.",
        ),
        Row("—", "`substep_id`, `substep_index`, order", note="§6."),
    ),
)

MAPPING_TABLES: tuple[Table, ...] = (ROOT, STEPS, SUBSTEPS, TO_RUN_LOG)
