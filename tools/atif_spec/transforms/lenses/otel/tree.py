"""The span tree of an ATIF document (RFC.md §7.1, spec/otel/MAPPING.md): which spans, under
which parent, from when to when. :mod:`.to_otel` gives each span its attributes; ``atif view``
draws the same tree as a waterfall.

In document order (each span before its children): an ``invoke_agent`` span per trajectory; per
agent step a ``chat`` span (an inference) or an ``atif.step`` span (none); per tool call an
``execute_tool`` span, followed by the spans of the embedded subagents its result references;
the embedded subagents no result references come last, under their trajectory's span.

Times (MAPPING.md): a step's start is its ``timestamp``, else synthesized
(:func:`~atif_spec.transforms.lenses.otel.common.step_times`); its end is the next step's start
in the same trajectory (else its own start). A tool span has its step's times; a subagent starts
from its launching step's start (the trajectory's last step's for one nothing launched); an
``invoke_agent`` span reaches from the earliest start to the latest end of its spans.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from atif_spec.formats import otel
from atif_spec.formats.totals import counts
from atif_spec.jsonio.jsonvalues import dicts, objects
from atif_spec.transforms.lenses.otel import common as c

Doc = dict[str, Any]
What = Literal["agent", "step", "tool"]


@dataclass(slots=True)
class Span:
    """One span: the member at ``pointer`` (RFC 6901, from the document's root) it stands for,
    its parent's pointer, its name and kind, its start and end (nanoseconds since the epoch)."""

    what: What
    pointer: str
    parent: str | None
    depth: int
    name: str
    kind: int
    start: int
    end: int
    member: Doc
    """The trajectory, step or tool call."""
    start_known: bool = True
    """The start is a ``timestamp`` of the document (not synthesized)."""
    end_known: bool = False
    """The end is a ``timestamp`` of the document (a step's: the next step's own, not earlier)."""
    inputs: list[Doc] = field(default_factory=list)
    """A step span's user and system steps since the agent step before (its input messages); a
    trajectory span's after its last agent step."""
    model: Any = None
    """A step span's model: the step's ``model_name``, else its agent's."""
    step: Doc | None = None
    """A tool span's step (which holds the call's result)."""


def span_tree(doc: Doc) -> list[Span]:
    """The spans of ``doc`` (an ATIF document with its embedded subagents), parents first."""
    out: list[Span] = []
    _agent(out, doc, "", None, 0, 0)
    return out


def _agent(out: list[Span], doc: Doc, ptr: str, parent: str | None, depth: int, base: int) -> None:
    agent = c.obj(doc.get("agent"))
    name = f"{c.INVOKE_AGENT} {agent.get('name', '')}".strip()
    root = Span("agent", ptr, parent, depth, name, otel.KIND_INTERNAL, base, base, doc)
    first = len(out)
    out.append(root)
    steps = list(objects(doc.get("steps")))
    times = c.step_times(steps, base)
    subs = list(objects(doc.get("subagent_trajectories")))
    done: set[int] = set()
    pending: list[Doc] = []
    for index, step in enumerate(steps):
        if step.get("source") != "agent":
            pending.append(step)
            continue
        span = _step(step, f"{ptr}/steps/{index}", root, times, index)
        span.model = step.get("model_name") or agent.get("model_name")
        if counts(step):
            span.name = f"{c.CHAT} {span.model}" if span.model else c.CHAT
        span.inputs, pending = pending, []
        out.append(span)
        _tools(out, span, (subs, done, ptr))
    root.inputs = pending
    last = times[-1][0] if times else base
    for index, sub in enumerate(subs):
        if index not in done:
            _agent(out, sub, f"{ptr}/subagent_trajectories/{index}", ptr, depth + 1, last)
    _envelope(root, out[first + 1 :])


def _step(step: Doc, ptr: str, root: Span, times: list[tuple[int, bool]], index: int) -> Span:
    start, synthesized = times[index]
    after = times[index + 1] if index + 1 < len(times) else None
    end = max(start, after[0]) if after else start
    kind = otel.KIND_CLIENT if counts(step) else otel.KIND_INTERNAL
    span = Span("step", ptr, root.pointer, root.depth + 1, c.STEP_SPAN, kind, start, end, step)
    span.start_known = not synthesized
    span.end_known = after is not None and not after[1] and not synthesized and after[0] >= start
    return span


def _tools(out: list[Span], step: Span, subs: Any) -> None:
    embedded, done, doc_ptr = subs
    for index, call in dicts(step.member.get("tool_calls")):
        name = f"{c.EXECUTE_TOOL} {call.get('function_name', '')}".strip()
        ptr = f"{step.pointer}/tool_calls/{index}"
        span = Span("tool", ptr, step.parent, step.depth, name, otel.KIND_INTERNAL, 0, 0, call)
        span.start, span.end = step.start, step.end
        span.start_known, span.end_known, span.step = step.start_known, step.end_known, step.member
        out.append(span)
        for ref in objects(c.obj(result_of(step.member, call)).get("subagent_trajectory_ref")):
            found = _embedded(embedded, ref, done)
            if found is not None:
                done.add(found)
                sub_ptr = f"{doc_ptr}/subagent_trajectories/{found}"
                _agent(out, embedded[found], sub_ptr, ptr, step.depth + 1, step.start)


def _envelope(root: Span, mine: list[Span]) -> None:
    """``root`` from the earliest start to the latest end of its spans, ``mine``."""
    if not mine:
        root.start_known = False
        return
    root.start = min(s.start for s in mine)
    root.end = max(s.end for s in mine)
    root.start_known = any(s.start_known and s.start == root.start for s in mine)
    root.end_known = any(
        (s.end_known and s.end == root.end) or (s.start_known and s.start == root.end) for s in mine
    )


def results(step: Doc) -> list[Doc]:
    """The results of a step's observation (objects only)."""
    return list(objects(c.obj(step.get("observation")).get("results")))


def matched(step: Doc) -> dict[int, int]:
    """``{id(call): index of its result}``: each call's first result by ``source_call_id``."""
    out: dict[int, int] = {}
    found = results(step)
    taken: set[int] = set()
    for call in objects(step.get("tool_calls")):
        for index, result in enumerate(found):
            if index not in taken and result.get("source_call_id") == call.get("tool_call_id"):
                out[id(call)] = index
                taken.add(index)
                break
    return out


def result_of(step: Doc, call: Doc) -> Doc | None:
    """The result of ``call`` (a tool call of ``step``), or None."""
    index = matched(step).get(id(call))
    return None if index is None else results(step)[index]


def _embedded(subs: list[Doc], ref: Any, done: set[int]) -> int | None:
    wanted = ref.get("trajectory_id") if isinstance(ref, dict) else None
    for index, sub in enumerate(subs):
        if index not in done and wanted is not None and sub.get("trajectory_id") == wanted:
            return index
    return None
