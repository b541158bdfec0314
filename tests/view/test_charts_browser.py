"""The charts of ``atif view`` in a real browser (headless chromium, network blocked): axes,
marks and counts as a person sees them. ``nox -s site-browser`` runs this file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from atif_spec.view import ViewOptions, render
from tests.support import ROOT
from tests.support.browser import CHROMIUM, Browser, errors
from tests.support.viewpage import browser, open_page, screenshot, wait

__all__ = ["browser"]  # the fixture, used by name

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)"
)


def _texts(browser: Browser, chart: str, cls: str) -> list[str]:
    texts = browser.evaluate(
        f"Array.from({chart}.querySelectorAll('svg text.{cls}')).map(t => t.textContent)"
    )
    assert isinstance(texts, list)
    return texts


def _chart(title: str) -> str:
    return (
        "Array.from(document.querySelectorAll('.chart'))"
        f".find(c => c.querySelector('h3').textContent === {orjson.dumps(title).decode()})"
    )


def test_tokens_and_latency_per_step_with_axes_and_counts(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "rich.html"
    page.write_text(render([str(ROOT / "conformance/atif/v1.8/valid/rich.json")]))
    assert open_page(browser, page) == []
    tokens = _chart("tokens per step (subagents not included)")
    assert _texts(browser, tokens, "tick") == ["0", "200", "400", "600", "1", "2", "3", "4", "5"]
    assert _texts(browser, tokens, "count") == ["32", "463", "520"]  # above each stack
    assert _texts(browser, tokens, "axis-name") == ["tokens", "step_id"]
    legend = browser.evaluate(f"{tokens}.querySelector('.legend').textContent")
    assert legend == "cached prompt 848uncached prompt 86completion 81"
    assert browser.evaluate(f"{tokens}.querySelector('.chart-note').textContent") == (
        "3 of 5 steps report tokens"
    )
    # Each column says what it holds; a click goes to its step.
    tip = f"{tokens}.querySelectorAll('g.column')[3]"
    assert browser.evaluate(f"{tip}.querySelector('title').textContent") == (
        "step_id 4: cached prompt 384 · uncached prompt 28 · completion 51"
    )
    browser.evaluate(f"{tip}.dispatchEvent(new MouseEvent('click', {{bubbles: true}}))")
    wait(browser)
    assert browser.evaluate("location.hash") == "#step-4"
    latency = _chart("latency per step (subagents not included)")
    assert _texts(browser, latency, "tick")[:3] == ["0", "5", "10"]
    assert _texts(browser, latency, "count") == ["1", "5.483", "5.017", "8.5"]
    assert "4 of 5 steps timed" in browser.evaluate(f"{latency}.textContent")
    # The bars are drawn to the axis' scale: 8.5 s of 10 is 85% of the plot's height.
    heights = browser.evaluate(
        f"Array.from({latency}.querySelectorAll('rect.bar')).map(r => r.getBBox().height)"
    )
    assert heights[-1] == pytest.approx(140 * 0.85, abs=0.5)
    assert errors(browser.events) == []


def test_a_run_without_timestamps_says_so(browser: Browser, tmp_path: Path) -> None:
    steps: list[dict[str, Any]] = [
        {"step_id": i, "source": "agent", "message": "m", "metrics": {"prompt_tokens": 10 * i}}
        for i in (1, 2)
    ]
    source = tmp_path / "t.json"
    source.write_bytes(
        orjson.dumps(
            {"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"}, "steps": steps}
        )
    )
    page = tmp_path / "t.html"
    page.write_text(render([str(source)]))
    assert open_page(browser, page) == []
    latency = _chart("latency per step")
    assert browser.evaluate(f"{latency}.querySelector('svg')") is None
    assert browser.evaluate(f"{latency}.querySelector('.chart-note').textContent") == (
        "no step has a timestamp (with a time zone): no latency chart"
    )
    assert _texts(browser, _chart("tokens per step"), "count") == ["10", "20"]


def test_the_3000_step_run_gets_one_column_per_15_steps(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "large.html"
    page.write_text(render([str(ROOT / "conformance/atif/v1.8/valid/large-3000-steps.json")]))
    assert open_page(browser, page) == []
    tokens = _chart("tokens per 15 steps")
    assert browser.evaluate(f"{tokens}.querySelectorAll('g.column').length") == 200
    ticks = _texts(browser, tokens, "tick")
    assert ticks[:5] == ["0", "100k", "200k", "300k", "400k"] and ticks[5] == "1\u201315"
    assert ticks[-1] == "2986\u20133000"
    assert _texts(browser, tokens, "axis-name") == ["tokens", "step_id (15 steps a column)"]
    browser.evaluate(
        f"{tokens}.querySelectorAll('g.column')[199].dispatchEvent(new MouseEvent('click', {{bubbles: true}}))"
    )
    wait(browser)
    assert browser.evaluate("location.hash") == "#step-2986"
    assert browser.evaluate("document.querySelector('li.step.current .id').textContent") == (
        "step 2986"
    )
    assert errors(browser.events) == []


def test_dataset_charts_have_axes_and_counts(browser: Browser, tmp_path: Path) -> None:
    lines = [
        path.read_bytes().replace(b"\n", b"")
        for path in sorted((ROOT / "conformance/atif/v1.7").glob("*/*.json"))[::3][:40]
    ]
    data = tmp_path / "data.jsonl"
    data.write_bytes(b"\n".join([*lines, b"{not json"]) + b"\n")
    page = tmp_path / "index.html"
    page.write_text(render([str(data)], ViewOptions(max_docs=30)))
    assert open_page(browser, page) == []
    validity = _chart("validity (documents)")
    valid, invalid = (
        browser.evaluate(f"document.querySelector('.grid').textContent.match(/{k}(\\d+)/)[1]")
        for k in ("valid", "invalid")
    )
    assert _texts(browser, validity, "count") == [valid, invalid]
    assert _texts(browser, validity, "label") == ["valid", "invalid"]
    assert _texts(browser, validity, "tick")[0] == "0"
    steps = _chart("steps per document")
    # Every document read as a trajectory is in the histogram (not only this page's 30).
    counts = [int(c) for c in _texts(browser, steps, "count")]
    legend = browser.evaluate(f"{steps}.querySelector('.legend .count').textContent")
    assert sum(counts) == int(legend) >= 30
    assert _texts(browser, steps, "axis-name") == ["documents", "steps"]
    assert _texts(browser, steps, "tick")[0] == "0"
    screenshot(browser, "dataset-charts.png")
