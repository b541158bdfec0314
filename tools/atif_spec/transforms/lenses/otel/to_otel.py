"""ATIF v1.8 → OTLP/JSON with GenAI spans (spec/otel/MAPPING.md, RFC.md §7.1).

One ``TracesData`` per document, one trace: an ``invoke_agent`` span for the document (and one
for each embedded subagent, under the ``execute_tool`` span whose result references it); a
``chat`` span (CLIENT) per agent step that made an inference; an ``atif.step`` span (INTERNAL)
per agent step that made none (copied context, a deterministic dispatch: no usage, so nothing
is counted twice); an ``execute_tool`` span (INTERNAL) per tool call, carrying its result. User
and system steps are the ``gen_ai.input.messages`` of the next agent step's span: only the new
messages, never the whole history.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from atif_spec.formats import otel
from atif_spec.formats.totals import counts
from atif_spec.transforms.driver import Context
from atif_spec.transforms.lenses.otel import common as c
from atif_spec.transforms.lenses.otel.messages import input_message, output_message
from atif_spec.transforms.lenses.otel.openinference import to_openinference

Doc = dict[str, Any]


@dataclass(slots=True)
class _Span:
    pointer: str
    parent: str | None
    name: str
    kind: int
    start: int
    end: int
    attrs: c.Attrs = field(default_factory=dict)


@dataclass(slots=True)
class _Trace:
    key: bytes
    ctx: Context
    spans: list[_Span] = field(default_factory=list)

    def split(self, owner: Doc, ptr: str) -> tuple[Doc, c.Attrs]:
        """``owner`` without the named ``extra.otel_attributes`` the inverse step wrote (read
        back only where the context allows), and those attributes."""
        extra = owner.get("extra")
        if not isinstance(extra, dict) or not self.ctx.read(f"{ptr}/extra/{c.KEPT_KEY}"):
            return owner, {}
        rest = {k: v for k, v in extra.items() if k != c.KEPT_KEY}
        out = {k: v for k, v in owner.items() if k != "extra"}
        if rest:
            out["extra"] = rest
        return out, c.obj(extra[c.KEPT_KEY])

    def add(self, span: _Span) -> str:
        self.spans.append(span)
        return c.span_id(self.key, span.pointer)

    def agent(self, doc: Doc, ptr: str, parent: str | None, base: int) -> None:
        """The spans of one trajectory (the root, or an embedded subagent at ``ptr``)."""
        doc, kept = self.split(doc, ptr)
        agent = c.obj(doc.get("agent"))
        root = _Span(
            ptr, parent, f"{c.INVOKE_AGENT} {agent.get('name', '')}".strip(), 1, base, base
        )
        root.attrs = _agent_attrs(doc, agent)
        first = len(self.spans)
        root_id = self.add(root)
        steps = [s for s in doc.get("steps") or () if isinstance(s, dict)]
        times = c.step_times(steps, base)
        subs = [s for s in doc.get("subagent_trajectories") or () if isinstance(s, dict)]
        done: set[int] = set()
        pending: list[Doc] = []
        for index, step in enumerate(steps):
            start, synthesized = times[index]
            end = max(start, times[index + 1][0]) if index + 1 < len(times) else start
            if step.get("source") != "agent":
                pending.append(input_message(step))
                continue
            model = agent.get("model_name")
            self._step(
                step, f"{ptr}/steps/{index}", root_id, (start, end), synthesized, pending, model
            )
            pending = []
            self._tools(step, f"{ptr}/steps/{index}", root_id, (start, end), (subs, done, ptr))
        root.attrs[c.A_MESSAGES] = pending or None
        root.attrs.update(kept)
        last = times[-1][0] if times else base
        for index, sub in enumerate(subs):
            if index not in done:
                self.agent(sub, f"{ptr}/subagent_trajectories/{index}", root_id, last)
        mine = self.spans[first + 1 :] or [root]
        root.start = min(s.start for s in mine)
        root.end = max(s.end for s in mine)

    def _step(
        self,
        step: Doc,
        ptr: str,
        parent: str,
        when: tuple[int, int],
        synthesized: bool,
        pending: list[Doc],
        default_model: Any,
    ) -> None:
        step, kept = self.split(step, ptr)
        inference = counts(step)
        model = step.get("model_name") or default_model
        name = (f"{c.CHAT} {model}" if model else c.CHAT) if inference else c.STEP_SPAN
        kind = otel.KIND_CLIENT if inference else otel.KIND_INTERNAL
        span = _Span(ptr, parent, name, kind, *when)
        attrs = span.attrs
        if inference:
            attrs[c.OPERATION] = c.CHAT
            attrs[c.PROVIDER] = c.provider(model)
            attrs[c.REQUEST_MODEL] = model
        else:
            attrs[c.REQUEST_MODEL] = step.get("model_name")
        attrs[c.INPUT_MESSAGES] = pending or None
        attrs[c.OUTPUT_MESSAGES] = [output_message(step)]
        metrics = c.obj(step.get("metrics"))
        if inference:
            attrs.update(_usage(metrics))
        attrs[c.A_COST] = metrics.get("cost_usd")
        attrs[c.A_METRICS_EXTRA] = metrics.get("extra")
        attrs[c.A_LLM_CALLS] = step.get("llm_call_count")
        attrs[c.A_COPIED] = step.get("is_copied_context")
        attrs[c.A_EFFORT] = step.get("reasoning_effort")
        attrs[c.A_EXTRA] = step.get("extra")
        attrs[c.A_SYNTHESIZED] = True if synthesized else None
        attrs[c.A_RESULTS] = _unmatched(step) or None
        attrs.update(kept)
        self.add(span)

    def _tools(self, step: Doc, ptr: str, parent: str, when: tuple[int, int], subs: Any) -> None:
        embedded, done, doc_ptr = subs
        for index, call in enumerate(step.get("tool_calls") or ()):
            if not isinstance(call, dict):
                continue
            result = _result_of(step, call)
            call, kept = self.split(call, f"{ptr}/tool_calls/{index}")
            name = f"{c.EXECUTE_TOOL} {call.get('function_name', '')}".strip()
            span = _Span(f"{ptr}/tool_calls/{index}", parent, name, otel.KIND_INTERNAL, *when)
            span.attrs = {
                c.OPERATION: c.EXECUTE_TOOL,
                c.TOOL_NAME: call.get("function_name"),
                c.TOOL_CALL_ID: call.get("tool_call_id"),
                c.TOOL_ARGUMENTS: call.get("arguments"),
                c.A_EXTRA: call.get("extra"),
            }
            if result is not None:
                span.attrs[c.TOOL_RESULT] = result.get("content")
                span.attrs[c.A_RESULT_EXTRA] = result.get("extra")
                span.attrs[c.A_SUBAGENT_REFS] = result.get("subagent_trajectory_ref")
            span.attrs.update(kept)
            tool_id = self.add(span)
            for ref in (result or {}).get("subagent_trajectory_ref") or ():
                found = _embedded(embedded, ref, done)
                if found is not None:
                    done.add(found)
                    sub_ptr = f"{doc_ptr}/subagent_trajectories/{found}"
                    self.agent(embedded[found], sub_ptr, tool_id, when[0])


def _agent_attrs(doc: Doc, agent: Doc) -> c.Attrs:
    return {
        c.OPERATION: c.INVOKE_AGENT,
        c.PROVIDER: c.provider(agent.get("model_name")),
        c.AGENT_NAME: agent.get("name"),
        c.AGENT_VERSION: agent.get("version"),
        c.CONVERSATION: doc.get("session_id"),
        c.REQUEST_MODEL: agent.get("model_name"),
        c.TOOL_DEFINITIONS: agent.get("tool_definitions"),
        c.A_SCHEMA_VERSION: doc.get("schema_version"),
        c.A_TRAJECTORY_ID: doc.get("trajectory_id"),
        c.A_NOTES: doc.get("notes"),
        c.A_FINAL_METRICS: doc.get("final_metrics"),
        c.A_CONTINUED: doc.get("continued_trajectory_ref"),
        c.A_AGENT_EXTRA: agent.get("extra"),
        c.A_EXTRA: doc.get("extra"),
    }


def _usage(metrics: Doc) -> c.Attrs:
    out: c.Attrs = {}
    for name, attr in c.USAGE:
        if _is_int(metrics.get(name)):
            out[attr] = metrics[name]
    extra = c.obj(metrics.get("extra"))
    for name, attr in c.USAGE_EXTRA:
        if _is_int(extra.get(name)):
            out[attr] = extra[name]
    return out


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _results(step: Doc) -> list[Doc]:
    observation = step.get("observation")
    found = observation.get("results") if isinstance(observation, dict) else None
    return [r for r in found if isinstance(r, dict)] if isinstance(found, list) else []


def _matched(step: Doc) -> dict[int, int]:
    """``{id(call): index of its result}``: each call's first result by ``source_call_id``."""
    out: dict[int, int] = {}
    results = _results(step)
    taken: set[int] = set()
    for call in step.get("tool_calls") or ():
        if not isinstance(call, dict):
            continue
        for index, result in enumerate(results):
            if index not in taken and result.get("source_call_id") == call.get("tool_call_id"):
                out[id(call)] = index
                taken.add(index)
                break
    return out


def _result_of(step: Doc, call: Doc) -> Doc | None:
    index = _matched(step).get(id(call))
    return None if index is None else _results(step)[index]


def _unmatched(step: Doc) -> list[Doc]:
    """The step's results that no tool span carries (no call, or a second result of one)."""
    taken = set(_matched(step).values())
    return [r for i, r in enumerate(_results(step)) if i not in taken]


def _embedded(subs: list[Doc], ref: Any, done: set[int]) -> int | None:
    wanted = ref.get("trajectory_id") if isinstance(ref, dict) else None
    for index, sub in enumerate(subs):
        if index not in done and wanted is not None and sub.get("trajectory_id") == wanted:
            return index
    return None


def _encode(span: _Span, key: bytes, convention: str) -> Doc:
    attrs = to_openinference(span.attrs) if convention == "openinference" else span.attrs
    out: Doc = {"traceId": c.trace_id(key), "spanId": c.span_id(key, span.pointer)}
    if span.parent is not None:
        out["parentSpanId"] = span.parent
    out |= {
        "name": span.name,
        "kind": span.kind,
        "startTimeUnixNano": str(span.start),
        "endTimeUnixNano": str(span.end),
        "attributes": c.attributes_out(attrs),
    }
    return out


def _named(doc: Doc, ctx: Context) -> tuple[Doc, c.Attrs]:
    """``doc`` without the named keys the inverse step wrote into its root ``extra`` (read back
    only where ``ctx.read`` allows), and their values."""
    extra = doc.get("extra")
    if not isinstance(extra, dict):
        return doc, {}
    found = {k: extra[k] for k in c.ROOT_NAMED if k in extra and ctx.read(f"/extra/{k}")}
    if not found:
        return doc, {}
    rest = {k: v for k, v in extra.items() if k not in found}
    out = {k: v for k, v in doc.items() if k != "extra"}
    if rest:
        out["extra"] = rest
    return out, found


def to_otel(doc: Doc, ctx: Context) -> Doc:
    """The OTLP/JSON ``TracesData`` of an ATIF v1.8 document."""
    doc, named = _named(doc, ctx)
    unplaced = list(named.get(c.UNPLACED_KEY) or ())
    convention = named.get(c.CONVENTION_KEY) or ctx.options.otel_convention
    key = c.document_key(doc)
    trace = _Trace(key, ctx)
    agent = c.obj(doc.get("agent"))
    trace.agent(doc, "", None, 0)
    spans = [_encode(span, key, convention) for span in trace.spans]
    service = {"service.name": agent.get("name") or c.UNKNOWN}
    trace_id = c.trace_id(key)  # a kept span joins this trace (its parent id is kept as it was)
    kept = [{**s, "traceId": trace_id} if isinstance(s, dict) else s for s in unplaced]
    scope: Doc = {"scope": {"name": c.SCOPE}, "spans": [*spans, *kept]}
    scope["schemaUrl"] = otel.SCHEMA_URL
    resource = {"resource": {"attributes": c.attributes_out(service)}, "scopeSpans": [scope]}
    return {"resourceSpans": [resource]}
