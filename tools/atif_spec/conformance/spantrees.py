"""Span trees of one ATIF document written by two ATIF → OpenTelemetry converters, compared.

The interop report (``nox -s interop``) runs a peer that writes OTLP spans (``span_trees =
true`` in ``conformance/adapters/peers.toml``; its adapter returns the OTLP/JSON it wrote as
the ``otlp`` key of its ``read`` summary) and compares its spans with what ``atif convert --to
otel`` writes for the same document. Each side is read as a normalized tree (:func:`forest`):
per span its role (``agent``, ``llm``, ``tool`` or ``other``, from the convention's own
attribute: :data:`ROLES`), its OTel span kind, tool name and tool call id, token counts, and
its children in the order written; ids, times and text are left out. :data:`VIEWS` are the
aspects compared, one function each; every view that differs is one item
(``otel:<case id>:<view>``), explained, like every other difference, by a group of the peer's
known-differences file. Our default (``gen_ai``) output is compared; the ``openinference``
output must give the same tree (else the lens is inconsistent: an item ``…:ours-conventions``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import atif_spec
from atif_spec.conformance.grading import PASSED, CaseResult
from atif_spec.conformance.suite import read_document

TARGET = "otel@v1.41.0"
SESSION_REF_PATH = "{session_id}.json"
"""The ``--session-ref-path`` our lens is given, so that a v1.0-v1.6 document whose subagent
references hold only ``session_id`` is converted (RFC.md §4.5.5); it changes no span."""

ROLES: dict[tuple[str, str], str] = {
    ("gen_ai.operation.name", "invoke_agent"): "agent",
    ("gen_ai.operation.name", "create_agent"): "agent",
    ("gen_ai.operation.name", "chat"): "llm",
    ("gen_ai.operation.name", "text_completion"): "llm",
    ("gen_ai.operation.name", "generate_content"): "llm",
    ("gen_ai.operation.name", "execute_tool"): "tool",
    ("openinference.span.kind", "AGENT"): "agent",
    ("openinference.span.kind", "LLM"): "llm",
    ("openinference.span.kind", "TOOL"): "tool",
}
"""A span's role, from the GenAI conventions (v1.41.0, ``gen_ai.operation.name``) or
OpenInference (``openinference.span.kind``); any other span (OpenInference ``CHAIN``, our
``atif.step``) is ``other``."""
CONVENTIONS = ("gen_ai.operation.name", "openinference.span.kind")
FAMILIES: dict[str, Callable[[str], bool]] = {
    "gen_ai": lambda key: key.startswith("gen_ai."),
    "openinference": lambda key: key == "openinference.span.kind",
}
KINDS = ("UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER")
"""OTLP ``SpanKind`` by its integer value; OTLP/JSON writes the integer."""
FACTS: dict[str, tuple[str, ...]] = {
    "tool_name": ("gen_ai.tool.name", "tool.name"),
    "tool_call_id": ("gen_ai.tool.call.id", "tool_call.id", "tool.id"),
    "input_tokens": ("gen_ai.usage.input_tokens", "llm.token_count.prompt"),
    "output_tokens": ("gen_ai.usage.output_tokens", "llm.token_count.completion"),
    "cache_read_tokens": (
        "gen_ai.usage.cache_read.input_tokens",
        "llm.token_count.prompt_details.cache_read",
    ),
}
"""The facts a node keeps, each from the first of its attributes (GenAI, then OpenInference)."""
TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens")


@dataclass(frozen=True)
class Node:
    """One span of a normalized tree."""

    role: str
    kind: str
    facts: tuple[tuple[str, Any], ...] = ()
    children: tuple[Node, ...] = field(default=())

    def walk(self) -> Iterator[Node]:
        """This node and its descendants, depth first, in the order written."""
        yield self
        for child in self.children:
            yield from child.walk()

    def fact(self, name: str) -> Any:
        return dict(self.facts).get(name)


@dataclass(frozen=True)
class Written:
    """One converter's OTLP/JSON for a document: its forest and how it spelled its enums."""

    roots: tuple[Node, ...]
    enums: frozenset[str]
    """``integer`` and/or ``name``: the JSON types of its span kinds and status codes."""
    conventions: frozenset[str]
    """The attribute conventions its spans use: ``gen_ai`` (a ``gen_ai.*`` attribute) and/or
    ``openinference`` (``openinference.span.kind``)."""


def _spans(otlp: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        span
        for resource in otlp.get("resourceSpans") or ()
        for scope in resource.get("scopeSpans") or ()
        for span in scope.get("spans") or ()
        if isinstance(span, dict)
    ]


def _value(any_value: Any) -> Any:
    """An OTLP/JSON ``AnyValue`` as a plain value (``intValue`` is a string in JSON)."""
    if not isinstance(any_value, dict) or not any_value:
        return None
    kind, value = next(iter(any_value.items()))
    return int(value) if kind == "intValue" else value


def _attributes(span: Mapping[str, Any]) -> dict[str, Any]:
    return {a["key"]: _value(a.get("value")) for a in span.get("attributes") or ()}


def _kind(value: Any) -> str:
    """A span kind written as an integer (OTLP/JSON) or an enum name (proto3 JSON)."""
    if isinstance(value, int) and 0 <= value < len(KINDS):
        return KINDS[value]
    if isinstance(value, str):
        return value.removeprefix("SPAN_KIND_")
    return KINDS[0]  # absent: the proto default


def role(attributes: Mapping[str, Any]) -> str:
    """The span's role by the first convention attribute it carries, else ``other``."""
    for key in CONVENTIONS:
        if key in attributes:
            return ROLES.get((key, str(attributes[key])), "other")
    return "other"


def _enum_types(span: Mapping[str, Any]) -> Iterator[str]:
    status = span.get("status")
    for value in (span.get("kind"), status.get("code") if isinstance(status, dict) else None):
        if value is not None:
            yield "name" if isinstance(value, str) else "integer"


def read(otlp: Mapping[str, Any]) -> Written:
    """The normalized forest of an OTLP/JSON ``TracesData``: a span whose parent is not among
    the spans is a root; children keep the order the spans were written in."""
    spans = _spans(otlp)
    ids = {span.get("spanId") for span in spans}
    below: dict[Any, list[dict[str, Any]]] = {}
    for span in spans:
        parent = span.get("parentSpanId")
        below.setdefault(parent if parent in ids else None, []).append(span)

    def build(span: dict[str, Any]) -> Node:
        attrs = _attributes(span)
        facts = tuple(
            (name, next(attrs[k] for k in keys if attrs.get(k) not in (None, "")))
            for name, keys in FACTS.items()
            if any(attrs.get(k) not in (None, "") for k in keys)
        )
        children = tuple(build(s) for s in below.get(span.get("spanId"), ()))
        return Node(role(attrs), _kind(span.get("kind")), facts, children)

    roots = tuple(build(span) for span in below.get(None, ()))
    enums = frozenset(t for span in spans for t in _enum_types(span))
    keys = {key for span in spans for key in _attributes(span)}
    conventions = frozenset(name for name, found in FAMILIES.items() if any(map(found, keys)))
    return Written(roots, enums, conventions)


def _nodes(written: Written) -> list[Node]:
    return [node for root in written.roots for node in root.walk()]


def _shape(node: Node) -> Any:
    return (node.role, [_shape(child) for child in node.children])


def _kinds_of(role_name: str) -> Callable[[Written], Any]:
    return lambda w: sorted({n.kind for n in _nodes(w) if n.role == role_name})


DEFAULT_VIEWS: dict[str, Callable[[Written], Any]] = {
    "enum-encoding": lambda w: sorted(w.enums),
    "convention": lambda w: sorted(w.conventions),
}
"""Views compared with our default (``gen_ai``) output: how the spans are written."""
VIEWS: dict[str, Callable[[Written], Any]] = {
    "kind-agent": _kinds_of("agent"),
    "kind-llm": _kinds_of("llm"),
    "kind-tool": _kinds_of("tool"),
    "roles": lambda w: dict(sorted(Counter(n.role for n in _nodes(w)).items())),
    "shape": lambda w: [_shape(root) for root in w.roots],
    "tool-names": lambda w: [n.fact("tool_name") for n in _nodes(w) if n.role == "tool"],
    "tool-call-ids": lambda w: [n.fact("tool_call_id") for n in _nodes(w) if n.role == "tool"],
    "llm-tokens": lambda w: [[n.fact(t) for t in TOKENS] for n in _nodes(w) if n.role == "llm"],
    "agent-tokens": lambda w: [
        [n.fact(t) for t in TOKENS]
        for n in _nodes(w)
        if n.role == "agent" and any(n.fact(t) is not None for t in TOKENS)
    ],
}
"""Views of the trees, compared with our ``openinference`` output (the fairer comparison: the
same attribute names as theirs), each a function of one side's :class:`Written`."""
OURS = "ours-conventions"
"""The view that our ``gen_ai`` and ``openinference`` outputs have the same tree (a
difference is our bug: the convention must change only the attribute names)."""


def _differ(views: Mapping[str, Callable[[Written], Any]], ours: Written, theirs: Written
            ) -> dict[str, str | None]:  # fmt: skip
    out: dict[str, str | None] = {}
    for view, of in views.items():
        mine, their = of(ours), of(theirs)
        out[view] = None if mine == their else f"ours {mine!r}; theirs {their!r}"[:300]
    return out


def compare(default: Written, openinference: Written, theirs: Written) -> dict[str, str | None]:
    """Every view (:data:`DEFAULT_VIEWS`, :data:`VIEWS`, :data:`OURS`) of one
    document: None when the sides agree, else ``ours …; theirs …`` (shortened)."""
    out = _differ(DEFAULT_VIEWS, default, theirs) | _differ(VIEWS, openinference, theirs)
    same = default.roots == openinference.roots
    out[OURS] = (
        None
        if same
        else (
            f"gen_ai and openinference trees differ "
            f"({len(_nodes(default))} and {len(_nodes(openinference))} spans)"
        )
    )
    return out


def ours(document: Any) -> tuple[Written, Written]:
    """Our lens's two outputs of ``document`` (``gen_ai``, ``openinference``), read; raises
    ``ValueError`` (``ConversionError``) when the lens refuses the document."""
    default, _ = atif_spec.convert(document, to=TARGET, session_ref_path=SESSION_REF_PATH)
    other, _ = atif_spec.convert(
        document, to=TARGET, session_ref_path=SESSION_REF_PATH, otel_convention="openinference"
    )
    return read(default), read(other)


@dataclass
class Compared:
    """A peer's span trees against ours over the suite: one row per document and view."""

    rows: list[tuple[str, str, str | None]] = field(default_factory=list)
    """``(case id, view, None or the difference)``."""
    refused: list[str] = field(default_factory=list)
    """Cases our lens refused (``case id: reason``)."""
    theirs: Counter[str] = field(default_factory=Counter)
    """Their spans by OTel kind, and their documents by enum spelling (``integer``, ``name``:
    span kinds and status codes) and attribute convention (``gen_ai``, ``openinference``)."""

    def summary(self) -> dict[str, Any]:
        """The comparison's totals for ``interop.json`` (the peer's ``span_trees``)."""
        differing = Counter(view for _, view, detail in self.rows if detail is not None)
        return {
            "documents": len({case for case, _, _ in self.rows}),
            "refused": self.refused,
            "theirs": dict(sorted(self.theirs.items())),
            "differing": {view: differing[view] for view in (*DEFAULT_VIEWS, *VIEWS, OURS)},
        }


def tally(written: Written, into: Counter[str]) -> None:
    """Count ``written``'s span kinds, enum spellings and conventions into ``into``."""
    into.update(f"spans of kind {node.kind}" for node in _nodes(written))
    into.update(f"documents with {e} enums" for e in written.enums)
    into.update(f"documents with {c} attributes" for c in written.conventions)


def compare_results(results: list[CaseResult]) -> Compared:
    """Every valid case a peer read (its summary's ``otlp``) against our lens's output."""
    out = Compared()
    for result in results:
        otlp = (result.summary or {}).get("otlp")
        if result.outcome != PASSED or not result.case.expected_valid or otlp is None:
            continue
        try:
            default, openinference = ours(read_document(result.case.document))
        except ValueError as exc:
            out.refused.append(f"{result.case.id}: {str(exc).splitlines()[0][:200]}")
            continue
        theirs = read(otlp)
        tally(theirs, out.theirs)
        for view, detail in compare(default, openinference, theirs).items():
            out.rows.append((result.case.id, view, detail))
    return out


def render(data: Mapping[str, Any]) -> list[str]:
    """The span-tree section of INTEROP.md: per peer that was compared, the documents, what
    their spans are, and per view the documents that differ and the groups explaining them."""
    out: list[str] = []
    for name, peer in data["peers"].items():
        trees = peer.get("span_trees")
        if not trees:
            continue
        groups: dict[str, Counter[str]] = {}
        for item in data["items"]:
            if item["implementation"] == name and item["kind"] == "span-tree":
                view = item["id"].rsplit(":", 1)[1]
                groups.setdefault(view, Counter())[item["group"] or "UNEXPLAINED"] += 1
        theirs = ", ".join(f"{k} ({n})" for k, n in trees["theirs"].items())
        out += [
            f"\n### Span trees: {name} and `atif convert --to otel`\n",
            f"{trees['documents']} valid suite documents it read, each compared view by view "
            f"with our lens ({len(trees['refused'])} refused by our lens). Theirs: {theirs}.\n",
            "| View | Documents that differ | Explained by |",
            "|---|---|---|",
        ]
        for view, count in trees["differing"].items():
            why = ", ".join(f"{g} ({n})" for g, n in sorted(groups.get(view, Counter()).items()))
            out.append(f"| {view} | {count} | {why or '-'} |")
    return out
