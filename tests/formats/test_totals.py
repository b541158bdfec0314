"""atif_spec.formats.totals: the one definition of token and cost totals (RFC.md §2.4)."""

from __future__ import annotations

import math
from typing import Any

from atif_spec.formats.totals import Totals, step_totals, trajectory_totals


def _agent(metrics: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    step: dict[str, Any] = {"source": "agent", "message": "ok", **fields}
    if metrics is not None:
        step["metrics"] = metrics
    return step


def _doc(steps: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    return {"schema_version": "ATIF-v1.7", "steps": steps, **fields}


def test_steps_add_up_once_each() -> None:
    t = step_totals(
        [
            _agent({"prompt_tokens": 100, "completion_tokens": 10, "cost_usd": 0.1}),
            _agent({"prompt_tokens": 200, "cached_tokens": 50, "cost_usd": 0.2}, llm_call_count=3),
            {"source": "user", "message": "hi"},
        ]
    )
    assert (t.prompt_tokens, t.completion_tokens, t.cached_tokens) == (300, 10, 50)
    assert t.cost_usd is not None and math.isclose(t.cost_usd, 0.3)
    assert t.steps == 3 and t.mistyped == []


def test_copied_context_and_zero_call_steps_do_not_count() -> None:
    t = step_totals(
        [
            _agent({"prompt_tokens": 100}, is_copied_context=True),
            _agent({"prompt_tokens": 7}, llm_call_count=0),
            _agent({"prompt_tokens": 5}, is_copied_context=False, llm_call_count=1),
        ]
    )
    assert t.prompt_tokens == 5
    assert (t.copied_context_steps, t.zero_call_steps) == (1, 1)


def test_absent_metrics_give_absent_totals_and_integral_floats_count() -> None:
    assert step_totals([_agent()]).as_final_metrics() == {}
    t = step_totals([_agent({"prompt_tokens": 100.0}), _agent({"prompt_tokens": "9"})])
    assert t.prompt_tokens == 100 and t.mistyped == ["prompt_tokens"]
    assert t.as_final_metrics() == {"total_prompt_tokens": 100}


def test_subagents_embedded_and_resolved_files_are_included_once() -> None:
    child = _doc([_agent({"prompt_tokens": 10})], trajectory_id="c1")
    grandchild = _doc([_agent({"completion_tokens": 4})], trajectory_id="g1")
    child["subagent_trajectories"] = [grandchild]
    ref = {"trajectory_path": "sub.json"}
    filed = _doc([_agent({"prompt_tokens": 1000})])
    parent = _doc(
        [
            _agent({"prompt_tokens": 1}),
            _agent(observation={"results": [{"subagent_trajectory_ref": [ref, dict(ref)]}]}),
        ],
        subagent_trajectories=[child],
    )
    unresolved = trajectory_totals(parent)
    assert unresolved.prompt_tokens == 11 and unresolved.completion_tokens == 4
    assert unresolved.unresolved_refs == 2 and unresolved.subagents == 2
    holders: list[Any] = []
    resolved = trajectory_totals(parent, resolve=lambda r, h: holders.append(h) or filed)
    assert resolved.prompt_tokens == 1011  # the same file, named twice, counts once
    assert resolved.unresolved_refs == 0 and resolved.subagents == 3
    assert all(h is parent for h in holders)  # the refs are in the parent's own file


def test_a_resolved_files_refs_are_resolved_with_that_file_as_their_holder() -> None:
    """Relative paths resolve against the folder of the file holding the reference (RFC.md
    §2.2), so the resolver learns which document file holds each reference."""
    ref_c = {"trajectory_path": "c.json"}
    results = {"results": [{"subagent_trajectory_ref": [ref_c]}]}
    b = _doc([_agent({"prompt_tokens": 20}, observation=results)])
    b["subagent_trajectories"] = [_doc([_agent(observation=results)], trajectory_id="e")]
    c = _doc([_agent({"prompt_tokens": 3})])
    a = _doc([_agent({"prompt_tokens": 100}, observation={
        "results": [{"subagent_trajectory_ref": [{"trajectory_path": "sub/b.json"}]}]})])  # fmt: skip
    files = {(id(a), "sub/b.json"): b, (id(b), "c.json"): c}
    calls: list[tuple[str, Any]] = []

    def resolve(ref: Any, holder: Any) -> Any:
        calls.append((ref["trajectory_path"], holder))
        return files.get((id(holder), ref["trajectory_path"]))

    assert trajectory_totals(a, resolve).prompt_tokens == 123
    assert [(path, holder is a, holder is b) for path, holder in calls] == [
        ("sub/b.json", True, False),
        ("c.json", False, True),  # b's own ref and its embedded subagent's: b's file holds both
        ("c.json", False, True),
    ]


def test_deep_subagent_nesting_does_not_exhaust_the_stack() -> None:
    doc = _doc([_agent({"prompt_tokens": 1})])
    node = doc
    for _ in range(5000):
        sub = _doc([_agent({"prompt_tokens": 1})])
        node["subagent_trajectories"] = [sub]
        node = sub
    assert trajectory_totals(doc).prompt_tokens == 5001


def test_add_merges_totals() -> None:
    a, b = Totals(prompt_tokens=1, steps=1), Totals(prompt_tokens=2, cost_usd=0.5, steps=2)
    a.add(b)
    assert (a.prompt_tokens, a.cost_usd, a.steps) == (3, 0.5, 3)
