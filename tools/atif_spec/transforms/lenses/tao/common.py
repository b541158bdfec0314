"""What both TAO mappings share (the named keys and record styles are in :mod:`.rows`)."""

from __future__ import annotations

import functools
import hashlib
import re
import uuid
from typing import Any

from atif_spec.formats.tao import UnloadableRecordError, normalize, schema
from atif_spec.jsonio.jsonequal import same_json
from atif_spec.jsonio.jsonvalues import dicts, text_of
from atif_spec.schemas.catalog import read_spec_json
from atif_spec.schemas.compiled import document_validator
from atif_spec.transforms.driver import Context
from atif_spec.transforms.lenses.tao.tokens import count
from atif_spec.validation.schema_findings import findings_of

Doc = dict[str, Any]

TAO = "tao@v0.2.0"
ATIF = "atif@v1.7"
INTO_ATIF = f"{TAO}->{ATIF}"
INTO_TAO = f"{ATIF}->{TAO}"
UNKNOWN_VERSION = "unknown"
"""``agent.version`` written when a TAO record has none (ATIF requires a string)."""
UNLINKED = "unlinked_response"
"""TAO's marker for an observation that answers no tool call of its step."""
LAUNCHERS = frozenset({"task", "agent"})
"""Tool names (lower case) of calls that launch a sub-agent."""
TAO_VERSION = "0.2.0"
"""The ``schema_version`` ATIF → TAO writes (another is named ``tao_schema_version``, D35)."""
FIELDS = frozenset(("reasoning_effort", "is_copied_context", "llm_call_count", "extra"))
"""ATIF step fields kept under :data:`.rows.STEP_FIELDS` (an ``extra``: the producer's keys)."""
METRIC_FIELDS = frozenset(("prompt_token_ids", "completion_token_ids", "logprobs"))
"""ATIF ``metrics`` fields kept under :data:`.rows.STEP_FIELDS` (what a trainer reads)."""
TRAJECTORY_FIELDS: dict[str, tuple[str, ...]] = {
    "": ("notes", "continued_trajectory_ref", "extra"),
    "agent": ("extra",),
    "final_metrics": ("total_cost_usd", "extra"),
}
"""ATIF root object ("": the root) → its members kept under :data:`.rows.TRAJECTORY`."""
TOTALS = ("total_prompt_tokens", "total_completion_tokens", "total_cached_tokens", "total_steps")


def derived_trace_id(session: Any) -> str:
    """The ``trace_id`` ATIF → TAO derives from ``session_id`` (UUIDv5; TAO → ATIF too)."""
    return _trace_id(session if isinstance(session, str) else "")


@functools.lru_cache(maxsize=256)  # each conversion asks twice (to_tao, and to_atif back)
def _trace_id(seed: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"atif-spec:trace:{seed}"))


def prompt_key(text: str) -> str:
    """The ``system_prompts`` key of a prompt: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def text(content: Any) -> Any:
    """A TAO text for an ATIF message or result content (text parts joined by newlines)."""
    return text_of(content) if isinstance(content, list) else content


def hash_version(record: Doc) -> str:
    """The model version a record's ``content_hash`` is taken over (0.1.0 for a 0.1.x record)."""
    version = record.get("schema_version")
    return "v0.1.0" if isinstance(version, str) and version.startswith("0.1.") else "v0.2.0"


def filled(record: Doc) -> bool:
    """Whether ``record`` is what :func:`~atif_spec.formats.tao.fill` makes (hash aside, D32)."""
    if not all(key in record for key in schema("v0.2.0")["properties"]):
        return False
    try:
        normal = normalize(record, "v0.2.0")
    except UnloadableRecordError:
        return False
    normal.pop("content_hash", None)
    return same_json(normal, {k: v for k, v in record.items() if k != "content_hash"})


def refuse_invalid(doc: Doc, target: str, ctx: Context) -> None:
    """Refuse a document invalid against ``target``'s schema (the mapping assumes it)."""
    validator = document_validator(target)
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


def subagent_agent(agent: Doc) -> Doc:
    """The ``agent`` TAO → ATIF gives an embedded subagent: the root's, without tools."""
    return {k: v for k, v in agent.items() if k != "tool_definitions"}


def launched(step: Doc, subs: dict[str, Doc], inlined: set[str]) -> list[str]:
    """The ids of ``subs`` that ``step``'s results reference first (adding them to ``inlined``)."""
    found: list[str] = []
    observation = step.get("observation")
    results = observation.get("results") if isinstance(observation, dict) else None
    for _, result in dicts(results):
        if "subagent_trajectory_ref" not in result:  # most results: no walk below
            continue
        for _, ref in dicts(result["subagent_trajectory_ref"]):
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
    """``id(ATIF step)`` → the ``step_index`` ATIF → TAO gives it (system steps left out)."""
    out: dict[int, int] = {}
    _number(traj, first, out)
    return out


def _number(node: Doc, first: int, out: dict[int, int]) -> None:
    subs, inlined = subagents(node), set[str]()
    for _, step in dicts(node.get("steps")):
        if step.get("source") == "system":
            continue
        for tid in launched(step, subs, inlined) if subs else ():
            _number(subs[tid], first, out)
        out[id(step)] = len(out) + first


def groups(steps: list[Doc]) -> dict[int, int]:
    """Position → position of the parent step of each ``call_type: "subagent"`` step whose
    ``parent_step`` names another step's ``step_index``, wherever it sits; {} on a cycle."""
    where: dict[Any, int] = {}
    for p, step in enumerate(steps):
        if count(step.get("step_index")) is not None:
            where.setdefault(step["step_index"], p)
    parent_of: dict[int, int] = {}
    for p, step in enumerate(steps):
        if step.get("call_type") != "subagent":
            continue
        parent = step.get("parent_step")
        q = where.get(parent) if count(parent) is not None else None
        if q is not None and q != p:
            parent_of[p] = q
    acyclic: set[int] = set()  # each step walked once: a long chain of parents stays linear
    for start in parent_of:
        path: set[int] = set()
        up: int | None = start
        while up is not None and up not in acyclic:
            if up in path:
                return {}
            path.add(up)
            up = parent_of.get(up)
        acyclic |= path
    return parent_of


def first_launcher(results: list[Any], step: Doc) -> int | None:
    """Position of the first result of a launcher tool's call (``Task``, ``Agent``)."""
    names = {
        c.get("tool_call_id"): c.get("function_name") for _, c in dicts(step.get("tool_calls"))
    }
    for i, result in enumerate(results):
        name = names.get(result.get("source_call_id")) if isinstance(result, dict) else None
        if isinstance(name, str) and name.lower() in LAUNCHERS:
            return i
    return None
