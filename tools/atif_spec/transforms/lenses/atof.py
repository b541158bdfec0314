"""ATOF 0.1 → ATIF v1.7: the steps an event stream describes (spec/atof/MAPPING.md).

``forward`` reads the events in time order (as nat's converter does: ``read_jsonl`` sorts them)
and builds the steps the way ``nvidia-nat-atif``'s ATOF → ATIF converter does for the shapes it
reads by default (OpenAI chat-completions payloads, ``{result: ...}`` tool payloads, role marks):
each new user or system message of an ``llm`` scope's request is a step of that source; the end
of an ``llm`` scope is an agent step (its text, tool calls, model and token usage); the ends of
``tool`` scopes are the observation results of the agent step before them; a mark with data is a
step; the end of another scope is a system step (an agent step at the root). Where we differ
from nat, spec/atof/DECISIONS.md (ATOF-L*) says why.

There is no lens out of ATIF (RFC.md §7): a trajectory has no scope ids, parents or times of
scopes to give back. ``backward`` is the rebuild the stash is measured against (RFC.md §4.5),
in the shape nat writes: an agent scope around an ``llm`` scope per agent step (the user and
system steps before it as its request; a ``tool`` scope per result after it) and a mark per other
step; what it cannot rebuild (ids, times, payloads as written) is the patch, so nothing of the
stream is lost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from atif_spec.formats import atof
from atif_spec.jsonio.jsontext import dumps, loads
from atif_spec.transforms import driver

SOURCE = "atof@v0.1"
TARGET = "atif@v1.7"
SCHEMA_VERSION = "ATIF-v1.7"
_NOT_STEPS = frozenset({"llm", "tool", "agent", "context"})
"""Categories whose scope ends are not steps of their own (nat: the catch-all branch)."""


def compact(value: Any) -> str:
    """``value`` as compact JSON text (nat: ``json.dumps(..., separators=(",", ":"))``)."""
    return dumps(value).decode("utf-8")


def _path(data: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(data, dict):
            data = data.get(part)
        elif isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        else:
            return None
    return data


def _first(data: Any, *paths: str) -> Any:
    for path in paths:
        found = _path(data, path)
        if found is not None:
            return found
    return None


def input_messages(data: Any) -> list[dict[str, Any]]:
    """The request's messages (``content.messages`` or ``messages``)."""
    found = _first(data, "content.messages", "messages")
    return [m for m in found if isinstance(m, dict)] if isinstance(found, list) else []


def output_text(data: Any) -> str:
    """The response's text (``content`` or ``choices.0.message.content``); empty when none."""
    found = _first(data, "content", "choices.0.message.content")
    return found if isinstance(found, str) else ""


def _arguments(value: Any) -> Any:
    if value is None:
        return {}
    if isinstance(value, str):
        try:
            return loads(value)
        except ValueError:
            return {"raw": value}
    return value


def tool_calls(data: Any) -> list[dict[str, Any]]:
    """The response's tool calls as ATIF tool calls (flat or ``choices.0.message`` shapes)."""
    found = _first(data, "tool_calls", "choices.0.message.tool_calls")
    if not isinstance(found, list):
        return []
    return [
        {
            "tool_call_id": call.get("id"),
            "function_name": _first(call, "name", "function.name") or "",
            "arguments": _arguments(_first(call, "arguments", "function.arguments")),
        }
        for call in found
        if isinstance(call, dict)
    ]


def tool_result(data: Any) -> str | None:
    """A tool scope's result: ``{result|output: X}`` unwrapped, else compact JSON."""
    if data is None:
        return None
    if isinstance(data, dict):
        if len(data) == 1 and next(iter(data)) in ("result", "output"):
            value = next(iter(data.values()))
            return str(value) if isinstance(value, (str, int, float, bool)) else compact(value)
        return compact(data)
    return data if isinstance(data, str) else str(data)


def root_message(data: Any) -> str | None:
    """A root scope's payload as a message (nat's ``_serialize_root_data``)."""
    if data is None or data == {}:
        return None
    if isinstance(data, str):
        return data
    if isinstance(data, dict) and len(data) == 1:
        value = next(iter(data.values()))
        if isinstance(value, str):
            return value
    return compact(data)


def usage(data: Any) -> dict[str, int] | None:
    """ATIF metrics of an ``llm`` response's ``usage`` (OpenAI or Anthropic names)."""
    found = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(found, dict):
        return None
    metrics: dict[str, int] = {}
    for target, names in (
        ("prompt_tokens", ("prompt_tokens", "input_tokens")),
        ("completion_tokens", ("completion_tokens", "output_tokens")),
    ):
        value = _first(found, *names)
        if isinstance(value, int) and not isinstance(value, bool):
            metrics[target] = value
    return metrics or None


def timestamp(value: Any) -> str | None:
    """An event time as ATIF's RFC 3339 text (an integer of microseconds in UTC, ``Z``)."""
    if isinstance(value, str):
        return value
    at = atof.micros(value)
    if at is None:
        return None
    moment = datetime.fromtimestamp(at // 1_000_000, UTC).replace(microsecond=at % 1_000_000)
    return moment.isoformat().replace("+00:00", "Z")


@dataclass
class _Steps:
    """The steps built so far and the tool results waiting for their agent step."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    results_at: Any = None
    agent: int | None = None
    seen: dict[tuple[Any, str], set[str]] = field(default_factory=dict)
    tool_args: dict[Any, Any] = field(default_factory=dict)
    tool_names: dict[Any, Any] = field(default_factory=dict)

    def add(self, step: dict[str, Any], *, agent: bool = False) -> None:
        self.steps.append({k: v for k, v in step.items() if v is not None})
        self.agent = len(self.steps) - 1 if agent else None

    def flush(self) -> None:
        """Attach the waiting results to the agent step before them, or to a system step."""
        if not self.results:
            return
        if self.agent is not None:
            self.steps[self.agent]["observation"] = {"results": self.results}
        else:
            at = timestamp(self.results_at)
            self.add({"source": "system", "message": "", "timestamp": at})
            self.steps[-1]["observation"] = {"results": self.results}
        self.results, self.results_at = [], None


def _llm_start(state: _Steps, event: dict[str, Any]) -> None:
    state.flush()
    for message in input_messages(event.get("data")):
        role, content = message.get("role"), message.get("content")
        if role not in ("user", "system") or not isinstance(content, (str, list)):
            continue
        key = content if isinstance(content, str) else compact(content)
        seen = state.seen.setdefault((event.get("parent_uuid"), role), set())
        if key not in seen:
            seen.add(key)
            state.add({"source": role, "message": content, "timestamp": _at(event)})


def _llm_end(state: _Steps, event: dict[str, Any]) -> None:
    state.flush()
    data = event.get("data")
    calls = tool_calls(data)
    step = {
        "source": "agent",
        "message": output_text(data),
        "timestamp": _at(event),
        "model_name": atof.profile(event).get("model_name") or event.get("name"),
        "llm_call_count": 1,
        "tool_calls": calls or None,
        "metrics": usage(data),
    }
    state.add(step, agent=True)


def _tool_end(state: _Steps, event: dict[str, Any]) -> None:
    call_id = atof.profile(event).get("tool_call_id")
    if state.results_at is None:
        state.results_at = event.get("timestamp")
    result: dict[str, Any] = {"content": tool_result(event.get("data"))}
    if call_id:
        result = {"source_call_id": call_id, **result}
        state.tool_names[call_id] = event.get("name")
    state.results.append(result)


def _mark(state: _Steps, event: dict[str, Any]) -> None:
    state.flush()
    data = event["data"]
    role = data.get("role") if isinstance(data, dict) else None
    if role in ("user", "system", "agent"):
        content = data.get("content", data.get("message"))
        content = "" if content is None else content
        if role != "agent" and isinstance(content, str):
            state.seen.setdefault((event.get("parent_uuid"), role), set()).add(content)
        message = content if isinstance(content, str) else compact(content)
        state.add({"source": role, "message": message, "timestamp": _at(event)})
        return
    message = compact(data) if isinstance(data, dict) else str(data)
    state.add({"source": "system", "message": message, "timestamp": _at(event)})


def _dispatcher_end(state: _Steps, event: dict[str, Any]) -> None:
    """A ``function`` scope that ran tools without an LLM: an agent step of its calls (nat R13)."""
    calls = [
        {
            "tool_call_id": r["source_call_id"],
            "function_name": state.tool_names.get(r["source_call_id"]) or "unknown",
            "arguments": state.tool_args.get(r["source_call_id"], {}),
        }
        for r in state.results
        if r.get("source_call_id")
    ]
    step = {"source": "agent", "message": "", "timestamp": _at(event), "llm_call_count": 0}
    state.add({**step, "tool_calls": calls}, agent=True)
    state.flush()


def _other_end(state: _Steps, event: dict[str, Any]) -> None:
    state.flush()
    state.agent = None
    data = event.get("data")
    if event.get("parent_uuid") is None:
        message = root_message(data)
        if message is not None:
            state.add({"source": "agent", "message": message, "timestamp": _at(event)})
        return
    text = compact(data) if isinstance(data, dict) else "" if data is None else str(data)
    state.add({"source": "system", "message": text, "timestamp": _at(event)})


def _context_end(state: _Steps, event: dict[str, Any]) -> None:
    """A context-window change (nat R10): a system step named after the scope."""
    state.flush()
    data = event.get("data")
    step: dict[str, Any] = {
        "source": "system",
        "message": event.get("name") or "context_management",
        "timestamp": _at(event),
    }
    if isinstance(data, dict) and data:
        only = next(iter(data)) if len(data) == 1 else None
        value = data[only] if only in ("summary", "result") else data
        content = value if isinstance(value, str) else compact(value)
        step["observation"] = {"results": [{"content": content}]}
    state.add(step)


def _at(event: dict[str, Any]) -> str | None:
    return timestamp(event.get("timestamp"))


def _root_start(state: _Steps, event: dict[str, Any]) -> None:
    message = root_message(event.get("data"))
    if message is not None:
        state.add({"source": "user", "message": message, "timestamp": _at(event)})


def _step_of(state: _Steps, event: dict[str, Any]) -> None:
    """Add what one event contributes to the steps."""
    category = event.get("category")
    if event["kind"] == "mark":
        if event.get("data") is not None:
            _mark(state, event)
    elif atof.is_start(event):
        if category == "llm":
            _llm_start(state, event)
        elif category == "tool":
            call_id = atof.profile(event).get("tool_call_id")
            data = event.get("data")
            state.tool_args[call_id] = data if isinstance(data, dict) else {}
        elif event.get("parent_uuid") is None and category not in _NOT_STEPS:
            _root_start(state, event)
    elif category in ("llm", "tool", "context"):
        {"llm": _llm_end, "tool": _tool_end, "context": _context_end}[category](state, event)
    elif category == "function" and state.results:
        _dispatcher_end(state, event)
    elif category != "agent":
        _other_end(state, event)


def _agent(events: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """The ATIF agent and the session id: the root agent scope (else the first root scope)."""
    starts = [e for e in events if atof.is_start(e) and e.get("parent_uuid") is None]
    root = next((e for e in starts if e.get("category") == "agent"), None)
    fallback = root or (starts[0] if starts else None)
    meta = root.get("metadata") if root is not None else None
    meta = meta if isinstance(meta, dict) else {}
    model = next(
        (
            atof.profile(e).get("model_name") or e.get("name")
            for e in events
            if atof.is_end(e) and e.get("category") == "llm"
        ),
        None,
    )
    version = meta.get("version") if isinstance(meta.get("version"), str) else "1.0.0"
    agent: dict[str, Any] = {"name": fallback.get("name") if fallback else "unknown"}
    agent["version"] = version
    if model is not None:
        agent["model_name"] = model
    session = meta.get("session_id")
    if not isinstance(session, str):
        session = str(fallback.get("uuid")) if fallback else "atof-session"
    return agent, session


def forward(doc: Any, ctx: driver.Context) -> dict[str, Any]:
    """ATOF events → ATIF v1.7 (see the module docstring)."""
    events = sorted(
        (e for e in doc if atof.is_event(e)),
        key=lambda e: atof.micros(e.get("timestamp")) or 0,
    )
    state = _Steps()
    for event in events:
        _step_of(state, event)
    state.flush()
    if not state.steps:  # ATIF needs a step; nat writes an empty list (DECISIONS ATOF-L3)
        raise ctx.refuse("no-steps", "", "the stream holds no event that is a step of ATIF")
    agent, session = _agent(events)
    steps = [{"step_id": n, **step} for n, step in enumerate(state.steps, start=1)]
    return {"schema_version": SCHEMA_VERSION, "session_id": session, "agent": agent, "steps": steps}


def _scope(
    phase: str, category: str, uuid: str, parent: str | None, **fields: Any
) -> dict[str, Any]:
    """A scope event with every member nat's writer writes, in its order."""
    event: dict[str, Any] = {"kind": "scope", "scope_category": phase, "atof_version": "0.1"}
    event.update(category=category, category_profile=None, uuid=uuid, parent_uuid=parent)
    event.update(data=None, data_schema=None, timestamp=None, name=None, attributes=[])
    event["metadata"] = None
    event.update(fields)
    return event


def _mark_event(uuid: str, parent: str, step: dict[str, Any]) -> dict[str, Any]:
    """A mark event with every member nat's writer writes, in its order."""
    data = {"role": step.get("source"), "content": step.get("message")}
    event: dict[str, Any] = {"kind": "mark", "atof_version": "0.1", "category": None}
    event.update(category_profile=None, uuid=uuid, parent_uuid=parent, data=data)
    event.update(data_schema=None, timestamp=step.get("timestamp"), name=step.get("source"))
    event["metadata"] = None
    return event


def _llm_events(step: dict[str, Any], asked: list[Any], root: str) -> list[dict[str, Any]]:
    """An agent step as an ``llm`` scope (the messages before it as its request) and a ``tool``
    scope per observation result."""
    uuid, at, model = f"llm-{step.get('step_id')}", step.get("timestamp"), step.get("model_name")
    profile = {"model_name": model} if model else None
    end: dict[str, Any] = {"content": step.get("message")}
    if step.get("tool_calls"):
        end["tool_calls"] = step["tool_calls"]
    if step.get("metrics"):
        end["usage"] = step["metrics"]
    out = [
        _scope("start", "llm", uuid, root, category_profile=profile, data={"messages": asked}),
        _scope("end", "llm", uuid, root, category_profile=profile, data=end),
    ]
    out[0].update(timestamp=at, name=model)
    out[1].update(timestamp=at, name=model)
    results = (step.get("observation") or {}).get("results") or []
    for index, result in enumerate(results):
        profile = {"tool_call_id": result.get("source_call_id")}
        for phase in ("start", "end"):
            tool = _scope(phase, "tool", f"{uuid}-tool-{index}", root, category_profile=profile)
            out.append({**tool, "timestamp": at})
        out[-1]["data"] = {"result": result.get("content")}
    return out


def backward(doc: dict[str, Any], ctx: driver.Context) -> list[dict[str, Any]]:
    """ATIF → the ATOF events the stash is measured against (see the module docstring): the
    shape nat writes, so that the patch holds values, not whole events."""
    found = doc.get("agent")
    agent: dict[str, Any] = found if isinstance(found, dict) else {}
    root = str(doc.get("session_id"))
    steps = [s for s in doc.get("steps") or [] if isinstance(s, dict)]
    events: list[dict[str, Any]] = []
    asked: list[Any] = []
    for step in steps:
        if step.get("source") in ("user", "system"):
            asked.append({"role": step.get("source"), "content": step.get("message")})
        elif step.get("llm_call_count") == 1:
            events.extend(_llm_events(step, asked, root))
            asked = []
        else:
            events.append(_mark_event(f"step-{step.get('step_id')}", root, step))
    events.extend(
        _mark_event(f"asked-{i}", root, {"source": m["role"], "message": m["content"]})
        for i, m in enumerate(asked)
    )
    first = steps[0].get("timestamp") if steps else None
    last = steps[-1].get("timestamp") if steps else None
    meta = {"session_id": root, "version": agent.get("version")}
    start = _scope("start", "agent", root, None, timestamp=first, name=agent.get("name"))
    finish = _scope("end", "agent", root, None, timestamp=last, name=agent.get("name"))
    return [{**start, "metadata": meta}, *events, {**finish, "metadata": meta}]


LENS = driver.Step(SOURCE, TARGET, forward, backward, rebuilds=True)  # type: ignore[arg-type]
LENSES = (LENS,)
"""Into ATIF only: there is no lens from ATIF to ATOF (RFC.md §7)."""
