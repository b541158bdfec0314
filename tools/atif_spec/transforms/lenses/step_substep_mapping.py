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

from atif_spec.transforms.fields import rows
from atif_spec.transforms.lenses.step_substep.common import (
    ATIF_STEP_NAMED,
    CALL_NAMED,
    CALL_PAYLOAD_NAMED,
    PARTS_NAMED,
    REF_NAMED,
    RESULT_NAMED,
    RESULT_PAYLOAD_NAMED,
    ROLE_NAMED,
    ROOT_NAMED,
    STEP_NAMED,
    SUBSTEPS_KEY,
)
from atif_spec.transforms.mapping import Row, Table

TO_ATIF = ("step-substep@v1.0->atif@v1.7",)
TO_SSL = ("atif@v1.7->step-substep@v1.0",)

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
        ROLE_NAMED.row("step"),
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
        *rows(STEP_NAMED, "step"),
        Row("`substeps` of type `tool_call`", "`tool_calls[]` (§4)", note="In substep order."),
        Row(
            "`substeps` of type `tool_output`, `tool_error`",
            "`observation.results[]` (§4)",
            note="In substep order; `observation` is omitted when there is none.",
        ),
        Row(
            "`substeps` of type `tool_retry`, `status_update`, `artifact`",
            f"step `extra.{SUBSTEPS_KEY}[]`",
            "named",
            "ATIF has no event for them: each substep, whole and unchanged, in substep order "
            "(each element a named key); the way back puts each at the index its "
            "`substep_index` gives. A retried call also carries `extra.retry_of_call_id` (§4).",
            key=f"/steps/*/extra/{SUBSTEPS_KEY}/*",
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
        *rows(CALL_PAYLOAD_NAMED, "`ToolCall`"),
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
        *rows(RESULT_PAYLOAD_NAMED, "`ObservationResult`"),
        Row(
            "`type` (`tool_output` vs `tool_error`)",
            "—",
            "stashed",
            "Not stashed when the way back infers it: `tool_error` when `is_error` is true, "
            "`exit_code` is not 0 or a `message` is given (SSL-22).",
        ),
        Row("`substep_id`, `substep_index`", "—", note="Come back from the position."),
        *rows(CALL_NAMED, "`ToolCall`"),
        *rows(RESULT_NAMED, "`ObservationResult`"),
        Row(
            "`extra`",
            "`ToolCall.extra` / `ObservationResult.extra`",
            note="Copied (v1.7 has both).",
        ),
    ),
)


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
        *rows(ROOT_NAMED, "run"),
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
        PARTS_NAMED.row("step"),
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
        *rows(ATIF_STEP_NAMED, "step"),
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
        REF_NAMED.row("substep"),
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
