"""The OpenInference spelling of the GenAI attributes the lens writes (``--otel-convention
openinference``, for Phoenix releases and tools that read only it), and the way back.

Scalars are renamed one for one (:data:`RENAMES`); the operation becomes
``openinference.span.kind``; messages are flattened into ``llm.input_messages.<i>.message.*`` /
``llm.output_messages.<i>.message.*`` and also kept whole, as GenAI JSON, in ``input.value`` /
``output.value`` (read first on the way back); a tool call's arguments and result are the tool
span's ``input.value`` and ``output.value``. ``atif.*`` attributes are the same in both.
"""

from __future__ import annotations

import re
from typing import Any, Final

from atif_spec.jsonio.jsontext import dumps
from atif_spec.transforms.lenses.otel import common as c

KIND: Final = "openinference.span.kind"
SPAN_KINDS: Final = {
    c.INVOKE_AGENT: "AGENT",
    c.CHAT: "LLM",
    c.EXECUTE_TOOL: "TOOL",
}
"""``gen_ai.operation.name`` and the OpenInference span kind (``atif.step`` spans: ``CHAIN``)."""
STEP_KIND: Final = "CHAIN"
RENAMES: Final = {
    c.PROVIDER: "llm.provider",
    c.REQUEST_MODEL: "llm.model_name",
    c.CONVERSATION: "session.id",
    c.AGENT_NAME: "agent.name",
    c.TOOL_NAME: "tool.name",
    c.TOOL_CALL_ID: "tool_call.id",
    "gen_ai.usage.input_tokens": "llm.token_count.prompt",
    "gen_ai.usage.output_tokens": "llm.token_count.completion",
    "gen_ai.usage.cache_read.input_tokens": "llm.token_count.prompt_details.cache_read",
    "gen_ai.usage.cache_creation.input_tokens": "llm.token_count.prompt_details.cache_write",
    "gen_ai.usage.reasoning.output_tokens": "llm.token_count.completion_details.reasoning",
}
"""GenAI attributes and their OpenInference names."""
INPUT_VALUE: Final = "input.value"
OUTPUT_VALUE: Final = "output.value"
JSON_MIME: Final = "application/json"
TEXT_MIME: Final = "text/plain"
_FLAT = re.compile(r"^llm\.(input|output)_messages\.(\d+)\.message\.(.+)$")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else dumps(value).decode("utf-8")


def _flatten(prefix: str, messages: Any) -> c.Attrs:
    out: c.Attrs = {}
    for i, message in enumerate(messages if isinstance(messages, list) else ()):
        if not isinstance(message, dict):
            continue
        head = f"{prefix}.{i}.message"
        out[f"{head}.role"] = message.get("role")
        parts = [p for p in message.get("parts") or () if isinstance(p, dict)]
        texts = [str(p.get("content") or "") for p in parts if p.get("type") == "text"]
        out[f"{head}.content"] = "".join(texts) if texts else None
        calls = [p for p in parts if p.get("type") == "tool_call"]
        for j, call in enumerate(calls):
            out[f"{head}.tool_calls.{j}.tool_call.id"] = call.get("id")
            out[f"{head}.tool_calls.{j}.tool_call.function.name"] = call.get("name")
            out[f"{head}.tool_calls.{j}.tool_call.function.arguments"] = _text(
                call.get("arguments")
            )
    return out


def to_openinference(attrs: c.Attrs) -> c.Attrs:
    """``attrs`` (GenAI) in the OpenInference spelling."""
    out: c.Attrs = {}
    operation = attrs.get(c.OPERATION)
    out[KIND] = SPAN_KINDS.get(operation, STEP_KIND) if isinstance(operation, str) else STEP_KIND
    for key, value in attrs.items():
        if key == c.OPERATION or value is None:
            continue
        if key in (c.INPUT_MESSAGES, c.OUTPUT_MESSAGES):
            side = "input" if key == c.INPUT_MESSAGES else "output"
            out[f"{side}.value"] = _text(value)
            out[f"{side}.mime_type"] = JSON_MIME
            out.update(_flatten(f"llm.{side}_messages", value))
        elif key == c.TOOL_DEFINITIONS:
            for i, tool in enumerate(value if isinstance(value, list) else ()):
                out[f"llm.tools.{i}.tool.json_schema"] = _text(tool)
        elif key == c.TOOL_ARGUMENTS:
            out[INPUT_VALUE] = _text(value)
            out["input.mime_type"] = JSON_MIME
        elif key == c.TOOL_RESULT:
            out[OUTPUT_VALUE] = _text(value)
            out["output.mime_type"] = TEXT_MIME if isinstance(value, str) else JSON_MIME
        else:
            out[RENAMES.get(key, key)] = value
    return out


def is_openinference(attrs: c.Attrs) -> bool:
    return KIND in attrs


def from_openinference(attrs: c.Attrs, name: str) -> c.Attrs:
    """GenAI attributes of an OpenInference span; keys it does not know stay as they are."""
    back = {v: k for k, v in RENAMES.items()}
    kind = attrs.get(KIND)
    operation = {v: k for k, v in SPAN_KINDS.items()}.get(kind if isinstance(kind, str) else "")
    out: c.Attrs = {c.OPERATION: operation} if operation else {}
    flat: dict[str, dict[int, dict[str, Any]]] = {"input": {}, "output": {}}
    tools: list[Any] = []
    for key, value in attrs.items():
        match = _FLAT.match(key)
        if match:
            flat[match.group(1)].setdefault(int(match.group(2)), {})[match.group(3)] = value
        elif key.startswith("llm.tools.") and key.endswith(".tool.json_schema"):
            tools.append(c.parse_json(value) if isinstance(value, str) else value)
        elif key in back:
            out[back[key]] = value
        elif key not in (KIND, INPUT_VALUE, OUTPUT_VALUE, "input.mime_type", "output.mime_type"):
            out[key] = value
    if tools:
        out[c.TOOL_DEFINITIONS] = tools
    if operation == c.EXECUTE_TOOL:
        _tool_values(attrs, out)
    elif operation == c.CHAT or name == c.STEP_SPAN:
        _messages(attrs, flat, out)
    return out


def _messages(attrs: c.Attrs, flat: dict[str, dict[int, dict[str, Any]]], out: c.Attrs) -> None:
    """Input and output messages: whole from ``input.value`` / ``output.value`` when they hold
    GenAI messages, else from the flattened ``llm.*_messages`` attributes."""
    for side, target in (("input", c.INPUT_MESSAGES), ("output", c.OUTPUT_MESSAGES)):
        whole = c.parse_json(attrs[f"{side}.value"]) if f"{side}.value" in attrs else None
        if _is_messages(whole):
            out[target] = whole
        elif flat[side]:
            out[target] = [_unflatten(flat[side][i]) for i in sorted(flat[side])]


def _tool_values(attrs: c.Attrs, out: c.Attrs) -> None:
    arguments = attrs.get(INPUT_VALUE)
    if arguments is not None:
        out[c.TOOL_ARGUMENTS] = c.parse_json(arguments) if isinstance(arguments, str) else arguments
    result = attrs.get(OUTPUT_VALUE)
    if result is not None:
        parsed = c.parse_json(result) if isinstance(result, str) else result
        json_result = attrs.get("output.mime_type") == JSON_MIME and isinstance(parsed, list)
        out[c.TOOL_RESULT] = parsed if json_result else result


def _is_messages(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(m, dict) and "role" in m and isinstance(m.get("parts"), list) for m in value
    )


def _unflatten(fields: dict[str, Any]) -> dict[str, Any]:
    """A GenAI message of one flattened OpenInference message."""
    parts: list[dict[str, Any]] = []
    content = fields.get("content")
    call_id = fields.get("tool_call_id")
    if call_id is not None:
        parts.append({"type": "tool_call_response", "id": call_id, "response": content})
    elif content is not None:
        parts.append({"type": "text", "content": content})
    calls: dict[int, dict[str, Any]] = {}
    for key, value in fields.items():
        match = re.match(r"^tool_calls\.(\d+)\.tool_call\.(.+)$", key)
        if match:
            calls.setdefault(int(match.group(1)), {})[match.group(2)] = value
    for j in sorted(calls):
        call = calls[j]
        arguments = call.get("function.arguments")
        parts.append(
            {
                "type": "tool_call",
                "id": call.get("id"),
                "name": call.get("function.name"),
                "arguments": c.parse_json(arguments) if isinstance(arguments, str) else arguments,
            }
        )
    return {"role": fields.get("role"), "parts": parts}
