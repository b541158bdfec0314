"""OTLP/JSON (GenAI or OpenInference spans, any producer) → ATIF v1.8 (spec/otel/MAPPING.md).

A document is one ``TracesData`` holding one trace (``atif convert`` gathers each trace's spans
from every line of a file: ``validation.reader.by_trace``); it becomes one ATIF document. The root
``invoke_agent`` span (or the whole trace, when there is none) is the trajectory; its
descendants are read in start order: a ``chat`` span (or ``atif.step``) is an agent step, the
new messages of its input (a span that repeats the whole history is de-duplicated) the steps
before it; an ``execute_tool`` span is attached to the call with its ``gen_ai.tool.call.id``
(its result an observation result); an ``invoke_agent`` span below is an embedded subagent,
referenced from the result of the tool span above it. Spans of no other kind are kept whole in
the root ``extra`` (``otel_unplaced_spans``, named); their children are read as if theirs were
the parent's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from atif_spec.formats import otel
from atif_spec.jsonio.jsontext import dumps
from atif_spec.transforms.driver import Context
from atif_spec.transforms.fields import ABSENT, FreeForm
from atif_spec.transforms.lenses.otel import common as c
from atif_spec.transforms.lenses.otel import messages as m
from atif_spec.transforms.lenses.otel.openinference import from_openinference, is_openinference

Doc = dict[str, Any]


@dataclass(slots=True)
class _Node:
    span: Doc
    attrs: c.Attrs
    order: tuple[int, int]
    children: list[_Node] = field(default_factory=list)

    @property
    def role(self) -> str | None:
        operation = self.attrs.get(c.OPERATION)
        if operation == c.INVOKE_AGENT:
            return "agent"
        if operation in c.INFERENCE_OPERATIONS or self.span.get("name") == c.STEP_SPAN:
            return "step"
        if operation == c.EXECUTE_TOOL:
            return "tool"
        return None


def _tree(spans: list[Doc]) -> list[_Node]:
    """The roots of the span tree, children in start order (ties: document order)."""
    nodes: dict[str, _Node] = {}
    ordered: list[_Node] = []
    for index, span in enumerate(spans):
        attrs = c.attributes_in(span.get("attributes"))
        if is_openinference(attrs):
            attrs = from_openinference(attrs, str(span.get("name")))
        start = _int(span.get("startTimeUnixNano"))
        node = _Node(span, attrs, (start, index))
        ordered.append(node)
        nodes.setdefault(str(span.get("spanId")), node)
    roots: list[_Node] = []
    for node in ordered:
        parent = nodes.get(str(node.span.get("parentSpanId") or ""))
        (parent.children if parent is not None and parent is not node else roots).append(node)
    for node in ordered:
        node.children.sort(key=lambda n: n.order)
    roots.sort(key=lambda n: n.order)
    return roots


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


@dataclass(slots=True)
class _Agent:
    """One trajectory being read (the root, or an embedded subagent)."""

    reader: _Reader
    model: Any
    steps: list[Doc] = field(default_factory=list)
    subs: list[Doc] = field(default_factory=list)
    history: list[bytes] = field(default_factory=list)

    def walk(self, node: _Node) -> None:
        for child in node.children:
            self.visit(child)

    def visit(self, node: _Node) -> None:
        role = node.role
        if role == "step":
            self._step(node)
            self.walk(node)
        elif role == "tool":
            self._tool(node)
        elif role == "agent":
            self.subs.append(self.reader.agent(node, self._sub_ids()))
        else:
            self.reader.unplaced.append(node.span)
            self.walk(node)

    def _sub_ids(self) -> set[str]:
        return {s["trajectory_id"] for s in self.subs}

    def messages(self, messages: Any) -> None:
        """Steps of the input messages the trace has not shown yet."""
        new = m.new_messages(messages if isinstance(messages, list) else [], self.history)
        for message in new:
            if not isinstance(message, dict):
                continue
            role = message.get("role")
            parts = [p for p in message.get("parts") or () if isinstance(p, dict)]
            if role == "tool":
                self._responses(parts)
            elif role == "assistant":
                step = _agent_step(parts)
                step["is_copied_context"] = True
                self._add(step, message)
            else:
                source = "system" if role == "system" else "user"
                self._add({"source": source, "message": m.message_of(parts)}, message)

    def _add(self, step: Doc, message: Doc) -> None:
        self.steps.append({"step_id": len(self.steps) + 1, **step})
        self.history.append(m.fingerprint(message))

    def _responses(self, parts: list[Doc]) -> None:
        for part in parts:
            if part.get("type") != "tool_call_response":
                continue
            step = self._step_of_call(part.get("id"))
            if step is None or _has_result(step, part.get("id")):
                continue
            response = part.get("response")
            content = response if isinstance(response, str) else dumps(response).decode()
            _results(step).append({"source_call_id": part.get("id"), "content": content})

    def _step_of_call(self, call_id: Any) -> Doc | None:
        for step in reversed(self.steps):
            for call in step.get("tool_calls") or ():
                if call.get("tool_call_id") == call_id:
                    return step
        return None

    def _step(self, node: _Node) -> None:
        attrs = node.attrs
        instructions = attrs.get(c.SYSTEM_INSTRUCTIONS)
        if isinstance(instructions, list) and not self.steps:
            message = {"role": "system", "parts": instructions}
            self._add({"source": "system", "message": m.message_of(instructions)}, message)
        self.messages(attrs.get(c.INPUT_MESSAGES))
        outputs = attrs.get(c.OUTPUT_MESSAGES)
        output = (
            next((o for o in outputs if isinstance(o, dict)), {})
            if isinstance(outputs, list)
            else {}
        )
        parts = [p for p in output.get("parts") or () if isinstance(p, dict)]
        step = _agent_step(parts)
        model = attrs.get(c.RESPONSE_MODEL) or attrs.get(c.REQUEST_MODEL)
        if model is not None and model != self.model:
            step["model_name"] = model
        _step_fields(step, attrs, node)
        self.reader.keep(step, attrs)
        self._add(step, {"role": "assistant", "parts": parts})

    def _tool(self, node: _Node) -> None:
        attrs = node.attrs
        call_id = attrs.get(c.TOOL_CALL_ID)
        step = self._step_of_call(call_id) if call_id is not None else None
        if step is None:
            step = self._orphan_call(attrs, node)
            call_id = step["tool_calls"][-1]["tool_call_id"]
        subs = [
            self.reader.agent(child, self._sub_ids())
            for child in node.children
            if child.role == "agent"
        ]
        self.subs.extend(subs)
        call = next(x for x in step["tool_calls"] if x.get("tool_call_id") == call_id)
        if isinstance(attrs.get(c.A_EXTRA), dict) and "extra" not in call:
            call["extra"] = attrs[c.A_EXTRA]
        self.reader.keep(call, attrs)
        result: Doc = {"source_call_id": call_id}
        if c.TOOL_RESULT in attrs:
            result["content"] = _content(attrs[c.TOOL_RESULT])
        refs = attrs.get(c.A_SUBAGENT_REFS)
        if not isinstance(refs, list) and subs:
            refs = [{"trajectory_id": s["trajectory_id"]} for s in subs]
        if isinstance(refs, list):
            result["subagent_trajectory_ref"] = refs
        if isinstance(attrs.get(c.A_RESULT_EXTRA), dict):
            result["extra"] = attrs[c.A_RESULT_EXTRA]
        if len(result) > 1:
            _results(step).append(result)
            response = {"type": "tool_call_response", "id": call_id}
            self.history.append(m.fingerprint({"role": "tool", "parts": [response]}))
        for child in node.children:
            if child.role != "agent":
                self.visit(child)

    def _orphan_call(self, attrs: c.Attrs, node: _Node) -> Doc:
        """A tool span no call names: its call is added to the last agent step (a new agent
        step with no inference when there is none)."""
        arguments = attrs.get(c.TOOL_ARGUMENTS)
        call = {
            "tool_call_id": attrs.get(c.TOOL_CALL_ID) or str(node.span.get("spanId")),
            "function_name": str(attrs.get(c.TOOL_NAME) or node.span.get("name") or ""),
            "arguments": arguments if isinstance(arguments, dict) else {},
        }
        agents = [s for s in self.steps if s["source"] == "agent"]
        if agents and not agents[-1].get("is_copied_context"):
            agents[-1].setdefault("tool_calls", []).append(call)
            return agents[-1]
        step = {"source": "agent", "message": "", "tool_calls": [call], "llm_call_count": 0}
        self._add(step, {"role": "assistant", "parts": []})
        return self.steps[-1]


def _agent_step(parts: list[Doc]) -> Doc:
    step: Doc = {"source": "agent", "message": m.message_of(parts)}
    reasoning = m.reasoning_of(parts)
    if reasoning is not None:
        step["reasoning_content"] = reasoning
    calls = m.tool_calls_of(parts)
    if calls:
        step["tool_calls"] = calls
    return step


def _step_fields(step: Doc, attrs: c.Attrs, node: _Node) -> None:
    if not attrs.get(c.A_SYNTHESIZED):
        start = _int(node.span.get("startTimeUnixNano"))
        step["timestamp"] = c.iso(start)
    if attrs.get(c.A_EFFORT) is not None:
        step["reasoning_effort"] = attrs[c.A_EFFORT]
    if isinstance(attrs.get(c.A_RESULTS), list):
        step["observation"] = {"results": list(attrs[c.A_RESULTS])}
    metrics = _metrics(attrs)
    if metrics:
        step["metrics"] = metrics
    for key, attr in (("is_copied_context", c.A_COPIED), ("llm_call_count", c.A_LLM_CALLS)):
        if attrs.get(attr) is not None:
            step[key] = attrs[attr]
    if isinstance(attrs.get(c.A_EXTRA), dict):
        step["extra"] = attrs[c.A_EXTRA]


def _metrics(attrs: c.Attrs) -> Doc:
    metrics: Doc = {}
    for name, attr in c.USAGE:
        if isinstance(attrs.get(attr), int):
            metrics[name] = attrs[attr]
    if attrs.get(c.A_COST) is not None:
        metrics["cost_usd"] = attrs[c.A_COST]
    extra = attrs.get(c.A_METRICS_EXTRA)
    if not isinstance(extra, dict):
        extra = {n: attrs[a] for n, a in c.USAGE_EXTRA if isinstance(attrs.get(a), int)}
    if extra:
        metrics["extra"] = extra
    return metrics


def _results(step: Doc) -> list[Doc]:
    observation = step.setdefault("observation", {"results": []})
    results: list[Doc] = observation.setdefault("results", [])
    return results


def _has_result(step: Doc, call_id: Any) -> bool:
    observation = step.get("observation") or {}
    return any(r.get("source_call_id") == call_id for r in observation.get("results") or ())


def _content(value: Any) -> Any:
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, list) and all(isinstance(p, dict) and "type" in p for p in value):
        return value
    return dumps(value).decode("utf-8")


@dataclass(slots=True)
class _Reader:
    unplaced: list[Doc] = field(default_factory=list)
    kept: set[int] = field(default_factory=set)
    """Identities of the ``extra`` objects that got a named ``otel_attributes``."""

    def keep(self, owner: Doc, attrs: c.Attrs) -> None:
        """Put the span's unread attributes into ``owner``'s ``extra`` (named), unless a
        producer's own ``extra`` has that key."""
        unread = c.unread(attrs)
        extra = c.obj(owner.get("extra"))
        if unread and c.KEPT_KEY not in extra:
            owner["extra"] = {**extra, c.KEPT_KEY: unread}
            self.kept.add(id(owner["extra"]))

    def agent(self, node: _Node, taken: set[str] | None = None) -> Doc:
        """The trajectory of an ``invoke_agent`` span (the root: ``taken`` is None)."""
        attrs = node.attrs
        model = attrs.get(c.REQUEST_MODEL)
        reading = _Agent(self, model)
        reading.walk(node)
        reading.messages(attrs.get(c.A_MESSAGES))
        steps = reading.steps or [{"step_id": 1, "source": "system", "message": ""}]
        doc = _head(node, taken)
        doc["agent"] = _agent(attrs)
        doc["steps"] = [_ordered(step) for step in steps]
        for key, attr in (("notes", c.A_NOTES), ("continued_trajectory_ref", c.A_CONTINUED)):
            if attrs.get(attr) is not None:
                doc[key] = attrs[attr]
        final = attrs.get(c.A_FINAL_METRICS)
        if final is None:
            final = _totals(attrs)
        if final is not None:
            doc["final_metrics"] = final
        if isinstance(attrs.get(c.A_EXTRA), dict):
            doc["extra"] = attrs[c.A_EXTRA]
        if reading.subs:
            doc["subagent_trajectories"] = reading.subs
        self.keep(doc, attrs)
        return doc


def _kept(doc: Doc, ptr: str, kept: set[int]) -> list[str]:
    """Pointers of the named ``otel_attributes`` in ``doc`` and its embedded subagents."""
    owners: list[tuple[str, Any]] = [(ptr, doc)]
    for i, step in enumerate(doc.get("steps") or ()):
        owners.append((f"{ptr}/steps/{i}", step))
        calls = step.get("tool_calls") or ()
        owners.extend((f"{ptr}/steps/{i}/tool_calls/{j}", call) for j, call in enumerate(calls))
    found = [f"{p}/extra/{c.KEPT_KEY}" for p, o in owners if id(o.get("extra")) in kept]
    for k, sub in enumerate(doc.get("subagent_trajectories") or ()):
        found.extend(_kept(sub, f"{ptr}/subagent_trajectories/{k}", kept))
    return found


def _head(node: _Node, taken: set[str] | None) -> Doc:
    """``schema_version``, ``session_id`` and ``trajectory_id`` of an agent span's trajectory
    (an embedded subagent's version its own, its id fresh among ``taken``)."""
    attrs = node.attrs
    doc: Doc = {"schema_version": c.SCHEMA_VERSION}
    if taken is not None:
        version = attrs.get(c.A_SCHEMA_VERSION)
        doc["schema_version"] = version if isinstance(version, str) else c.SCHEMA_VERSION
    for key, attr in (("session_id", c.CONVERSATION), ("trajectory_id", c.A_TRAJECTORY_ID)):
        if isinstance(attrs.get(attr), str):
            doc[key] = attrs[attr]
    if taken is not None and "trajectory_id" not in doc:
        wanted = attrs.get(c.AGENT_ID)
        wanted = wanted if isinstance(wanted, str) else str(node.span.get("spanId"))
        doc["trajectory_id"] = _fresh(wanted, taken)
    return doc


_STEP_ORDER = (
    "step_id",
    "timestamp",
    "source",
    "model_name",
    "reasoning_effort",
    "message",
    "reasoning_content",
    "tool_calls",
    "observation",
    "metrics",
    "is_copied_context",
    "llm_call_count",
    "extra",
)


def _ordered(step: Doc) -> Doc:
    """``step`` with its members in the schema's order (easier to read; not data)."""
    return {k: step[k] for k in _STEP_ORDER if k in step}


def _fresh(wanted: str, taken: set[str]) -> str:
    name, n = wanted, 1
    while name in taken:
        n += 1
        name = f"{wanted}-{n}"
    return name


def _agent(attrs: c.Attrs) -> Doc:
    agent: Doc = {
        "name": str(attrs.get(c.AGENT_NAME) or c.UNKNOWN),
        "version": str(attrs.get(c.AGENT_VERSION) or c.UNKNOWN),
    }
    if isinstance(attrs.get(c.REQUEST_MODEL), str):
        agent["model_name"] = attrs[c.REQUEST_MODEL]
    if isinstance(attrs.get(c.TOOL_DEFINITIONS), list):
        agent["tool_definitions"] = attrs[c.TOOL_DEFINITIONS]
    if isinstance(attrs.get(c.A_AGENT_EXTRA), dict):
        agent["extra"] = attrs[c.A_AGENT_EXTRA]
    return agent


def _totals(attrs: c.Attrs) -> Doc | None:
    """``final_metrics`` of another producer's ``invoke_agent`` usage (its totals)."""
    names = ("total_prompt_tokens", "total_completion_tokens", "total_cached_tokens")
    found = {
        total: attrs[attr]
        for total, (_, attr) in zip(names, c.USAGE, strict=True)
        if isinstance(attrs.get(attr), int)
    }
    return found or None


def to_atif(doc: Doc, ctx: Context) -> Doc:
    """The ATIF v1.8 document of one OTLP/JSON ``TracesData`` (one trace)."""
    spans = otel.spans(doc)
    traces = sorted({str(s.get("traceId")).lower() for s in spans})
    if not spans:
        raise ctx.refuse("otel-no-spans", "/resourceSpans", "the document holds no span")
    if len(traces) > 1:
        message = (
            f"the document holds {len(traces)} traces; one document is one trace "
            "(`atif convert` reads an OTLP/JSON file one trace per document)"
        )
        raise ctx.refuse("otel-several-traces", "/resourceSpans", message)
    roots = _tree(spans)
    reader = _Reader()
    agents = [r for r in roots if r.role == "agent"]
    top = agents[0] if agents else _Node({}, {}, (0, 0), roots)
    for root in roots:
        if root is not top and top.span:
            reader.unplaced.append(root.span)
            top.children.extend(root.children)
    out = reader.agent(top)
    for pointer in _kept(out, "", reader.kept):
        ctx.name(pointer, pointer, "attributes of the span that have no ATIF field")
    named: c.Attrs = {c.UNPLACED_KEY: reader.unplaced or None}
    asked = ctx.options.otel_convention
    if asked != "openinference" and any(
        is_openinference(c.attributes_in(s.get("attributes"))) for s in spans
    ):
        named[c.CONVENTION_KEY] = "openinference"
    extra = FreeForm(out.get("extra", ABSENT), "/extra", ctx)
    for key, value in named.items():
        if value is not None:
            extra.put(key, value, "/resourceSpans", "/extra")
    extra.place(out)
    return out
