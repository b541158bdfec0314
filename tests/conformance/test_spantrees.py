"""atif_spec.conformance.spantrees: span trees of two ATIF → OTel converters, normalized and
compared view by view (the interop report's harbor-atif2otel comparison)."""

from __future__ import annotations

from typing import Any

import pytest

import atif_spec
from atif_spec.conformance import spantrees
from atif_spec.conformance.grading import FAILED, PASSED, CaseResult
from atif_spec.conformance.suite import Case, load_suite, read_document
from tests.support import ROOT

Spec = tuple[str, str | None, Any, dict[str, Any]]
"""A span by hand: (span id, parent id, kind as written, attributes)."""


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, int):
        return {"intValue": str(value)}  # OTLP/JSON writes 64-bit integers as strings
    return {"stringValue": value}


def otlp(spans: list[Spec], status: Any = None) -> dict[str, Any]:
    """One ``TracesData`` holding ``spans`` in the order given."""
    out = []
    for span_id, parent, kind, attrs in spans:
        span: dict[str, Any] = {"traceId": "ab" * 16, "spanId": span_id, "name": span_id}
        if parent is not None:
            span["parentSpanId"] = parent
        span["kind"] = kind
        if status is not None:
            span["status"] = {"code": status}
        span["attributes"] = [{"key": k, "value": _value(v)} for k, v in attrs.items()]
        out.append(span)
    return {"resourceSpans": [{"scopeSpans": [{"spans": out}]}]}


def gen_ai(kinds: tuple[Any, Any, Any] = (1, 3, 1)) -> list[Spec]:
    """An agent, one chat span with usage, one tool call: our lens's spelling."""
    agent, chat, tool = kinds
    return [
        ("a0", None, agent, {"gen_ai.operation.name": "invoke_agent"}),
        ("c1", "a0", chat, {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 10,
                            "gen_ai.usage.output_tokens": 2,
                            "gen_ai.usage.cache_read.input_tokens": 4}),
        ("t1", "a0", tool, {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "ls",
                            "gen_ai.tool.call.id": "call_1"}),
    ]  # fmt: skip


def openinference(kinds: tuple[Any, Any, Any] = (1, 3, 1), **changes: Any) -> list[Spec]:
    """The same spans in the OpenInference spelling; ``changes`` edit the attributes of a span
    by its id (a value None removes the key)."""
    agent, chat, tool = kinds
    spans: list[Spec] = [
        ("a0", None, agent, {"openinference.span.kind": "AGENT"}),
        ("c1", "a0", chat, {"openinference.span.kind": "LLM", "llm.token_count.prompt": 10,
                            "llm.token_count.completion": 2,
                            "llm.token_count.prompt_details.cache_read": 4}),
        ("t1", "a0", tool, {"openinference.span.kind": "TOOL", "tool.name": "ls",
                            "tool_call.id": "call_1"}),
    ]  # fmt: skip
    out = []
    for span_id, parent, kind, attrs in spans:
        edited = {**attrs, **changes.get(span_id, {})}
        out.append((span_id, parent, kind, {k: v for k, v in edited.items() if v is not None}))
    return out


def differing(theirs: list[Spec], status: Any = None) -> set[str]:
    """The views in which ``theirs`` differs from our two hand-built outputs."""
    default = spantrees.read(otlp(gen_ai()))
    ours_oi = spantrees.read(otlp(openinference()))
    found = spantrees.compare(default, ours_oi, spantrees.read(otlp(theirs, status)))
    return {view for view, detail in found.items() if detail is not None}


def test_both_conventions_give_one_normalized_tree() -> None:
    """Roles from ``gen_ai.operation.name`` or ``openinference.span.kind``, kinds by integer or
    by enum name, token counts as integers: the two spellings of one trace are one tree."""
    ours = spantrees.read(otlp(gen_ai()))
    theirs = spantrees.read(otlp(openinference(("SPAN_KIND_INTERNAL", "SPAN_KIND_CLIENT",
                                                "SPAN_KIND_INTERNAL"))))  # fmt: skip
    assert ours.roots == theirs.roots
    (root,) = ours.roots
    assert (root.role, root.kind) == ("agent", "INTERNAL")
    chat, tool = root.children
    assert (chat.role, chat.kind, chat.fact("input_tokens"), chat.fact("cache_read_tokens")) == (
        "llm",
        "CLIENT",
        10,
        4,
    )
    assert (tool.role, tool.fact("tool_name"), tool.fact("tool_call_id")) == (
        "tool",
        "ls",
        "call_1",
    )
    assert (ours.enums, theirs.enums) == (frozenset({"integer"}), frozenset({"name"}))
    assert (ours.conventions, theirs.conventions) == ({"gen_ai"}, {"openinference"})


def test_a_span_of_neither_convention_is_other_and_an_unknown_parent_makes_a_root() -> None:
    spans: list[Spec] = [
        ("s1", "gone", 1, {"openinference.span.kind": "CHAIN"}),
        ("s2", None, 1, {"gen_ai.operation.name": "atif.step"}),
        ("s3", "s1", 1, {}),
    ]
    roots = spantrees.read(otlp(spans)).roots
    assert [(r.role, [c.role for c in r.children]) for r in roots] == [
        ("other", ["other"]),
        ("other", []),
    ]


def test_the_same_trace_in_the_same_spelling_differs_in_no_view() -> None:
    assert differing(openinference()) == {"convention"}  # ours is compared as gen_ai there


@pytest.mark.parametrize(
    ("theirs", "status", "views"),
    [
        (openinference(("SPAN_KIND_INTERNAL", "SPAN_KIND_CLIENT", "SPAN_KIND_INTERNAL")),
         "STATUS_CODE_OK", {"enum-encoding"}),
        (openinference((1, 1, 1)), None, {"kind-llm"}),
        (openinference((1, 3, 3)), None, {"kind-tool"}),
        (openinference(t1={"tool_call.id": None}), None, {"tool-call-ids"}),
        (openinference(t1={"tool.name": "cat"}), None, {"tool-names"}),
        (openinference(c1={"llm.token_count.prompt": 11}), None, {"llm-tokens"}),
        (openinference(a0={"llm.token_count.prompt": 10}), None, {"agent-tokens"}),
        (openinference(t1={"openinference.span.kind": "CHAIN"}), None,
         {"roles", "shape", "tool-names", "tool-call-ids", "kind-tool"}),
        ([("a0", None, 1, {"openinference.span.kind": "AGENT"}),
          ("turn", "a0", 1, {"openinference.span.kind": "AGENT"}),
          *[(i, "turn", k, a) for i, _, k, a in openinference()[1:]]], None, {"roles", "shape"}),
    ],
)  # fmt: skip
def test_each_view_sees_its_own_difference(
    theirs: list[Spec], status: Any, views: set[str]
) -> None:
    assert differing(theirs, status) == {"convention", *views}


def test_ours_in_two_conventions_must_give_the_same_tree() -> None:
    default = spantrees.read(otlp(gen_ai()))
    broken = spantrees.read(otlp(openinference(t1={"tool_call.id": None})))
    found = spantrees.compare(default, broken, broken)
    assert found[spantrees.OURS] is not None
    assert found["tool-call-ids"] is None  # their spans are compared with the openinference output


def _cases(*ids: str) -> list[Case]:
    by_id = {c.id: c for c in load_suite(ROOT / "conformance")}
    return [by_id[i] for i in ids]


def test_valid_cases_read_are_compared_with_our_lens() -> None:
    """Our own ``openinference`` output as their spans: no view differs but the convention;
    cases not read, invalid or without spans are left out."""
    valid, invalid, other = _cases(
        "atif-v1.4-valid-rich", "atif-v1.7-invalid-agent-missing-name", "atif-v1.7-valid-rich"
    )
    _, mine = spantrees.ours(read_document(valid.document))
    written, _ = atif_spec.convert(
        read_document(valid.document), to=spantrees.TARGET, otel_convention="openinference"
    )
    assert spantrees.read(written).roots == mine.roots
    results = [
        CaseResult(valid, PASSED, summary={"otlp": written}),
        CaseResult(invalid, PASSED, summary={"otlp": written}),
        CaseResult(other, FAILED, summary={"otlp": written}),
        CaseResult(other, PASSED, summary={"steps": 3}),
    ]
    compared = spantrees.compare_results(results)
    assert {case for case, _, _ in compared.rows} == {valid.id}
    assert [v for _, v, d in compared.rows if d is not None] == ["convention"]
    assert compared.theirs["documents with integer enums"] == 1
    assert compared.theirs["spans of kind CLIENT"] == 3
    summary = compared.summary()
    assert summary["documents"] == 1 and summary["differing"]["convention"] == 1


def test_the_report_section_counts_each_view_and_its_groups() -> None:
    data = {
        "peers": {
            "p": {"span_trees": {"documents": 2, "refused": [], "theirs": {"spans of kind INTERNAL": 6},
                                 "differing": {"kind-llm": 2, "shape": 0}}},
            "q": {},
        },
        "items": [
            {"implementation": "p", "kind": "span-tree", "id": "otel:a:kind-llm", "group": "g"},
            {"implementation": "p", "kind": "span-tree", "id": "otel:b:kind-llm", "group": None},
            {"implementation": "q", "kind": "suite", "id": "x", "group": None},
        ],
    }  # fmt: skip
    text = "\n".join(spantrees.render(data))
    assert "2 valid suite documents" in text and "spans of kind INTERNAL (6)" in text
    assert "| kind-llm | 2 | UNEXPLAINED (1), g (1) |" in text
    assert "| shape | 0 | - |" in text
    assert "### Span trees: q" not in text
