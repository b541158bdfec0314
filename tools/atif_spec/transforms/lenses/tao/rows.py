"""The TAO lens's plain copies (``Field`` rows) and named keys (``Named`` rows), once: both
mappings run them and ``tao_mapping.py`` renders them into ``spec/tao/MAPPING.md``."""

from __future__ import annotations

from atif_spec.transforms.fields import Field, Named
from atif_spec.transforms.lenses.tao.common import atif_timestamp

AGENT_NAME = Field("agent/name", "agent/name")
AGENT_MODEL = Field("agent/model", "agent/model_name", "Copied as is (`provider/` prefix kept).")
TOOL_DEFINITIONS = Field(
    "tool_definitions",
    "agent/tool_definitions",
    "Copied unchanged. TAO's objects usually have Anthropic's `{name, description, "
    "input_schema}` shape, for which ATIF warns `ATIF203`; rewriting them would not be lossless "
    "for other shapes.",
    when=lambda value: isinstance(value, list),
)
ROLE = Field("role", "source")
TIMESTAMP = Field(
    "timestamp",
    "timestamp",
    "When null or ISO 8601 as ATIF's schema says; other strings (the docs' `\"ISO8601\"`) are "
    "stashed.",
    when=atif_timestamp,
)
_AGENT_ONLY = "Agent steps only (ATIF forbids it elsewhere); on other roles stashed."
MODEL = Field("model", "model_name", _AGENT_ONLY)
REASONING = Field("reasoning_content", "reasoning_content", _AGENT_ONLY)
TOOL_CALL = (
    Field("tool_call_id", "tool_call_id"),
    Field("tool_name", "function_name"),
    Field("input", "arguments", "A missing `input` is TAO's default `{}`."),
)

_OWNERS = {
    "record": ("", "extra", "the record", "root"),
    "step": ("/steps/*", "extra", "a step", "the step's"),
    "call": ("/steps/*/tool_calls/*", "extra", "a tool call", "the tool call's"),
    "observation": ("/steps/*/observation/results/*", "extra", "an observation", "the result's"),
    "usage": ("/steps/*", "metrics/extra", "a step's `token_usage`", "the step's"),
    "metrics": ("", "final_metrics/extra", "`metrics`", "root"),
}
"""Kind of owner → ATIF object's pattern, its free-form holder, MAPPING.md's TAO and ATIF owner."""
WHERE = {kind: where for kind, (*_, where) in _OWNERS.items()}


def _tao(kind: str, member: str, note: str = "", label: str = "") -> Named:
    owner, holder, tao_owner, _ = _OWNERS[kind]
    label = label or f"`{member}` of {tao_owner}"
    return Named(member, f"tao_{member}", owner, holder, note, label)


_SAME = "Unless ATIF → TAO writes the same value (`main` on a main agent step"
NAMED: dict[str, tuple[Named, ...]] = {
    "record": (
        _tao(
            "record",
            "schema_version",
            'Only when it is not `"0.2.0"`, what ATIF → TAO writes: the version of a TAO 0.1.0 '
            "record, written back as it was (DECISIONS D35).",
        ),
        *(_tao("record", m) for m in ("execution_context", "timestamp_start", "timestamp_end")),
        *(_tao("record", m) for m in ("task", "environment")),
        _tao("record", "outcome", "Success, signal, patch, commit, terminal state, **reward**."),
        *(_tao("record", m) for m in ("dependencies", "security", "attribution", "metadata")),
    ),
    "step": (
        _tao(
            "step",
            "call_type",
            f'{_SAME}, `subagent` in an embedded subagent): a warm-up call is `"warmup"`.',
        ),
        _tao("step", "agent_role", f"{_SAME}): `explore`, `plan`, …"),
        _tao("step", "tools_available", "Not `agent.tool_definitions`."),
        _tao("step", "snippets"),
        _tao(
            "step",
            "step_index",
            "Only where the index is not the step's position from 0 both in the record and in "
            "the order ATIF → TAO writes (a record numbered from 1 or with gaps, steps in another "
            'order), and on every `role: "system"` step (DECISIONS D29): `parent_step` and '
            "`snippets` `source_step` name steps by this index.",
        ),
    ),
    "call": (_tao("call", "duration_ms"),),
    "observation": (
        _tao("observation", "output_summary"),
        _tao(
            "observation",
            "error",
            'Not when it is the `"unlinked_response"` ATIF → TAO writes on an unlinked result.',
        ),
        _tao(
            "observation",
            "source_call_id",
            "Only when it is not what ATIF → TAO writes back (the result's `source_call_id`, "
            '`""` for null): the call of another step it answers (DECISIONS D30).',
        ),
    ),
    "usage": (_tao("usage", "prefix_reuse_tokens"),),
    "metrics": (
        _tao(
            "metrics",
            "total_input_tokens",
            "Only when it is not the sum ATIF → TAO computes from the steps (or no step counts "
            "them): the session's own count (DECISIONS D30).",
        ),
        _tao("metrics", "total_output_tokens", "As `total_input_tokens`."),
        _tao("metrics", "total_duration_s"),
        _tao("metrics", "cache_hit_rate"),
        _tao("metrics", "estimated_cost_usd"),
    ),
}
"""TAO → ATIF: per kind of owner, the members ATIF has no field for (``extra.tao_<member>``)."""

STEP_INDEX = NAMED["step"][-1]

PROMPT_KEY = _tao(
    "step",
    "system_prompt_hash",
    "Only where ATIF → TAO would key the prompt otherwise (not the first 16 hex digits of the "
    "SHA-256 of its text): the steps' `system_prompt_hash` names the prompt by this key "
    "(DECISIONS D28).",
    "the key of a `system_prompts` entry",
)

FILLED = "filled"
"""opentraces' ``TraceRecord.to_jsonl_line()``: every field, defaults included, hashed, steps
numbered from 1 (D32, D33)."""
HASHED = "hashed"
"""The default style (D26) with ``content_hash`` computed (D34)."""

STYLE = _tao(
    "record",
    "style",
    f'`"{FILLED}"` for a record in the form opentraces writes (every field of the model, defaults '
    f'and nulls included: ATIF is made of it without its defaults), `"{HASHED}"` for another '
    "record whose `content_hash` is its own; ATIF → TAO then writes the record that way, its "
    "hash computed (DECISIONS D32 to D34). Decided from the record alone.",
    "how the record is written",
)


def _atif(key: str, label: str, note: str) -> Named:
    return Named(key, key, "", "metadata", note, label)


_STEP_KEYED = "An object keyed by the TAO `step_index` (a string) of the step made from it"
STEP_COSTS = _atif(
    "atif_step_cost_usd",
    "`metrics.cost_usd` of a step (sub-agent steps too)",
    f'{_STEP_KEYED}: e.g. `{{"1": 0.00069, "3": 0.00087}}`. TAO has no cost per call; its '
    "`metrics.estimated_cost_usd` is a session estimate. Not written when the record's "
    "`metadata` already has that key (a producer's own: the costs are stashed).",
)
STEP_FIELDS = _atif(
    "atif_step_fields",
    "`reasoning_effort`, `is_copied_context`, `llm_call_count`, `extra`, a content-part "
    "`message`, `metrics` `prompt_token_ids`, `completion_token_ids`, `logprobs` and own "
    "`extra` keys (`reasoning_tokens`), and the `extra`, content parts and subagent references "
    "of its tool calls and results",
    f"{_STEP_KEYED}, each value a partial ATIF step in the step's key order: e.g. "
    '`{"4": {"is_copied_context": true, "extra": {"episode": 0}}}`, '
    '`{"2": {"metrics": {"logprobs": [-0.1]}}}`; tool calls and results as lists aligned with '
    "TAO's `tool_calls` and `observations`, `{}` where there is nothing: "
    '`"observation": {"results": [{}, {"content": [<parts>]}]}`. A step copied from context or '
    "made without an LLM call is no training target (RFC.md §2.4); token ids and log "
    "probabilities are what a trainer reads; content parts hold images and other media TAO's "
    "text content cannot (read back only while the text is still theirs); a result's "
    "references are kept unless they are the plain `[{trajectory_id}]` of the inlined "
    "sub-agent that TAO → ATIF writes back (a path names a trajectory file). An `extra` holds "
    "the producer's own keys only (not the `tao_` keys of §2.6). System steps: the next row.",
)
SYSTEM_STEPS = _atif(
    "atif_system_steps",
    "fields of a system step other than `step_id`, `source`, `message`",
    "An object keyed by the `system_prompts` key of the step's prompt, each value a partial "
    'ATIF step: e.g. `{"3f2a…": {"timestamp": "2025-10-11T10:30:00Z"}}`; a context '
    "injection's `observation` and `extra.context_management` too. Only when one system step "
    "has that text and a step names the prompt (otherwise stashed); TAO → ATIF puts them on "
    "the first system step of that prompt.",
)
SUBAGENT_AGENTS = _atif(
    "atif_subagent_agents",
    "`agent` of an embedded subagent",
    "Keyed by the subagent's `trajectory_id` (the launching step's `subagent_trajectory_ref`), "
    "only when it is not the root agent without tool definitions (what TAO → ATIF gives a "
    "subagent): TAO has one agent per record. Not written when the record's `metadata` "
    "already has that key.",
)
TRAJECTORY = _atif(
    "atif_trajectory",
    "`notes`, `continued_trajectory_ref`, `extra`, `agent.extra`, "
    "`final_metrics.total_cost_usd` and `final_metrics.extra` of the root, and the "
    "`final_metrics` totals that differ from RFC.md §2.4's",
    "A partial ATIF trajectory in the document's key order: e.g. "
    '`{"agent": {"extra": {"temperature": 0.7}}, "notes": "…", '
    '"final_metrics": {"total_cost_usd": 0.002}}`. TAO has no field for notes, a continuation '
    "or a cost total (its `metrics.estimated_cost_usd` is an estimate). A total the producer "
    "stated otherwise than TAO → ATIF computes it (§2.5: one that leaves out a verifier "
    "sub-agent, or counts agent turns only) is the producer's statement, and TAO → ATIF "
    "writes it in place of its own; an `extra` holds the producer's own keys only (not the "
    "`tao_` keys of §2.6).",
)
INTO_TAO_NAMED = (TRAJECTORY, STEP_COSTS, SUBAGENT_AGENTS, STEP_FIELDS, SYSTEM_STEPS)
"""ATIF → TAO: the record's ``metadata`` keys gathering what TAO has no field for, in order."""
