"""ATIF v1.7 → TAO 0.2.0 (``spec/tao/MAPPING.md`` §3): prompts and inline sub-agent steps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from atif_spec.formats.tao import UnloadableRecordError, content_hash, fill
from atif_spec.jsonio.jsonequal import same_json
from atif_spec.jsonio.jsonvalues import dicts
from atif_spec.jsonio.pointers import escape_token, join
from atif_spec.jsonio.pointers import pointer as make_pointer
from atif_spec.transforms.driver import Context
from atif_spec.transforms.fields import FreeForm, Named
from atif_spec.transforms.lenses.tao import common, rows, tokens
from atif_spec.transforms.lenses.tao.common import Doc, text
from atif_spec.transforms.lenses.tao.step_fields import Keep, carrier, kept

_CALL = tuple((field.target, field.source) for field in rows.TOOL_CALL)
_PROMPT = ("step_id", "source", "message")
"""The members of a system step its prompt holds."""


def to_tao(doc: Doc, ctx: Context) -> Doc:
    """The TAO form of an ATIF trajectory, in the :data:`.rows.STYLE` TAO → ATIF named (or D26)."""
    common.refuse_invalid(doc, common.ATIF, ctx)
    named: Doc = {}
    FreeForm(doc.get("extra"), "/extra", ctx).take(named, "style", rows.STYLE.key)
    style = named.get("style")
    record = _ToTao(doc, ctx, style == rows.FILLED).run()
    try:
        if style == rows.FILLED:
            return fill(record, "v0.2.0")
        if style == rows.HASHED:
            record["content_hash"] = content_hash(record, common.hash_version(record))
    except UnloadableRecordError:  # a record the model cannot load is left as written
        pass
    return record


def rehash(made: Doc, record: Doc) -> Doc:
    """``record`` with the hash :func:`to_tao` computed in ``made`` recomputed when the stash
    changed the record (never a hash the patch put back: the source's own, right or wrong)."""
    hashed = made.get("content_hash")
    if record is made or not isinstance(hashed, str) or record.get("content_hash") != hashed:
        return record
    try:
        digest = content_hash(record, common.hash_version(record))
    except UnloadableRecordError:
        return record
    return record if digest == hashed else {**record, "content_hash": digest}


def _unanswered(steps: list[Doc], n: int, indexed: set[int]) -> bool:
    """Whether no agent step answers the system step ``n`` (then the next step names its prompt;
    else only agent steps do, as opentraces writes them). ``indexed``: TAO steps (D29)."""
    for k in range(n + 1, len(steps)):  # no copy of the rest: many prompts stay linear
        source = steps[k].get("source")
        if source == "agent":
            return False
        if source == "system" and id(steps[k]) not in indexed:
            return True
    return True


class _ToTao:
    """One ATIF v1.7 trajectory → TAO 0.2.0 (each named key once, through ``ctx``)."""

    def __init__(self, doc: Doc, ctx: Context, filled: bool) -> None:
        self.doc, self.ctx, self.filled = doc, ctx, filled
        """``filled``: the filled style (D33): steps from 1, ``call_type`` on user steps too."""
        agent = doc.get("agent")
        self.agent: Doc = agent if isinstance(agent, dict) else {}
        self.out: Doc = {"schema_version": common.TAO_VERSION}
        self.steps: list[Doc] = []
        self.prompts: dict[str, str] = {}
        self.unnumbered = 0
        self.costs: Doc = {}
        self.agents: Doc = {}
        self.fields: Doc = {}
        self.system: dict[str, list[tuple[Doc, str]]] = {}
        """Prompt key → the ATIF system steps with that text (and their pointers)."""
        self.members: list[tuple[str, str, str]] = []
        """(ATIF pointer, named key of ``metadata``, pointer below it) of every value put there."""

    def run(self) -> Doc:
        doc, out = self.doc, self.out
        self._ids()
        agent: Doc = out.setdefault("agent", {})
        rows.AGENT_NAME.backward(doc, out)
        if "version" in self.agent and self.agent["version"] != common.UNKNOWN_VERSION:
            agent["version"] = self.agent["version"]  # "unknown" stands for none (TAO → ATIF)
        rows.AGENT_MODEL.backward(doc, out)
        self._trajectory(doc, "", 0)
        if self.prompts:
            out["system_prompts"] = self.prompts
        if isinstance(self.agent.get("tool_definitions"), list):  # ATIF allows null
            rows.TOOL_DEFINITIONS.backward(doc, out)
        if self.steps:  # the parser writes no record without steps; the model's default is []
            out["steps"] = self.steps
        final = doc.get("final_metrics")
        if isinstance(final, dict):
            metrics = {"total_steps": len(self.steps), **tokens.usage_totals(self.steps)}
            out["metrics"] = metrics
            self._named_back(final, metrics, rows.NAMED["metrics"], "/final_metrics")
        self._named_back(doc, out, rows.NAMED["record"], "")
        self._order()
        self._metadata()
        return out

    def _ids(self) -> None:
        """``trace_id`` and ``session_id``, decided where the trajectory has none."""
        session, trajectory = self.doc.get("session_id"), self.doc.get("trajectory_id")
        out, named = self.out, isinstance(trajectory, str) and trajectory
        out["trace_id"] = trajectory if named else common.derived_trace_id(session)
        if not named:
            policy = "trace_id is required: a UUID derived from session_id"
            self.ctx.decide("/trace_id", policy, out["trace_id"])
        out["session_id"] = session if isinstance(session, str) else out["trace_id"]
        if not isinstance(session, str):
            policy = "session_id is required: the trace_id"
            self.ctx.decide("/session_id", policy, out["trace_id"])

    def _metadata(self) -> None:
        """Write the named keys of ``metadata`` that hold something (a producer's own wins)."""
        made = (self._trajectory_fields(), self.costs, self.agents, self.fields)
        keys = (row.key for row in rows.INTO_TAO_NAMED)
        values = zip(keys, (*made, self._system_fields()), strict=True)
        if not isinstance(self.out.get("metadata", {}), dict):
            return
        metadata = FreeForm(self.out.get("metadata"), "/metadata", self.ctx)
        metadata.put_gathered([(k, v) for k, v in values if v], self.members, "/metadata")
        metadata.place(self.out, "metadata")

    def _order(self) -> None:
        """Parents by ``step_index``, steps in ``step_index`` order when distinct ints (D27)."""
        for step in self.steps:  # a parent read back under another step_index
            parent = step.get("parent_step")
            if type(parent) is int:  # JSON: not a bool
                step["parent_step"] = self.steps[parent]["step_index"]
        indexes = [step.get("step_index") for step in self.steps]
        if all(type(i) is int for i in indexes) and len(set(indexes)) == len(indexes):
            self.steps.sort(key=lambda step: int(step["step_index"]))
        for step in self.steps:  # the id TAO → ATIF gives a sub-agent its record leaves unnamed
            if step.get("subagent_trajectory_ref") == f"subagent@step-{step['step_index']}":
                del step["subagent_trajectory_ref"]

    def _named_back(self, source: Doc, target: Doc, named: tuple[Named, ...], *at: Any) -> None:
        """Read back into ``target`` the named keys TAO → ATIF wrote in ``source``'s ``extra``
        (``source`` at the pointer ``at``: a pointer and tokens, joined only when needed)."""
        extra = source.get("extra")
        if extra and isinstance(extra, dict):  # most objects have no extra
            FreeForm(extra, join(*at, "extra"), self.ctx).take_all(target, named)

    def _producers(self, extra: Any, ptr: str) -> Doc:
        """The members of an ATIF ``extra`` (at ``ptr``) a producer wrote (not named keys)."""
        if not isinstance(extra, dict):
            return {}
        if not self.ctx.reads:
            return dict(extra)
        read = self.ctx.read
        return {k: v for k, v in extra.items() if not read(f"{ptr}/{escape_token(k)}")}

    def _member(self, source: str, key: str, *below: str) -> None:
        self.members.append((source, key, make_pointer(*below)))

    def _copied(self, source: Doc, wanted: Callable[[str], bool], ptr: str, *below: str) -> Doc:
        """The members of ``source`` that ``wanted`` names, recorded under ``below`` + the name;
        of an ``extra`` only the producer's own members (none: left out)."""
        copied: Doc = {}
        for member, value in source.items():
            if not wanted(member):
                continue
            here = f"{ptr}/{escape_token(member)}"
            if member == "extra":
                value = self._producers(value, here)
                if not value:
                    continue
            copied[member] = value
            self._member(here, *below, member)
        return copied

    def _trajectory_fields(self) -> Doc:
        """The root's members of :data:`TRAJECTORY_FIELDS`, as a partial ATIF trajectory."""
        key = rows.TRAJECTORY.key
        out = self._copied(self.doc, common.TRAJECTORY_FIELDS[""].__contains__, "", key)
        for owner in ("agent", "final_metrics"):
            value = self.doc.get(owner)
            if not isinstance(value, dict):
                continue
            members = common.TRAJECTORY_FIELDS[owner]
            if owner == "final_metrics":  # the producer's own statement (rich.json's)
                computed = tokens.totals(self.doc)
                members += tuple(
                    k for k, v in computed.items() if k in value and not same_json(value[k], v)
                )
            kept = self._copied(value, members.__contains__, f"/{owner}", key, owner)
            if kept:
                out[owner] = kept
        return out

    def _system_fields(self) -> Doc:
        """Prompt key → the other fields of its one system step (several or unnamed: stashed)."""
        out: Doc = {}
        for key, steps in self.system.items():
            if len(steps) != 1 or key not in self.prompts:
                continue
            step, ptr = steps[0]
            fields = self._copied(step, lambda m: m not in _PROMPT, ptr, rows.SYSTEM_STEPS.key, key)
            if fields:
                out[key] = fields
        return out

    def _prompt_of(self, step: Doc, ptr: str) -> str:
        """The ``system_prompts`` key of a system step: the one named (D28), else of its text."""
        named: Doc = {}
        extra = FreeForm(step.get("extra"), f"{ptr}/extra", self.ctx)
        extra.take(named, "key", rows.PROMPT_KEY.key)
        if isinstance(named.get("key"), str):
            return str(named["key"])
        message = text(step.get("message"))
        return common.prompt_key(message if isinstance(message, str) else "")

    def _trajectory(self, traj: Doc, base: str, depth: int) -> list[Doc]:
        """Write ``traj``'s steps, each after its sub-agents' steps; returns its own steps."""
        subs = common.subagents(traj)
        where = {
            id(s): f"{base}/subagent_trajectories/{i}"
            for i, s in dicts(traj.get("subagent_trajectories"))
        }
        inlined: set[str] = set()
        texts: dict[str, str] = {}  # prompts of this trajectory; written once a step uses them
        current: str | None = None
        fresh = False
        own: list[Doc] = []
        listed = list(dicts(traj.get("steps")))
        steps = [s for _, s in listed]
        reads, named = self.ctx.reads, f"/extra/{rows.STEP_INDEX.key}"
        indexed = (
            {id(s) for i, s in listed if f"{base}/steps/{i}{named}" in reads} if reads else set()
        )
        for n, (i, step) in enumerate(listed):
            ptr, source = f"{base}/steps/{i}", step.get("source")
            if source == "system" and id(step) not in indexed:  # a prompt (D22, D29)
                current = self._prompt_of(step, ptr)
                message = text(step.get("message"))
                texts[current] = message if isinstance(message, str) else ""
                self.system.setdefault(current, []).append((step, ptr))
                fresh = _unanswered(steps, n, indexed)
                continue
            tids = common.launched(step, subs, inlined) if subs else []
            children = [
                c for t in tids for c in self._subagent(subs[t], where[id(subs[t])], t, depth)
            ]
            for child in children:
                child["parent_step"] = len(self.steps)  # the index of the step written below
            prompt = current if fresh or source == "agent" else None
            if prompt is not None:
                self.prompts.setdefault(prompt, texts[prompt])
            own.append(self._step(step, ptr, depth, tids, prompt))
            fresh = False
        # not the one empty system step TAO → ATIF writes for an empty record (MAPPING.md §5)
        placeholder = len(steps) == 1 and steps[0].get("source") == "system"
        if depth == 0 and not own and not (placeholder and steps[0].get("message") == ""):
            for key, prompt in texts.items():  # only system steps: prompts named by no step
                self.prompts.setdefault(key, prompt)
        return own

    def _subagent(self, sub: Doc, ptr: str, tid: str, depth: int) -> list[Doc]:
        """Write an embedded subagent's steps inline (an agent not the root's is named)."""
        agent = sub.get("agent")
        if isinstance(agent, dict) and not same_json(agent, common.subagent_agent(self.agent)):
            self.agents[tid] = agent
            self._member(f"{ptr}/agent", rows.SUBAGENT_AGENTS.key, tid)
        return self._trajectory(sub, ptr, depth + 1)

    def _step(self, step: Doc, ptr: str, depth: int, tids: list[str], prompt: str | None) -> Doc:
        """The TAO step of an ATIF step that launches the subagents ``tids``."""
        source = step.get("source")
        number = len(self.steps) - self.unnumbered + (1 if self.filled else 0)
        if source == "system":
            self.unnumbered += 1  # a named system step takes no position
        content = text(step.get("message"))
        out: Doc = {"step_index": number}
        rows.ROLE.backward(step, out)
        # the parser writes an agent step without text as null (``step_content or None``)
        out["content"] = None if content == "" and source == "agent" else content
        rows.REASONING.backward(step, out)
        rows.MODEL.backward(step, out)
        if prompt is not None:
            out["system_prompt_hash"] = prompt
        if depth == 0 and source == "agent":
            out["agent_role"] = "main"
        if depth > 0:
            out["parent_step"] = None  # the launching step's index, set by the caller
            out["call_type"] = "subagent"
        elif source == "agent" or (self.filled and source == "user"):
            out["call_type"] = "main"
        if tids:
            out["subagent_trajectory_ref"] = tids[0]
        self._calls(step, out, ptr)
        self._observations(step, out, ptr)
        index = str(number)  # of the named keys
        self._usage(step, out, ptr, index)
        rows.TIMESTAMP.backward(step, out)
        fields = kept(
            step, ptr, index, tids[0] if tids else None, Keep(self._producers, self._member)
        )
        if fields:
            self.fields[index] = fields
        self._named_back(step, out, rows.NAMED["step"], ptr)
        self.steps.append(out)
        return out

    def _usage(self, step: Doc, out: Doc, ptr: str, index: str) -> None:
        metrics = step.get("metrics")
        if not isinstance(metrics, dict):
            return
        model, name = self.agent.get("model_name"), self.agent.get("name")
        anthropic = tokens.anthropic_usage(step.get("model_name"), model, name)
        out["token_usage"] = usage = tokens.usage_of(metrics, anthropic)
        self._named_back(metrics, usage, rows.NAMED["usage"], ptr, "metrics")
        if "cost_usd" in metrics:
            self.costs[index] = metrics["cost_usd"]
            self._member(f"{ptr}/metrics/cost_usd", rows.STEP_COSTS.key, index)

    def _calls(self, step: Doc, out: Doc, ptr: str) -> None:
        calls = step.get("tool_calls")
        if not isinstance(calls, list):
            return
        out["tool_calls"] = tool_calls = []
        for k, call in enumerate(calls):  # objects: the trajectory is valid
            tao = {t: call[a] for a, t in _CALL if a in call}
            tool_calls.append(tao)
            self._named_back(call, tao, rows.NAMED["call"], ptr, "tool_calls", k)

    def _observations(self, step: Doc, out: Doc, ptr: str) -> None:
        observation = step.get("observation")
        results = observation.get("results") if isinstance(observation, dict) else None
        if not isinstance(results, list):
            return
        # a result that only carries a reference: the sub-agent's steps say it all
        listed = [(k, result) for k, result in enumerate(results) if not carrier(result)]
        if results and not listed:
            return  # only references to sub-agents, whose steps follow inline
        out["observations"] = observations = []
        named = rows.NAMED["observation"]
        for k, result in listed:
            call_id = result.get("source_call_id")
            obs: Doc = {"source_call_id": call_id if isinstance(call_id, str) else ""}
            if "content" in result:
                obs["content"] = text(result["content"])
            if not isinstance(call_id, str):
                obs["error"] = common.UNLINKED
            observations.append(obs)
            self._named_back(result, obs, named, ptr, "observation", "results", k)
