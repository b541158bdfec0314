"""TAO record → ATIF v1.7 trajectory: the mapping of the step ``tao@v0.2.0->atif@v1.7``
(``spec/tao/MAPPING.md``). Also reads TAO 0.1.0 records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from atif_spec.formats.tao import UnloadableRecordError, content_hash, detect, unfill
from atif_spec.jsonio.jsonequal import same_json
from atif_spec.jsonio.jsonvalues import dicts
from atif_spec.jsonio.pointers import pointer as make_pointer
from atif_spec.transforms.driver import Context
from atif_spec.transforms.fields import FreeForm
from atif_spec.transforms.lenses.tao import common
from atif_spec.transforms.lenses.tao.common import (
    Doc,
    derived_trace_id,
    filled,
    groups,
    hash_version,
    numbers,
    prompt_key,
    refuse_invalid,
    subagent_agent,
)
from atif_spec.transforms.lenses.tao.rows import (
    AGENT_MODEL,
    AGENT_NAME,
    FILLED,
    HASHED,
    INTO_TAO_NAMED,
    MODEL,
    NAMED,
    PROMPT_KEY,
    REASONING,
    ROLE,
    STEP_COSTS,
    STEP_FIELDS,
    STEP_INDEX,
    STYLE,
    SUBAGENT_AGENTS,
    SYSTEM_STEPS,
    TIMESTAMP,
    TOOL_CALL,
    TOOL_DEFINITIONS,
    TRAJECTORY,
)
from atif_spec.transforms.lenses.tao.step_fields import put_back
from atif_spec.transforms.lenses.tao.tokens import (
    anthropic_usage,
    count,
    counted,
    metrics_of,
    repeated_usage,
    total,
    totals,
)

_ABSENT: Any = object()


def record_style(record: Doc, ctx: Context) -> str | None:
    """How ATIF → TAO is to write the record back (:data:`.rows.STYLE`), decided from the record
    alone: :data:`.rows.FILLED` for a record in the form opentraces writes
    (:func:`.common.filled`), :data:`.rows.HASHED` for another one whose ``content_hash`` is its
    own, else None (the default style, D26). With ``drop`` none: no layer would restore what the
    style leaves out."""
    if ctx.options.drop:
        return None
    if filled(record):
        return FILLED
    own = record.get("content_hash")
    try:
        right = isinstance(own, str) and own == content_hash(record, hash_version(record))
    except UnloadableRecordError:  # a record the model cannot load has no hash of its own
        right = False
    return HASHED if right else None


def to_atif(doc: Doc, ctx: Context) -> Doc:
    """The ATIF v1.7 form of a TAO record; sub-agent steps become embedded subagents."""
    version = detect(doc)
    refuse_invalid(doc, f"tao@{version if version in ('v0.1.0', 'v0.2.0') else 'v0.2.0'}", ctx)
    style = record_style(doc, ctx)
    record = unfill(doc, "v0.2.0")[0] if style == FILLED else doc
    out = _ToAtif(record, ctx, style).run()
    if style is not None:
        extra = FreeForm(out.get("extra"), "/extra", ctx)
        extra.put(STYLE.key, style, "/content_hash" if style == HASHED else "", "/extra")
        extra.place(out)
    return out


@dataclass(slots=True)
class _Owner:
    """An object of the result made from an object of the record (its named keys go there)."""

    target: Doc
    source: Doc
    target_ptr: str
    source_ptr: str
    kind: str
    """Which :data:`.rows.NAMED` rows apply (``record``, ``step``, ``call``, ``observation``,
    ``usage``, ``metrics``)."""


class _ToAtif:
    """One TAO record → ATIF v1.7 (each named key once, through ``ctx``)."""

    def __init__(self, record: Doc, ctx: Context, style: str | None) -> None:
        self.record = record
        self.ctx = ctx
        self.first = 1 if style == FILLED else 0
        """ATIF → TAO numbers steps from 1 in the filled style (D33), else from 0."""
        self.metadata = FreeForm(record.get("metadata"), "/metadata", ctx)
        """The record's ``metadata``, without what ATIF → TAO gathered there."""
        read = {row.key: self.metadata.take_gathered(row.key) for row in INTO_TAO_NAMED}
        read = {k: v if isinstance(v, dict) else {} for k, v in read.items()}
        self.costs = read[STEP_COSTS.key]
        self.agents = read[SUBAGENT_AGENTS.key]
        self.fields = read[STEP_FIELDS.key]
        self.trajectory = read[TRAJECTORY.key]
        self.system = dict(read[SYSTEM_STEPS.key])  # popped when used
        self.steps = [s for _, s in dicts(record.get("steps"))]
        self.step_ptr = {id(s): f"/steps/{i}" for i, s in dicts(record.get("steps"))}
        self.positions = {id(s): p for p, s in enumerate(self.steps)}
        prompts = record.get("system_prompts")
        self.prompts: dict[str, Any] = prompts if isinstance(prompts, dict) else {}
        agent = record.get("agent")
        self.agent: Doc = agent if isinstance(agent, dict) else {}
        self.owners: list[_Owner] = []
        self.atif_steps: dict[int, tuple[Doc, str]] = {}  # position → (ATIF step, pointer)
        self.repeats = repeated_usage(self.steps)
        self.parent_of = groups(self.steps)
        self.members: dict[int | None, list[int]] = {}
        """Position of a step (None for the root) → positions of the steps of its trajectory."""
        for p in range(len(self.steps)):
            self.members.setdefault(self.parent_of.get(p), []).append(p)
        self.before: dict[int | None, dict[int, list[str]]] = {}

    def run(self) -> Doc:
        record = self.record
        out: Doc = {"schema_version": "ATIF-v1.7", "session_id": record.get("session_id")}
        self.owners.append(_Owner(out, record, "", "", "record"))
        trace_id = record.get("trace_id")
        if trace_id and trace_id != derived_trace_id(record.get("session_id")):
            out["trajectory_id"] = trace_id  # a derived one is recomputed on the way back
        AGENT_NAME.forward(record, out)
        self._version(out.setdefault("agent", {}))
        AGENT_MODEL.forward(record, out)
        TOOL_DEFINITIONS.forward(record, out)
        self.root = out
        steps, subs = self._trajectory(None, "")
        out["steps"] = steps or self._placeholder()
        metrics = record.get("metrics")
        if isinstance(metrics, dict):
            final = totals({"steps": steps, "subagent_trajectories": subs})
            out["final_metrics"] = final
            self.owners.append(_Owner(final, metrics, "/final_metrics", "/metrics", "metrics"))
        if subs:
            out["subagent_trajectories"] = subs
        self._trajectory_fields(out)
        for owner in self.owners:
            self._name(owner)
        self._name_indexes(out)
        return out

    def _placeholder(self) -> list[Doc]:
        step = {"step_id": 1, "source": "system", "message": ""}
        policy = "a trajectory has at least one step: an empty system step"
        self.ctx.decide("/steps/0", policy, dict(step))
        return [step]

    def _trajectory_fields(self, out: Doc) -> None:
        """Put back the root's members ATIF → TAO kept under :data:`.rows.TRAJECTORY`."""
        for name, members in common.TRAJECTORY_FIELDS.items():
            target: Any = out.get(name) if name else out
            given: Any = self.trajectory.get(name) if name else self.trajectory
            if not isinstance(target, dict) or not isinstance(given, dict):
                continue
            for member in (*members, *(common.TOTALS if name == "final_metrics" else ())):
                if member in given and (member not in target or member in common.TOTALS):
                    target[member] = given[member]  # a stated total: the producer's statement

    def _written(self, owner: _Owner, key: str) -> Any:
        """What ATIF → TAO writes at ``key`` of the owner's counterpart anyway (or absent)."""
        kind, source = owner.kind, owner.source
        if kind == "record" and key == "schema_version":
            return common.TAO_VERSION
        if kind == "step" and key in ("call_type", "agent_role"):
            sub = self.positions[id(source)] in self.parent_of
            agent = source.get("role") == "agent"
            if key == "agent_role":
                return "main" if agent and not sub else _ABSENT
            user = self.first == 1 and source.get("role") == "user"
            return "subagent" if sub else ("main" if agent or user else _ABSENT)
        if kind == "observation" and key == "error":
            return common.UNLINKED if owner.target.get("source_call_id") is None else _ABSENT
        if kind == "observation" and key == "source_call_id":
            linked = owner.target.get("source_call_id")
            return linked if isinstance(linked, str) else ""
        if kind == "metrics" and key in ("total_input_tokens", "total_output_tokens"):
            name = key.removeprefix("total_")
            return total(self.steps, name) if counted(self.steps, name) else _ABSENT
        return _ABSENT

    def _name(self, owner: _Owner) -> None:
        """Put the owner's members that ATIF has no field for under named ``extra`` keys."""
        rows = [r for r in NAMED[owner.kind] if r is not STEP_INDEX and r.member in owner.source]
        if not rows:  # a step's index: :meth:`_name_indexes`; most objects have no other
            return
        at = f"{owner.target_ptr}/extra"
        extra = FreeForm(owner.target.get("extra"), at, self.ctx)
        for row in rows:
            value = owner.source[row.member]
            if owner.kind == "record" and row.member == "metadata" and self.metadata.edited:
                value = self.metadata.keys
                if not value:
                    continue  # only what ATIF → TAO put there
            written = self._written(owner, row.member)
            if written is _ABSENT or not same_json(written, value):
                extra.put(row.key, value, f"{owner.source_ptr}/{row.member}", at)
        extra.place(owner.target)

    def _name_indexes(self, out: Doc) -> None:
        """Put the ``step_index`` of each step that ATIF → TAO numbers otherwise under the named
        key :data:`.rows.STEP_INDEX` of its ATIF step, and of every ``role: "system"`` step (which
        ATIF → TAO would make a prompt of). An index is left to ATIF → TAO only when it is both
        the step's position in the record and the number ATIF → TAO gives it."""
        given = numbers(out, self.first)
        for p, (step, ptr) in sorted(self.atif_steps.items()):
            source = self.steps[p]
            if "step_index" not in source:
                continue
            value = source["step_index"]
            if source.get("role") != "system" and id(step) in given:
                number = given[id(step)]
                if same_json(value, number) and same_json(value, p + self.first):
                    continue
            extra = FreeForm(step.get("extra"), f"{ptr}/extra", self.ctx)
            extra.put(STEP_INDEX.key, value, f"{self.step_ptr[id(source)]}/step_index", extra.at)
            extra.place(step)

    def _version(self, agent: Doc) -> None:
        version = self.agent.get("version")
        if isinstance(version, str):
            agent["version"] = version
        else:
            agent["version"] = common.UNKNOWN_VERSION
            policy = "agent.version is required: 'unknown'"
            self.ctx.decide("/agent/version", policy, common.UNKNOWN_VERSION)

    def _trajectory(self, parent_pos: int | None, base: str) -> tuple[list[Doc], list[Doc]]:
        """The ATIF steps and embedded subagents of one trajectory."""
        positions = self.members.get(parent_pos, [])
        out: list[Doc] = []
        for i, p in enumerate(positions):
            for key in self._prompts_before(positions, parent_pos).get(i, ()):
                out.append(self._system(key, len(out), base))
            ptr = f"{base}/steps/{len(out)}"
            out.append(self._step(self.steps[p], len(out) + 1, ptr))
            self.atif_steps[p] = (out[-1], ptr)
        if not positions and parent_pos is None:
            for key in self._unreferenced():
                out.append(self._system(key, len(out), base))
        first: dict[int, int] = {}  # launching step → its first sub-agent step
        for p in positions:
            for c in self.members.get(p, ()):
                first.setdefault(p, c)
        children = sorted(first, key=first.__getitem__)
        subs: list[Doc] = []
        ids: set[str] = set()
        for q in children:
            tid = self._subagent_id(q, ids)
            agent = self.agents.get(tid)
            sub: Doc = {"schema_version": "ATIF-v1.7", "trajectory_id": tid}
            sub["agent"] = agent if isinstance(agent, dict) else subagent_agent(self.root["agent"])
            sub_steps, sub_subs = self._trajectory(q, f"{base}/subagent_trajectories/{len(subs)}")
            sub["steps"] = sub_steps
            if sub_subs:
                sub["subagent_trajectories"] = sub_subs
            subs.append(sub)
            self._reference(q, tid)
        return out, subs

    def _system(self, key: str, n: int, base: str) -> Doc:
        """The system step of the prompt ``key``, which keeps ``key`` under the named key
        :data:`.rows.PROMPT_KEY` when ATIF → TAO would key the prompt otherwise, with the fields
        ATIF → TAO kept for it under :data:`.rows.SYSTEM_STEPS` (on the first system step of that
        prompt only)."""
        text = self.prompts[key]
        step: Doc = {"step_id": n + 1, "source": "system", "message": text}
        fields = self.system.pop(key, None)
        for member, value in fields.items() if isinstance(fields, dict) else ():
            step.setdefault(member, value)
        if key != prompt_key(text):
            extra = FreeForm(step.get("extra"), f"{base}/steps/{n}/extra", self.ctx)
            extra.put(PROMPT_KEY.key, key, make_pointer("system_prompts", key), extra.at)
            extra.place(step)
        return step

    def _prompt_of(self, p: int) -> str | None:
        key = self.steps[p].get("system_prompt_hash")
        return key if isinstance(key, str) and isinstance(self.prompts.get(key), str) else None

    def _unreferenced(self) -> list[str]:
        """Prompts no step names (the usual Claude Code record): system steps at the start, in
        the order of their keys (key order is not data, RFC.md §4.6)."""
        used = {self._prompt_of(p) for p in range(len(self.steps))}
        return sorted(k for k, v in self.prompts.items() if isinstance(v, str) and k not in used)

    def _prompts_before(self, positions: list[int], parent_pos: int | None) -> dict[int, list[str]]:
        """Index in ``positions`` → the prompts whose system steps go just before that step.

        A prompt goes before the first step that names it (when it differs from the last one),
        moved up past the user steps without a prompt just before it: the prompt comes before the
        user message the call answers. The main trajectory starts with the unreferenced prompts.
        """
        if parent_pos in self.before:
            return self.before[parent_pos]
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
        self.before[parent_pos] = before
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
        self.ctx.decide(self.atif_steps[q][1], "an embedded subagent needs a trajectory_id", tid)
        return tid

    def _reference(self, q: int, tid: str) -> None:
        """Put the reference to the subagent on the launching call's result of step ``q``."""
        step, _ = self.atif_steps[q]
        ref = {"trajectory_id": tid}
        observation = step.get("observation")
        results = observation.get("results") if isinstance(observation, dict) else None
        for _, result in dicts(results):  # read back from ATIF → TAO's named key
            refs = result.get("subagent_trajectory_ref")
            if any(r.get("trajectory_id") == tid for _, r in dicts(refs)):
                return
        calls = {
            c.get("tool_call_id"): c.get("function_name") for _, c in dicts(step.get("tool_calls"))
        }
        for _, result in dicts(results):
            name = calls.get(result.get("source_call_id"))
            if isinstance(name, str) and name.lower() in common.LAUNCHERS:
                result["subagent_trajectory_ref"] = [ref]
                return
        if isinstance(observation, dict):
            observation["results"].append({"subagent_trajectory_ref": [ref]})
        else:
            step["observation"] = {"results": [{"subagent_trajectory_ref": [ref]}]}

    def _step(self, step: Doc, step_id: int, ptr: str) -> Doc:
        sptr = self.step_ptr[id(step)]
        agent = step.get("role") == "agent"
        out: Doc = {"step_id": step_id}
        TIMESTAMP.forward(step, out)
        ROLE.forward(step, out)
        if agent:
            MODEL.forward(step, out)
        content = step.get("content")
        out["message"] = content if isinstance(content, str) else ""
        if not isinstance(content, str):
            self.ctx.decide(f"{ptr}/message", "a step message is a string: ''", "")
        if agent:
            REASONING.forward(step, out)
        self.owners.append(_Owner(out, step, ptr, sptr, "step"))
        calls = step.get("tool_calls")
        if agent and isinstance(calls, list):
            out["tool_calls"] = []
            for k, call in dicts(calls):
                mapped: Doc = {}
                for field in TOOL_CALL:
                    field.forward(call, mapped)
                mapped.setdefault("arguments", {})  # TAO's default input
                out["tool_calls"].append(mapped)
                cptr, csptr = f"{ptr}/tool_calls/{k}", f"{sptr}/tool_calls/{k}"
                self.owners.append(_Owner(mapped, call, cptr, csptr, "call"))
        self._observations(step, out, ptr, sptr)
        usage = step.get("token_usage")
        if agent and isinstance(usage, dict) and self.positions[id(step)] not in self.repeats:
            anthropic = anthropic_usage(
                step.get("model"), self.agent.get("model"), self.agent.get("name")
            )
            out["metrics"] = metrics = metrics_of(usage, anthropic)
            index = step.get("step_index")
            if count(index) is not None and str(index) in self.costs:
                metrics["cost_usd"] = self.costs[str(index)]
            mptr, msptr = f"{ptr}/metrics", f"{sptr}/token_usage"
            self.owners.append(_Owner(metrics, usage, mptr, msptr, "usage"))
        index = step.get("step_index")
        fields = self.fields.get(str(index)) if count(index) is not None else None
        if isinstance(fields, dict):
            put_back(out, fields)
        return out

    def _observations(self, step: Doc, out: Doc, ptr: str, sptr: str) -> None:
        observations = step.get("observations")
        if not isinstance(observations, list):
            return
        call_ids = {c["tool_call_id"] for c in out.get("tool_calls", ())}
        results: list[Doc] = []
        for k, obs in dicts(observations):
            call_id = obs.get("source_call_id")
            result: Doc = {"source_call_id": call_id if call_id in call_ids else None}
            if "content" in obs:
                result["content"] = obs["content"]
            results.append(result)
            rptr, rsptr = f"{ptr}/observation/results/{k}", f"{sptr}/observations/{k}"
            self.owners.append(_Owner(result, obs, rptr, rsptr, "observation"))
        out["observation"] = {"results": results}
