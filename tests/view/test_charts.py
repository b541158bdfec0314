"""What the charts of ``atif view`` show: tokens and latency per step, a dataset's charts."""

from __future__ import annotations

from typing import Any

from atif_spec.datasets.stats import Group
from atif_spec.view.charts import MAX_COLUMNS, dataset_charts, step_charts


def _step(i: int, **fields: Any) -> dict[str, Any]:
    return {"step_id": i, "source": "agent", "message": "m", **fields}


def _series(chart: dict[str, Any]) -> dict[str, list[Any]]:
    return {s["name"]: s["values"] for s in chart["series"]}


def test_tokens_per_step_stack_cached_uncached_and_completion() -> None:
    steps = [
        _step(1),
        _step(2, metrics={"prompt_tokens": 100, "completion_tokens": 20, "cached_tokens": 60}),
        _step(3, is_copied_context=True, metrics={"prompt_tokens": 999}),  # RFC.md §2.4
        _step(4, metrics={"prompt_tokens": 50.0, "completion_tokens": 5}),
    ]
    tokens, _ = step_charts({"steps": steps})
    assert tokens["kind"] == "columns" and tokens["labels"] == ["1", "2", "3", "4"]
    assert _series(tokens) == {
        "cached prompt": [0, 60, 0, 0],
        "uncached prompt": [0, 40, 0, 50],
        "completion": [0, 20, 0, 5],
    }
    assert [s["total"] for s in tokens["series"]] == [60, 90, 25]
    assert tokens["ticks"] == [0, 50, 100, 150]  # the tallest stack is 120
    assert (tokens["x"], tokens["y"], tokens["per"]) == ("step_id", "tokens", 1)
    assert tokens["note"] == "2 of 4 steps report tokens"
    # Without cached tokens the prompt is one part.
    plain, _ = step_charts({"steps": [_step(1, metrics={"prompt_tokens": 3})]})
    assert list(_series(plain)) == ["prompt", "completion"]


def test_latency_is_the_time_from_the_previous_timestamp() -> None:
    steps = [
        _step(1, timestamp="2026-01-01T00:00:00Z"),
        _step(2),  # no timestamp: no latency, and the next one counts from step 1
        _step(3, timestamp="2026-01-01T00:00:08.5Z"),
        _step(4, timestamp="2026-01-01T00:00:05Z"),  # earlier than the one before: left out
        _step(5, timestamp="2026-01-01T00:00:07+00:00"),
    ]
    _, latency = step_charts({"steps": steps})
    assert _series(latency) == {"seconds": [0, 0, 8.5, 0, 2]}
    assert latency["ticks"] == [0, 5, 10] and latency["y"] == "seconds"
    assert latency["note"] == (
        "2 of 5 steps timed: seconds from the previous timestamp; "
        "1 timestamps earlier than the one before them left out"
    )


def test_no_timestamps_or_tokens_say_so() -> None:
    tokens, latency = step_charts({"steps": [_step(1), _step(2, timestamp="2026-01-01T00:00:00")]})
    assert tokens == {
        "kind": "none",
        "title": "tokens per step",
        "note": "no step reports prompt or completion tokens: no token chart",
    }
    assert latency["kind"] == "none"
    assert latency["note"] == "no step has a timestamp (with a time zone): no latency chart"
    assert step_charts({"steps": []}) == [] and step_charts({}) == []


def test_a_long_run_puts_consecutive_steps_in_one_column() -> None:
    steps = [
        _step(
            i + 1,
            metrics={"prompt_tokens": 1},
            timestamp=f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z",
        )
        for i in range(3000)
    ]
    tokens, latency = step_charts({"steps": steps, "subagent_trajectories": [{"steps": []}]})
    assert len(tokens["labels"]) == MAX_COLUMNS and tokens["per"] == 15
    assert tokens["labels"][0] == "1\u201315" and tokens["labels"][-1] == "2986\u20133000"
    assert _series(tokens)["prompt"] == [15] * MAX_COLUMNS  # each column the sum of its steps
    assert sum(_series(latency)["seconds"]) == 2999
    assert tokens["title"] == "tokens per 15 steps (subagents not included)"
    assert tokens["x"] == "step_id (15 steps a column)"


def test_dataset_charts_bars_and_histograms_over_every_document() -> None:
    group = Group(documents=5, valid=4, steps=[1, 2, 2, 30], tokens=[], costs=[0.5])
    group.tool_calls.update({f"tool{i}": i for i in range(1, 11)})
    charts = {c["title"]: c for c in dataset_charts(group)}
    validity = charts["validity (documents)"]
    assert validity["rows"] == [["valid", 4, "good"], ["invalid", 1, "bad"]]
    assert validity["ticks"] == [0, 1, 2, 3, 4]
    calls = charts["tool calls (top 8 of 10)"]
    assert [r[0] for r in calls["rows"]][:2] == ["tool10", "tool9"] and len(calls["rows"]) == 8
    steps = charts["steps per document"]
    assert sum(steps["series"][0]["values"]) == 4 and steps["labels"][0] == "0\u20134"
    assert (steps["x"], steps["y"]) == ("steps", "documents")
    assert charts["tokens per document, prompt + completion"]["kind"] == "none"
    assert charts["cost per document (USD)"]["labels"] == ["0.5\u20130.55"]
    assert "findings by code" not in charts


def test_bar_charts_put_the_largest_first_except_validity() -> None:
    group = Group(documents=3, valid=1)
    group.tool_calls.update({"read": 1, "bash": 5, "edit": 5})
    charts = dataset_charts(group)
    assert charts[0]["rows"] == [["valid", 1, "good"], ["invalid", 2, "bad"]]
    assert [r[0] for r in charts[1]["rows"]] == ["bash", "edit", "read"]
    assert charts[1]["title"] == "tool calls"
