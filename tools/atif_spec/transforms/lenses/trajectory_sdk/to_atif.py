"""The mapping trajectory-sdk v0.4 → ATIF v1.7 (MAPPING.md §2, §3, §5)."""

from __future__ import annotations

import json
from typing import Any

from atif_spec.formats.totals import step_totals
from atif_spec.jsonio.jsonequal import same_json
from atif_spec.jsonio.jsonvalues import objects
from atif_spec.transforms.driver import Context
from atif_spec.transforms.lenses.trajectory_sdk.common import (
    METRICS_ORDER,
    REF,
    RESULT_NAMES,
    ROOT_NAMES,
    ROOT_ORDER,
    SDK_ROOT_NAMES,
    SDK_STEP_NAMES,
    SNAPSHOT_KEYS,
    STEP_ORDER,
    SUBAGENTS,
    UNKNOWN,
    Doc,
    Names,
    atif_metrics,
    number,
    sdk_usage,
)
from atif_spec.transforms.lenses.trajectory_sdk.snapshots import transcript


class _Steps:
    """Builds ATIF steps from transcript messages, linking tool results to their calls."""

    def __init__(self, names: Names) -> None:
        self.names = names
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
        keys = ("context_management",)
        policy = self.names.split(first.get("metadata"), f"{where}/0/metadata", keys)[1].get(
            keys[0]
        )
        if not isinstance(policy, dict):  # else the boundary's own policy, named by ATIF→SDK
            policy = {"type": "compaction", "boundary": "replace"}
            self.names.decide(
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
            extra, named = self.names.split(m.get("metadata"), f"{where}/metadata", SDK_STEP_NAMES)
            if extra is not None:
                step["extra"] = extra
            for key in ("timestamp", "model_name"):
                if key in named:
                    step[key] = named[key]
            if "cost_usd" in named:
                metrics = {**step.get("metrics", {}), "cost_usd": named["cost_usd"]}
                step["metrics"] = {k: metrics[k] for k in METRICS_ORDER if k in metrics}
            self._name_message(step, m, where)

    def _name_message(self, step: Doc, m: Doc, where: str) -> None:
        """Message fields ATIF has no place for, as named step ``extra`` keys (§3.3): a finish
        reason; the trainable status of an assistant message (of another message when it is
        not the default); provider usage that the step metrics do not give back."""
        ptr = f"/steps/{len(self.steps) - 1}"
        status = m.get("trainable_status")
        usage = m.get("usage")
        for key, write in (
            ("finish_reason", m.get("finish_reason") is not None),
            (
                "trainable_status",
                status is not None and (m.get("role") == "assistant" or status != "not_trainable"),
            ),
            ("usage", usage is not None and not same_json(sdk_usage(atif_metrics(usage)), usage)),
        ):
            if write:
                self.names.put(step, ptr, "extra", key, m[key], f"{where}/{key}")
        if step.get("extra") == {}:
            del step["extra"]

    def _assistant(self, step: Doc, m: Doc, k: int) -> None:
        self.last_agent = step
        if isinstance(m.get("reasoning"), str):
            step["reasoning_content"] = m["reasoning"]
        raw = m.get("tool_calls")
        if isinstance(raw, list):
            calls = []
            for j, c in enumerate(objects(raw)):
                name: str = c["name"] if isinstance(c.get("name"), str) else ""
                cid = c.get("id")
                if not isinstance(cid, str):
                    cid = f"tsdk-{k}-{j}"
                    self.idless.setdefault(name, []).append((step, cid))
                    self.names.decide(
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
                raise self.names.refuse("unlinked-tool-response", where, message)
            return self.last_agent
        rid, name = response.get("id"), response.get("name")
        if isinstance(rid, str) and rid in self.calls:
            result["source_call_id"] = rid
            return self.calls[rid]
        if isinstance(name, str) and self.idless.get(name):
            target, result["source_call_id"] = self.idless[name].pop(0)
            return target
        message = f"tool response {rid!r} answers no earlier tool call (TSDK201)"
        raise self.names.refuse("unlinked-tool-response", f"{where}/tool_response/id", message)

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
        fields: Doc = dict(response) if isinstance(response, dict) else {}
        at = f"{where}/tool_response/metadata"
        meta, named = self.names.split(fields.get("metadata"), at, (REF,))
        if REF in named:  # a subagent link named by ATIF→SDK
            result[REF] = named[REF]
            fields["metadata"] = meta
        if isinstance(m.get("metadata"), dict):
            result["extra"] = m["metadata"]
        observation = target.setdefault("observation", {"results": []})
        ptr = f"/steps/{self.index[id(target)]}/observation/results/{len(observation['results'])}"
        observation["results"].append(result)
        if isinstance(response, dict):
            # the way back's response: null beside a named error, else the content (§3.3)
            default = result.get("content")
            for field, key in RESULT_NAMES.items():
                value = fields.get(field)
                if value is None or (field == "response" and same_json(value, default)):
                    continue
                source = f"{where}/tool_response/{field}"
                if self.names.put(result, ptr, "extra", key, value, source) and field == "error":
                    default = None
            if result.get("extra") == {}:
                del result["extra"]


def to_atif(doc: Doc, ctx: Context) -> Doc:
    """The mapping trajectory-sdk v0.4 → ATIF v1.7 (MAPPING §3)."""
    return _to_atif(doc, Names(ctx))


def _to_atif(doc: Doc, names: Names) -> Doc:
    builder = _Steps(names)
    for kind, value, where in transcript(doc, names):
        if kind == "reset":
            builder.reset(value, where)
        else:
            builder.add(value, int(where.rpartition("/")[2]), where)
    if not builder.steps:
        builder.new("system", "")
        names.decide("/steps/0", "ATIF needs one step: an empty system step", builder.steps[0])
    task: Doc = doc["task"] if isinstance(doc.get("task"), dict) else {}
    out: Doc = {"schema_version": "ATIF-v1.7"}
    if isinstance(task.get("conversation_id"), str):
        out["session_id"] = task["conversation_id"]
    if isinstance(task.get("id"), str):
        out["trajectory_id"] = task["id"]
    telemetry = doc.get("telemetry")
    data = telemetry.get("data") if isinstance(telemetry, dict) else None
    named = names.split(data, "/telemetry/data", SDK_ROOT_NAMES)[1]
    agent: Doc = {"name": UNKNOWN, "version": UNKNOWN}
    for key in ("name", "version"):
        if isinstance(named.get(f"agent_{key}"), str):
            agent[key] = named[f"agent_{key}"]
        else:
            names.decide(f"/agent/{key}", f"the SDK records no agent {key}", UNKNOWN)
    if isinstance(doc.get("model_id"), str):
        agent["model_name"] = doc["model_id"]
    if builder.definitions:
        agent["tool_definitions"] = [
            {
                "type": "function",
                "function": {k: d[k] for k in ("name", "description", "parameters") if k in d},
            }
            for d in builder.definitions.values()
        ]
    out["agent"] = agent
    out["steps"] = [{k: s[k] for k in STEP_ORDER if k in s} for s in builder.steps]
    final: Doc = {
        k: v
        for k, v in step_totals(builder.steps).as_final_metrics().items()
        if k != "total_cost_usd"
    }  # RFC.md §2.4; the cost is the task's own total
    cost = number(task.get("total_cost"))
    if cost is not None:
        final["total_cost_usd"] = cost
    final["total_steps"] = len(builder.steps)
    out["final_metrics"] = named.get("final_metrics", final)
    if "trajectory_id" in named:
        out["trajectory_id"] = named["trajectory_id"]
    if names.exact:  # converted from ATIF: what no named key carries was not there
        for key in ("trajectory_id", "final_metrics"):
            if key not in named:
                out.pop(key, None)
    subagents = named.get("subagent_trajectories")
    if isinstance(subagents, list):
        out["subagent_trajectories"] = [
            _to_atif(sub, names.nested(f"{SUBAGENTS}/{i}", f"/subagent_trajectories/{i}"))
            if isinstance(sub, dict)
            else sub
            for i, sub in enumerate(subagents)
        ]
    for field, key in ROOT_NAMES.items():
        if doc.get(field) is not None:
            names.put(out, "", "extra", key, doc[field], f"/{field}")
    steps = doc.get("steps")
    if isinstance(steps, list) and steps and not names.exact:
        kept = [
            {k: s[k] for k in SNAPSHOT_KEYS if k in s} if isinstance(s, dict) else None
            for s in steps
        ]
        names.put(out, "", "extra", "snapshots", kept, "/steps")
    return {k: out[k] for k in ROOT_ORDER if k in out}
