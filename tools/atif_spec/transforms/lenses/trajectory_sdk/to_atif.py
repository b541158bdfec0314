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
from atif_spec.transforms.lenses.trajectory_sdk.common import (
    METRICS_ORDER,
    ROOT_ORDER,
    SNAPSHOT_KEYS,
    STEP_ORDER,
    UNKNOWN,
    Doc,
    Scope,
    atif_metrics,
)
from atif_spec.transforms.lenses.trajectory_sdk.snapshots import transcript


class _Steps:
    """Builds ATIF steps from transcript messages, linking tool results to their calls."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.steps: list[Doc] = []
        self.calls: dict[str, Doc] = {}
        """Call id → the agent step that made the call (the latest one wins)."""
        self.idless: dict[str, list[tuple[Doc, str]]] = {}
        """Function name → (step, generated id) of calls that had no id."""
        self.last_agent: Doc | None = None
        self.definitions: dict[str, Doc] = {}
        self.index: dict[int, int] = {}
        """Identity of a step → its index in ``steps``."""

    def new(self, source: str, message: Any) -> Doc:
        step: Doc = {"step_id": len(self.steps) + 1, "source": source, "message": message}
        self.index[id(step)] = len(self.steps)
        self.steps.append(step)
        return step

    def reset(self, messages: list[Any], where: str) -> None:
        step = self.new("system", "")
        step["observation"] = {
            "results": [
                {"content": m.get("content") if isinstance(m.get("content"), str) else ""}
                for m in messages
                if isinstance(m, dict)
            ]
        }
        first = messages[0] if messages and isinstance(messages[0], dict) else {}
        self.scope.free(first.get("metadata"), f"{where}/0/metadata").take_all(
            step, (table.BOUNDARY,)
        )
        if not isinstance(get(step, table.BOUNDARY.member), dict):  # else the boundary's own policy
            policy = {"type": "compaction", "boundary": "replace"}
            self.scope.decide(
                f"/steps/{len(self.steps) - 1}/extra/context_management",
                "a restart after a summarization_boundary step is a replace boundary of type "
                "compaction (MAPPING §5)",
                policy,
            )
            step["extra"] = {"context_management": policy}

    def add(self, m: Any, k: int, where: str) -> None:
        if not isinstance(m, dict):
            return
        for d in objects(m.get("tool_definitions")):
            if isinstance(d.get("name"), str) and d["name"] not in self.definitions:
                self.definitions[d["name"]] = d
        role = m.get("role")
        content = m.get("content")
        if role == "tool":
            self._tool(m, where)
        elif role in ("system", "user", "assistant"):
            step = self.new(
                "agent" if role == "assistant" else role,
                content if isinstance(content, str) else "",
            )
            if role == "assistant":
                self._assistant(step, m, k)
            extra = self.scope.free(m.get("metadata"), f"{where}/metadata")
            extra.take_all(step, table.SDK_STEP_NAMES)
            metrics = step.get("metrics", {})
            if "cost_usd" in metrics:
                step["metrics"] = {key: metrics[key] for key in METRICS_ORDER if key in metrics}
            # a non-assistant message's `not_trainable` is what the way back writes: not named
            default = role != "assistant" and m.get("trainable_status") == "not_trainable"
            to = f"{self.scope.target}/steps/{len(self.steps) - 1}/extra"
            extra.put_all(
                m,
                (table.FINISH, table.USAGE) if default else table.STEP_NAMES,
                self.scope.source + where,
                to,
            )
            if extra.keys:  # an empty `metadata` is left out (the stash restores it)
                extra.place(step)

    def _assistant(self, step: Doc, m: Doc, k: int) -> None:
        self.last_agent = step
        table.REASONING.forward(m, step)
        raw = m.get("tool_calls")
        if isinstance(raw, list):
            calls = []
            for j, c in enumerate(objects(raw)):
                name: str = c["name"] if isinstance(c.get("name"), str) else ""
                cid = c.get("id")
                if not isinstance(cid, str):
                    cid = f"tsdk-{k}-{j}"
                    self.idless.setdefault(name, []).append((step, cid))
                    self.scope.decide(
                        f"/steps/{len(self.steps) - 1}/tool_calls/{j}/tool_call_id",
                        "a tool call without an id gets tsdk-<message index>-<call index>",
                        cid,
                    )
                self.calls[cid] = step
                args = c.get("arguments")
                calls.append(
                    {
                        "tool_call_id": cid,
                        "function_name": name,
                        "arguments": args if isinstance(args, dict) else {},
                    }
                )
            step["tool_calls"] = calls
        metrics = atif_metrics(m.get("usage"))
        if metrics is not None:
            step["metrics"] = metrics

    def _linked(self, response: Any, result: Doc, where: str) -> Doc:
        """The agent step whose call ``response`` answers (its ``source_call_id`` put into
        ``result``): by id, else the oldest id-less call of the function (D12); the last agent
        step for a tool message without ``tool_response`` (TSDK203)."""
        if not isinstance(response, dict):
            if self.last_agent is None:
                message = "a tool message without tool_response comes before any assistant message"
                raise self.scope.refuse("unlinked-tool-response", where, message)
            return self.last_agent
        rid, name = response.get("id"), response.get("name")
        if isinstance(rid, str) and rid in self.calls:
            result["source_call_id"] = rid
            return self.calls[rid]
        if isinstance(name, str) and self.idless.get(name):
            target, result["source_call_id"] = self.idless[name].pop(0)
            return target
        message = f"tool response {rid!r} answers no earlier tool call (TSDK201)"
        raise self.scope.refuse("unlinked-tool-response", f"{where}/tool_response/id", message)

    def _tool(self, m: Doc, where: str) -> None:
        response = m.get("tool_response")
        result: Doc = {}
        target = self._linked(response, result, where)
        content = m.get("content")
        reply = response.get("response") if isinstance(response, dict) else None
        if isinstance(content, str):
            result["content"] = content
        elif isinstance(reply, str):
            result["content"] = reply
        elif reply is not None:
            result["content"] = json.dumps(reply, ensure_ascii=False)
        if isinstance(response, dict):
            meta = self.scope.free(response.get("metadata"), f"{where}/tool_response/metadata")
            if meta.take(
                result, table.REF.member, table.REF.key
            ):  # a subagent link named by ATIF→SDK
                m = {**m, "tool_response": {**response, "metadata": meta.keys or None}}
        extra = self.scope.free(m.get("metadata"), f"{where}/metadata")
        observation = target.setdefault("observation", {"results": []})
        ptr = f"/steps/{self.index[id(target)]}/observation/results/{len(observation['results'])}"
        observation["results"].append(result)
        if isinstance(response, dict):
            self._name_result(m, result, extra, where, f"{self.scope.target}{ptr}/extra")
        if extra.keys or not isinstance(response, dict):  # else an empty `metadata` is left out
            extra.place(result)

    def _name_result(self, m: Doc, result: Doc, extra: FreeForm, where: str, to: str) -> None:
        """The ``tool_response`` members the way back does not write, as named keys (§3.3): its
        response is null beside a named error, else the result's content."""
        default = result.get("content")
        for row in table.RESULT_NAMES:
            value = get(m, row.member)
            if (
                value is None
                or value is ABSENT
                or (row is table.RESPONSE and same_json(value, default))
            ):
                continue
            source = f"{self.scope.source}{where}/{row.member}"
            if extra.put(row.key, value, source, to) and row is table.ERROR:
                default = None


def to_atif(doc: Doc, ctx: Context) -> Doc:
    """The mapping trajectory-sdk v0.4 → ATIF v1.7 (MAPPING §3)."""
    return _to_atif(doc, Scope(ctx))


def _to_atif(doc: Doc, scope: Scope) -> Doc:
    builder = _Steps(scope)
    for kind, value, where in transcript(doc, scope):
        if kind == "reset":
            builder.reset(value, where)
        else:
            builder.add(value, int(where.rpartition("/")[2]), where)
    if not builder.steps:
        builder.new("system", "")
        scope.decide("/steps/0", "ATIF needs one step: an empty system step", builder.steps[0])
    out: Doc = {"schema_version": "ATIF-v1.7"}
    table.SESSION.forward(doc, out)
    table.TASK_ID.forward(doc, out)
    named: Doc = {}  # what ATIF → SDK named in `telemetry.data`, read back
    scope.free(get(doc, "telemetry/data"), "/telemetry/data").take_all(
        named, (*table.SDK_ROOT_NAMES, table.EMBEDDED)
    )
    _agent(doc, named, out, builder.definitions, scope)
    out["steps"] = [{k: s[k] for k in STEP_ORDER if k in s} for s in builder.steps]
    out["final_metrics"] = final = {
        k: v
        for k, v in step_totals(builder.steps).as_final_metrics().items()
        if k != "total_cost_usd"
    }  # RFC.md §2.4; the cost is the task's own total
    table.COST.forward(doc, out)
    final["total_steps"] = len(builder.steps)
    for key in ("final_metrics", "trajectory_id"):
        if key in named:
            out[key] = named[key]
        elif not scope.writes:  # converted from ATIF: what no named key carries was not there
            out.pop(key, None)
    subagents = named.get(table.EMBEDDED.member)
    if isinstance(subagents, list):
        out["subagent_trajectories"] = [
            _to_atif(
                sub, scope.nested(f"{table.EMBEDDED.pointer}/{i}", f"/subagent_trajectories/{i}")
            )
            if isinstance(sub, dict)
            else sub
            for i, sub in enumerate(subagents)
        ]
    _name_root(doc, out, scope)
    return {k: out[k] for k in ROOT_ORDER if k in out}


def _agent(doc: Doc, named: Doc, out: Doc, definitions: dict[str, Doc], scope: Scope) -> None:
    """``agent``: the name and version ATIF → SDK named (else decided), the model, and the
    union of the messages' tool definitions."""
    out["agent"] = agent = {}
    for key in ("name", "version"):
        agent[key] = get(named, f"agent/{key}")
        if not isinstance(agent[key], str):
            agent[key] = UNKNOWN
            scope.decide(f"/agent/{key}", f"the SDK records no agent {key}", UNKNOWN)
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
    extra = scope.free(None, "/extra")
    to = f"{scope.target}/extra"
    extra.put_all(doc, table.ROOT_NAMES, scope.source, to)
    steps = doc.get("steps")
    if isinstance(steps, list) and steps and scope.writes:
        kept = [
            {k: s[k] for k in SNAPSHOT_KEYS if k in s} if isinstance(s, dict) else None
            for s in steps
        ]
        extra.put(table.SNAPSHOTS.key, kept, f"{scope.source}/{table.SNAPSHOTS.member}", to)
    extra.place(out)
