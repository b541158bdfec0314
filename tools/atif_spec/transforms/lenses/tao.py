"""opentraces TAO trace records ↔ ATIF v1.7 (the mapping is ``spec/tao/MAPPING.md``).

Two native mappings, :func:`to_atif` and :func:`to_tao`, fill every field the other format
has a place for. The lenses stash the rest (RFC.md §4.5) by comparing the source with what the
inverse mapping rebuilds from the result (:mod:`atif_spec.transforms.lenses.residual`), so that
TAO → ATIF → TAO and ATIF → TAO → ATIF give back the original byte for byte.

Holders: TAO → ATIF stashes in one layer of the ATIF root ``extra`` (pointers relative to the
record) and declares its named keys once per trajectory (RFC.md §4.5.2 item 7: the root's in
that layer, an embedded subagent's in a layer of its own ``extra`` without entries); ATIF → TAO
stashes everything in the record's root ``metadata``, TAO's only open object, which also holds
its named keys (:data:`TAO_NAMED`).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from atif_spec.formats.atif import key_order
from atif_spec.formats.tao import (
    UnloadableRecordError,
    content_hash,
    detect,
    fill,
    schema,
    twins,
    unfill,
)
from atif_spec.formats.totals import trajectory_totals
from atif_spec.jsonio import jsontext
from atif_spec.jsonio.jsonvalues import dicts, text_of
from atif_spec.jsonio.pointers import pointer as make_pointer
from atif_spec.schemas.catalog import load_catalog, read_spec_json
from atif_spec.schemas.compiled import rs_validator
from atif_spec.schemas.targets import Target
from atif_spec.transforms.changes import ChangeReport, Item
from atif_spec.transforms.lenses import ConversionError, Lens, LensOptions, refuse
from atif_spec.transforms.lenses.residual import Residual, apply_layers, commit, detach, diff
from atif_spec.transforms.stash_v1 import (
    STASH_KEY,
    NamedKeys,
    Path,
    StashError,
    fingerprint,
    insert_key,
    resolve,
    top_layer,
)
from atif_spec.validation.findings import Finding, Level
from atif_spec.validation.schema_findings import findings_of

Doc = dict[str, Any]

TAO = "tao@v0.2.0"
ATIF = "atif@v1.7"
INTO_ATIF = f"{TAO}->{ATIF}"
"""Signature of the TAO → ATIF lens (its stash layers carry it in ``by``)."""
INTO_TAO = f"{ATIF}->{TAO}"
"""Signature of the ATIF → TAO lens."""

UNKNOWN_VERSION = "unknown"
"""``agent.version`` written when a TAO record has none (ATIF requires a string)."""
UNLINKED = "unlinked_response"
"""TAO's marker for an observation that answers no tool call of its step."""
LAUNCHERS = frozenset({"task", "agent"})
"""Tool names (lower case) of calls that launch a sub-agent; its reference goes on their result."""
ATIF_HOLDER = "extra"
TAO_VERSION = "0.2.0"
"""The ``schema_version`` ATIF → TAO writes; a record of another version names its own under
``tao_schema_version`` (DECISIONS D35)."""
TAO_HOLDER = "metadata"
FILLED = "filled"
"""The output style of opentraces' ``TraceRecord.to_jsonl_line()``: every field of the model,
defaults and nulls included, ``content_hash`` computed (spec/tao/DECISIONS.md D32). ATIF → TAO
writes it where the TAO → ATIF layer it undoes says ``"style": "filled"``."""
HASHED = "hashed"
"""The default output style of ATIF → TAO (D26) with ``content_hash`` computed: written where the
TAO → ATIF layer it undoes says ``"style": "hashed"``, for a record that carried its own hash and
left its defaults out (spec/tao/DECISIONS.md D34)."""
STYLES = frozenset({FILLED, HASHED})
"""The output styles ATIF → TAO writes (the ``style`` of a TAO → ATIF layer)."""
THIN = "thin"
"""The output style of TAO → ATIF for a filled record: made from the record without the
members that hold their defaults (:func:`atif_spec.formats.tao.unfill`; DECISIONS.md D33), so
ATIF carries none of the nulls, empty lists and zero counts that only say "every field was
written". ATIF → TAO writes it in the layer it puts on a filled record."""
THIN_STYLES = frozenset({THIN})
"""The output styles TAO → ATIF writes (the ``style`` of an ATIF → TAO layer)."""
_ABSENT: Any = object()
Declared = list[tuple[dict[str, Any], NamedKeys]]
"""The ``named`` declarations of TAO → ATIF: (ATIF trajectory, its declaration), the root first,
then each embedded subagent that has named keys (owner-relative patterns, RFC.md §4.5.2 item 7)."""

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
"""TAO → ATIF named keys (RFC.md §4.5.3 item 8): per kind of owner, the TAO member and the key
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
_MEMBER_OF = {name: key for pairs in NAMED.values() for key, name in pairs}
_MEMBER_OF[STEP_INDEX] = "step_index"
"""Named key → the TAO member it holds (the names are distinct across owners)."""

STEP_COSTS = "atif_step_cost_usd"
"""ATIF → TAO named key of the record's ``metadata`` (RFC.md §4.5.3 item 8): TAO has no cost per
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


# --- small helpers ------------------------------------------------------------------------------


def _count(value: Any) -> int | float | None:
    """A token count (an integer, or a float with no fraction), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return value
    return None


@functools.cache
def _timestamp_pattern() -> re.Pattern[str]:

    schema = read_spec_json("atif/v1.7/trajectory.schema.json")
    pattern: str = schema["$defs"]["Step"]["properties"]["timestamp"]["pattern"]
    if pattern.endswith("$"):  # ECMA-262 `$` does not match before a final newline
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


def _atif_timestamp(value: Any) -> bool:
    """Whether ATIF v1.7 can hold this TAO timestamp (null, or ISO 8601 as its schema says)."""
    return value is None or (isinstance(value, str) and bool(_timestamp_pattern().search(value)))


def prompt_key(text: str) -> str:
    """The ``system_prompts`` key of a prompt: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def anthropic_usage(step_model: Any, agent_model: Any, agent_name: Any) -> bool:
    """Whether token usage follows Anthropic's convention (input excludes cache reads/writes).

    Decided by the step's model, else the agent's model (``anthropic/…`` or a Claude model),
    else the agent's name (``claude…``); otherwise input is taken to include cached tokens.
    """
    model = step_model if isinstance(step_model, str) and step_model else None
    if model is None and isinstance(agent_model, str) and agent_model:
        model = agent_model
    if model is not None:
        lowered = model.lower()
        return lowered.startswith("anthropic/") or "claude" in lowered
    return isinstance(agent_name, str) and agent_name.lower().startswith("claude")


def _text(content: Any) -> Any:
    """A TAO text for an ATIF message or result content (text parts joined by newlines)."""
    return text_of(content) if isinstance(content, list) else content


@dataclass(slots=True)
class _Owner:
    """An object of the result that has a counterpart in the source (it holds their stash)."""

    target: Doc
    source: Doc
    target_ptr: str
    source_ptr: str
    parent: _Owner | None = None
    kind: str = ""
    """Which :data:`NAMED` table applies (``record``, ``step``, ``call``, ``observation``,
    ``usage``, ``metrics``)."""


@dataclass(slots=True)
class _Decision:
    pointer: str
    policy: str
    value: Any


@dataclass(slots=True)
class Built:
    """A native mapping's result and what the lens needs to stash and report."""

    doc: Doc
    owners: list[_Owner] = field(default_factory=list)
    """Result objects paired with their source objects, parents before children."""
    decisions: list[_Decision] = field(default_factory=list)
    pairs: dict[int, Doc] = field(default_factory=dict)
    """``id(source object)`` → the result object made from it."""
    made_from: dict[int, Doc] = field(default_factory=dict)
    """``id(result object)`` → the source object it was made from."""
    named: list[tuple[_Owner, str, str, Any]] = field(default_factory=list)
    """(owner, source member, named key of the owner's ``extra``, value written) of every
    member that went to a named key, in the order written."""
    written: dict[str, Any] = field(default_factory=dict)
    """ATIF → TAO: the named keys of ``metadata`` written (:data:`TAO_NAMED`) and their values."""
    members: list[tuple[Doc, str, str, str]] = field(default_factory=list)
    """ATIF → TAO: (ATIF object, its member, named key, pointer of the value in the record) of
    every member that went under a named key of ``metadata``."""

    def pair(self, source: Doc, result: Doc) -> None:
        self.pairs[id(source)] = result
        self.made_from[id(result)] = source

    def origin(self, result: Any) -> Doc | None:
        """The source object a result object was made from."""
        return self.made_from.get(id(result))


# --- TAO → ATIF ---------------------------------------------------------------------------------


def _groups(steps: list[Doc]) -> dict[int, int]:
    """Sub-agent grouping: position → position of the parent step, for ``call_type:
    "subagent"`` steps whose ``parent_step`` names the ``step_index`` of some step of the record,
    before or after it, wherever they sit (opentraces' Claude Code parser writes them just before
    the launching step; a chronological record interleaves them with the main steps).
    """
    where: dict[Any, int] = {}
    for p, step in enumerate(steps):
        index = step.get("step_index")
        if _count(index) is not None:
            where.setdefault(index, p)
    parent_of: dict[int, int] = {}
    for p, step in enumerate(steps):
        parent = step.get("parent_step")
        if step.get("call_type") != "subagent" or _count(parent) is None:
            continue
        q = where.get(parent)
        if q is not None and q != p:
            parent_of[p] = q
    return {} if _cyclic(parent_of) else parent_of


def _cyclic(parent_of: dict[int, int]) -> bool:
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


def _repeated_usage(steps: list[Doc]) -> set[int]:
    """Positions of agent steps that repeat the previous step's API call usage.

    opentraces' Claude Code parser writes one step per JSONL row, and Claude Code writes one row
    per content block of a response, each carrying that response's ``message.usage``: the steps
    of one call are adjacent agent steps with the same ``model``, ``parent_step`` and an equal,
    non-zero ``token_usage``. Its usage counts once (RFC.md §2.4 rule 4): ATIF ``metrics`` go on
    the first of them only; the others' ``token_usage`` is stashed and comes back on the way back.
    """
    out: set[int] = set()
    for p in range(1, len(steps)):
        step, prev = steps[p], steps[p - 1]
        usage = step.get("token_usage")
        if (
            step.get("role") == "agent"
            and prev.get("role") == "agent"
            and isinstance(usage, dict)
            and any(_count(v) for v in usage.values())
            and usage == prev.get("token_usage")
            and step.get("model") == prev.get("model")
            and step.get("parent_step") == prev.get("parent_step")
        ):
            out.add(p)
    return out


class _ToAtif:
    """TAO record → ATIF v1.7 trajectory (native fields only)."""

    def __init__(
        self, record: Doc, split: bool, named: NamedKeys | None, filled: bool = False
    ) -> None:
        self.record = record
        self.split = split
        self.filled = filled
        """ATIF → TAO will write the filled style (:func:`to_atif`)."""
        self.taken: Doc = {}
        """The named keys of ``metadata`` that ATIF → TAO wrote (its declaration says so)."""
        metadata = record.get("metadata")
        if named is not None and isinstance(metadata, dict):
            self.taken = {
                k: metadata[k] for k in TAO_NAMED if k in metadata and named.owns((TAO_HOLDER, k))
            }
        costs = self.taken.get(STEP_COSTS)
        self.costs: Doc = costs if isinstance(costs, dict) else {}
        agents = self.taken.get(SUBAGENT_AGENTS)
        self.agents: Doc = agents if isinstance(agents, dict) else {}
        fields = self.taken.get(STEP_FIELDS)
        self.fields: Doc = fields if isinstance(fields, dict) else {}
        trajectory = self.taken.get(TRAJECTORY)
        self.trajectory: Doc = trajectory if isinstance(trajectory, dict) else {}
        system = self.taken.get(SYSTEM_STEPS)
        self.system: Doc = dict(system) if isinstance(system, dict) else {}  # popped when used
        self.steps = [s for _, s in dicts(record.get("steps"))]
        prompts = record.get("system_prompts")
        self.prompts: dict[str, Any] = prompts if isinstance(prompts, dict) else {}
        agent = record.get("agent")
        self.agent: Doc = agent if isinstance(agent, dict) else {}
        self.built = Built({})
        self.positions: dict[int, int] = {id(s): p for p, s in enumerate(self.steps)}
        self.step_ptr: dict[int, str] = {
            id(s): f"/steps/{i}" for i, s in dicts(record.get("steps"))
        }
        self.atif_steps: dict[int, tuple[Doc, str]] = {}  # position → (ATIF step, pointer)
        self.repeats = _repeated_usage(self.steps)
        self._before_cache: dict[int | None, dict[int, list[str]]] = {}

    def run(self) -> Built:
        record = self.record
        out: Doc = {"schema_version": "ATIF-v1.7"}
        root = _Owner(out, record, "", "", kind="record")
        self.built.doc = out
        self.built.owners.append(root)
        self.built.pair(record, out)
        out["session_id"] = record.get("session_id")
        trace_id = record.get("trace_id")
        if (
            isinstance(trace_id, str)
            and trace_id
            and trace_id != derived_trace_id(record.get("session_id"))
        ):
            out["trajectory_id"] = trace_id
        out["agent"] = self._agent(root)
        self.parent_of = _groups(self.steps) if self.split else {}
        steps, subs = self._trajectory(None, "", root)
        if not steps:
            steps.append({"step_id": 1, "source": "system", "message": ""})
            policy = "a trajectory has at least one step: an empty system step"
            self._decide("/steps/0", policy, dict(steps[0]))
        out["steps"] = steps
        metrics = record.get("metrics")
        if isinstance(metrics, dict):
            final = self._final_metrics(out, subs)
            out["final_metrics"] = final
            self._own(final, metrics, "/final_metrics", "/metrics", root, "metrics")
        if subs:
            out["subagent_trajectories"] = subs
        self._trajectory_fields(out)
        for owner in self.built.owners:
            self._name(owner)
        return self.built

    def _trajectory_fields(self, out: Doc) -> None:
        """Put back the root's members ATIF → TAO kept under :data:`TRAJECTORY` (at their
        places in ATIF's schema order)."""

        for name, members in TRAJECTORY_FIELDS.items():
            target: Any = out.get(name) if name else out
            given: Any = self.trajectory.get(name) if name else self.trajectory
            definition = {"": None, "agent": "Agent"}.get(name, "FinalMetrics")
            order = key_order("v1.7", definition)
            if not isinstance(target, dict) or not isinstance(given, dict):
                continue
            for member in (*members, *(TOTALS if name == "final_metrics" else ())):
                if member in given and member in TOTALS and member in target:
                    target[member] = copy.deepcopy(given[member])  # the producer's statement
                elif member in given and member not in target:
                    value = copy.deepcopy(given[member])
                    insert_key(target, member, value, _after_declared(target, member, order))

    def _written(self, owner: _Owner, key: str) -> Any:
        """What ATIF → TAO writes at ``key`` of the owner's counterpart anyway (or absent)."""
        if owner.kind == "record" and key == "schema_version":
            return TAO_VERSION
        if owner.kind == "step":
            sub = self.positions[id(owner.source)] in self.parent_of
            agent = owner.source.get("role") == "agent"
            if key == "call_type":
                user = self.filled and owner.source.get("role") == "user"
                return "subagent" if sub else ("main" if agent or user else _ABSENT)
            if key == "agent_role":
                return "main" if agent and not sub else _ABSENT
        if owner.kind == "observation" and key == "error":
            return UNLINKED if owner.target.get("source_call_id") is None else _ABSENT
        if owner.kind == "observation" and key == "source_call_id":
            linked = owner.target.get("source_call_id")
            return linked if isinstance(linked, str) else ""
        if owner.kind == "metrics" and key in ("total_input_tokens", "total_output_tokens"):
            count = key.removeprefix("total_")
            return _total(self.steps, count) if _counted(self.steps, count) else _ABSENT
        return _ABSENT

    def _name(self, owner: _Owner) -> None:
        """Put the owner's members that ATIF has no field for under named ``extra`` keys."""
        # the way back puts the member at its declared place (:func:`_place`), and the stash
        # keeps any other key order
        for key, name in NAMED.get(owner.kind, ()):
            if key not in owner.source:
                continue
            value = owner.source[key]
            if owner.kind == "record" and key == "metadata" and self.taken:
                value = {k: v for k, v in value.items() if k not in self.taken}
                if not value:
                    continue  # only what ATIF → TAO put there
            written = self._written(owner, key)
            if written is not _ABSENT and fingerprint(written) == fingerprint(value):
                continue
            extra = owner.target.get("extra")
            if not isinstance(extra, dict):
                extra = owner.target["extra"] = {}
            extra[name] = value
            self.built.named.append((owner, key, name, value))

    def _own(
        self, target: Doc, source: Doc, tptr: str, sptr: str, parent: _Owner, kind: str = ""
    ) -> _Owner:
        owner = _Owner(target, source, tptr, sptr, parent, kind)
        self.built.owners.append(owner)
        self.built.pair(source, target)
        return owner

    def _decide(self, ptr: str, policy: str, value: Any) -> None:
        self.built.decisions.append(_Decision(ptr, policy, value))

    def _agent(self, root: _Owner) -> Doc:
        source = self.agent
        agent: Doc = {"name": source.get("name")}
        version = source.get("version")
        if isinstance(version, str):
            agent["version"] = version
        else:
            agent["version"] = UNKNOWN_VERSION
            self._decide("/agent/version", "agent.version is required: 'unknown'", UNKNOWN_VERSION)
        if "model" in source:
            agent["model_name"] = source["model"]
        definitions = self.record.get("tool_definitions")
        if isinstance(definitions, list):
            agent["tool_definitions"] = definitions
        self._own(agent, source, "/agent", "/agent", root)
        return agent

    def _trajectory(
        self, parent_pos: int | None, base: str, root: _Owner
    ) -> tuple[list[Doc], list[Doc]]:
        """The ATIF steps and embedded subagents of one trajectory."""
        positions = [p for p in range(len(self.steps)) if self.parent_of.get(p) == parent_pos]
        out: list[Doc] = []
        for i, p in enumerate(positions):
            for key in self._prompts_before(positions, parent_pos).get(i, ()):
                out.append(self._system(key, len(out), base, root))
            step = self.steps[p]
            ptr = f"{base}/steps/{len(out)}"
            out.append(self._step(step, len(out) + 1, ptr, root))
            self.atif_steps[p] = (out[-1], ptr)
        if not positions and parent_pos is None:
            for key in self._unreferenced():
                out.append(self._system(key, len(out), base, root))
        subs: list[Doc] = []
        children = sorted(
            {self.parent_of[p] for p in self.parent_of if self.parent_of[p] in positions}
        )
        children.sort(key=lambda q: min(p for p in self.parent_of if self.parent_of[p] == q))
        ids: set[str] = set()
        for q in children:
            sub_base = f"{base}/subagent_trajectories/{len(subs)}"
            tid = self._subagent_id(q, ids)
            sub: Doc = {"schema_version": "ATIF-v1.7", "trajectory_id": tid}
            agent = self.agents.get(tid)
            if not isinstance(agent, dict):
                agent = _subagent_agent(self.built.doc["agent"])
            # a copy: the stash edits each subagent's agent in place, and one named agent
            # stands for every subagent of that id (ids repeat at other depths)
            sub["agent"] = _copy(agent)
            sub_steps, sub_subs = self._trajectory(q, sub_base, root)
            sub["steps"] = sub_steps
            if sub_subs:
                sub["subagent_trajectories"] = sub_subs
            subs.append(sub)
            self._reference(q, tid)
        return out, subs

    def _system(self, key: str, n: int, base: str, root: _Owner) -> Doc:
        """The system step of the prompt ``key``, which keeps ``key`` under the named key
        :data:`PROMPT_KEY` when ATIF → TAO would key the prompt otherwise, with the fields
        ATIF → TAO kept for it under :data:`SYSTEM_STEPS` (on the first system step of that
        prompt only)."""
        text = self.prompts[key]
        step: Doc = {"step_id": n + 1, "source": "system", "message": text}
        fields = self.system.pop(key, None)
        for member, value in fields.items() if isinstance(fields, dict) else ():
            if member not in step:
                insert_key(step, member, copy.deepcopy(value), _atif_place(step, member))
        if key != prompt_key(text):
            extra = step.get(ATIF_HOLDER)
            if not isinstance(extra, dict):
                extra = step[ATIF_HOLDER] = {}
            extra[PROMPT_KEY] = key
            owner = _Owner(step, self.prompts, f"{base}/steps/{n}", "/system_prompts", root)
            self.built.named.append((owner, key, PROMPT_KEY, key))
        return step

    def _prompt_of(self, p: int) -> str | None:
        key = self.steps[p].get("system_prompt_hash")
        return key if isinstance(key, str) and isinstance(self.prompts.get(key), str) else None

    def _unreferenced(self) -> list[str]:
        """Prompts no step names (the usual Claude Code record): system steps at the start."""
        used = {self._prompt_of(p) for p in range(len(self.steps))}
        return [k for k, v in self.prompts.items() if isinstance(v, str) and k not in used]

    def _prompts_before(self, positions: list[int], parent_pos: int | None) -> dict[int, list[str]]:
        """Index in ``positions`` → the prompts whose system steps go just before that step.

        A prompt goes before the first step that names it (when it differs from the last one),
        moved up past the user steps without a prompt just before it: the prompt comes before the
        user message the call answers. The main trajectory starts with the unreferenced prompts.
        """
        cache = self._before_cache.get(parent_pos)
        if cache is not None:
            return cache
        before: dict[int, list[str]] = {}
        if parent_pos is None and positions:
            before[0] = self._unreferenced()
        current: str | None = None
        floor = 0
        for i, p in enumerate(positions):
            key = self._prompt_of(p)
            if key is None or key == current:
                continue
            j = i
            while j > floor:
                prev = self.steps[positions[j - 1]]
                if prev.get("role") == "agent" or self._prompt_of(positions[j - 1]) is not None:
                    break
                j -= 1
            before.setdefault(j, []).append(key)
            current, floor = key, i
        self._before_cache[parent_pos] = before
        return before

    def _subagent_id(self, q: int, taken: set[str]) -> str:
        ref = self.steps[q].get("subagent_trajectory_ref")
        if isinstance(ref, str) and ref and ref not in taken:
            taken.add(ref)
            return ref
        stem = ref if isinstance(ref, str) and ref else "subagent"
        index = self.steps[q].get("step_index")
        tid = f"{stem}@step-{index}"
        n = 2
        while tid in taken:
            tid = f"{stem}@step-{index}-{n}"
            n += 1
        taken.add(tid)
        _, ptr = self.atif_steps[q]
        self._decide(ptr, "an embedded subagent needs a trajectory_id", tid)
        return tid

    def _reference(self, q: int, tid: str) -> None:
        """Put the reference to the subagent on the launching call's result of step ``q``."""
        step, _ = self.atif_steps[q]
        ref = {"trajectory_id": tid}
        observation = step.get("observation")
        results = observation.get("results") if isinstance(observation, dict) else None
        for _, result in dicts(results):  # read back from ATIF → TAO's named key
            if any(
                r.get("trajectory_id") == tid
                for _, r in dicts(result.get("subagent_trajectory_ref"))
            ):
                return
        calls = {
            c.get("tool_call_id"): c.get("function_name") for _, c in dicts(step.get("tool_calls"))
        }
        for _, result in dicts(results):
            name = calls.get(result.get("source_call_id"))
            if isinstance(name, str) and name.lower() in LAUNCHERS:
                result["subagent_trajectory_ref"] = [ref]
                return
        if not isinstance(observation, dict):
            position = list(step).index("metrics") if "metrics" in step else len(step)
            insert_key(
                step, "observation", {"results": [{"subagent_trajectory_ref": [ref]}]}, position
            )
        else:
            observation["results"].append({"subagent_trajectory_ref": [ref]})

    def _step(self, step: Doc, step_id: int, ptr: str, root: _Owner) -> Doc:
        sptr = self.step_ptr[id(step)]
        role = step.get("role")
        agent = role == "agent"
        out: Doc = {"step_id": step_id}
        if "timestamp" in step and _atif_timestamp(step["timestamp"]):
            out["timestamp"] = step["timestamp"]
        out["source"] = role
        if agent and "model" in step:
            out["model_name"] = step["model"]
        content = step.get("content")
        if isinstance(content, str):
            out["message"] = content
        else:
            out["message"] = ""
            self._decide(f"{ptr}/message", "a step message is a string: ''", "")
        if agent and "reasoning_content" in step:
            out["reasoning_content"] = step["reasoning_content"]
        owner = self._own(out, step, ptr, sptr, root, "step")
        calls_out: list[Doc] = []
        calls = step.get("tool_calls")
        if agent and isinstance(calls, list):
            for k, call in dicts(calls):
                mapped = {
                    "tool_call_id": call.get("tool_call_id"),
                    "function_name": call.get("tool_name"),
                    "arguments": call.get("input", {}),
                }
                calls_out.append(mapped)
                cptr = f"{ptr}/tool_calls/{k}"
                self._own(mapped, call, cptr, f"{sptr}/tool_calls/{k}", owner, "call")
            out["tool_calls"] = calls_out
        observations = step.get("observations")
        if isinstance(observations, list):
            call_ids = {c["tool_call_id"] for c in calls_out}
            results: list[Doc] = []
            for k, obs in dicts(observations):
                call_id = obs.get("source_call_id")
                result: Doc = {"source_call_id": call_id if call_id in call_ids else None}
                if "content" in obs:
                    result["content"] = obs["content"]
                results.append(result)
                rptr = f"{ptr}/observation/results/{k}"
                self._own(result, obs, rptr, f"{sptr}/observations/{k}", owner, "observation")
            out["observation"] = {"results": results}
        usage = step.get("token_usage")
        if agent and isinstance(usage, dict) and self.positions[id(step)] not in self.repeats:
            style = anthropic_usage(
                step.get("model"), self.agent.get("model"), self.agent.get("name")
            )
            metrics = _metrics(usage, style)
            index = step.get("step_index")
            cost = self.costs.get(str(index), _ABSENT) if _count(index) is not None else _ABSENT
            if cost is not _ABSENT:
                insert_key(metrics, "cost_usd", cost, len(metrics) - ("extra" in metrics))
            out["metrics"] = metrics
            self._own(metrics, usage, f"{ptr}/metrics", f"{sptr}/token_usage", owner, "usage")
        index = step.get("step_index")
        fields = self.fields.get(str(index)) if _count(index) is not None else None
        for key, value in fields.items() if isinstance(fields, dict) else ():
            if key in FIELDS and key not in out:
                insert_key(out, key, copy.deepcopy(value), _atif_place(out, key))
            elif key == "metrics" and isinstance(value, dict) and "metrics" in out:
                metrics = out["metrics"]
                for k, v in value.items():
                    if k in METRIC_FIELDS and k not in metrics:
                        insert_key(metrics, k, copy.deepcopy(v), _metrics_place(metrics, k))
                own = value.get("extra")
                if isinstance(own, dict) and not set(own) & set(metrics.get("extra") or {}):
                    made = metrics.pop("extra", {})  # the producer's keys first
                    extra = {**copy.deepcopy(own), **(made if isinstance(made, dict) else {})}
                    insert_key(metrics, "extra", extra, _metrics_place(metrics, "extra"))
            elif key == "message" and _parts_of(value, out["message"]):
                out["message"] = copy.deepcopy(value)
            elif key == "tool_calls":
                _merge_partials(out.get("tool_calls"), value, "ToolCall")
            elif key == "observation" and isinstance(value, dict):
                made = out.get("observation")
                made_results = made.get("results") if isinstance(made, dict) else None
                _merge_partials(made_results, value.get("results"), "ObservationResult")
        return out

    def _final_metrics(self, doc: Doc, subs: list[Doc]) -> Doc:
        """The totals as RFC.md §2.4 defines them (:mod:`atif_spec.formats.totals`), subagents
        included; 0 for a metric no step reports (TAO's session metrics always have a value)."""
        return _totals({"steps": doc["steps"], "subagent_trajectories": subs})


def _atif_place(step: Doc, key: str) -> int:
    """Where a step field read back from a named key goes: after the fields declared before it
    in ATIF's ``Step``."""
    return _after_declared(step, key, _atif_step_order())


@functools.cache
def _atif_step_order() -> tuple[str, ...]:

    return key_order("v1.7", "Step")


def _totals(doc: Doc) -> Doc:
    """The ``final_metrics`` totals TAO → ATIF writes for an ATIF trajectory (RFC.md §2.4,
    subagents included; 0 for a metric no step reports; ``total_steps``: the main steps)."""
    totals = trajectory_totals(doc)
    steps = doc.get("steps")
    return {
        "total_prompt_tokens": totals.prompt_tokens or 0,
        "total_completion_tokens": totals.completion_tokens or 0,
        "total_cached_tokens": totals.cached_tokens or 0,
        "total_steps": len(steps) if isinstance(steps, list) else 0,
    }


def _parts_of(parts: Any, text: Any) -> bool:
    """Whether ``parts`` are ATIF content parts whose text is ``text`` (what ATIF → TAO wrote
    for them; content edited since is not replaced)."""
    return isinstance(parts, list) and isinstance(text, str) and text_of(parts) == text


def _merge_partials(items: Any, partials: Any, definition: str) -> None:
    """Put back the producer's ``extra`` and the content parts ATIF → TAO kept for each tool
    call or result (:data:`STEP_FIELDS`), at ATIF's schema place."""

    if not isinstance(items, list) or not isinstance(partials, list):
        return
    order = key_order("v1.7", definition)
    for item, partial in zip(items, partials, strict=False):
        if not isinstance(item, dict) or not isinstance(partial, dict):
            continue
        for member, value in partial.items():
            if member == "content" and _parts_of(value, item.get("content")):
                item["content"] = copy.deepcopy(value)
            elif member in ("extra", "subagent_trajectory_ref") and member not in item:
                insert_key(item, member, copy.deepcopy(value), _after_declared(item, member, order))


def _metrics_place(metrics: Doc, key: str) -> int:
    """Where a metrics field read back from a named key goes (ATIF's ``Metrics`` order)."""

    return _after_declared(metrics, key, key_order("v1.7", "Metrics"))


def _subagent_agent(agent: Doc) -> Doc:
    """The ``agent`` TAO → ATIF gives an embedded subagent: the root's, without tool
    definitions (unless ATIF → TAO named another, :data:`SUBAGENT_AGENTS`)."""
    return {k: v for k, v in agent.items() if k != "tool_definitions"}


def _all_subs(subs: list[Doc]) -> Iterator[Doc]:
    for sub in subs:
        yield sub
        yield from _all_subs(sub.get("subagent_trajectories") or [])


CACHE_WRITES = "cache_creation_input_tokens"
"""The ATIF metrics ``extra`` key TAO's ``cache_write_tokens`` maps to (§2.5)."""


def _metrics(usage: Doc, anthropic: bool) -> Doc:
    """ATIF metrics for a TAO token usage (prompt tokens include cached ones in ATIF)."""
    given = {
        k: _count(usage.get(k))
        for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
    }
    read, write = given["cache_read_tokens"], given["cache_write_tokens"]
    out: Doc = {}
    if given["input_tokens"] is not None:
        prompt = given["input_tokens"]
        if anthropic:
            prompt = prompt + (read or 0) + (write or 0)
        if prompt >= 0:
            out["prompt_tokens"] = prompt
    if given["output_tokens"] is not None and given["output_tokens"] >= 0:
        out["completion_tokens"] = given["output_tokens"]
    if read is not None and read >= 0:
        out["cached_tokens"] = read
    if write is not None:
        out["extra"] = {CACHE_WRITES: write}
    return out


def to_atif(
    record: Doc, split: bool = True, named: NamedKeys | None = None, filled: bool = False
) -> Built:
    """The native ATIF v1.7 form of a TAO record (sub-agent steps split out into embedded
    subagents unless ``split`` is False). ``named``: the declaration of the named keys of
    ``metadata`` that ATIF → TAO wrote (:data:`TAO_NAMED`), read back into ATIF fields.
    ``filled``: ATIF → TAO will write the filled style (D33): steps numbered from 1 and a
    user step's ``call_type: "main"``, as opentraces writes them; a step it numbers otherwise
    than the record gets :data:`STEP_INDEX`."""
    built = _ToAtif(record, split, named, filled).run()
    first = 1 if filled else 0
    places = {id(s): p + first for p, s in dicts(record.get("steps"))}
    numbered = _ToTao(built.doc, None, filled).run()  # the numbering ignores named keys
    _name_indexes(built, numbered, places)
    return built


# --- ATIF → TAO ---------------------------------------------------------------------------------


class _ToTao:
    """ATIF v1.7 trajectory → TAO 0.2.0 record (native fields only)."""

    def __init__(self, doc: Doc, named: Declared | None, filled: bool = False) -> None:
        self.doc = doc
        self.named = named or []
        self.filled = filled
        """The filled style (D33): steps numbered from 1, ``call_type`` on every step."""
        self.first = 1 if filled else 0
        agent = doc.get("agent")
        self.agent: Doc = agent if isinstance(agent, dict) else {}
        self.built = Built({})
        self.steps: list[Doc] = []
        self.prompts: dict[str, str] = {}
        self.keys: dict[int, str] = {}
        """``id(system step)`` → the prompt key read back from :data:`PROMPT_KEY`."""
        self.indexed: set[int] = set()
        """``id(step)`` of the steps whose ``step_index`` is read back from :data:`STEP_INDEX`: a
        system step among them was a TAO step (``role: "system"``), not a prompt."""
        self.unnumbered = 0
        for traj, declared in self.named:
            for path in declared.places(traj):
                if path[-2:] == (ATIF_HOLDER, PROMPT_KEY) and isinstance(resolve(traj, path), str):
                    self.keys[id(resolve(traj, path[:-2]))] = resolve(traj, path)
                if path[-2:] == (ATIF_HOLDER, STEP_INDEX):
                    self.indexed.add(id(resolve(traj, path[:-2])))
        self.costs: Doc = {}
        self.agents: Doc = {}
        self.fields: Doc = {}
        self.system: dict[str, list[Doc]] = {}
        """Prompt key → the ATIF system steps with that text."""
        self.owned: set[tuple[int, str]] = set()
        """(``id(extra)``, key) of the named keys the declarations of TAO → ATIF cover."""
        for traj, declared in self.named:
            for path in declared.places(traj):
                if isinstance(path[-1], str):
                    self.owned.add((id(resolve(traj, path[:-1])), path[-1]))

    def run(self) -> Built:
        doc = self.doc
        out: Doc = {"schema_version": TAO_VERSION}
        self.built.doc = out
        self.built.pair(doc, out)
        session = doc.get("session_id")
        trajectory = doc.get("trajectory_id")
        if isinstance(trajectory, str) and trajectory:
            trace_id = trajectory
        else:
            trace_id = derived_trace_id(session)
            self._decide(
                "/trace_id", "trace_id is required: a UUID derived from session_id", trace_id
            )
        out["trace_id"] = trace_id
        if isinstance(session, str):
            out["session_id"] = session
        else:
            out["session_id"] = trace_id
            self._decide("/session_id", "session_id is required: the trace_id", trace_id)
        agent: Doc = {"name": self.agent.get("name")}
        if "version" in self.agent and self.agent["version"] != UNKNOWN_VERSION:
            agent["version"] = self.agent["version"]  # "unknown" stands for none (TAO → ATIF)
        if "model_name" in self.agent:
            agent["model"] = self.agent["model_name"]
        out["agent"] = agent
        self.built.pair(self.agent, agent)
        self._trajectory(doc, 0)
        if self.prompts:
            out["system_prompts"] = self.prompts
        definitions = self.agent.get("tool_definitions")
        if isinstance(definitions, list):
            out["tool_definitions"] = definitions
        if self.steps:  # the parser writes no record without steps; the model's default is []
            out["steps"] = self.steps
        final = doc.get("final_metrics")
        if isinstance(final, dict):
            metrics: Doc = {"total_steps": len(self.steps)}
            for key in ("input_tokens", "output_tokens"):
                if _counted(self.steps, key):  # a sum over no count is unknown, not 0
                    metrics[f"total_{key}"] = _total(self.steps, key)
            out["metrics"] = metrics
            self.built.pair(final, metrics)
        for traj, declared in self.named:
            self._read_named(traj, declared)
        for step in self.steps:  # a parent read back under another step_index
            parent = step.get("parent_step")
            if isinstance(parent, int) and not isinstance(parent, bool):
                step["parent_step"] = self.steps[parent]["step_index"]
        indexes = [step.get("step_index") for step in self.steps]
        if len(set(indexes)) == len(indexes) and all(
            isinstance(i, int) and not isinstance(i, bool) for i in indexes
        ):
            # a record is in step_index order (TAO101): indexes read back restore its order
            self.steps.sort(key=lambda step: int(step["step_index"]))
        for step in self.steps:  # the id TAO → ATIF gives a sub-agent its record leaves unnamed
            if step.get("subagent_trajectory_ref") == f"subagent@step-{step['step_index']}":
                del step["subagent_trajectory_ref"]
        trajectory = self._trajectory_fields()
        if trajectory:
            self._write_named(TRAJECTORY, trajectory)
        if self.costs:
            self._write_named(STEP_COSTS, self.costs)
        if self.agents:
            self._write_named(SUBAGENT_AGENTS, self.agents)
        if self.fields:
            self._write_named(STEP_FIELDS, self.fields)
        system = self._system_fields()
        if system:
            self._write_named(SYSTEM_STEPS, system)
        return self.built

    def _trajectory_fields(self) -> Doc:
        """The root's members of :data:`TRAJECTORY_FIELDS`, as a partial ATIF trajectory in
        the document's key order."""
        out: Doc = {}
        for owner, value in self.doc.items():
            if owner == "" or owner not in TRAJECTORY_FIELDS or not isinstance(value, dict):
                continue
            members = TRAJECTORY_FIELDS[owner]
            if owner == "final_metrics":
                members += self._stated_totals(value)
            kept = self._kept(value, members, owner)
            if kept:
                out[owner] = kept
        root = self._kept(self.doc, TRAJECTORY_FIELDS[""])
        return {k: out[k] if k in out else root[k] for k in self.doc if k in out or k in root}

    def _stated_totals(self, final: Doc) -> tuple[str, ...]:
        """The totals of ``final_metrics`` that differ from what TAO → ATIF computes (RFC.md
        §2.4, :func:`_totals`): the producer's own statement (one that leaves out a verifier
        sub-agent, or counts agent turns only)."""
        computed = _totals(self.doc)
        return tuple(
            k for k, v in computed.items() if k in final and fingerprint(final[k]) != fingerprint(v)
        )

    def _kept(self, source: Doc, members: tuple[str, ...], *below: str) -> Doc:
        return self._copied(source, lambda m: m in members, TRAJECTORY, *below)

    def _copied(self, source: Doc, wanted: Callable[[str], bool], key: str, *below: str) -> Doc:
        """The members of ``source`` that ``wanted`` names, in its key order, each recorded as
        carried by the named key ``key`` at ``below`` + its name; an ``extra`` keeps only the
        producer's own members (and is left out when none is left)."""
        copied: Doc = {}
        for member, value in source.items():
            if not wanted(member):
                continue
            if member == "extra":
                value = self._producers(value)
                if not value:
                    continue
            copied[member] = value
            self._member(source, member, key, *below, member)
        return copied

    def _system_fields(self) -> Doc:
        """Prompt key → the fields other than ``message`` of the one system step with that
        text (a prompt that several system steps share, or that no step names, keeps its
        steps' fields in the stash)."""
        out: Doc = {}
        for key, steps in self.system.items():
            if len(steps) != 1 or key not in self.prompts:
                continue
            fields = self._copied(
                steps[0], lambda m: m not in ("step_id", "source", "message"), SYSTEM_STEPS, key
            )
            if fields:
                out[key] = fields
        return out

    def _member(self, source: Doc, member: str, key: str, *below: str) -> None:
        self.built.members.append((source, member, key, make_pointer(TAO_HOLDER, key, *below)))

    def _write_named(self, key: str, value: Any) -> None:
        """Put ``value`` under the named key ``key`` of the record's ``metadata`` (created at its
        declared place), unless a producer's own key of that name is there (then the values
        stay in the stash)."""
        out = self.built.doc
        if TAO_HOLDER not in out:
            insert_key(out, TAO_HOLDER, {}, _place(out, TAO_HOLDER))
        metadata = out[TAO_HOLDER]
        if not isinstance(metadata, dict) or key in metadata:
            return
        out[TAO_HOLDER] = {**metadata, key: value}  # not the ATIF object it was read from
        self.built.written[key] = value

    def _read_named(self, traj: Doc, declared: NamedKeys) -> None:
        """Read back the named keys that the declaration of TAO → ATIF on ``traj`` (a
        trajectory, the root or an embedded one) says it wrote, into their TAO members (never
        a producer's own key of the same name)."""
        for path in declared.places(traj):
            if len(path) < 2 or path[-2] != ATIF_HOLDER or not isinstance(path[-1], str):
                continue
            key = _MEMBER_OF.get(path[-1])
            owner = resolve(traj, path[:-2])
            target = self.built.pairs.get(id(owner))
            if key is None or target is None:
                continue
            value = resolve(traj, path)
            if key in target:
                target[key] = value  # the value it stands for, not the one written by default
            else:
                insert_key(target, key, value, _place(target, key))

    def _decide(self, ptr: str, policy: str, value: Any) -> None:
        self.built.decisions.append(_Decision(ptr, policy, value))

    def _trajectory(self, traj: Doc, depth: int) -> list[Doc]:
        """Write the steps of ``traj`` in the parser's order: each step after the steps of the
        sub-agents it launched. Returns its own steps (the caller sets their ``parent_step``)."""
        subs: dict[str, Doc] = {}
        for _, sub in dicts(traj.get("subagent_trajectories")):
            tid = sub.get("trajectory_id")
            if isinstance(tid, str) and tid not in subs:
                subs[tid] = sub
        inlined: set[str] = set()
        texts: dict[str, str] = {}  # prompts of this trajectory; written once a step uses them
        current: str | None = None
        fresh = False
        own: list[Doc] = []
        steps = [s for _, s in dicts(traj.get("steps"))]
        for n, step in enumerate(steps):
            source = step.get("source")
            if source == "system" and id(step) not in self.indexed:
                text = _text(step.get("message"))
                text = text if isinstance(text, str) else ""
                current = self.keys.get(id(step)) or prompt_key(text)
                texts[current] = text
                self.system.setdefault(current, []).append(step)
                fresh = _unanswered(steps, n, self.indexed)
                continue
            launched = self._launched(step, subs, inlined)
            for tid in launched:
                agent = subs[tid].get("agent")
                mine = _subagent_agent(self.agent)
                if isinstance(agent, dict) and jsontext.dumps(agent) != jsontext.dumps(mine):
                    self.agents[tid] = agent
                    self._member(subs[tid], "agent", SUBAGENT_AGENTS, tid)
            children = [c for tid in launched for c in self._trajectory(subs[tid], depth + 1)]
            index = len(self.steps)
            for child in children:
                child["parent_step"] = index
            number = index - self.unnumbered + self.first  # a named system step: no position
            if source == "system":
                self.unnumbered += 1
            out: Doc = {"step_index": number, "role": source}
            content = _text(step.get("message"))
            # the parser writes an agent step without text as null (``step_content or None``)
            out["content"] = None if content == "" and source == "agent" else content
            if "reasoning_content" in step:
                out["reasoning_content"] = step["reasoning_content"]
            if "model_name" in step:
                out["model"] = step["model_name"]
            if current is not None and (fresh or source == "agent"):
                out["system_prompt_hash"] = current
                self.prompts.setdefault(current, texts[current])
            fresh = False
            if depth == 0 and source == "agent":
                out["agent_role"] = "main"
            if depth > 0:
                out["parent_step"] = None  # the launching step's index, set by the caller
                out["call_type"] = "subagent"
            elif source == "agent" or (self.filled and source == "user"):
                out["call_type"] = "main"
            if launched:
                out["subagent_trajectory_ref"] = launched[0]
            self._calls(step, out)
            self._observations(step, out)
            metrics = step.get("metrics")
            if isinstance(metrics, dict):
                style = anthropic_usage(
                    step.get("model_name"), self.agent.get("model_name"), self.agent.get("name")
                )
                usage = _usage(metrics, style)
                out["token_usage"] = usage
                self.built.pair(metrics, usage)
                if "cost_usd" in metrics:
                    self.costs[str(number)] = metrics["cost_usd"]
                    self._member(metrics, "cost_usd", STEP_COSTS, str(number))
            if "timestamp" in step:
                out["timestamp"] = step["timestamp"]
            self._step_fields(step, str(number), launched[0] if launched else None)
            self.steps.append(out)
            own.append(out)
            self.built.pair(step, out)
        if depth == 0 and not own and not _placeholder(steps):
            for key, text in texts.items():  # only system steps: prompts named by no step
                self.prompts.setdefault(key, text)
        return own

    def _step_fields(self, step: Doc, index: str, launched: str | None) -> None:
        """Keep the step's ATIF fields that TAO has no field for under :data:`STEP_FIELDS`, in
        the step's key order (a partial ATIF step: its metrics fields under ``metrics``).
        ``launched``: the subagent whose steps ATIF → TAO wrote before it (TAO names it in
        ``subagent_trajectory_ref``, and TAO → ATIF writes the reference back)."""
        fields: Doc = {}
        for key, value in step.items():
            if key == "extra":
                value = self._producers(value)
                if value:
                    fields[key] = value
                    self._member(step, key, STEP_FIELDS, index, key)
            elif key in FIELDS:
                fields[key] = value
                self._member(step, key, STEP_FIELDS, index, key)
            elif key == "metrics" and isinstance(value, dict):
                kept = {k: v for k, v in value.items() if k in METRIC_FIELDS}
                for k in kept:
                    self._member(value, k, STEP_FIELDS, index, key, k)
                extra = value.get("extra")
                own = {k: v for k, v in self._producers(extra).items() if k != CACHE_WRITES}
                if isinstance(extra, dict) and own:
                    for k in own:
                        self._member(extra, k, STEP_FIELDS, index, key, "extra", k)
                    kept["extra"] = own
                if kept:
                    fields[key] = kept
            elif key == "message" and isinstance(value, list):
                fields[key] = value  # content parts: TAO's content is their text
                self._member(step, key, STEP_FIELDS, index, key)
            elif key == "tool_calls" and isinstance(value, list):
                partial_calls = self._partials(value, index, {}, key)
                if partial_calls:
                    fields[key] = partial_calls
            elif key == "observation" and isinstance(value, dict):
                results = value.get("results")
                kept_results = [r for r in results if not _carrier(r)] if results else []
                first = _first_launcher(kept_results, step)
                # the reference TAO → ATIF writes back anyway (on the first launcher's result)
                plain = (
                    {first: [{"trajectory_id": launched}]} if launched and first is not None else {}
                )
                partial = self._partials(kept_results, index, plain, key, "results")
                if partial:
                    fields[key] = {"results": partial}
        if fields:
            self.fields[index] = fields

    def _partials(
        self, items: list[Any], index: str, plain: dict[int, Any], *below: str
    ) -> list[Doc]:
        """Partial ATIF tool calls or results, one per TAO call or observation made from them:
        their producer's ``extra``, content parts and subagent references (empty objects when
        all are empty). ``plain``: position → the reference TAO → ATIF writes there anyway."""
        out: list[Doc] = []
        for k, item in enumerate(items):
            partial: Doc = {}
            for member, value in item.items() if isinstance(item, dict) else ():
                if member == "extra":
                    value = self._producers(value)
                elif member == "subagent_trajectory_ref":
                    if k in plain and jsontext.dumps(value) == jsontext.dumps(plain[k]):
                        continue
                elif member != "content" or not isinstance(value, list):
                    continue
                if value:
                    partial[member] = value
                    self._member(item, member, STEP_FIELDS, index, *below, str(k), member)
            out.append(partial)
        return out if any(out) else []

    def _producers(self, extra: Any) -> Doc:
        """The members of an ATIF ``extra`` a producer wrote (not the named keys that a
        declaration of TAO → ATIF covers: those go back to their TAO members)."""
        if not isinstance(extra, dict):
            return {}
        return {
            k: v for k, v in extra.items() if k != STASH_KEY and (id(extra), k) not in self.owned
        }

    def _launched(self, step: Doc, subs: dict[str, Doc], inlined: set[str]) -> list[str]:
        """The ids of the embedded subagents this step launches first (their steps are written
        just before it)."""
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

    def _calls(self, step: Doc, out: Doc) -> None:
        calls = step.get("tool_calls")
        if not isinstance(calls, list):
            return
        mapped: list[Doc] = []
        for _, call in dicts(calls):
            tao = {
                "tool_call_id": call.get("tool_call_id"),
                "tool_name": call.get("function_name"),
                "input": call.get("arguments"),
            }
            mapped.append(tao)
            self.built.pair(call, tao)
        out["tool_calls"] = mapped

    def _observations(self, step: Doc, out: Doc) -> None:
        observation = step.get("observation")
        if not isinstance(observation, dict) or not isinstance(observation.get("results"), list):
            return
        results = observation["results"]
        carriers = [r for _, r in dicts(results) if list(r) == ["subagent_trajectory_ref"]]
        if results and len(carriers) == len(results):
            return  # only references to sub-agents, whose steps follow inline
        mapped: list[Doc] = []
        for _, result in dicts(results):
            if list(result) == ["subagent_trajectory_ref"]:
                continue  # only carries a reference: the sub-agent's steps say it all
            call_id = result.get("source_call_id")
            obs: Doc = {"source_call_id": call_id if isinstance(call_id, str) else ""}
            if "content" in result:
                obs["content"] = _text(result["content"])
            if not isinstance(call_id, str):
                obs["error"] = UNLINKED
            mapped.append(obs)
            self.built.pair(result, obs)
        out["observations"] = mapped


def _first_launcher(results: list[Any], step: Doc) -> int | None:
    """Position of the first result of a launcher tool's call (``Task``, ``Agent``)."""
    names = {
        c.get("tool_call_id"): c.get("function_name") for _, c in dicts(step.get("tool_calls"))
    }
    for i, result in enumerate(results):
        name = names.get(result.get("source_call_id")) if isinstance(result, dict) else None
        if isinstance(name, str) and name.lower() in LAUNCHERS:
            return i
    return None


def _carrier(result: Any) -> bool:
    """Whether an ATIF result only carries a reference (ATIF → TAO writes no observation)."""
    return isinstance(result, dict) and list(result) == ["subagent_trajectory_ref"]


def _placeholder(steps: list[Doc]) -> bool:
    """Whether the steps are the one system step with message ``""`` that TAO → ATIF writes
    for a record with neither a step nor a prompt (MAPPING.md §5): no prompt comes from it."""
    return len(steps) == 1 and steps[0].get("source") == "system" and steps[0].get("message") == ""


def _unanswered(steps: list[Doc], n: int, indexed: set[int]) -> bool:
    """Whether no agent step follows the system step ``n`` before the next system step: then
    the step right after it names its prompt (else only agent steps do, as opentraces' Claude
    Code parser writes them, and TAO → ATIF puts the prompt before the user steps they answer).
    A system step in ``indexed`` is a TAO step, not a prompt (D29)."""
    for step in steps[n + 1 :]:
        source = step.get("source")
        if source == "agent":
            return False
        if source == "system" and id(step) not in indexed:
            return True
    return True


@functools.cache
def _tao_orders() -> dict[str, tuple[str, ...]]:
    """Member → the declared member order of the TAO 0.2.0 object that has it (the order the
    package serializes, which :func:`to_tao` writes)."""

    schema = read_spec_json("tao/v0.2.0/trace-record.schema.json")
    out: dict[str, tuple[str, ...]] = {}
    for node in (schema, *schema["$defs"].values()):
        order = tuple(node.get("properties", {}))
        for key in order:
            out.setdefault(key, order)
    return out


def _place(target: Doc, key: str) -> int:
    """Where a member read back from a named key goes: after the members declared before it."""
    return _after_declared(target, key, _tao_orders().get(key, ()))


def _after_declared(target: Doc, key: str, order: tuple[str, ...]) -> int:
    """The key position for ``key`` in ``target``: after every member ``order`` (a schema's
    member order) declares before it; members it does not declare count as last."""
    rank = {k: i for i, k in enumerate(order)}
    mine = rank.get(key, len(order))
    position = 0
    for i, member in enumerate(target):
        if rank.get(member, len(order)) < mine:
            position = i + 1
    return position


def _usage(metrics: Doc, anthropic: bool) -> Doc:
    """TAO token usage for ATIF metrics (the inverse of :func:`_metrics`)."""
    prompt = _count(metrics.get("prompt_tokens"))
    completion = _count(metrics.get("completion_tokens"))
    cached = _count(metrics.get("cached_tokens"))
    extra = metrics.get("extra")
    written = _count(extra.get(CACHE_WRITES)) if isinstance(extra, dict) else None
    out: Doc = {}
    if prompt is not None:
        out["input_tokens"] = prompt - (cached or 0) - (written or 0) if anthropic else prompt
    if completion is not None:
        out["output_tokens"] = completion
    if cached is not None:
        out["cache_read_tokens"] = cached
    if written is not None:
        out["cache_write_tokens"] = written
    return out


def _counted(steps: list[Doc], key: str) -> bool:
    """Whether some step's ``token_usage`` reports ``key``."""
    return any(isinstance(s.get("token_usage"), dict) and key in s["token_usage"] for s in steps)


def _total(steps: list[Doc], key: str) -> int:
    total = 0
    for step in steps:
        usage = step.get("token_usage")
        value = _count(usage.get(key)) if isinstance(usage, dict) else None
        if value is not None:
            total += int(value)
    return total


def to_tao(doc: Doc, named: Declared | None = None, style: str | None = None) -> Built:
    """The native TAO 0.2.0 form of an ATIF v1.7 trajectory (system steps become prompts).

    ``named``: (trajectory, declaration) of the named keys TAO → ATIF wrote below each
    trajectory of ``doc`` (:data:`Declared`); they are read back into TAO members. ``style``
    :data:`FILLED` writes the record as opentraces does (:func:`atif_spec.formats.tao.fill`,
    steps numbered from 1); None writes only the fields that carry something, steps numbered
    from 0 (D26).
    """
    built = _ToTao(doc, named, style == FILLED).run()
    if style == FILLED:
        try:
            record = fill(built.doc, "v0.2.0")
        except UnloadableRecordError:  # a record the model cannot load is left as written
            return built
        # the record shares objects with ``doc`` (values carried whole), so it is a new one;
        # its objects take over the sources of the objects they stand for
        made_from: dict[int, Doc] = {}
        for before, after in twins(built.doc, record):
            source = built.made_from.get(id(before))
            if source is not None:
                made_from[id(after)] = source
                built.pairs[id(source)] = after
        built.doc, built.made_from = record, made_from
    elif style == HASHED:
        _hash_in_place(built.doc)
    return built


def _hash_in_place(record: Doc) -> None:
    """Give ``record`` its ``content_hash`` at the model's place for it (after ``schema_version``,
    ``trace_id`` and ``session_id``), the object kept; a record the model cannot load is left."""

    try:
        digest = content_hash(record, _hash_version(record))
    except UnloadableRecordError:
        return
    members = [(k, v) for k, v in record.items() if k != "content_hash"]
    cut = max((i + 1 for i, (k, _) in enumerate(members) if k in _BEFORE_HASH), default=0)
    record.clear()
    record.update([*members[:cut], ("content_hash", digest), *members[cut:]])


_BEFORE_HASH = frozenset({"schema_version", "trace_id", "session_id"})


def _hash_version(record: Doc) -> str:
    """The model version whose canonical form a record's ``content_hash`` is taken over: the
    version it declares (a 0.1.x record is hashed as 0.1.0 hashes it), else 0.2.0."""

    version = detect(record)
    return version if version in ("v0.1.0", "v0.2.0") else "v0.2.0"


def _rehash(record: Doc, written: Doc | None = None) -> None:
    """Set ``content_hash`` of ``record`` to the hash of ``written`` (default: ``record`` as it
    now is); a record the model does not load keeps its value."""

    hashed = record if written is None else written
    with contextlib.suppress(UnloadableRecordError):
        record["content_hash"] = content_hash(hashed, _hash_version(hashed))


def _looks_filled(record: Doc) -> bool:
    """Whether ``record`` writes every root field of the TAO 0.2.0 model, as a record written
    by opentraces does (worth trying :data:`FILLED` for)."""

    return all(key in record for key in schema("v0.2.0")["properties"])


def _through(
    built: Built, rebuilt: Built, source_of: Callable[[Any], Any] | None = None
) -> Callable[[Any], Any]:
    """The source object of ``built`` that a ``rebuilt`` object comes from, through both (and
    through ``source_of`` when ``built`` was made from a stand-in of the source)."""
    if source_of is None:
        return lambda value: built.origin(rebuilt.origin(value))
    return lambda value: source_of(built.origin(rebuilt.origin(value)))


def _styled_residuals(
    record: Doc,
    built: Built,
    declared: Declared,
    written: Doc | None,
    styles: bool,
    source_of: Callable[[Any], Any] | None = None,
) -> tuple[list[Residual], str | None]:
    """The stash entries of ``record`` against what ATIF → TAO rebuilds from ``built``, in the
    output style that needs fewer bytes (a ``style`` member counts as its own bytes).

    ``written``: the record as given, when it carried a layer of ATIF → TAO (taken off as
    ``record``). ATIF → TAO hashes a filled record that gets a layer again as finished
    (:func:`_rehash`), so the filled rebuild carries the hash of ``written``. ``source_of``:
    ``built`` was made from the record without its defaults (:data:`THIN`); only the
    filled style can give those back, and it is the only style tried for it. Else the default
    style and, when ``styles`` and the record has a hash, the hashed one (D34). ATIF → TAO
    computes its stash of a filled record against the thin reading, so a filled record read
    whole would not come back exactly: it is not tried."""
    candidates: list[str | None] = [None]
    if source_of is not None:
        candidates = [FILLED]
    elif styles and isinstance(record.get("content_hash"), str):
        candidates.append(HASHED)
    best: tuple[int, list[Residual], str | None] | None = None
    for style in candidates:
        rebuilt = to_tao(built.doc, declared, style)
        if style is not None and written is not None:
            rebuilt.doc["content_hash"] = written.get("content_hash")  # if it cannot be hashed
            _rehash(rebuilt.doc, written)
        residuals = diff(record, rebuilt.doc, origin=_through(built, rebuilt, source_of))
        size = sum(len(jsontext.dumps(r.entry)) + 1 for r in residuals)
        if style is not None:
            size += len(jsontext.dumps({"style": style}))
        if best is None or size < best[0]:
            best = (size, residuals, style)
    assert best is not None
    return best[1], best[2]


# --- the lenses ---------------------------------------------------------------------------------


def _copy(value: Any) -> Any:
    return copy.deepcopy(value)


def _refuse_invalid(doc: Any, fmt: str, version: str, report: ChangeReport) -> None:
    """Refuse a source that does not validate against its schema (the mapping assumes it)."""

    validator = rs_validator(load_catalog().find(Target(fmt, version)).id)
    if validator.is_valid(doc):
        return
    report.errors.extend(findings_of(validator, doc))
    report.errors.append(
        Finding(
            "convert:invalid-source",
            "invalid-source",
            Level.ERROR,
            "",
            f"the document is not a valid {fmt}@{version} document",
        )
    )
    raise ConversionError(report)


def _report_residuals(
    report: ChangeReport,
    residuals: list[Residual],
    step: str,
    source_base: str,
    holder: str,
    target: str,
    drop: bool,
) -> None:
    for residual in residuals:
        op = residual.entry["op"]
        if op in ("added", "moved"):
            continue
        ptr = source_base + make_pointer(*residual.source_path)
        value = residual.entry.get("value")
        if op == "placed":
            reason = "kept to restore the key order"
            loss = False
        elif op == "removed":
            reason = f"no place in {target}"
            loss = value is not None
        else:
            reason = f"{target} holds another value here"
            loss = value is not None
        if drop:
            report.dropped.append(Item(ptr, step, reason, loss=loss))
        else:
            report.stashed.append(Item(ptr, step, reason, stash=holder, loss=loss))


def _report_decisions(report: ChangeReport, built: Built, out: Doc, step: str) -> None:
    """Report synthesized values that are still in the result (undone ones are not decisions)."""
    for decision in built.decisions:
        node: Any = out
        try:
            for token in decision.pointer.split("/")[1:]:
                node = node[int(token)] if isinstance(node, list) else node[token]
        except (KeyError, IndexError, ValueError, TypeError):
            continue
        if fingerprint(node) == fingerprint(decision.value):
            report.decided.append(
                Item(decision.pointer, step, decision.policy, value=decision.value, has_value=True)
            )


def tao_to_atif(doc: Doc, report: ChangeReport, options: LensOptions) -> Doc:
    """The lens ``tao@v0.2.0->atif@v1.7`` (reads TAO 0.1.0 records too).

    Sub-agent steps become embedded subagents wherever they sit in the record. ATIF → TAO
    writes the order of opentraces' Claude Code parser (each step after its sub-agents' steps,
    ``parent_step`` pointing forward), or the record's ``step_index`` order where the indexes
    are named (a chronological record interleaves sub-agent and main steps); steps that still
    come back elsewhere are kept in the stash, so that the order comes back exactly. When the
    way back cannot restore the record exactly (sub-agents launched by a user step beside a
    ``role: "system"`` step, say), the sub-agent steps stay inline, their TAO fields stashed.
    """

    version = detect(doc)
    _refuse_invalid(doc, "tao", version if version in ("v0.1.0", "v0.2.0") else "v0.2.0", report)
    if options.drop or not _groups([s for _, s in dicts(doc.get("steps"))]):
        return _checked(doc, report, options, split=True)
    trial = ChangeReport(report.source, report.line, report.from_, report.to)
    out = _checked(doc, trial, options, split=True)
    scratch = ChangeReport(report.source, report.line, report.to, report.from_)
    if jsontext.dumps(atif_to_tao(out, scratch, options)) == jsontext.dumps(doc):
        for name in ("stashed", "named", "dropped", "decided", "errors", "warnings"):
            getattr(report, name).extend(getattr(trial, name))
        return out
    return _checked(doc, report, options, split=False)


def _checked(doc: Doc, report: ChangeReport, options: LensOptions, split: bool) -> Doc:
    """:func:`_tao_to_atif` in the style with the smaller stash among those whose way back gives
    the record exactly: the cheaper of the default and the hashed style (D34), or, for a filled
    record, the filled style read :data:`THIN` (D32, D33); the default style's stash always
    gives the record back. A thin reading whose layer needs no entry is taken at once (no
    other style of a filled record has a smaller stash). With ``drop`` only the default style:
    no layer records another (what it leaves out is then reported dropped)."""
    thin: Doc | None = None
    thin_trial = ChangeReport(report.source, report.line, report.from_, report.to)
    if not options.drop and _looks_filled(doc):
        try:
            thin = _tao_to_atif(doc, thin_trial, options, split, styles=True, thin=True)
        except ConversionError:
            thin = None
        if thin is not None and not (
            _style_of(thin) == FILLED and _gives_back(thin, doc, report, options)
        ):
            thin = None
        top = top_layer(thin) if thin is not None else None
        if thin is not None and top is not None and not top.get("entries"):
            return _merged(report, thin_trial, thin)
    trial = ChangeReport(report.source, report.line, report.from_, report.to)
    out = _tao_to_atif(doc, trial, options, split, styles=not options.drop)
    if _style_of(out) is not None and not _gives_back(out, doc, report, options):
        trial = ChangeReport(report.source, report.line, report.from_, report.to)
        out = _tao_to_atif(doc, trial, options, split, styles=False)
    if thin is not None and _stash_bytes(thin) <= _stash_bytes(out):
        return _merged(report, thin_trial, thin)
    return _merged(report, trial, out)


def _merged(report: ChangeReport, trial: ChangeReport, out: Doc) -> Doc:
    """``out``, its trial report's items added to ``report``."""
    for name in ("stashed", "named", "dropped", "decided", "errors", "warnings"):
        getattr(report, name).extend(getattr(trial, name))
    return out


def _style_of(out: Doc) -> Any:
    """The output style the top layer of a TAO → ATIF result asks ATIF → TAO for (None: the
    default style, or no such layer)."""
    top = top_layer(out)
    return top.get("style") if top is not None and top.get("by") == INTO_ATIF else None


def _stash_bytes(doc: Doc) -> int:
    """The bytes of the stash on the root ``extra`` of an ATIF result (0 without one)."""
    extra = doc.get(ATIF_HOLDER)
    stash = extra.get(STASH_KEY) if isinstance(extra, dict) else None
    return len(jsontext.dumps(stash)) if stash is not None else 0


def _gives_back(out: Doc, doc: Doc, report: ChangeReport, options: LensOptions) -> bool:
    """Whether ATIF → TAO makes ``doc`` of ``out`` again, byte for byte."""
    scratch = ChangeReport(report.source, report.line, report.to, report.from_)
    try:
        return jsontext.dumps(atif_to_tao(out, scratch, options)) == jsontext.dumps(doc)
    except ConversionError:
        return False


def _tao_to_atif(
    doc: Doc,
    report: ChangeReport,
    options: LensOptions,
    split: bool,
    styles: bool,
    thin: bool = False,
) -> Doc:
    """TAO → ATIF of one record; ``styles``: False writes the default style only; ``thin``:
    made from the record without its defaults (:data:`THIN`; a layer of ATIF → TAO on the
    record decides instead)."""
    record = _copy(doc)
    back = detach(record, TAO_HOLDER, INTO_TAO)  # the way back from ATIF → TAO
    if back:  # its layer says which form of the record it undoes
        marks = {layer["style"] for layer in back if "style" in layer}
        unknown = sorted(str(style) for style in marks - THIN_STYLES)
        if unknown:
            raise refuse(
                report,
                "stash-style",
                f"the {INTO_TAO} layer asks for an output style this tool does not write: "
                + ", ".join(unknown),
                f"/{TAO_HOLDER}",
            )
        thin = THIN in marks
    source, source_of = record, None
    if thin:
        source, pairs = unfill(record, "v0.2.0")
        source_of = _stand_in(pairs)
    built = to_atif(source, split, _declared(back), filled=thin)
    if back:
        report.conflicts(apply_layers(built.doc, back), INTO_ATIF, "")
    declared, named = _declare(built)
    # what ATIF → TAO will make of the result, in the record's style: the stash is the difference
    residuals, style = _styled_residuals(
        record, built, declared, doc if back else None, styles, source_of
    )
    keep = not options.drop
    try:
        root = declared[0][1] if declared and declared[0][0] is built.doc else None
        commit(built.doc, ATIF_HOLDER, INTO_ATIF, residuals, keep=keep, named=root, style=style)
        for traj, keys in declared:
            if traj is not built.doc:  # an embedded subagent: its declaration only
                commit(traj, ATIF_HOLDER, INTO_ATIF, [], keep=keep, named=keys)
    except StashError as error:
        raise refuse(report, "stash-collision", error.message, error.pointer) from None
    for owner, key, name, _ in named:
        report.named.append(
            Item(
                owner.source_ptr + make_pointer(key),
                INTO_ATIF,
                f"no {ATIF} field: kept under a named key",
                to=f"{owner.target_ptr}/{ATIF_HOLDER}/{name}",
            )
        )
    _report_residuals(report, residuals, INTO_ATIF, "", f"/{ATIF_HOLDER}", ATIF, options.drop)
    _report_decisions(report, built, built.doc, INTO_ATIF)
    return built.doc


def _stand_in(pairs: dict[int, Any]) -> Callable[[Any], Any]:
    """The object of the record that an object of its stand-in (``pairs``: id → object)
    stands for; None for any other object."""
    return lambda value: None if value is None else pairs.get(id(value))


def _declare(built: Built) -> tuple[Declared, list[tuple[_Owner, str, str, Any]]]:
    """The ``named`` declaration of each trajectory of the result (RFC.md §4.5.2 item 7) and
    the named members it covers: the named keys :class:`_ToAtif` wrote that still hold what it
    wrote (the layers of the way back may have put a producer's own key there: then that place
    is ``foreign``). Patterns are relative to the innermost trajectory (root or embedded
    subagent), whose ``extra`` carries the declaration."""
    written: dict[int, tuple[Doc, list[Path]]] = {}
    kept: list[tuple[_Owner, str, str, Any]] = []
    for owner, key, name, wrote in built.named:
        path = (*_tokens(owner.target_ptr), ATIF_HOLDER, name)
        cut = max((i + 2 for i, t in enumerate(path) if t == "subagent_trajectories"), default=0)
        traj = resolve(built.doc, path[:cut])
        try:
            value = resolve(traj, path[cut:])
        except LookupError:
            continue
        if fingerprint(value) != fingerprint(wrote):
            continue
        written.setdefault(id(traj), (traj, []))[1].append(path[cut:])
        kept.append((owner, key, name, wrote))
    declared: Declared = []
    for traj, paths in written.values():
        keys = NamedKeys.of(paths)
        assert keys is not None
        mine = {make_pointer(*p) for p in paths}
        foreign = [p for p in keys.places(traj) if make_pointer(*p) not in mine]
        final = NamedKeys.of(paths, foreign)
        assert final is not None
        declared.append((traj, final))
    declared.sort(key=lambda d: d[0] is not built.doc)
    return declared, kept


def _name_indexes(built: Built, rebuilt: Built, places: dict[int, int]) -> bool:
    """Put the TAO ``step_index`` of each step that ATIF → TAO numbers otherwise under the named
    key :data:`STEP_INDEX` of its ATIF step; True when it wrote one.

    ATIF → TAO numbers a step by its position in its own order (``rebuilt``); the stash then
    restores the record's order, which moves the steps between. So an index is recomputed
    only when it is both the step's position in ``rebuilt`` and its position in the record
    (``places``: ``id(TAO step)`` → position); any other index is named, or it would come
    back only through the rebuilt order, which no reader of the result sees."""
    owners = {id(o.target): o for o in built.owners if o.kind == "step"}
    wrote = False
    for _, step in dicts(rebuilt.doc.get("steps")):
        owner = owners.get(id(rebuilt.origin(step)))
        if owner is None or "step_index" not in owner.source:
            continue
        value = owner.source["step_index"]
        given = step.get("step_index", _ABSENT)
        if fingerprint(value) == fingerprint(given) == fingerprint(places.get(id(owner.source))):
            continue
        owner.target.setdefault(ATIF_HOLDER, {})[STEP_INDEX] = value
        built.named.append((owner, "step_index", STEP_INDEX, value))
        wrote = True
    for owner in owners.values():  # ATIF → TAO makes a prompt of a system step it cannot tell
        if owner.source.get("role") == "system" and "step_index" in owner.source:
            value = owner.source["step_index"]
            owner.target.setdefault(ATIF_HOLDER, {})[STEP_INDEX] = value
            built.named.append((owner, "step_index", STEP_INDEX, value))
            wrote = True
    return wrote


def _declared(layers: list[Doc]) -> NamedKeys | None:
    """The ``named`` declarations of detached layers, merged (None when there is none)."""
    keys: NamedKeys | None = None
    for layer in layers:
        found = NamedKeys.from_layer(layer)
        keys = found.merge(keys) if found is not None else keys
    return keys


def _tokens(pointer: str) -> Path:
    """A structural pointer of the result as a path (array indexes as integers)."""
    return tuple(int(t) if t.isdigit() else t for t in pointer.split("/")[1:])


def _tao_declaration(built: Built) -> NamedKeys | None:
    """The declaration of the named keys of ``metadata`` that :class:`_ToTao` wrote and that
    still hold what it wrote (the layers of the way back may have restored a producer's own)."""
    metadata = built.doc.get(TAO_HOLDER)
    paths: list[Path] = [
        (TAO_HOLDER, key)
        for key, value in built.written.items()
        if isinstance(metadata, dict)
        and key in metadata
        and fingerprint(metadata[key]) == fingerprint(value)
    ]
    return NamedKeys.of(paths)


def _pointers(traj: Doc, base: str = "") -> dict[int, str]:
    """``id(object)`` → pointer of the steps, their metrics and the embedded subagents of an
    ATIF trajectory (the objects whose members ATIF → TAO names), and of the trajectory, its
    agent and final metrics."""
    out: dict[int, str] = {id(traj): base}
    for name in TRAJECTORY_FIELDS:
        member = traj.get(name) if name else None
        if isinstance(member, dict):
            out[id(member)] = f"{base}/{name}"
    for i, step in dicts(traj.get("steps")):
        out[id(step)] = f"{base}/steps/{i}"
        metrics = step.get("metrics")
        if isinstance(metrics, dict):
            out[id(metrics)] = f"{base}/steps/{i}/metrics"
            if isinstance(metrics.get("extra"), dict):
                out[id(metrics["extra"])] = f"{base}/steps/{i}/metrics/extra"
        for k, call in dicts(step.get("tool_calls")):
            out[id(call)] = f"{base}/steps/{i}/tool_calls/{k}"
        observation = step.get("observation")
        results = observation.get("results") if isinstance(observation, dict) else None
        for k, result in dicts(results):
            out[id(result)] = f"{base}/steps/{i}/observation/results/{k}"
    for i, sub in dicts(traj.get("subagent_trajectories")):
        ptr = f"{base}/subagent_trajectories/{i}"
        out[id(sub)] = ptr
        out.update(_pointers(sub, ptr))
    return out


def _trajectories(traj: Doc) -> Iterator[Doc]:
    """``traj`` and its embedded subagents, depth first."""
    yield traj
    for _, sub in dicts(traj.get("subagent_trajectories")):
        yield from _trajectories(sub)


def _back_residuals(
    work: Doc, built: Built, named: NamedKeys | None, style: str | None
) -> list[Residual]:
    """The stash entries of ATIF → TAO: ``work`` against what TAO → ATIF makes of the record
    ``built``; of a filled record, in the :data:`THIN` style."""
    split = "subagent_trajectories" in work
    if style != FILLED:
        rebuilt = to_atif(built.doc, split=split, named=named)
        return diff(work, rebuilt.doc, origin=lambda v: built.origin(rebuilt.origin(v)))

    sparse, pairs = unfill(built.doc, "v0.2.0")
    thin = to_atif(sparse, split=split, named=named, filled=True)
    stand_in = _stand_in(pairs)
    return diff(work, thin.doc, origin=lambda v: built.origin(stand_in(thin.origin(v))))


def atif_to_tao(doc: Doc, report: ChangeReport, options: LensOptions) -> Doc:
    """The lens ``atif@v1.7->tao@v0.2.0``."""
    _refuse_invalid(doc, "atif", "v1.7", report)
    work = _copy(doc)
    # the way back from TAO → ATIF: its declarations name the keys read back natively; its
    # one layer (on the root) is undone on the record
    declared: Declared = []
    layers: list[Doc] = []
    for traj in _trajectories(work):
        mine = detach(traj, ATIF_HOLDER, INTO_ATIF)
        keys = _declared(mine)
        if keys is not None:
            declared.append((traj, keys))
        if traj is work:
            layers = mine
    styles = {layer["style"] for layer in layers if "style" in layer}
    unknown = sorted(str(style) for style in styles - STYLES)
    if unknown or len(styles) > 1:
        raise refuse(
            report,
            "stash-style",
            f"the {INTO_ATIF} layer asks for an output style this tool does not write: "
            + ", ".join(unknown or sorted(styles)),
            f"/{ATIF_HOLDER}",
        )
    style = next(iter(styles), None)
    built = to_tao(work, declared, style)
    if layers:
        report.conflicts(apply_layers(built.doc, layers), INTO_TAO, "")
    named = _tao_declaration(built)
    # what TAO → ATIF will make of the result: the stash is the difference (a record whose
    # sub-agent steps TAO → ATIF kept inline comes back without embedded subagents)
    residuals = _back_residuals(work, built, named, style)
    try:
        thin = THIN if style == FILLED and (residuals or named) else None
        keep = not options.drop
        commit(built.doc, TAO_HOLDER, INTO_TAO, residuals, keep=keep, named=named, style=thin)
    except StashError as error:
        raise refuse(report, "stash-collision", error.message, error.pointer) from None
    if style is not None and (residuals or named) and not options.drop:
        _rehash(built.doc)  # the hash covers the record as written, its own stash included
    where = _pointers(work)
    for source, member, key, to in built.members:
        if key in built.written and id(source) in where:
            report.named.append(
                Item(
                    where[id(source)] + make_pointer(member),
                    INTO_TAO,
                    f"no {TAO} field: kept under a named key",
                    to=to,
                )
            )
    _report_residuals(report, residuals, INTO_TAO, "", f"/{TAO_HOLDER}", TAO, options.drop)
    _report_decisions(report, built, built.doc, INTO_TAO)
    return built.doc


LENSES = [
    Lens(source=TAO, target=ATIF, run=tao_to_atif),
    Lens(source=ATIF, target=TAO, run=atif_to_tao),
]

__all__ = ["INTO_ATIF", "INTO_TAO", "LENSES", "anthropic_usage", "prompt_key", "to_atif", "to_tao"]
