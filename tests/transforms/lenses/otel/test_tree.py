"""The span tree both the OTel lens and ``atif view``'s waterfall are made of."""

from __future__ import annotations

from atif_spec.formats import otel
from atif_spec.transforms.lenses.otel import common as c
from atif_spec.transforms.lenses.otel.tree import span_tree
from tests.transforms.lenses.otel.support import ROOT, load, to_otel

TWO_LEVELS = ROOT / "conformance/atif/v1.8/valid/embedded-subagent-two-levels.json"


def test_the_lens_writes_the_trees_spans() -> None:
    """Every span ``convert --to otel`` writes is a span of the tree: same id (from the pointer),
    parent, name and times, in the same order."""
    doc = load(TWO_LEVELS)
    out, _ = to_otel(doc)
    key = c.document_key(doc)
    written = [
        (
            s["spanId"],
            s.get("parentSpanId"),
            s["name"],
            s["startTimeUnixNano"],
            s["endTimeUnixNano"],
        )
        for s in otel.spans(out)
    ]
    tree = [
        (
            c.span_id(key, s.pointer),
            None if s.parent is None else c.span_id(key, s.parent),
            s.name,
            str(s.start),
            str(s.end),
        )
        for s in span_tree(doc)
    ]
    assert written == tree


def test_parents_depths_and_which_times_are_the_documents() -> None:
    spans = span_tree(load(TWO_LEVELS))
    tool = "/steps/2/tool_calls/0"
    sub = "/subagent_trajectories/0"
    by = {s.pointer: s for s in spans}
    assert [(s.what, s.parent, s.depth) for s in (by[""], by["/steps/2"], by[tool], by[sub])] == [
        ("agent", None, 0),
        ("step", "", 1),
        ("tool", "", 1),  # a tool span is its step's sibling, under the trajectory
        ("agent", tool, 2),  # a subagent under the call that launched it
    ]
    assert by[f"{sub}/steps/1"].parent == sub and by[f"{sub}/steps/1"].depth == 3
    # A step's end is the next step's timestamp; the last step's is its own start, not known.
    assert by["/steps/1"].end_known and by["/steps/1"].end == by["/steps/2"].start
    last = by["/steps/3"]
    assert last.start_known and not last.end_known and last.end == last.start
    # A trajectory from its first span's start to its last span's end (a known moment: the
    # last step's own timestamp).
    assert (by[""].start, by[""].end) == (by["/steps/1"].start, last.start)
    assert by[""].start_known and by[""].end_known
    assert by[tool].step is by["/steps/2"].member and by[tool].start == by["/steps/2"].start


def test_synthesized_times_are_marked() -> None:
    steps = [
        {"step_id": 1, "source": "user", "message": "go"},
        {"step_id": 2, "source": "agent", "message": "a"},
        {"step_id": 3, "source": "agent", "message": "b", "timestamp": "2025-01-01T00:00:01Z"},
    ]
    spans = span_tree({"agent": {"name": "x", "version": "1"}, "steps": steps})
    root, first, second = spans
    assert first.inputs == [steps[0]]  # the user step is the next agent step's input
    assert not first.start_known and first.start == second.start - c.MS
    assert not first.end_known  # its end is a timestamp, but its start is made up
    assert second.start_known and not second.end_known
    assert not root.start_known and root.end_known  # its end: the last timestamp
