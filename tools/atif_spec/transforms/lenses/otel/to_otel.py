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

from dataclasses import dataclass
from typing import Any

from atif_spec.formats import otel
from atif_spec.formats.totals import counts
from atif_spec.transforms.driver import Context
from atif_spec.transforms.lenses.otel import common as c
from atif_spec.transforms.lenses.otel import tree
from atif_spec.transforms.lenses.otel.messages import input_message, output_message
from atif_spec.transforms.lenses.otel.openinference import to_openinference
from atif_spec.transforms.lenses.otel.tree import Span, span_tree

Doc = dict[str, Any]


@dataclass(slots=True)
class _Trace:
    key: bytes
    ctx: Context

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

    def attrs(self, span: Span) -> c.Attrs:
        """The attributes of a span of the tree."""
        member, kept = self.split(span.member, span.pointer)
        if span.what == "agent":
            out = _agent_attrs(member, c.obj(member.get("agent")))
            out[c.A_MESSAGES] = [input_message(s) for s in span.inputs] or None
        elif span.what == "step":
            out = _step_attrs(member, span)
        else:
            out = _tool_attrs(member, tree.result_of(span.step or {}, span.member))
        out.update(kept)
        return out


def _step_attrs(step: Doc, span: Span) -> c.Attrs:
    inference = counts(step)
    attrs: c.Attrs = {}
    if inference:
        attrs[c.OPERATION] = c.CHAT
        attrs[c.PROVIDER] = c.provider(span.model)
        attrs[c.REQUEST_MODEL] = span.model
    else:
        attrs[c.REQUEST_MODEL] = step.get("model_name")
    attrs[c.INPUT_MESSAGES] = [input_message(s) for s in span.inputs] or None
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
    attrs[c.A_SYNTHESIZED] = None if span.start_known else True
    attrs[c.A_RESULTS] = _unmatched(step) or None
    return attrs


def _tool_attrs(call: Doc, result: Doc | None) -> c.Attrs:
    attrs: c.Attrs = {
        c.OPERATION: c.EXECUTE_TOOL,
        c.TOOL_NAME: call.get("function_name"),
        c.TOOL_CALL_ID: call.get("tool_call_id"),
        c.TOOL_ARGUMENTS: call.get("arguments"),
        c.A_EXTRA: call.get("extra"),
    }
    if result is not None:
        attrs[c.TOOL_RESULT] = result.get("content")
        attrs[c.A_RESULT_EXTRA] = result.get("extra")
        attrs[c.A_SUBAGENT_REFS] = result.get("subagent_trajectory_ref")
    return attrs


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


def _unmatched(step: Doc) -> list[Doc]:
    """The step's results that no tool span carries (no call, or a second result of one)."""
    taken = set(tree.matched(step).values())
    return [r for i, r in enumerate(tree.results(step)) if i not in taken]


def _encode(span: Span, attrs: c.Attrs, key: bytes, convention: str) -> Doc:
    attrs = to_openinference(attrs) if convention == "openinference" else attrs
    out: Doc = {"traceId": c.trace_id(key), "spanId": c.span_id(key, span.pointer)}
    if span.parent is not None:
        out["parentSpanId"] = c.span_id(key, span.parent)
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
    spans = [_encode(span, trace.attrs(span), key, convention) for span in span_tree(doc)]
    service = {"service.name": agent.get("name") or c.UNKNOWN}
    trace_id = c.trace_id(key)  # a kept span joins this trace (its parent id is kept as it was)
    kept = [{**s, "traceId": trace_id} if isinstance(s, dict) else s for s in unplaced]
    scope: Doc = {"scope": {"name": c.SCOPE}, "spans": [*spans, *kept]}
    scope["schemaUrl"] = otel.SCHEMA_URL
    resource = {"resource": {"attributes": c.attributes_out(service)}, "scopeSpans": [scope]}
    return {"resourceSpans": [resource]}
