"""The waterfall of ``atif view`` in a real browser (headless chromium, network blocked): the spans
of a run with subagents and timestamps, as a person sees them once the section is opened."""

from __future__ import annotations

from pathlib import Path

import pytest

from atif_spec.view import render
from tests.support import ROOT
from tests.support.browser import CHROMIUM, Browser, errors
from tests.support.viewpage import browser, open_page, wait
from tests.view.test_view_browser import _in_view

__all__ = ["browser"]  # the fixture, used by name

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)"
)

TWO_LEVELS = ROOT / "conformance/atif/v1.8/valid/embedded-subagent-two-levels.json"
ROWS = "Array.from(document.querySelectorAll('details.waterfall .wf-row:not(.wf-axis)'))"


def test_the_waterfall_draws_the_span_tree_when_opened(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "two-levels.html"
    page.write_text(render([str(TWO_LEVELS)]))
    assert open_page(browser, page) == []
    summary = "document.querySelector('details.waterfall > summary').textContent"
    assert browser.evaluate(summary) == "spans over time (16 spans, 36 s)"
    # Nothing is drawn before the section is opened (the first screen does not pay for it).
    assert browser.evaluate(f"{ROWS}.length") == 0
    browser.evaluate("document.querySelector('details.waterfall').open = true")
    wait(browser)
    assert browser.evaluate(f"{ROWS}.length") == 16
    labels = browser.evaluate(
        f"{ROWS}.slice(0, 7).map(r => r.querySelector('.wf-label').textContent)"
    )
    assert labels == [
        "invoke_agent qwen-code",
        "chat qwen3-coder-plus",
        "execute_tool list_directory",
        "chat qwen3-coder-plus",
        "execute_tool task",
        "invoke_agent qwen-code-explore",
        "chat qwen3-coder-plus",
    ]
    # Nesting: a subagent is indented under the tool call that launched it, its steps further.
    indents = browser.evaluate(
        f"{ROWS}.slice(0, 7).map(r => r.querySelector('.wf-label').getBoundingClientRect().left"
        " + parseFloat(getComputedStyle(r.querySelector('.wf-label')).paddingLeft))"
    )
    assert (
        indents[0] < indents[1] == indents[2] == indents[3] == indents[4] < indents[5] < indents[6]
    )
    # A bar's width is in proportion to its duration: the step of 32 s is 8 times the one of 4 s.
    widths = browser.evaluate(
        f"{ROWS}.slice(1, 4).map(r => r.querySelector('.wf-bar').getBoundingClientRect().width)"
    )
    assert widths[2] == pytest.approx(8 * widths[0], rel=0.02)
    times = browser.evaluate(
        f"{ROWS}.slice(0, 4).map(r => r.querySelector('.wf-time').textContent)"
    )
    assert times == ["36 s", "4 s", "4 s", "32 s"]
    # The subagent starts 19 s in, on the axis at 19/40 of the track (ticks 0 to 40 s).
    track = browser.evaluate(
        f"(() => {{ const r = {ROWS}[5]; const t = r.querySelector('.wf-track').getBoundingClientRect();"
        " const b = r.querySelector('.wf-bar').getBoundingClientRect();"
        " return [(b.left - t.left) / t.width, b.width / t.width]; })()"
    )
    assert track == [pytest.approx(19 / 40, abs=0.005), pytest.approx(7 / 40, abs=0.005)]
    ticks = browser.evaluate(
        "Array.from(document.querySelectorAll('.wf-axis .wf-tick')).map(t => t.textContent)"
    )
    assert ticks == ["0 s", "10 s", "20 s", "30 s", "40 s"]
    # A trajectory's last step has no known end: a mark at its start, no bar, and it says so.
    ends = browser.evaluate(
        f"{ROWS}.filter(r => r.querySelector('.wf-time').textContent === 'end unknown').length"
    )
    assert ends == 3  # the last step of each of the three trajectories
    last = f"{ROWS}[15]"
    assert browser.evaluate(f"{last}.querySelector('.wf-label').textContent") == (
        "chat qwen3-coder-plus"
    )
    assert browser.evaluate(f"{last}.querySelector('.wf-bar')") is None
    mark = browser.evaluate(
        f"(() => {{ const t = {last}.querySelector('.wf-track').getBoundingClientRect();"
        f" return ({last}.querySelector('.wf-mark').getBoundingClientRect().left - t.left) / t.width; }})()"
    )
    assert mark == pytest.approx(36 / 40, abs=0.005)
    assert errors(browser.events) == []


def test_a_row_links_to_its_step(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "two-levels.html"
    page.write_text(render([str(TWO_LEVELS)]))
    assert open_page(browser, page) == []
    browser.evaluate("document.querySelector('details.waterfall').open = true")
    wait(browser)
    hrefs = browser.evaluate(
        f"{ROWS}.slice(0, 8).map(r => r.querySelector('a').getAttribute('href'))"
    )
    assert hrefs == [
        "#step-1",
        "#step-2",
        "#step-2/call-call_ls",
        "#step-3",
        "#step-3/call-call_task",
        "#sub-explore-1/step-1",
        "#sub-explore-1/step-2",
        "#sub-explore-1/step-2/call-explore-1-call-1",
    ]
    browser.evaluate(f"{ROWS}[6].querySelector('a').click()")
    wait(browser, 400)
    assert browser.evaluate("location.hash") == "#sub-explore-1/step-2"
    # The subagent opens and its step is on the screen.
    assert browser.evaluate("document.querySelector('details.subagent').open") is True
    assert _in_view(browser, "document.getElementById('s-0-/subagent_trajectories/0/steps/1')")
    # A tool call's row goes to the call, inside its step.
    browser.evaluate(f"{ROWS}[4].querySelector('a').click()")
    wait(browser, 400)
    call = "document.querySelector('li.step [data-ptr=\"/steps/2/tool_calls/0\"]')"
    assert browser.evaluate(f"{call}.classList.contains('flash')") is True
    assert _in_view(browser, call)
    assert errors(browser.events) == []


def test_a_run_without_timestamps_says_why_there_is_none(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "minimal.html"
    page.write_text(render([str(ROOT / "conformance/atif/v1.8/valid/minimal.json")]))
    assert open_page(browser, page) == []
    d = "document.querySelector('details.waterfall')"
    assert browser.evaluate(f"{d}.querySelector('summary').textContent") == "spans over time: none"
    browser.evaluate(f"{d}.open = true")
    assert browser.evaluate(f"{d}.querySelector('.chart-note').textContent") == (
        "no step has a timestamp: no waterfall"
    )
    assert browser.evaluate(f"{d}.querySelector('.wf')") is None


def test_the_3000_step_run_draws_only_the_rows_in_view(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "large.html"
    page.write_text(render([str(ROOT / "conformance/atif/v1.8/valid/large-3000-steps.json")]))
    assert open_page(browser, page) == []
    browser.evaluate("document.querySelector('details.waterfall').open = true")
    wait(browser)
    body = "document.querySelector('.wf-body')"
    assert browser.evaluate(f"{body}.querySelector('.wf-space').style.height") == "119940px"
    assert browser.evaluate(f"{ROWS}.length") < 100  # of 5,997 spans
    browser.evaluate(f"{body}.scrollTop = {body}.scrollHeight")
    wait(browser)
    last = browser.evaluate(
        f"(() => {{ const r = {ROWS}.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top)).pop();"
        " return [r.querySelector('.wf-label').textContent, r.querySelector('a').getAttribute('href'),"
        " r.querySelector('.wf-time').textContent, r.style.top]; })()"
    )
    assert last == [
        "execute_tool bash_command",
        "#step-3000/call-call_3000",
        "end unknown",
        "119920px",
    ]
    assert browser.evaluate(f"{ROWS}.length") < 100
    assert errors(browser.events) == []
