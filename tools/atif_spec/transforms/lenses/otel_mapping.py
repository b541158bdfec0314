"""The mapping tables of the OTel lenses (:mod:`atif_spec.transforms.mapping`), built from the
constants the lens uses (:mod:`atif_spec.transforms.lenses.otel.common`,
:mod:`~atif_spec.transforms.lenses.otel.openinference`). Rendered into ``spec/otel/MAPPING.md``
by ``python -m atif_spec.spectools.docgen``.
"""

from __future__ import annotations

from atif_spec.formats import otel
from atif_spec.transforms.lenses.otel import common as c
from atif_spec.transforms.lenses.otel import messages as m
from atif_spec.transforms.lenses.otel import openinference as oi
from atif_spec.transforms.mapping import Row, Table

BOTH = (c.TO_OTEL, c.TO_ATIF)
COLUMNS = ("ATIF v1.8", f"OTel (GenAI semantic conventions v{otel.SEMCONV})")


def _a(name: str) -> str:
    return f"`{name}`"


TRACE = Table(
    id="otel-trace",
    steps=BOTH,
    columns=COLUMNS,
    rows=(
        Row(
            "the document", "one `TracesData` (one line), one trace, `service.name` = `agent.name`"
        ),
        Row(
            "the document (and each embedded subagent)",
            f"an `{c.INVOKE_AGENT}` span (INTERNAL), {_a(c.OPERATION)} `{c.INVOKE_AGENT}`",
        ),
        Row("`session_id`", _a(c.CONVERSATION)),
        Row("`agent.name`, `agent.version`", f"{_a(c.AGENT_NAME)}, {_a(c.AGENT_VERSION)}"),
        Row("`agent.model_name`", _a(c.REQUEST_MODEL)),
        Row("`agent.tool_definitions`", f"{_a(c.TOOL_DEFINITIONS)} (JSON text)"),
        Row(
            "—",
            _a(c.PROVIDER),
            "decided",
            f"Required on inference and `{c.INVOKE_AGENT}` spans; ATIF has no provider: the part "
            f"of the model name before `/` (`anthropic/claude-…`), else `{c.UNKNOWN}`. Not read "
            "back.",
        ),
        Row("`schema_version`", _a(c.A_SCHEMA_VERSION), note="An embedded subagent's own."),
        Row("`trajectory_id`", _a(c.A_TRAJECTORY_ID)),
        Row("`notes`", _a(c.A_NOTES)),
        Row(
            "`final_metrics`",
            f"{_a(c.A_FINAL_METRICS)} (JSON text)",
            note=(
                "Not `gen_ai.usage.*`: a consumer summing spans would count tokens twice. Another "
                "producer's `invoke_agent` usage is read as `total_prompt_tokens`, "
                "`total_completion_tokens`, `total_cached_tokens`."
            ),
        ),
        Row(
            "`continued_trajectory_ref`",
            _a(c.A_CONTINUED),
            note=(
                "Not a span link: a link needs the continuation's trace and span ids, which a lens "
                "reading one document cannot know."
            ),
        ),
        Row("`extra`, `agent.extra`", f"{_a(c.A_EXTRA)}, {_a(c.A_AGENT_EXTRA)} (JSON text)"),
        Row(
            "user and system steps after the last agent step",
            f"{_a(c.A_MESSAGES)} (JSON text, as {_a(c.INPUT_MESSAGES)})",
        ),
        Row("the stash (RFC.md §4.5)", f"{_a(c.STASH_ATTRIBUTE)} on the root span (JSON text)"),
        Row("`$schema`, timestamps' spelling (offset, digits)", "—", "stashed"),
    ),
)

STEPS = Table(
    id="otel-steps",
    steps=BOTH,
    columns=COLUMNS,
    rows=(
        Row(
            "agent step that made an inference (not `is_copied_context: true`, not "
            "`llm_call_count: 0`)",
            f"a `{c.CHAT}` span (CLIENT), child of its `{c.INVOKE_AGENT}`, named `chat MODEL`",
        ),
        Row(
            "agent step with no inference (copied context, a dispatch)",
            f"an `{c.STEP_SPAN}` span (INTERNAL): output messages, never usage, so copied "
            "context is never counted twice",
        ),
        Row(
            "user and system steps before an agent step",
            f"{_a(c.INPUT_MESSAGES)} of that step's span: only the messages new since the span "
            "before (never the whole history), no cap",
        ),
        Row(
            "`message`, `reasoning_content`, `tool_calls`",
            f"{_a(c.OUTPUT_MESSAGES)}: one `assistant` message, parts `reasoning`, `text`, "
            "`uri` (image, audio), `tool_call`",
            note=(
                "Read back: one text part is a string, several parts a list of content parts; "
                "without the stash, a list holding one text part comes back as its string."
            ),
        ),
        Row(
            "—",
            "`finish_reason` of the output message",
            "decided",
            f"Required by v{otel.SEMCONV}; ATIF has none: `{m.FINISH_TOOL}` with tool calls, "
            f"else `{m.FINISH_STOP}`. Not read back.",
        ),
        Row("`model_name` (else `agent.model_name`)", _a(c.REQUEST_MODEL)),
        *(Row(f"`metrics.{f}`", _a(a), note="Chat spans only.") for f, a in c.USAGE),
        *(
            Row(f"`metrics.extra.{f}` (integer)", _a(a), note="Chat spans only.")
            for f, a in c.USAGE_EXTRA
        ),
        Row("`metrics.cost_usd`", _a(c.A_COST)),
        Row("`metrics.extra`", f"{_a(c.A_METRICS_EXTRA)} (JSON text)"),
        Row("`metrics.prompt_token_ids`, `completion_token_ids`, `logprobs`", "—", "stashed"),
        Row("`llm_call_count`", _a(c.A_LLM_CALLS)),
        Row("`is_copied_context`", _a(c.A_COPIED)),
        Row("`reasoning_effort`", _a(c.A_EFFORT)),
        Row("`extra`", f"{_a(c.A_EXTRA)} (JSON text)"),
        Row(
            "`timestamp`",
            "`startTimeUnixNano`",
            note=(
                "Without one: 1 ms after the step before; before the first timestamp, 1 ms per "
                "step before it; with none at all, the launching span's start (the epoch for the "
                f"root) plus 1 ms per step; marked {_a(c.A_SYNTHESIZED)} and not read back."
            ),
        ),
        Row("—", "`endTimeUnixNano`", "decided", "The next step's start (else the span's start)."),
        Row("`step_id`", "—", note="The order of the spans; numbered from 1 on the way back."),
        Row("a user or system step's fields other than `message`", "—", "stashed"),
    ),
)

TOOLS = Table(
    id="otel-tools",
    steps=BOTH,
    columns=COLUMNS,
    rows=(
        Row(
            "each tool call",
            f"an `{c.EXECUTE_TOOL}` span (INTERNAL), child of its `{c.INVOKE_AGENT}`, after the "
            "step's span",
        ),
        Row("`tool_call_id`, `function_name`", f"{_a(c.TOOL_CALL_ID)}, {_a(c.TOOL_NAME)}"),
        Row("`arguments`", f"{_a(c.TOOL_ARGUMENTS)} (JSON text)"),
        Row("`extra`", f"{_a(c.A_EXTRA)} (JSON text)"),
        Row(
            "the call's first result (`source_call_id`): `content`",
            f"{_a(c.TOOL_RESULT)} (a string; content parts as an array value)",
        ),
        Row("that result's `extra`", f"{_a(c.A_RESULT_EXTRA)} (JSON text)"),
        Row("that result's `subagent_trajectory_ref`", f"{_a(c.A_SUBAGENT_REFS)} (JSON text)"),
        Row(
            "the embedded subagent a reference names (`trajectory_id`)",
            f"its `{c.INVOKE_AGENT}` span, child of that `{c.EXECUTE_TOOL}` span; subagents no "
            f"result names: children of the parent's `{c.INVOKE_AGENT}`",
        ),
        Row(
            "other results (no `source_call_id`, a call's second result)",
            f"{_a(c.A_RESULTS)} on the step's span (JSON text)",
            note=(
                "Without the stash they come back after the calls' first results: the order of "
                "a step's results is kept by the stash only."
            ),
        ),
    ),
)

FROM_OTEL = Table(
    id="otel-reading",
    steps=(c.TO_ATIF,),
    columns=("OTel (any producer)", "ATIF v1.8"),
    rows=(
        Row(
            "the spans of one trace (`traceId`), from every line of the file",
            "one document; documents in order of each trace's first span",
            note="An exporter writes a line per batch: a trace may span lines, a line may hold "
            "several traces; a span id seen again in a trace starts another document. Resource "
            "and scope blocks equal but for their spans are joined, others kept apart (the "
            "stash holds them); the change report's warning `convert:otel-trace-lines` names "
            "the lines. The file is read whole: more than `--max-bytes` of it is refused (exit "
            "2). "
            "One `TracesData` given alone (the API) must hold one trace.",
        ),
        Row(
            f"`{c.CHAT}`, `text_completion`, `generate_content` spans (OpenInference `LLM`)",
            "an agent step; new input messages before it become steps (`user`, `system`; an "
            "`assistant` message the trace did not produce: an agent step with "
            "`is_copied_context: true`; a `tool` message: the result of its call)",
        ),
        Row(
            "an input that starts with the trace's first message",
            "a repeated history: matched in order against the messages so far, only the rest "
            "is new",
        ),
        Row(_a(c.SYSTEM_INSTRUCTIONS) + " of the first span", "a `system` step first"),
        Row(
            f"`{c.EXECUTE_TOOL}` span (OpenInference `TOOL`)",
            f"the result of the call with its {_a(c.TOOL_CALL_ID)}; with no such call, a call "
            "added to the last agent step (or to a new one with `llm_call_count: 0`)",
        ),
        Row(
            f"`{c.INVOKE_AGENT}` span below the root (OpenInference `AGENT`)",
            "an embedded subagent (`trajectory_id`: `atif.trajectory_id`, else "
            f"{_a(c.AGENT_ID)}, else the span id), referenced by the result of the tool span "
            "above it",
        ),
        Row(
            _a(c.RESPONSE_MODEL) + " (else request model)",
            "the step's `model_name` when not the agent's",
        ),
        Row(
            "any other span (retrieval, embeddings, wrappers), whole",
            f"root `extra.{c.UNPLACED_KEY}`",
            "named",
            "Its children are read as the parent's.",
            key=f"/extra/{c.UNPLACED_KEY}",
        ),
        Row(
            "OpenInference attributes (unless `--otel-convention openinference`)",
            f'root `extra.{c.CONVENTION_KEY}: "openinference"`',
            "named",
            "So that the way back writes that spelling again.",
            key=f"/extra/{c.CONVENTION_KEY}",
        ),
        *(
            Row(
                f"attributes of the {span} span the lens does not read (sampling parameters, "
                "finish reasons, a provider name the model name does not give, …)",
                f"the {owner} `extra.{c.KEPT_KEY}` (`{{name: value}}`)",
                "named",
                "Written back onto the span when the stash lists it; else they stay in "
                f"`extra` ({_a(c.A_EXTRA)}).",
                key=f"{prefix}/extra/{c.KEPT_KEY}",
            )
            for span, owner, prefix in (
                (c.INVOKE_AGENT, "document's", ""),
                ("step's", "step's", "/steps/*"),
                (c.EXECUTE_TOOL, "tool call's", "/steps/*/tool_calls/*"),
            )
        ),
        Row("span ids, end times, status, events, links", "—", "stashed"),
    ),
)

OPENINFERENCE = Table(
    id="otel-openinference",
    steps=(c.TO_OTEL,),
    columns=("GenAI attribute", "OpenInference (`--otel-convention openinference`)"),
    rows=(
        *(
            Row(f"{_a(c.OPERATION)} `{op}`", f"`{oi.KIND}` `{kind}`")
            for op, kind in oi.SPAN_KINDS.items()
        ),
        Row(f"(`{c.STEP_SPAN}` spans)", f"`{oi.KIND}` `{oi.STEP_KIND}`"),
        *(Row(_a(g), _a(o)) for g, o in oi.RENAMES.items()),
        Row(
            f"{_a(c.INPUT_MESSAGES)}, {_a(c.OUTPUT_MESSAGES)}",
            f"`llm.input_messages.<i>.message.*`, `llm.output_messages.<i>.message.*`, and whole "
            f"in `{oi.INPUT_VALUE}` / `{oi.OUTPUT_VALUE}` (read first)",
        ),
        Row(_a(c.TOOL_DEFINITIONS), "`llm.tools.<i>.tool.json_schema`"),
        Row(
            f"{_a(c.TOOL_ARGUMENTS)}, {_a(c.TOOL_RESULT)}",
            f"`{oi.INPUT_VALUE}`, `{oi.OUTPUT_VALUE}`",
        ),
        Row("`atif.*`", "the same"),
    ),
)

MAPPING_TABLES = (TRACE, STEPS, TOOLS, FROM_OTEL, OPENINFERENCE)
