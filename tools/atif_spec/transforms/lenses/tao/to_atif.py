"""TAO record (0.2.0 or 0.1.0) → ATIF v1.7 trajectory (``spec/tao/MAPPING.md`` §2)."""

from __future__ import annotations

from typing import Any

from atif_spec.formats.tao import UnloadableRecordError, content_hash, detect, unfill
from atif_spec.jsonio.jsonequal import same_json
from atif_spec.jsonio.jsonvalues import dicts
from atif_spec.jsonio.pointers import join
from atif_spec.jsonio.pointers import pointer as make_pointer
from atif_spec.transforms.driver import Context
from atif_spec.transforms.fields import FreeForm
from atif_spec.transforms.lenses.tao import common, rows, tokens
from atif_spec.transforms.lenses.tao.common import Doc
from atif_spec.transforms.lenses.tao.step_fields import put_back

_ABSENT: Any = object()
_ROWS = {
    kind: tuple(row for row in named if row is not rows.STEP_INDEX)
    for kind, named in rows.NAMED.items()
}
"""Kind of owner → the rows :meth:`_ToAtif._name` names (a step's index: ``_name_indexes``)."""
_MEMBERS = {kind: frozenset(row.member for row in named) for kind, named in _ROWS.items()}
_CALL = tuple((field.source, field.target) for field in rows.TOOL_CALL)
Where = tuple[Any, ...]
"""A pointer and raw tokens below it, joined only where a pointer is used (most are not)."""


def record_style(record: Doc, ctx: Context) -> str | None:
    """The :data:`.rows.STYLE` to write the record back in; None: the default (D26), or ``drop``."""
    if ctx.options.drop:
        return None
    if common.filled(record):
        return rows.FILLED
    own = record.get("content_hash")
    try:
        right = isinstance(own, str) and own == content_hash(record, common.hash_version(record))
    except UnloadableRecordError:  # a record the model cannot load has no hash of its own
        right = False
    return rows.HASHED if right else None


def to_atif(doc: Doc, ctx: Context) -> Doc:
    """The ATIF v1.7 form of a TAO record; sub-agent steps become embedded subagents."""
    version = detect(doc)
    common.refuse_invalid(doc, f"tao@{version if version == 'v0.1.0' else 'v0.2.0'}", ctx)
    style = record_style(doc, ctx)
    record = unfill(doc, "v0.2.0")[0] if style == rows.FILLED else doc
    out = _ToAtif(record, ctx, style).run()
    if style is not None:
        extra = FreeForm(out.get("extra"), "/extra", ctx)
        hashed = "/content_hash" if style == rows.HASHED else ""
        extra.put(rows.STYLE.key, style, hashed, "/extra")
        extra.place(out)
    return out


class _ToAtif:
    """One TAO record → ATIF v1.7 (each named key once, through ``ctx``)."""

    def __init__(self, record: Doc, ctx: Context, style: str | None) -> None:
        self.record, self.ctx = record, ctx
        self.first = 1 if style == rows.FILLED else 0
        """ATIF → TAO numbers steps from 1 in the filled style (D33), else from 0."""
        self.metadata = FreeForm(record.get("metadata"), "/metadata", ctx)  # less the gathered
        take = self.metadata.take_gathered if ctx.reads else None  # else nothing to read back
        read = (take(row.key) if take else None for row in rows.INTO_TAO_NAMED)
        named: list[Doc] = [v if isinstance(v, dict) else {} for v in read]
        self.trajectory, self.costs, self.agents, self.fields, system = named
        self.system = dict(system)  # popped when used
        self.steps = [s for _, s in dicts(record.get("steps"))]
        self.positions = {id(s): p for p, s in enumerate(self.steps)}
        """``id(TAO step)`` → its position, its index in the record (valid: all steps objects)."""
        prompts, agent = record.get("system_prompts"), record.get("agent")
        self.prompts: dict[str, Any] = prompts if isinstance(prompts, dict) else {}
        self.agent: Doc = agent if isinstance(agent, dict) else {}
        self.owners: list[tuple[str, Doc, Doc, Where, Where]] = []
        """(kind of :data:`.rows.NAMED` rows, ATIF object, TAO object, their pointers)."""
        self.atif_steps: dict[int, tuple[Doc, str]] = {}  # position → (ATIF step, pointer)
        self.repeats = tokens.repeated_usage(self.steps)
        self.parent_of = common.groups(self.steps)
        self.members: dict[int | None, list[int]] = {}  # parent position (root: None) → steps
        for p in range(len(self.steps)):
            self.members.setdefault(self.parent_of.get(p), []).append(p)
        keys = enumerate(self._prompt_of(s) for s in self.steps)
        self.prompt_of = {p: key for p, key in keys if key is not None}
        used = set(self.prompt_of.values())
        self.unreferenced = sorted(  # system steps first, in key order (not data, RFC.md §4.6)
            k for k, v in self.prompts.items() if isinstance(v, str) and k not in used
        )

    def run(self) -> Doc:
        record = self.record
        out: Doc = {"schema_version": "ATIF-v1.7", "session_id": record.get("session_id")}
        self._owner("record", out, record, ("",), ("",))
        trace_id = record.get("trace_id")
        if trace_id and trace_id != common.derived_trace_id(record.get("session_id")):
            out["trajectory_id"] = trace_id  # a derived one is recomputed on the way back
        rows.AGENT_NAME.forward(record, out)
        version = self.agent.get("version")
        agent = out.setdefault("agent", {})
        agent["version"] = version if isinstance(version, str) else common.UNKNOWN_VERSION
        if not isinstance(version, str):
            policy = "agent.version is required: 'unknown'"
            self.ctx.decide("/agent/version", policy, common.UNKNOWN_VERSION)
        rows.AGENT_MODEL.forward(record, out)
        rows.TOOL_DEFINITIONS.forward(record, out)
        self.root = out
        steps, subs = self._trajectory(None, "")
        out["steps"] = steps or [{"step_id": 1, "source": "system", "message": ""}]
        if not steps:
            policy = "a trajectory has at least one step: an empty system step"
            self.ctx.decide("/steps/0", policy, dict(out["steps"][0]))
        metrics = record.get("metrics")
        if isinstance(metrics, dict):
            final = tokens.totals({"steps": steps, "subagent_trajectories": subs})
            out["final_metrics"] = final
            self._owner("metrics", final, metrics, ("/final_metrics",), ("/metrics",))
        if subs:
            out["subagent_trajectories"] = subs
        self._trajectory_fields(out)
        for owner in self.owners:
            self._name(*owner)
        self._name_indexes(out)
        return out

    def _owner(self, kind: str, target: Doc, source: Doc, at: Where, source_at: Where) -> None:
        if not source.keys().isdisjoint(_MEMBERS[kind]):  # most objects have no member to name
            self.owners.append((kind, target, source, at, source_at))

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

    def _written(self, kind: str, target: Doc, source: Doc) -> Doc:
        """What ATIF → TAO writes anyway of the members of ``source`` it names (others absent)."""
        if kind == "record":
            return {"schema_version": common.TAO_VERSION}
        if kind == "step":
            role = source.get("role")
            if self.positions[id(source)] in self.parent_of:
                return {"call_type": "subagent"}
            if role == "agent":
                return {"call_type": "main", "agent_role": "main"}
            return {"call_type": "main"} if self.first == 1 and role == "user" else {}
        if kind == "observation":
            linked = target.get("source_call_id")
            if linked is None:
                return {"error": common.UNLINKED, "source_call_id": ""}
            return {"source_call_id": linked if isinstance(linked, str) else ""}
        if kind == "metrics":
            return tokens.usage_totals(self.steps)
        return {}

    def _name(self, kind: str, target: Doc, source: Doc, at: Where, source_at: Where) -> None:
        """Put the members of ``source`` ATIF has no field for under named keys of ``target``."""
        written, extra = self._written(kind, target, source), None
        for row in _ROWS[kind]:
            value = source.get(row.member, _ABSENT)
            if value is _ABSENT:
                continue
            if kind == "record" and row.member == "metadata" and self.metadata.edited:
                value = self.metadata.keys
                if not value:
                    continue  # only what ATIF → TAO put there
            if row.member in written and same_json(written[row.member], value):
                continue
            if extra is None:  # the pointers made only where a member is named
                holder = join(*at, "extra")
                extra = FreeForm(target.get("extra"), holder, self.ctx)
            extra.put(row.key, value, join(*source_at, row.member), holder)
        if extra is not None:
            extra.place(target)

    def _name_indexes(self, out: Doc) -> None:
        """Name each ``step_index`` ATIF → TAO would not give back: of every system step, and of a
        step whose index is not both its position in the record and the number ATIF → TAO gives."""
        given = common.numbers(out, self.first)
        for p, (step, ptr) in sorted(self.atif_steps.items()):
            source = self.steps[p]
            if "step_index" not in source:
                continue
            value = source["step_index"]
            number = given.get(id(step)) if source.get("role") != "system" else None
            if number == p + self.first and same_json(value, number):  # number: an int or None
                continue
            extra = FreeForm(step.get("extra"), f"{ptr}/extra", self.ctx)
            index_ptr = f"/steps/{p}/step_index"
            extra.put(rows.STEP_INDEX.key, value, index_ptr, extra.at)
            extra.place(step)

    def _trajectory(self, parent_pos: int | None, base: str) -> tuple[list[Doc], list[Doc]]:
        """The ATIF steps and embedded subagents of one trajectory."""
        positions = self.members.get(parent_pos, [])
        before = self._prompts_before(positions, parent_pos)
        out: list[Doc] = []
        for i, p in enumerate(positions):
            for key in before.get(i, ()):
                out.append(self._system(key, len(out), base))
            ptr = f"{base}/steps/{len(out)}"
            out.append(self._step(self.steps[p], len(out) + 1, ptr))
            self.atif_steps[p] = (out[-1], ptr)
        if not positions and parent_pos is None:
            out.extend(self._system(key, n, base) for n, key in enumerate(self.unreferenced))
        first: dict[int, int] = {}  # launching step → its first sub-agent step
        for p in positions:
            for c in self.members.get(p, ()):
                first.setdefault(p, c)
        subs: list[Doc] = []
        ids: set[str] = set()
        for q in sorted(first, key=first.__getitem__):
            tid = self._subagent_id(q, ids)
            agent = self.agents.get(tid)
            sub: Doc = {"schema_version": "ATIF-v1.7", "trajectory_id": tid}
            sub["agent"] = (
                agent if isinstance(agent, dict) else common.subagent_agent(self.root["agent"])
            )
            sub_steps, sub_subs = self._trajectory(q, f"{base}/subagent_trajectories/{len(subs)}")
            sub["steps"] = sub_steps
            if sub_subs:
                sub["subagent_trajectories"] = sub_subs
            subs.append(sub)
            self._reference(q, tid)
        return out, subs

    def _system(self, key: str, n: int, base: str) -> Doc:
        """The system step of the prompt ``key`` (its :data:`.rows.SYSTEM_STEPS` fields on the
        first one), naming a ``key`` that is not the one ATIF → TAO computes."""
        text = self.prompts[key]
        step: Doc = {"step_id": n + 1, "source": "system", "message": text}
        fields = self.system.pop(key, None)
        for member, value in fields.items() if isinstance(fields, dict) else ():
            step.setdefault(member, value)
        if key != common.prompt_key(text):
            extra = FreeForm(step.get("extra"), f"{base}/steps/{n}/extra", self.ctx)
            extra.put(rows.PROMPT_KEY.key, key, make_pointer("system_prompts", key), extra.at)
            extra.place(step)
        return step

    def _prompt_of(self, step: Doc) -> str | None:
        key = step.get("system_prompt_hash")
        return key if isinstance(key, str) and isinstance(self.prompts.get(key), str) else None

    def _prompts_before(self, positions: list[int], parent_pos: int | None) -> dict[int, list[str]]:
        """Index in ``positions`` → the prompts whose system steps go before it: a prompt before
        the first step that names it (unless the last one did), moved up past user steps (the
        prompt precedes the user message the call answers); unreferenced ones first."""
        before: dict[int, list[str]] = {}
        if parent_pos is None and positions:
            before[0] = list(self.unreferenced)
        current: str | None = None
        floor = 0
        for i, p in enumerate(positions):
            key = self.prompt_of.get(p)
            if key is None or key == current:
                continue
            j = i
            while j > floor:
                prev = positions[j - 1]
                if self.steps[prev].get("role") == "agent" or prev in self.prompt_of:
                    break
                j -= 1
            before.setdefault(j, []).append(key)
            current, floor = key, i
        return before

    def _subagent_id(self, q: int, taken: set[str]) -> str:
        ref = self.steps[q].get("subagent_trajectory_ref")
        if isinstance(ref, str) and ref and ref not in taken:
            taken.add(ref)
            return ref
        stem = ref if isinstance(ref, str) and ref else "subagent"
        index = self.steps[q].get("step_index")
        tid, n = f"{stem}@step-{index}", 2
        while tid in taken:
            tid, n = f"{stem}@step-{index}-{n}", n + 1
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
        listed = results if isinstance(results, list) else []
        first = common.first_launcher(listed, step)
        if first is not None:
            listed[first]["subagent_trajectory_ref"] = [ref]
        elif isinstance(observation, dict):
            observation["results"].append({"subagent_trajectory_ref": [ref]})
        else:
            step["observation"] = {"results": [{"subagent_trajectory_ref": [ref]}]}

    def _step(self, step: Doc, step_id: int, ptr: str) -> Doc:
        position = self.positions[id(step)]
        sptr, agent = f"/steps/{position}", step.get("role") == "agent"
        out: Doc = {"step_id": step_id}
        rows.TIMESTAMP.forward(step, out)
        rows.ROLE.forward(step, out)
        if agent:
            rows.MODEL.forward(step, out)
        content = step.get("content")
        out["message"] = content if isinstance(content, str) else ""
        if not isinstance(content, str):
            self.ctx.decide(f"{ptr}/message", "a step message is a string: ''", "")
        if agent:
            rows.REASONING.forward(step, out)
        self._owner("step", out, step, (ptr,), (sptr,))
        calls = step.get("tool_calls")
        if agent and isinstance(calls, list):
            out["tool_calls"] = tool_calls = []
            for k, call in enumerate(calls):  # objects: the record is valid
                mapped = {atif: call[tao] for tao, atif in _CALL if tao in call}
                mapped.setdefault("arguments", {})  # TAO's default input
                tool_calls.append(mapped)
                self._owner("call", mapped, call, (ptr, "tool_calls", k), (sptr, "tool_calls", k))
        self._observations(step, out, ptr, sptr)
        usage, index = step.get("token_usage"), step.get("step_index")
        key = str(index) if tokens.count(index) is not None else None  # of the named keys
        if agent and isinstance(usage, dict) and position not in self.repeats:
            model, name = self.agent.get("model"), self.agent.get("name")
            anthropic = tokens.anthropic_usage(step.get("model"), model, name)
            out["metrics"] = metrics = tokens.metrics_of(usage, anthropic)
            if key in self.costs:
                metrics["cost_usd"] = self.costs[key]
            self._owner("usage", metrics, usage, (ptr, "metrics"), (sptr, "token_usage"))
        fields = self.fields.get(key) if self.fields and key is not None else None
        if isinstance(fields, dict):
            put_back(out, fields)
        return out

    def _observations(self, step: Doc, out: Doc, ptr: str, sptr: str) -> None:
        observations = step.get("observations")
        if not isinstance(observations, list):
            return
        call_ids = {c["tool_call_id"] for c in out.get("tool_calls", ())}
        results: list[Doc] = []
        for k, obs in enumerate(observations):
            call_id = obs.get("source_call_id")
            result: Doc = {"source_call_id": call_id if call_id in call_ids else None}
            if "content" in obs:
                result["content"] = obs["content"]
            results.append(result)
            at = (ptr, "observation", "results", k)
            self._owner("observation", result, obs, at, (sptr, "observations", k))
        out["observation"] = {"results": results}
