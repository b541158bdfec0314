"""The mapping tables of the TAO lenses (:mod:`atif_spec.transforms.mapping`), rendered into
``spec/tao/MAPPING.md`` by ``python -m atif_spec.spectools.docgen``."""

from __future__ import annotations

from atif_spec.transforms.lenses.tao import rows
from atif_spec.transforms.lenses.tao.common import INTO_ATIF, INTO_TAO
from atif_spec.transforms.lenses.tao.tokens import CACHE_WRITES
from atif_spec.transforms.mapping import Row, Table

_METADATA = "the record's"
"""How MAPPING.md names the owner of ATIF → TAO's named keys (the record's ``metadata``)."""


def _named_here(kind: str, prefix: str = "") -> Row:
    """The row that sends one kind of owner's members without an ATIF field to §2.6."""
    members = ", ".join(f"`{row.member}`" for row in rows.NAMED[kind])
    return Row(prefix + members, f"named keys of {rows.WHERE[kind]} `extra` (§2.6)")


def _named_rows() -> tuple[Row, ...]:
    """The TAO → ATIF named keys (:mod:`.tao.rows`), by kind of owner."""
    out: list[Row] = []
    for kind, named in rows.NAMED.items():
        out.extend(row.row(rows.WHERE[kind]) for row in named)
        if kind == "step":
            out.append(rows.PROMPT_KEY.row(rows.WHERE[kind]))
    return (*out, rows.STYLE.row(rows.WHERE["record"]))


MAPPING_TABLES: tuple[Table, ...] = (
    Table(
        id="tao-tokens",
        steps=(INTO_ATIF, INTO_TAO),
        columns=("TAO `token_usage`", "ATIF `metrics`"),
        rows=(
            Row(
                "`input_tokens`",
                "`prompt_tokens`",
                "field",
                "Anthropic style: `input_tokens` + `cache_read_tokens` + `cache_write_tokens`; "
                "other: `input_tokens`.",
            ),
            Row("`cache_read_tokens`", "`cached_tokens`"),
            Row(
                "`cache_write_tokens`",
                f"`extra.{CACHE_WRITES}`",
                "field",
                "The Anthropic name ATIF producers use for cache writes.",
                key=f"/extra/{CACHE_WRITES}",
            ),
            Row("`output_tokens`", "`completion_tokens`"),
            rows.NAMED["usage"][0].row(rows.WHERE["usage"]),
        ),
    ),
    Table(
        id="tao-record",
        steps=(INTO_ATIF,),
        columns=("TAO", "ATIF v1.7"),
        rows=(
            Row("—", '`schema_version: "ATIF-v1.7"`'),
            Row("`session_id`", "`session_id`"),
            Row(
                "`trace_id`",
                "`trajectory_id`",
                "field",
                "When non-empty (ATIF wants at least one character; otherwise stashed) and not "
                "the UUID ATIF → TAO derives from `session_id` for a trajectory without "
                "`trajectory_id` (§3): that one is recomputed on the way back.",
            ),
            rows.AGENT_NAME.row(),
            Row(
                "`agent.version`",
                "`agent.version`",
                "decided",
                'A null or missing version becomes `"unknown"` (**decided**, §5); the original '
                "is stashed.",
            ),
            rows.AGENT_MODEL.row(),
            rows.TOOL_DEFINITIONS.row(),
            Row("`steps`", "`steps`, `subagent_trajectories`", "field", "§2.2 to §2.4."),
            Row(
                "`system_prompts`",
                "system steps (§2.3)",
                "field",
                "Every prompt becomes a system step; one no step names goes first (§2.3).",
            ),
            Row("`metrics`", "`final_metrics`", "field", "§2.5."),
            Row(
                "`content_hash` (not the record's own: D34), unknown keys",
                "root `extra`",
                "stashed",
                "No ATIF field and no meaning beyond the record (the way back restores them).",
            ),
            _named_here("record"),
            Row(
                "no step at all",
                "one system step (§5)",
                "decided",
                "ATIF needs at least one step.",
            ),
        ),
    ),
    Table(
        id="tao-step",
        steps=(INTO_ATIF,),
        columns=("TAO `Step`", "ATIF `Step`"),
        rows=(
            Row(
                "position",
                "`step_id`",
                "field",
                "Renumbered 1..n in each trajectory (system steps count).",
            ),
            rows.ROLE.row(),
            Row(
                "`content`",
                "`message`",
                "decided",
                'Null or missing becomes `""` (**decided**); the original is stashed.',
            ),
            rows.REASONING.row(),
            rows.MODEL.row(),
            rows.TIMESTAMP.row(),
            Row("`tool_calls[]`", "`tool_calls[]`", "field", "Agent steps only; their members:"),
            *(field.row() for field in rows.TOOL_CALL),
            _named_here("call", "`tool_calls[]`: "),
            Row(
                "`observations[]`",
                "`observation.results[]`",
                "field",
                "Same order. `content` copied (`null` stays `null`; the upstream exporter's "
                '`"[error: …]"` text is not used).',
            ),
            Row(
                "`observations[].source_call_id`",
                "`results[].source_call_id`",
                "field",
                "When it names a tool call of the same step; otherwise `null` (ATIF201) and "
                "the id goes under the named key `tao_source_call_id` (§2.6).",
            ),
            _named_here("observation", "`observations[]`: "),
            Row("`token_usage`", "`metrics`", "field", "Agent steps only; §2.5."),
            Row("`system_prompt_hash`", "a system step before the step (§2.3)"),
            Row(
                "`parent_step`, `subagent_trajectory_ref`",
                "embedded subagent and its reference (§2.4)",
            ),
            _named_here("step"),
            Row("unknown keys", "step `extra`", "stashed"),
        ),
    ),
    Table(
        id="tao-named",
        steps=(INTO_ATIF,),
        columns=("TAO member", "ATIF named key"),
        rows=_named_rows(),
    ),
    Table(
        id="tao-from-atif",
        steps=(INTO_TAO,),
        columns=("ATIF v1.7", "TAO 0.2.0"),
        rows=(
            Row("—", '`schema_version: "0.2.0"`'),
            Row(
                "`trajectory_id`",
                "`trace_id`",
                "decided",
                "Missing: a UUID derived from `session_id` (UUIDv5; **decided**), which TAO → "
                "ATIF recognizes and does not write back as a `trajectory_id`.",
            ),
            Row(
                "`session_id`",
                "`session_id`",
                "decided",
                "Missing or null: the `trace_id` (**decided**).",
            ),
            rows.AGENT_NAME.row(back=True, note=""),
            Row(
                "`agent.version`",
                "`agent.version`",
                "field",
                'Not written when it is `"unknown"`: that is what TAO → ATIF writes for none '
                "(DECISIONS D26).",
            ),
            rows.AGENT_MODEL.row(back=True, note=""),
            rows.TOOL_DEFINITIONS.row(back=True, note="When a list."),
            Row(
                "system steps",
                "`system_prompts[key] = message`",
                "field",
                "key = first 16 hex digits of the SHA-256 of the text (the Claude Code "
                "parser's keys). The agent steps after the system step name it in "
                "`system_prompt_hash` (§2.3). A prompt no step names is not written (the step "
                "is stashed), but in a main trajectory of system steps only every prompt is "
                "(TAO → ATIF puts such prompts first), unless it is the one system step with "
                'message `""` of an empty run (§5). Content-part messages become their text '
                "parts joined by newlines. A system step with a named `tao_step_index` (§2.6) "
                'is a TAO step `role: "system"` instead (DECISIONS D29); a named '
                "`tao_system_prompt_hash` is the key (DECISIONS D28).",
            ),
            Row(
                "other steps, main trajectory first, then each embedded subagent depth first",
                "`steps[]`",
                "field",
                "`step_index` = position from 0. No `steps` key when there is no step (the "
                "model's default; the parser writes no record without steps, DECISIONS D26). "
                "In the parser's order (§2.4); when named `tao_step_index` keys are read back, "
                "the steps are written in `step_index` order, a record's own (DECISIONS D27).",
            ),
            rows.ROLE.row(back=True, note=""),
            Row(
                "`message`",
                "`content`",
                "field",
                "Content parts: text parts joined by newlines; the parts go to "
                f"`metadata.{rows.STEP_FIELDS.key}`. An "
                '`""` agent message is `null`, as the Claude Code parser writes a response '
                "without text (DECISIONS D26).",
            ),
            rows.REASONING.row(back=True, note=""),
            rows.MODEL.row(back=True, note=""),
            rows.TIMESTAMP.row(back=True, note=""),
            Row(
                "—",
                '`agent_role: "main"`, `call_type: "main"`',
                "field",
                "On agent steps of the main trajectory.",
            ),
            Row(
                "steps of an embedded subagent",
                '`call_type: "subagent"`, `parent_step` = the `step_index` of the step whose '
                "result first references the subagent",
                "field",
                "Subagents no step references by `trajectory_id` are not inlined (stashed whole).",
            ),
            Row(
                "the launching step's reference",
                "`subagent_trajectory_ref` = the subagent's `trajectory_id`",
                "field",
                "Not written when it is `subagent@step-<step_index>`, the id TAO → ATIF gives "
                "a sub-agent whose launching step has no reference (DECISIONS D27).",
            ),
            Row("`tool_calls[]`", "`tool_calls[]`", "field", "Their members:"),
            *(field.row(back=True, note="") for field in rows.TOOL_CALL),
            Row(
                "`observation.results[]`",
                "`observations[]`",
                "field",
                "A result with a `source_call_id` keeps it; a result without one gets "
                '`source_call_id: ""` and `error: "unlinked_response"` (exempt from `TAO201`). '
                "A result that only carries a reference writes nothing.",
            ),
            Row(
                "`metrics`",
                "`token_usage`",
                "field",
                "The inverse of §2.5: `input_tokens` = `prompt_tokens` - `cached_tokens` - "
                f"`extra.{CACHE_WRITES}` (Anthropic style) or `prompt_tokens`; "
                "`cache_read_tokens` = `cached_tokens`; `cache_write_tokens` = "
                f"`extra.{CACHE_WRITES}`.",
            ),
            rows.STEP_COSTS.row(_METADATA),
            rows.STEP_FIELDS.row(_METADATA),
            rows.SYSTEM_STEPS.row(_METADATA),
            rows.SUBAGENT_AGENTS.row(_METADATA),
            rows.TRAJECTORY.row(_METADATA),
            Row(
                "`final_metrics`",
                "`metrics`",
                "field",
                "Totals computed from the TAO steps (§2.5); ATIF's totals that differ from RFC.md "
                f"§2.4's go to `metadata.{rows.TRAJECTORY.key}` (a producer's statement), and "
                "the absence of one is stashed. `total_input_tokens` / `total_output_tokens` "
                "only when some step's `token_usage` has that count (DECISIONS D26).",
            ),
            Row(
                "`$schema`, the fields of a system step whose text another "
                "system step repeats, results that only carry a reference, embedded "
                "trajectories' own fields, key orders other than ATIF's schema order",
                "root `metadata`",
                "stashed",
                "TAO has no other open object (DECISIONS D1).",
            ),
        ),
    ),
)
