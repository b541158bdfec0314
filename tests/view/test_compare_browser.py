"""``atif view A B --compare`` in a real browser (headless chromium, network blocked): the two
runs side by side as a person sees them. ``nox -s site-browser`` runs this file."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from atif_spec.view import ViewOptions, render
from tests.support import ROOT
from tests.support.browser import CHROMIUM, Browser, errors
from tests.support.viewpage import browser, open_page, screenshot, two_runs, wait

__all__ = ["browser"]  # the fixture, used by name

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)"
)


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """:func:`tests.support.viewpage.two_runs` side by side."""
    a, b = two_runs(tmp_path_factory.mktemp("compare"))
    page = a.parent / "compare.html"
    page.write_text(render([str(a), str(b)], ViewOptions(compare=True)))
    return page


ROWS = "Array.from(document.querySelectorAll('table.alignment tr.aligned'))"


def _cells(browser: Browser, row: int) -> list[str]:
    cells = browser.evaluate(f"Array.from({ROWS}[{row}].children).map(td => td.textContent.trim())")
    assert isinstance(cells, list)
    return cells


def test_two_runs_side_by_side_with_gaps(browser: Browser, compared: Path) -> None:
    assert open_page(browser, compared) == []
    assert browser.evaluate("document.querySelector('h1').textContent") == (
        f"Comparison: {compared.parent / 'a.json'} (A) and {compared.parent / 'b.json'} (B)"
    )
    note = browser.evaluate("document.querySelector('.align-note').textContent")
    assert note.startswith("15 rows: 11 same, 2 changed, 1 only in A, 1 only in B.")
    assert "sequence diff over each step's source and tool names" in note
    assert browser.evaluate(f"{ROWS}.length") == 15
    # B calls read_file where A calls bash: paired, marked changed.
    assert _cells(browser, 6)[1] == "\u2260"
    assert _cells(browser, 6)[2].startswith("step 7 agent\u2192 read_file 2,110 tokens")
    # B's extra user step and A's write_file step have no partner: the other side is a gap.
    assert _cells(browser, 10) == ["\u2014", "only B", "step 11 user"]
    assert _cells(browser, 12)[1:] == ["only A", "\u2014"]
    assert _cells(browser, 12)[0].startswith("step 12 agent\u2192 write_file")
    assert _cells(browser, 14)[2].endswith("1 error")  # findings per step
    # The summary marks what differs; the tool calls are counted per run.
    differs = browser.evaluate(
        "Array.from(document.querySelectorAll('.compare-summary tr.differs th')).map(t => t.textContent)"
    )
    assert differs == [
        "source",
        "prompt tokens",
        "completion tokens",
        "cost",
        "tool calls",
        "errors",
    ]
    tools = browser.evaluate(
        "Array.from(document.querySelectorAll('.compare-tools tr')).map(tr => tr.innerText)"
    )
    assert tools == [
        "tool\tcalls in A\tcalls in B",
        "bash_command\t11\t9",
        "grep_search\t0\t1",
        "read_file\t0\t1",
        "write_file\t1\t0",
    ]
    screenshot(browser, "comparison.png")
    # Differences only.
    browser.evaluate(
        "(() => { const c = document.querySelector('input[name=differences]'); c.checked = true;"
        " c.dispatchEvent(new Event('change')); })()"
    )
    shown = browser.evaluate(f"{ROWS}.filter(tr => tr.getBoundingClientRect().height > 0).length")
    assert shown == 4
    assert errors(browser.events) == []


def test_a_step_is_one_click_from_its_run(browser: Browser, compared: Path) -> None:
    assert open_page(browser, compared) == []
    browser.evaluate(f"{ROWS}[6].children[2].click()")
    wait(browser)
    assert browser.evaluate("location.hash") == "#doc-1/step-7"
    assert browser.evaluate("document.querySelector('h1').textContent").endswith("b.json")
    current = "document.querySelector('li.step.current')"
    assert browser.evaluate(f"{current}.querySelector('.id').textContent") == "step 7"
    assert "read_file" in browser.evaluate(f"{current}.textContent")
    back = "document.querySelector('nav.top a')"
    assert browser.evaluate(f"{back}.textContent") == "\u2190 comparison"
    browser.evaluate(f"{back}.click()")
    wait(browser)
    assert browser.evaluate(f"{ROWS}.length") == 15
    assert errors(browser.events) == []


def test_two_long_runs_line_up_and_every_row_is_drawn(browser: Browser, tmp_path: Path) -> None:
    source = ROOT / "conformance/atif/v1.8/valid/large-3000-steps.json"
    doc = orjson.loads(source.read_bytes())
    doc["steps"] = [s for i, s in enumerate(doc["steps"]) if i % 100 != 99]  # 30 steps fewer
    doc.pop("final_metrics", None)
    (tmp_path / "b.json").write_bytes(orjson.dumps(doc))
    page = tmp_path / "long.html"
    page.write_text(render([str(source), str(tmp_path / "b.json")], ViewOptions(compare=True)))
    assert open_page(browser, page) == []
    note = browser.evaluate("document.querySelector('.align-note').textContent")
    # All of B's steps match one of A's; A's 30 dropped steps stand against gaps.
    assert note.startswith("3,000 rows: 2,970 same, 0 changed, 30 only in A, 0 only in B.")
    browser.call(
        "Runtime.evaluate",
        expression="new Promise(r => { const t = () => document.querySelectorAll('tr.aligned')"
        ".length === 3000 ? r(1) : setTimeout(t, 50); t(); })",
        awaitPromise=True,
    )
    last = f"Array.from({ROWS}).at(-1).children[0].textContent"
    assert browser.evaluate(last).startswith("step 3000 agent")
    assert errors(browser.events) == []
