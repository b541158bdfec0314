"""What both OTel mappings share: the attribute names (the facts MAPPING.md is generated from),
span ids, times, and the OTLP ``AnyValue`` codec.

Attributes are handled as a plain ``{key: value}`` dict while spans are built or read; values that
are JSON objects or arrays (messages, tool arguments, ``atif.*`` JSON) are written as JSON text in
``stringValue``, as GenAI instrumentations write them, and read back from JSON text or from a
structured ``AnyValue`` alike.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from typing import Any, Final

from atif_spec.formats import otel
from atif_spec.jsonio.jsontext import canonical_json, dumps, loads

Doc = dict[str, Any]
Attrs = dict[str, Any]

ATIF: Final = "atif@v1.8"
OTEL: Final = f"otel@{otel.VERSION}"
TO_OTEL: Final = f"{ATIF}->{OTEL}"
TO_ATIF: Final = f"{OTEL}->{ATIF}"
SCHEMA_VERSION: Final = "ATIF-v1.8"
SCOPE: Final = "atif-spec"
"""The instrumentation scope name of spans the lens writes."""
CONVENTIONS: Final = ("gen_ai", "openinference")

# --- GenAI semantic conventions v1.41.0 (the attributes the lens writes and reads) -------------
OPERATION: Final = "gen_ai.operation.name"
PROVIDER: Final = "gen_ai.provider.name"
AGENT_NAME: Final = "gen_ai.agent.name"
AGENT_VERSION: Final = "gen_ai.agent.version"
AGENT_ID: Final = "gen_ai.agent.id"
CONVERSATION: Final = "gen_ai.conversation.id"
REQUEST_MODEL: Final = "gen_ai.request.model"
RESPONSE_MODEL: Final = "gen_ai.response.model"
INPUT_MESSAGES: Final = "gen_ai.input.messages"
OUTPUT_MESSAGES: Final = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS: Final = "gen_ai.system_instructions"
TOOL_DEFINITIONS: Final = "gen_ai.tool.definitions"
TOOL_NAME: Final = "gen_ai.tool.name"
TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
TOOL_ARGUMENTS: Final = "gen_ai.tool.call.arguments"
TOOL_RESULT: Final = "gen_ai.tool.call.result"
FINISH_REASONS: Final = "gen_ai.response.finish_reasons"

INVOKE_AGENT: Final = "invoke_agent"
CHAT: Final = "chat"
EXECUTE_TOOL: Final = "execute_tool"
INFERENCE_OPERATIONS: Final = frozenset({CHAT, "text_completion", "generate_content"})
STEP_SPAN: Final = "atif.step"
"""Name of the INTERNAL span of an agent step with no inference of its own (copied context, a
deterministic dispatch): it carries the step's output messages, never usage."""

USAGE: Final = (
    ("prompt_tokens", "gen_ai.usage.input_tokens"),
    ("completion_tokens", "gen_ai.usage.output_tokens"),
    ("cached_tokens", "gen_ai.usage.cache_read.input_tokens"),
)
"""ATIF ``metrics`` fields and their GenAI usage attributes. Same arithmetic on both sides:
input tokens include cached ones, output tokens include reasoning ones."""
USAGE_EXTRA: Final = (
    ("reasoning_tokens", "gen_ai.usage.reasoning.output_tokens"),
    ("cache_creation_input_tokens", "gen_ai.usage.cache_creation.input_tokens"),
)
"""Integer members of ATIF ``metrics.extra`` (by these names) and their GenAI attributes."""

# --- atif.* attributes: ATIF members with no GenAI counterpart ------------------------------
A_SCHEMA_VERSION: Final = "atif.schema_version"
A_TRAJECTORY_ID: Final = "atif.trajectory_id"
A_NOTES: Final = "atif.notes"
A_FINAL_METRICS: Final = "atif.final_metrics"
A_CONTINUED: Final = "atif.continued_trajectory_ref"
A_EXTRA: Final = "atif.extra"
A_AGENT_EXTRA: Final = "atif.agent.extra"
A_MESSAGES: Final = "atif.messages"
A_COST: Final = "atif.usage.cost_usd"
A_METRICS_EXTRA: Final = "atif.metrics.extra"
A_LLM_CALLS: Final = "atif.llm_call_count"
A_COPIED: Final = "atif.is_copied_context"
A_EFFORT: Final = "atif.reasoning_effort"
A_RESULTS: Final = "atif.observation.results"
A_RESULT_EXTRA: Final = "atif.result.extra"
A_SUBAGENT_REFS: Final = "atif.subagent_trajectory_ref"
A_SYNTHESIZED: Final = "atif.time.synthesized"
STASH_ATTRIBUTE: Final = "atif.stash"

JSON_ATTRIBUTES: Final = frozenset(
    {
        INPUT_MESSAGES,
        OUTPUT_MESSAGES,
        SYSTEM_INSTRUCTIONS,
        TOOL_DEFINITIONS,
        TOOL_ARGUMENTS,
        A_FINAL_METRICS,
        A_EXTRA,
        A_AGENT_EXTRA,
        A_MESSAGES,
        A_METRICS_EXTRA,
        A_RESULTS,
        A_RESULT_EXTRA,
        A_SUBAGENT_REFS,
    }
)
"""Attributes whose value is a JSON object or array, written as JSON text."""
UNPLACED_KEY: Final = "otel_unplaced_spans"
"""Root ``extra`` key (named) of the spans of a trace that map to no ATIF member, each whole."""
CONVENTION_KEY: Final = "otel_convention"
"""Root ``extra`` key (named) of a trace read in the OpenInference spelling: ``openinference``,
so that the way back writes that spelling again."""
ROOT_NAMED: Final = (UNPLACED_KEY, CONVENTION_KEY)
KEPT_KEY: Final = "otel_attributes"
"""``extra`` key (named) of the document, step or tool call whose span had attributes the lens
does not read (sampling parameters, finish reasons, another provider name, ...): ``{name:
value}``, written back onto the span on the way back."""
UNKNOWN: Final = "unknown"
"""``gen_ai.provider.name`` when the model name says nothing (see :func:`provider`), and the
agent name and version of a trace that has none."""


READ: Final = frozenset(
    {
        OPERATION,
        AGENT_NAME,
        AGENT_VERSION,
        AGENT_ID,
        CONVERSATION,
        REQUEST_MODEL,
        RESPONSE_MODEL,
        INPUT_MESSAGES,
        OUTPUT_MESSAGES,
        SYSTEM_INSTRUCTIONS,
        TOOL_DEFINITIONS,
        TOOL_NAME,
        TOOL_CALL_ID,
        TOOL_ARGUMENTS,
        TOOL_RESULT,
        *(attr for _, attr in USAGE),
        *(attr for _, attr in USAGE_EXTRA),
    }
)
"""The attributes the way back reads (with every ``atif.*`` one, and ``gen_ai.provider.name``
when it is what :func:`provider` gives)."""


def unread(attrs: Attrs) -> Attrs:
    """The attributes of a span the way back does not read."""
    derived = provider(attrs.get(REQUEST_MODEL))
    return {
        k: v
        for k, v in attrs.items()
        if k not in READ and not k.startswith("atif.") and not (k == PROVIDER and v == derived)
    }


# --- ids ----------------------------------------------------------------------------------


def document_key(doc: Doc) -> bytes:
    """The key span ids derive from: the SHA-256 of the document's canonical JSON (its stash
    taken off by the driver), so a re-export is identical and two documents never share ids."""
    return hashlib.sha256(canonical_json(doc)).digest()


def trace_id(key: bytes) -> str:
    return _hex(key, b"trace", otel.TRACE_ID_HEX)


def span_id(key: bytes, pointer: str) -> str:
    """The id of the span made from the member at ``pointer`` (RFC 6901, from the root)."""
    return _hex(key, b"span" + pointer.encode("utf-8"), otel.SPAN_ID_HEX)


def _hex(key: bytes, salt: bytes, digits: int) -> str:
    text = hashlib.sha256(key + b"\0" + salt).hexdigest()[:digits]
    return text if text.strip("0") else "1".rjust(digits, "0")


# --- times --------------------------------------------------------------------------------

_FRACTION = re.compile(r"\.(\d+)")
MS: Final = 1_000_000
"""A millisecond in nanoseconds: the step of synthesized times."""


def nanos(timestamp: Any) -> int | None:
    """Nanoseconds since the epoch of an ISO 8601 timestamp (no offset: UTC); None when absent or
    unreadable. The fraction is kept to the nanosecond."""
    if not isinstance(timestamp, str):
        return None
    fraction = _FRACTION.search(timestamp)
    digits = fraction.group(1) if fraction else ""
    text = _FRACTION.sub("", timestamp, count=1).replace("Z", "+00:00").replace("z", "+00:00")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    whole = int(moment.timestamp()) * 1_000_000_000
    return whole + int((digits + "000000000")[:9] or 0)


def iso(value: int) -> str:
    """An ISO 8601 UTC timestamp (``Z``) for nanoseconds since the epoch, the fraction as short
    as it can be."""
    seconds, rest = divmod(value, 1_000_000_000)
    text = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    fraction = f"{rest:09d}".rstrip("0")
    return f"{text}.{fraction}Z" if fraction else f"{text}Z"


def step_times(steps: list[Any], base: int) -> list[tuple[int, bool]]:
    """Each step's start (nanoseconds) and whether it was synthesized. The rule: a step's own
    ``timestamp``; else 1 ms after the step before it; a step before the first timestamp, 1 ms
    per step before that one; with no timestamp at all, ``base`` (the launching span's start,
    or the epoch) plus 1 ms per step."""
    own = [nanos(s.get("timestamp")) if isinstance(s, dict) else None for s in steps]
    first = next((i for i, t in enumerate(own) if t is not None), None)
    out: list[tuple[int, bool]] = []
    for index, value in enumerate(own):
        if value is not None:
            out.append((value, False))
        elif first is None:
            out.append((base + index * MS, True))
        elif index < first:
            out.append((own[first] - (first - index) * MS, True))  # type: ignore[operator]
        else:
            out.append((out[-1][0] + MS, True))
    return out


# --- attribute values ---------------------------------------------------------------------


def encode(value: Any) -> Doc:
    """An OTLP ``AnyValue`` for a JSON value (objects and arrays structured)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [encode(v) for v in value]}}
    if isinstance(value, dict):
        return {
            "kvlistValue": {"values": [{"key": k, "value": encode(v)} for k, v in value.items()]}
        }
    return {}


def decode(value: Any) -> Any:
    """The JSON value of an OTLP ``AnyValue`` (None for an empty one)."""
    if not isinstance(value, dict) or not value:
        return None
    kind, inner = next(iter(value.items()))
    if kind == "intValue":
        try:
            return int(inner)
        except (TypeError, ValueError):
            return inner
    if kind == "arrayValue":
        return [decode(v) for v in (inner or {}).get("values", [])]
    if kind == "kvlistValue":
        return {kv.get("key"): decode(kv.get("value")) for kv in (inner or {}).get("values", [])}
    return inner


def attributes_out(attrs: Attrs) -> list[Doc]:
    """OTLP ``KeyValue`` list of ``attrs`` (None values left out; JSON attributes as text)."""
    out: list[Doc] = []
    for key, value in attrs.items():
        if value is None:
            continue
        if key in JSON_ATTRIBUTES:
            value = dumps(value).decode("utf-8")
        out.append({"key": key, "value": encode(value)})
    return out


def attributes_in(items: Any) -> Attrs:
    """``{key: value}`` of an OTLP ``KeyValue`` list; JSON attributes written as text are parsed
    (text that is not JSON stays text)."""
    out: Attrs = {}
    for kv in items if isinstance(items, list) else ():
        if not isinstance(kv, dict) or not isinstance(kv.get("key"), str):
            continue
        value = decode(kv.get("value"))
        if kv["key"] in JSON_ATTRIBUTES and isinstance(value, str):
            value = parse_json(value)
        out[kv["key"]] = value
    return out


def parse_json(text: str) -> Any:
    """``text`` parsed as JSON, or ``text`` itself when it is not JSON."""
    try:
        return loads(text)
    except ValueError:
        return text


def obj(value: Any) -> Doc:
    """``value`` when it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


def provider(model: Any) -> str:
    """``gen_ai.provider.name``, which ATIF has no field for: the part before ``/`` of a
    ``provider/model`` name (LiteLLM's spelling, e.g. ``anthropic/claude-…``), else
    :data:`UNKNOWN`."""
    if isinstance(model, str) and "/" in model and model.partition("/")[0]:
        return model.partition("/")[0]
    return UNKNOWN
