"""OTLP/JSON trace files checked strictly, and read as span trees (issue 32).

An OTLP/JSON file, as the OpenTelemetry file exporter writes it, is JSON Lines: one
``TracesData`` per line, lowerCamelCase keys, trace and span ids as hex (16 and 8 bytes), enum
values as integers (the OTLP JSON Protobuf Encoding's deviations from proto3 JSON). The proto3
JSON parser of ``opentelemetry-proto`` alone does not check that: it accepts enum names and
snake_case keys, and it reads a 32-digit hex trace id as base64 (24 bytes). ``strict_lines``
checks each of these and then parses the line; ``span_tree`` reads a file's spans as a
normalized tree (names, kinds, parents, the GenAI and OpenInference attributes that matter), the
same shape `phoenix_check.py` builds from what Phoenix returns.

Works on any producer's file; needs ``opentelemetry-proto`` and this package (for the tree's facts).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.trace.v1.trace_pb2 import TracesData

from atif_spec.conformance import spantrees

TRACE_ID_BYTES = 16
SPAN_ID_BYTES = 8
ID_FIELDS = {"traceId": TRACE_ID_BYTES, "spanId": SPAN_ID_BYTES, "parentSpanId": SPAN_ID_BYTES}
"""The id fields of a span and of a link, and their length in bytes (hex in the text)."""
OPTIONAL_IDS = {"parentSpanId"}
"""Id fields that may be empty (a root span has no parent)."""

SPAN_KINDS = {
    0: "UNSPECIFIED",
    1: "INTERNAL",
    2: "SERVER",
    3: "CLIENT",
    4: "PRODUCER",
    5: "CONSUMER",
}

FACTS: dict[str, tuple[str, ...]] = {
    "operation": ("gen_ai.operation.name",),
    "openinference_kind": ("openinference.span.kind",),
    "agent": ("gen_ai.agent.name", "agent.name"),
    "model": ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name"),
    **spantrees.FACTS,
}
"""The facts a span tree keeps, each read from the first of its attributes a span has: the
GenAI conventions' name first, then OpenInference's (what Phoenix stores); the tool and token
facts are the interop comparison's (``atif_spec.conformance.spantrees``)."""

Scalar = str | int | float | bool


@dataclass(frozen=True)
class Span:
    """One span, from a file or from a receiver: what a tree is built from."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    kind: str
    start: int
    attributes: Mapping[str, Any]


@dataclass(frozen=True)
class Node:
    """A span in a normalized tree: no ids, no times, children in start order."""

    name: str
    kind: str
    facts: tuple[tuple[str, Scalar], ...]
    children: tuple[Node, ...] = field(default=())

    def walk(self, depth: int = 0) -> Iterator[tuple[int, Node]]:
        """This node and its descendants, depth first, with their depth."""
        yield depth, self
        for child in self.children:
            yield from child.walk(depth + 1)


# --- strict checking --------------------------------------------------------------------------


def strict_lines(path: Path | str) -> list[str]:
    """The problems of an OTLP/JSON (JSON Lines) file; empty when every line is valid."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return [f"{path}: cannot read: {error}"]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    if not lines:
        return [f"{path}: no line"]
    seen: dict[tuple[str, str], int] = {}
    return [
        f"line {n}: {p}" for n, line in enumerate(lines, 1) for p in line_problems(line, n, seen)
    ]


def line_problems(
    line: str, number: int = 1, seen: dict[tuple[str, str], int] | None = None
) -> list[str]:
    """The problems of one line: JSON, keys, ids, enums, then the proto3 parse. ``seen`` holds
    the (trace id, span id) pairs of the lines before it and the line of each: a pair that
    comes again is a problem (a receiver keeps one of the two spans)."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        return [f"not JSON: {error.msg}"]
    if not isinstance(data, dict):
        return ["not a JSON object (a TracesData)"]
    problems = [*_snake_keys(data, ""), *_id_and_enum_problems(data)]
    seen = {} if seen is None else seen
    for span in _spans(data):
        key = (str(span.get("traceId", "")).lower(), str(span.get("spanId", "")).lower())
        if key in seen:
            where = "this line" if seen[key] == number else f"line {seen[key]}"
            problems.append(f"span {span.get('name', '?')!r}: its ids repeat a span of {where}")
        seen.setdefault(key, number)
    if not problems:
        try:
            parse(data)
        except json_format.ParseError as error:
            problems.append(f"does not parse into TracesData: {error}")
    return problems


def parse(data: Mapping[str, Any]) -> TracesData:
    """A valid line's JSON as ``TracesData`` (hex ids turned into the base64 proto3 expects)."""
    converted = json.loads(json.dumps(data))
    for span in _spans(converted):
        _recode_ids(span, _hex_to_base64)
        for link in span.get("links", []):
            _recode_ids(link, _hex_to_base64)
    traces = TracesData()
    json_format.ParseDict(converted, traces, ignore_unknown_fields=True)
    return traces


def to_json_line(traces: TracesData) -> str:
    """``TracesData`` as one OTLP/JSON line: lowerCamelCase keys, integer enums, hex ids."""
    data = json_format.MessageToDict(traces, use_integers_for_enums=True)
    for span in _spans(data):
        _recode_ids(span, _base64_to_hex)
        for link in span.get("links", []):
            _recode_ids(link, _base64_to_hex)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _hex_to_base64(value: str) -> str:
    return base64.b64encode(bytes.fromhex(value)).decode()


def _base64_to_hex(value: str) -> str:
    return base64.b64decode(value).hex()


def _recode_ids(holder: dict[str, Any], recode: Callable[[str], str]) -> None:
    for key in ID_FIELDS:
        if isinstance(holder.get(key), str):
            holder[key] = recode(holder[key])


def _snake_keys(value: Any, where: str) -> Iterator[str]:
    """Keys that are proto field names, not their lowerCamelCase JSON names."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if "_" in key:
                yield f"{where}/{key}: a proto field name; OTLP/JSON keys are lowerCamelCase"
            yield from _snake_keys(inner, f"{where}/{key}")
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _snake_keys(inner, f"{where}/{index}")


def _spans(data: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    for resource in _list(data.get("resourceSpans")):
        for scope in _list(resource.get("scopeSpans") if isinstance(resource, dict) else None):
            for span in _list(scope.get("spans") if isinstance(scope, dict) else None):
                if isinstance(span, dict):
                    yield span


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _id_and_enum_problems(data: Mapping[str, Any]) -> Iterator[str]:
    for span in _spans(data):
        name = span.get("name", "?")
        yield from (f"span {name!r}: {p}" for p in _id_problems(span, required=True))
        for link in _list(span.get("links")):
            if isinstance(link, dict):
                yield from (f"span {name!r} link: {p}" for p in _id_problems(link, False))
        yield from (f"span {name!r}: {p}" for p in _enum_problems(span))


def _id_problems(holder: Mapping[str, Any], required: bool) -> Iterator[str]:
    for key, size in ID_FIELDS.items():
        value = holder.get(key)
        if value is None or value == "":
            if required and key not in OPTIONAL_IDS:
                yield f"{key} missing or empty"
            continue
        if not isinstance(value, str):
            yield f"{key} is not a string"
            continue
        try:
            decoded = bytes.fromhex(value)
        except ValueError:
            yield f"{key} {value!r} is not hex (base64?)"
            continue
        if len(decoded) != size:
            yield f"{key} {value!r} is {len(decoded)} bytes, not {size}"
        elif not any(decoded):
            yield f"{key} is all zeros (an invalid id)"


def _enum_problems(span: Mapping[str, Any]) -> Iterator[str]:
    status = span.get("status")
    for key, value in (
        ("kind", span.get("kind")),
        ("status.code", status.get("code") if isinstance(status, dict) else None),
    ):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            yield f"{key} {value!r} is not an integer (OTLP/JSON enums are integers)"


# --- span trees -------------------------------------------------------------------------------


def spans_of_lines(lines: Iterable[str]) -> list[Span]:
    """The spans of OTLP/JSON lines (each line read as ``strict_lines`` requires it)."""
    found = []
    for line in lines:
        if not line.strip():
            continue
        for resource in parse(json.loads(line)).resource_spans:
            for scope in resource.scope_spans:
                found += [
                    Span(
                        trace_id=s.trace_id.hex(),
                        span_id=s.span_id.hex(),
                        parent_id=s.parent_span_id.hex(),
                        name=s.name,
                        kind=SPAN_KINDS.get(s.kind, str(s.kind)),
                        start=s.start_time_unix_nano,
                        attributes={a.key: _any_value(a.value) for a in s.attributes},
                    )
                    for s in scope.spans
                ]
    return found


def _any_value(value: Any) -> Any:
    """An ``AnyValue`` as a plain value (arrays as lists, key-value lists as dicts)."""
    which = value.WhichOneof("value")
    if which == "array_value":
        return [_any_value(v) for v in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _any_value(kv.value) for kv in value.kvlist_value.values}
    return getattr(value, which) if which else None


def facts(attributes: Mapping[str, Any]) -> tuple[tuple[str, Scalar], ...]:
    """The facts of ``FACTS`` a span's attributes hold (token counts as integers)."""
    found: list[tuple[str, Scalar]] = []
    for fact, keys in FACTS.items():
        value = next((attributes[k] for k in keys if attributes.get(k) not in (None, "")), None)
        if isinstance(value, str | int | float | bool):
            found.append((fact, int(value) if fact.endswith("_tokens") else value))
    return tuple(found)


def tree(spans: Iterable[Span]) -> list[Node]:
    """The spans as a forest: one root per span without a parent among them, children and
    roots in (start time, name, span id) order; of spans with the same ids, the first."""
    unique: dict[tuple[str, str], Span] = {}
    for span in spans:
        unique.setdefault((span.trace_id, span.span_id), span)  # the first of repeated ids
    spans = list(unique.values())
    known = set(unique)
    children: dict[tuple[str, str], list[Span]] = {}
    roots = []
    for span in spans:
        if (span.trace_id, span.parent_id) in known:
            children.setdefault((span.trace_id, span.parent_id), []).append(span)
        else:
            roots.append(span)

    def build(span: Span) -> Node:
        below = sorted(children.get((span.trace_id, span.span_id), []), key=_order)
        return Node(span.name, span.kind, facts(span.attributes), tuple(map(build, below)))

    return [build(root) for root in sorted(roots, key=_order)]


def _order(span: Span) -> tuple[int, str, str]:
    """Start time in microseconds (what receivers keep), then name, then span id."""
    return span.start // 1000, span.name, span.span_id


def span_tree(lines: Iterable[str]) -> list[Node]:
    """The normalized span tree of OTLP/JSON lines (one root per trace)."""
    return tree(spans_of_lines(lines))


OPERATION_KINDS = {
    "invoke_agent": "AGENT",
    "create_agent": "AGENT",
    "chat": "LLM",
    "text_completion": "LLM",
    "generate_content": "LLM",
    "execute_tool": "TOOL",
    "embeddings": "EMBEDDING",
}
"""The OpenInference span kind a receiver that reads GenAI spans (Phoenix from 15.10) gives a
span of each ``gen_ai.operation.name``."""
TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens")
TOOLS = ("tool_name", "tool_call_id")


@dataclass
class Comparison:
    """A file's tree against a receiver's: each count is (equal, expected)."""

    tree: bool = False
    kinds: tuple[int, int] = (0, 0)
    tokens: tuple[int, int] = (0, 0)
    tools: tuple[int, int] = (0, 0)
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        counts = (self.kinds, self.tokens, self.tools)
        return self.tree and all(equal == expected for equal, expected in counts)


def compare(sent: list[Node], back: list[Node]) -> Comparison:
    """The tree a receiver returned (kinds as it reports them) against the file's tree: the
    same spans under the same parents; the kind expected of each span (its
    ``openinference.span.kind``, or the one of its GenAI operation); and its token counts, tool
    name and tool call id."""
    ours, theirs = _flat(sent), _flat(back)
    shape = [(d, n.name, len(n.children)) for d, n in ours]
    result = Comparison(tree=shape == [(d, n.name, len(n.children)) for d, n in theirs])
    tallies = {"kind": [0, 0], "tokens": [0, 0], "tools": [0, 0]}
    problems: list[str] = []
    for (_, mine), (_, held) in zip(ours, theirs, strict=False):
        have, got = dict(mine.facts), dict(held.facts)
        expected = have.get("openinference_kind") or OPERATION_KINDS.get(str(have.get("operation")))
        checks: list[tuple[str, str, Scalar, Scalar | None]] = []
        checks += [("kind", "kind", expected, held.kind)] if expected else []
        checks += [("tokens", f, have[f], got.get(f)) for f in TOKENS if f in have]
        checks += [("tools", f, have[f], got.get(f)) for f in TOOLS if f in have]
        for tally, what, want, seen in checks:
            tallies[tally][1] += 1
            tallies[tally][0] += want == seen
            if want != seen:
                problems.append(f"{mine.name}: {what} {seen!r}, expected {want!r}")
    result.kinds, result.tokens, result.tools = (
        (tallies[t][0], tallies[t][1]) for t in ("kind", "tokens", "tools")
    )
    result.problems = tuple(problems)
    return result


def _flat(nodes: list[Node]) -> list[tuple[int, Node]]:
    return [pair for root in nodes for pair in root.walk()]


def render(nodes: Iterable[Node]) -> str:
    """A tree as indented text, one span a line (for reports and failure messages)."""
    rows = []
    for root in nodes:
        for depth, node in root.walk():
            shown = " ".join(f"{k}={v}" for k, v in node.facts)
            rows.append(f"{'  ' * depth}{node.name} [{node.kind}] {shown}".rstrip())
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    """``python conformance/otel_check.py FILE...``: each file's problems, exit 1 on any."""
    bad = 0
    for path in argv:
        problems = strict_lines(path)
        bad += bool(problems)
        print(f"{path}: {'valid OTLP/JSON' if not problems else f'{len(problems)} problems'}")
        for problem in problems[:20]:
            print(f"  {problem}")
    return 1 if bad else 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
