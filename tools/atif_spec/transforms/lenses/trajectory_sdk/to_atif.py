"""The mapping trajectory-sdk v0.4 → ATIF v1.7 (MAPPING.md §2, §3, §5)."""

from __future__ import annotations

import json
from typing import Any

from atif_spec.formats.totals import step_totals
from atif_spec.jsonio.jsonequal import same_json
from atif_spec.jsonio.jsonvalues import objects
from atif_spec.transforms.driver import Context
from atif_spec.transforms.fields import ABSENT, FreeForm, get
from atif_spec.transforms.lenses.trajectory_sdk import table
from atif_spec.transforms.lenses.trajectory_sdk.snapshots import transcript
from atif_spec.transforms.lenses.trajectory_sdk.table import Doc, Scope


class _Steps:
    """Builds ATIF steps from transcript messages, linking tool results to their calls."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.steps: list[Doc] = []
        self.calls: dict[str, int] = {}  # call id → index of the step that made it (latest wins)
        self.idless: dict[str, list[tuple[int, str]]] = {}  # function → (step, id) of id-less calls
        self.last_agent: int | None = None
        self.definitions: dict[str, Doc] = {}

    def new(self, source: str, message: Any) -> Doc:
        step: Doc = {"step_id": len(self.steps) + 1, "source": source, "message": message}
        self.steps.append(step)
        return step

    def reset(self, messages: list[Any], where: str) -> None:
        step = self.new("system", "")
        contents = [m.get("content") for m in messages if isinstance(m, dict)]
        results = [{"content": c if isinstance(c, str) else ""} for c in contents]
        step["observation"] = {"results": results}
        first = messages[0] if messages and isinstance(messages[0], dict) else {}
        meta = self.scope.free(first.get("metadata"), f"{where}/0/metadata")
        meta.take_all(step, (table.BOUNDARY,))
        if not isinstance(get(step, table.BOUNDARY.member), dict):  # else the boundary's own policy
            policy = {"type": "compaction", "boundary": "replace"}
            why = "a restart after a summarization_boundary step is a replace boundary of type "
            at = f"/steps/{len(self.steps) - 1}/extra/context_management"
            self.scope.decide(at, why + "compaction (MAPPING §5)", policy)
            step["extra"] = {"context_management": policy}

    def add(self, m: Any, k: int, where: str) -> None:
        if not isinstance(m, dict):
            return
        for d in objects(m.get("tool_definitions")):
            if isinstance(d.get("name"), str):
                self.definitions.setdefault(d["name"], d)
        role, content = m.get("role"), m.get("content")
        if role == "tool":
            self._tool(m, where)
        if role not in ("system", "user", "assistant"):
            return
        step = self.new(
            "agent" if role == "assistant" else role, content if isinstance(content, str) else ""
        )
        if role == "assistant":
            self._assistant(step, m, k)
        extra = self.scope.free(m.get("metadata"), f"{where}/metadata")
        extra.take_all(step, table.SDK_STEP_NAMES)
        metrics = step.get("metrics", {})
        if "cost_usd" in metrics:
            step["metrics"] = {key: metrics[key] for key in table.METRICS_ORDER if key in metrics}
        # a non-assistant message's `not_trainable` is what the way back writes: not named
        default = role != "assistant" and m.get("trainable_status") == "not_trainable"
        names = (table.FINISH, table.USAGE) if default else table.STEP_NAMES
        to = f"{self.scope.target}/steps/{len(self.steps) - 1}/extra"
        extra.put_all(m, names, self.scope.source + where, to)
        if extra.keys:  # an empty `metadata` is left out (the stash restores it)
            extra.place(step)

    def _assistant(self, step: Doc, m: Doc, k: int) -> None:
        self.last_agent = at = len(self.steps) - 1
        table.REASONING.forward(m, step)
        calls = m.get("tool_calls")
        if isinstance(calls, list):
            step["tool_calls"] = [self._call(c, at, k, j) for j, c in enumerate(objects(calls))]
        metrics = table.atif_metrics(m.get("usage"))
        if metrics is not None:
            step["metrics"] = metrics

    def _call(self, c: Doc, at: int, k: int, j: int) -> Doc:
        name: str = c["name"] if isinstance(c.get("name"), str) else ""
        cid, args = c.get("id"), c.get("arguments")
        if not isinstance(cid, str):
            cid = f"tsdk-{k}-{j}"
            self.idless.setdefault(name, []).append((at, cid))
            policy = "a tool call without an id gets tsdk-<message index>-<call index>"
            self.scope.decide(f"/steps/{at}/tool_calls/{j}/tool_call_id", policy, cid)
        self.calls[cid] = at
        args = args if isinstance(args, dict) else {}
        return {"tool_call_id": cid, "function_name": name, "arguments": args}

    def _linked(self, response: Doc | None, result: Doc, where: str) -> int:
        """The step whose call ``response`` answers (its ``source_call_id`` put into ``result``):
        by id, else the oldest id-less call of the function (D12); the last agent step for a
        tool message without ``tool_response`` (TSDK203)."""
        if response is None:
            if self.last_agent is None:
                message = "a tool message without tool_response comes before any assistant message"
                raise self.scope.refuse("unlinked-tool-response", where, message)
            return self.last_agent
        rid, name = response.get("id"), response.get("name")
        if isinstance(rid, str) and rid in self.calls:
            result["source_call_id"] = rid
            return self.calls[rid]
        if isinstance(name, str) and self.idless.get(name):
            at, result["source_call_id"] = self.idless[name].pop(0)
            return at
        message = f"tool response {rid!r} answers no earlier tool call (TSDK201)"
        raise self.scope.refuse("unlinked-tool-response", f"{where}/tool_response/id", message)

    def _tool(self, m: Doc, where: str) -> None:
        raw = m.get("tool_response")
        response: Doc | None = raw if isinstance(raw, dict) else None
        result: Doc = {}
        at = self._linked(response, result, where)
        content = m.get("content")
        reply = response.get("response") if response is not None else None
        if isinstance(content, str) or isinstance(reply, str):
            result["content"] = content if isinstance(content, str) else reply
        elif reply is not None:
            result["content"] = json.dumps(reply, ensure_ascii=False)
        extra = self.scope.free(m.get("metadata"), f"{where}/metadata")
        results = self.steps[at].setdefault("observation", {"results": []})["results"]
        to = f"{self.scope.target}/steps/{at}/observation/results/{len(results)}/extra"
        results.append(result)
        if response is not None:
            meta = self.scope.free(response.get("metadata"), f"{where}/tool_response/metadata")
            if meta.take(result, table.REF.member, table.REF.key):  # a link named by ATIF→SDK
                m = {**m, "tool_response": {**response, "metadata": meta.keys or None}}
            self._name_result(m, result, extra, where, to)
        if extra.keys or response is None:  # else an empty `metadata` is left out
            extra.place(result)

    def _name_result(self, m: Doc, result: Doc, extra: FreeForm, where: str, to: str) -> None:
        """The ``tool_response`` members the way back does not write, as named keys (§3.3): its
        response is null beside a named error, else the result's content."""
        default = result.get("content")
        for row in table.RESULT_NAMES:
            value = get(m, row.member)
            if value in (None, ABSENT) or (row is table.RESPONSE and same_json(value, default)):
                continue
            if extra.put(row.key, value, f"{self.scope.source}{where}/{row.member}", to):
                default = None if row is table.ERROR else default  # a named error: no response


def to_atif(doc: Doc, ctx: Context, scope: Scope | None = None) -> Doc:
    """The mapping trajectory-sdk v0.4 → ATIF v1.7 (MAPPING §3); ``scope``: an embedded
    subagent's place."""
    scope = scope or Scope(ctx)
    builder = _Steps(scope)
    for kind, value, i, k in transcript(doc, scope):
        if kind == "reset":
            builder.reset(value, f"/steps/{i}/messages")
        else:
            builder.add(value, k, f"/steps/{i}/messages/{k}")
    if not builder.steps:
        builder.new("system", "")
        scope.decide("/steps/0", "ATIF needs one step: an empty system step", builder.steps[0])
    out: Doc = {"schema_version": "ATIF-v1.7"}
    table.SESSION.forward(doc, out)
    table.TASK_ID.forward(doc, out)
    named: Doc = {}  # what ATIF → SDK named in `telemetry.data`, read back
    data = scope.free(get(doc, "telemetry/data"), "/telemetry/data")
    data.take_all(named, (*table.SDK_ROOT_NAMES, table.EMBEDDED))
    _agent(doc, named, out, builder.definitions, scope)
    out["steps"] = [{k: s[k] for k in table.STEP_ORDER if k in s} for s in builder.steps]
    totals = step_totals(builder.steps).as_final_metrics().items()
    out["final_metrics"] = final = {k: v for k, v in totals if k != "total_cost_usd"}  # RFC §2.4
    table.COST.forward(doc, out)  # the task's own total
    final["total_steps"] = len(builder.steps)
    for key in ("final_metrics", "trajectory_id"):
        if key in named:
            out[key] = named[key]
        elif not scope.writes:  # converted from ATIF: what no named key carries was not there
            out.pop(key, None)
    subagents, at = named.get(table.EMBEDDED.member), table.EMBEDDED.pointer
    if isinstance(subagents, list):
        out["subagent_trajectories"] = [
            to_atif(sub, ctx, scope.nested(f"{at}/{n}", f"/subagent_trajectories/{n}"))
            if isinstance(sub, dict)
            else sub
            for n, sub in enumerate(subagents)
        ]
    _name_root(doc, out, scope)
    return {k: out[k] for k in table.ROOT_ORDER if k in out}


def _agent(doc: Doc, named: Doc, out: Doc, definitions: dict[str, Doc], scope: Scope) -> None:
    """``agent``: the name and version ATIF → SDK named (else decided), the model, and the
    union of the messages' tool definitions."""
    out["agent"] = agent = {}
    for key in ("name", "version"):
        agent[key] = get(named, f"agent/{key}")
        if not isinstance(agent[key], str):
            agent[key] = table.UNKNOWN
            scope.decide(f"/agent/{key}", f"the SDK records no agent {key}", table.UNKNOWN)
    table.MODEL.forward(doc, out)
    if definitions:
        agent["tool_definitions"] = [
            {
                "type": "function",
                "function": {k: d[k] for k in ("name", "description", "parameters") if k in d},
            }
            for d in definitions.values()
        ]


def _name_root(doc: Doc, out: Doc, scope: Scope) -> None:
    """The SDK root members ATIF has no field for, and the snapshots' own members, as named
    keys of the root ``extra`` (§3.2)."""
    extra, to = scope.free(None, "/extra"), f"{scope.target}/extra"
    extra.put_all(doc, table.ROOT_NAMES, scope.source, to)
    steps = doc.get("steps")
    if isinstance(steps, list) and steps and scope.writes:
        keys = table.SNAPSHOT_KEYS
        kept = [{k: s[k] for k in keys if k in s} if isinstance(s, dict) else None for s in steps]
        extra.put(table.SNAPSHOTS.key, kept, f"{scope.source}/{table.SNAPSHOTS.member}", to)
    extra.place(out)
