"""What both TAO mappings share: the named keys, the record styles, and small helpers."""

from __future__ import annotations

import functools
import hashlib
import re
import uuid
from typing import Any

from atif_spec.formats.tao import UnloadableRecordError, normalize, schema
from atif_spec.jsonio.jsonequal import same_json
from atif_spec.jsonio.jsonvalues import dicts, text_of
from atif_spec.jsonio.pointers import escape_token
from atif_spec.schemas.catalog import load_catalog, read_spec_json
from atif_spec.schemas.compiled import rs_validator
from atif_spec.schemas.targets import Target
from atif_spec.transforms.driver import Context
from atif_spec.transforms.lenses.tao.tokens import count
from atif_spec.validation.schema_findings import findings_of

Doc = dict[str, Any]

TAO = "tao@v0.2.0"
ATIF = "atif@v1.7"
INTO_ATIF = f"{TAO}->{ATIF}"
"""Signature of the TAO → ATIF step (its stash layers carry it in ``by``)."""
INTO_TAO = f"{ATIF}->{TAO}"
"""Signature of the ATIF → TAO step."""

UNKNOWN_VERSION = "unknown"
"""``agent.version`` written when a TAO record has none (ATIF requires a string)."""
UNLINKED = "unlinked_response"
"""TAO's marker for an observation that answers no tool call of its step."""
LAUNCHERS = frozenset({"task", "agent"})
"""Tool names (lower case) of calls that launch a sub-agent; its reference goes on their result."""
TAO_VERSION = "0.2.0"
"""The ``schema_version`` ATIF → TAO writes; a record of another version names its own under
``tao_schema_version`` (DECISIONS D35)."""
STYLE = "tao_style"
"""Named key of the ATIF root ``extra`` that says how the record was written, so that ATIF → TAO
writes it the same way (DECISIONS D32 to D34): :data:`FILLED` or :data:`HASHED`. Decided once, by
:func:`record_style`, from the TAO record; ATIF → TAO reads it only where TAO → ATIF wrote it."""
FILLED = "filled"
"""The style of opentraces' ``TraceRecord.to_jsonl_line()``: every field of the model, defaults
and nulls included, ``content_hash`` computed, steps numbered from 1 (D32, D33). TAO → ATIF
reads such a record without its defaults (:func:`atif_spec.formats.tao.unfill`)."""
HASHED = "hashed"
"""The default style (D26) with ``content_hash`` computed, for a record that leaves its
defaults out and carries its own hash (D34)."""

NAMED: dict[str, tuple[tuple[str, str], ...]] = {
    "record": (
        ("schema_version", "tao_schema_version"),
        ("execution_context", "tao_execution_context"),
        ("timestamp_start", "tao_timestamp_start"),
        ("timestamp_end", "tao_timestamp_end"),
        ("task", "tao_task"),
        ("environment", "tao_environment"),
        ("outcome", "tao_outcome"),
        ("dependencies", "tao_dependencies"),
        ("security", "tao_security"),
        ("attribution", "tao_attribution"),
        ("metadata", "tao_metadata"),
    ),
    "step": (
        ("call_type", "tao_call_type"),
        ("agent_role", "tao_agent_role"),
        ("tools_available", "tao_tools_available"),
        ("snippets", "tao_snippets"),
    ),
    "call": (("duration_ms", "tao_duration_ms"),),
    "observation": (
        ("output_summary", "tao_output_summary"),
        ("error", "tao_error"),
        ("source_call_id", "tao_source_call_id"),
    ),
    "usage": (("prefix_reuse_tokens", "tao_prefix_reuse_tokens"),),
    "metrics": (
        ("total_input_tokens", "tao_total_input_tokens"),
        ("total_output_tokens", "tao_total_output_tokens"),
        ("total_duration_s", "tao_total_duration_s"),
        ("cache_hit_rate", "tao_cache_hit_rate"),
        ("estimated_cost_usd", "tao_estimated_cost_usd"),
    ),
}
"""TAO → ATIF named keys (RFC.md §4.5.5): per kind of owner, the TAO member and the key
of the ATIF object's ``extra`` it goes to when ATIF has no field for it (``tao_mapping.py``
registers them). A value ATIF → TAO writes anyway (``call_type: "main"`` on a main agent step)
is not named."""
STEP_INDEX = "tao_step_index"
"""Named key of an ATIF step's ``extra`` for the TAO ``step_index`` of the step it was made
from, written only where ATIF → TAO would number the step otherwise (a record numbered from 1,
with gaps, or in another order) and on a ``role: "system"`` step (which ATIF → TAO would make a
prompt of): ``parent_step`` and ``snippets[].source_step`` name these."""
PROMPT_KEY = "tao_system_prompt_hash"
"""Named key of a system step's ``extra`` for the key of ``system_prompts`` (the
``system_prompt_hash`` of the steps that use it) it was made from, written only where ATIF → TAO
would key the prompt otherwise (:func:`prompt_key`)."""
MEMBER_OF = {name: key for pairs in NAMED.values() for key, name in pairs}
MEMBER_OF[STEP_INDEX] = "step_index"
"""Named key → the TAO member it holds (the names are distinct across owners)."""

STEP_COSTS = "atif_step_cost_usd"
"""ATIF → TAO named key of the record's ``metadata`` (RFC.md §4.5.5): TAO has no cost per
call, so each ATIF step's ``metrics.cost_usd`` goes into one object keyed by the TAO
``step_index`` (as a string) of the step made from it, sub-agent steps included."""
SUBAGENT_AGENTS = "atif_subagent_agents"
"""ATIF → TAO named key of the record's ``metadata``: the ``agent`` of each embedded subagent
whose agent is not the root agent (without tool definitions), keyed by its ``trajectory_id``
(the launching step's ``subagent_trajectory_ref``). TAO has one agent per record."""
STEP_FIELDS = "atif_step_fields"
"""ATIF → TAO named key of the record's ``metadata``: per TAO ``step_index`` (a string), the
ATIF step fields TAO has no field for that say how to read the step (:data:`FIELDS`)."""
FIELDS = ("reasoning_effort", "is_copied_context", "llm_call_count", "extra")
"""ATIF step fields kept under :data:`STEP_FIELDS`: the effort requested, whether the step
was copied from context or made without an LLM call (no training target, RFC.md §2.4), and the
producer's own ``extra`` (never the named keys of TAO → ATIF, which go back to TAO members)."""
METRIC_FIELDS = ("prompt_token_ids", "completion_token_ids", "logprobs")
"""ATIF ``metrics`` fields kept under :data:`STEP_FIELDS` (as ``{"metrics": {...}}``): the
token ids and log probabilities a trainer reads (TAO's ``token_usage`` has counts only)."""
SYSTEM_STEPS = "atif_system_steps"
"""ATIF → TAO named key of the record's ``metadata``: per ``system_prompts`` key, the fields
other than ``message`` of the ATIF system step that became that prompt (its ``timestamp``, the
``observation`` of a context injection, its ``extra``), when one system step has that text."""
TRAJECTORY = "atif_trajectory"
"""ATIF → TAO named key of the record's ``metadata``: the root trajectory's members TAO has no
field for, as a partial ATIF trajectory (:data:`TRAJECTORY_FIELDS`)."""
TRAJECTORY_FIELDS: dict[str, tuple[str, ...]] = {
    "": ("notes", "continued_trajectory_ref", "extra"),
    "agent": ("extra",),
    "final_metrics": ("total_cost_usd", "extra"),
}
"""Object of the ATIF root ("" for the root itself) → its members kept under :data:`TRAJECTORY`
(an ``extra`` with the producer's own keys only; and :data:`TOTALS` that differ from what TAO →
ATIF computes)."""
TOTALS = ("total_prompt_tokens", "total_completion_tokens", "total_cached_tokens", "total_steps")
"""The ``final_metrics`` totals TAO → ATIF computes (RFC.md §2.4)."""
TAO_NAMED = (STEP_COSTS, SUBAGENT_AGENTS, STEP_FIELDS, SYSTEM_STEPS, TRAJECTORY)
"""The named keys ATIF → TAO may write into the record's ``metadata`` (``tao_mapping.py``)."""


def derived_trace_id(session: Any) -> str:
    """The ``trace_id`` ATIF → TAO decides for a trajectory without ``trajectory_id``: a UUIDv5
    of its ``session_id``. TAO → ATIF writes no ``trajectory_id`` for it (it recomputes)."""
    seed = session if isinstance(session, str) else ""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"atif-spec:trace:{seed}"))


def prompt_key(text: str) -> str:
    """The ``system_prompts`` key of a prompt: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def text(content: Any) -> Any:
    """A TAO text for an ATIF message or result content (text parts joined by newlines)."""
    return text_of(content) if isinstance(content, list) else content


def hash_version(record: Doc) -> str:
    """The model version whose canonical form a record's ``content_hash`` is taken over: 0.1.0
    for a 0.1.x record (as 0.1.0 hashes it), else 0.2.0."""
    version = record.get("schema_version")
    return "v0.1.0" if isinstance(version, str) and version.startswith("0.1.") else "v0.2.0"


def filled(record: Doc) -> bool:
    """Whether ``record`` is in the :data:`FILLED` form, as opentraces writes it: the same JSON
    value as :func:`atif_spec.formats.tao.fill` makes of it, ``content_hash`` aside (every field
    of the TAO 0.2.0 model at every level, defaults and nulls included, nothing else)."""
    if not all(key in record for key in schema("v0.2.0")["properties"]):
        return False
    try:
        normal = normalize(record, "v0.2.0")
    except UnloadableRecordError:
        return False
    normal.pop("content_hash", None)
    return same_json(normal, {k: v for k, v in record.items() if k != "content_hash"})


def refuse_invalid(doc: Doc, target: str, ctx: Context) -> None:
    """Refuse a document that does not validate against the schema of ``target``
    (``FORMAT@VERSION``): the mapping assumes it. Names the first schema error."""
    fmt, _, version = target.partition("@")
    validator = rs_validator(load_catalog().find(Target(fmt, version)).id)
    if validator.is_valid(doc):
        return
    first = next(iter(findings_of(validator, doc)), None)
    where = "" if first is None else first.pointer
    why = "" if first is None else f" ({first.code}: {first.message})"
    raise ctx.refuse("invalid-source", where, f"the document is not a valid {target} document{why}")


@functools.cache
def _timestamp_pattern() -> re.Pattern[str]:
    pattern: str = read_spec_json("atif/v1.7/trajectory.schema.json")["$defs"]["Step"][
        "properties"
    ]["timestamp"]["pattern"]
    if pattern.endswith("$"):  # ECMA-262 `$` does not match before a final newline
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


def atif_timestamp(value: Any) -> bool:
    """Whether ATIF v1.7 can hold this TAO timestamp (null, or ISO 8601 as its schema says)."""
    return value is None or (isinstance(value, str) and bool(_timestamp_pattern().search(value)))


def with_extra(obj: Doc, key: str, value: Any) -> None:
    """Set ``obj["extra"][key]``; the ``extra`` is replaced by a new object (it may be shared
    with the mapping's input, which a mapping never modifies)."""
    extra = obj.get("extra")
    obj["extra"] = {**(extra if isinstance(extra, dict) else {}), key: value}


def subagent_agent(agent: Doc) -> Doc:
    """The ``agent`` TAO → ATIF gives an embedded subagent: the root's, without tool
    definitions (unless ATIF → TAO named another, :data:`SUBAGENT_AGENTS`)."""
    return {k: v for k, v in agent.items() if k != "tool_definitions"}


def launched(step: Doc, subs: dict[str, Doc], inlined: set[str]) -> list[str]:
    """The ids of the embedded subagents (``subs``, by id) that ``step`` launches first: the
    references on its results not yet written (``inlined``, updated). ATIF → TAO writes their
    steps just before it, in the order of opentraces' Claude Code parser."""
    found: list[str] = []
    observation = step.get("observation")
    results = observation.get("results") if isinstance(observation, dict) else None
    for _, result in dicts(results):
        for _, ref in dicts(result.get("subagent_trajectory_ref")):
            tid = ref.get("trajectory_id")
            if isinstance(tid, str) and tid in subs and tid not in inlined:
                inlined.add(tid)
                found.append(tid)
    return found


def subagents(traj: Doc) -> dict[str, Doc]:
    """The embedded subagents of ``traj`` by ``trajectory_id`` (the first of each id)."""
    subs: dict[str, Doc] = {}
    for _, sub in dicts(traj.get("subagent_trajectories")):
        tid = sub.get("trajectory_id")
        if isinstance(tid, str) and tid not in subs:
            subs[tid] = sub
    return subs


def numbers(traj: Doc, first: int) -> dict[int, int]:
    """``id(ATIF step)`` → the ``step_index`` ATIF → TAO gives it when it reads no named key:
    steps in the parser's order (each after the steps of the subagents it launches), system
    steps made prompts, numbered from ``first``."""
    out: dict[int, int] = {}

    def walk(node: Doc) -> None:
        subs, inlined = subagents(node), set[str]()
        for _, step in dicts(node.get("steps")):
            if step.get("source") == "system":
                continue
            for tid in launched(step, subs, inlined):
                walk(subs[tid])
            out[id(step)] = len(out) + first

    walk(traj)
    return out


def granted(value: Any, ptr: str, ctx: Context) -> Any:
    """The part of the named value at ``ptr`` (a member of the TAO ``metadata``) that the
    inverse step wrote (its ``wrote`` pointers name the members it put there), or
    :data:`NOTHING`. Lists keep their positions (``{}`` where nothing was written)."""
    if ctx.read(ptr):
        return value
    if isinstance(value, dict):
        found = {k: granted(v, f"{ptr}/{escape_token(k)}", ctx) for k, v in value.items()}
        kept = {k: v for k, v in found.items() if v is not NOTHING}
        return kept if kept else NOTHING
    if isinstance(value, list):
        items = [granted(v, f"{ptr}/{i}", ctx) for i, v in enumerate(value)]
        if all(item is NOTHING for item in items):
            return NOTHING
        return [{} if item is NOTHING else item for item in items]
    return NOTHING


NOTHING: Any = object()
"""What :func:`granted` returns when the inverse step wrote nothing there."""


def groups(steps: list[Doc]) -> dict[int, int]:
    """Sub-agent grouping: position → position of the parent step, for ``call_type:
    "subagent"`` steps whose ``parent_step`` names the ``step_index`` of some step of the record,
    before or after it, wherever they sit (opentraces' Claude Code parser writes them just before
    the launching step; a chronological record interleaves them with the main steps)."""
    where: dict[Any, int] = {}
    for p, step in enumerate(steps):
        if count(step.get("step_index")) is not None:
            where.setdefault(step["step_index"], p)
    parent_of: dict[int, int] = {}
    for p, step in enumerate(steps):
        parent = step.get("parent_step")
        q = where.get(parent) if count(parent) is not None else None
        if step.get("call_type") == "subagent" and q is not None and q != p:
            parent_of[p] = q
    return {} if cyclic(parent_of) else parent_of


def cyclic(parent_of: dict[int, int]) -> bool:
    """Whether following parents from some step comes back to it."""
    for start in parent_of:
        seen = {start}
        p = parent_of.get(start)
        while p is not None:
            if p in seen:
                return True
            seen.add(p)
            p = parent_of.get(p)
    return False
