"""A dataset's index in a real browser: a virtualised table (assets/index.js) over 3,000 small
documents. Only the rows in view (and a few more) are in the DOM; scrolling, sorting, filtering,
keys and ``#index/doc-N`` reach every row of the page's data."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from atif_spec.view import ViewOptions, render
from tests.support.browser import CHROMIUM, Browser, errors
from tests.support.viewpage import browser, open_page, wait

__all__ = ["browser"]  # the fixture, used by name

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)"
)
DOCS = 3000
MOST_DRAWN = 100
"""More row elements than the index ever draws at once (its window and overscan)."""
SCROLLER = "document.querySelector('.doc-filters').nextElementSibling"
COUNT = "document.querySelector('.doc-count').textContent"


def _steps(i: int) -> int:
    return (i * 7919) % 13 + 1


def _invalid(i: int) -> bool:
    return i % 7 == 3


def _doc(i: int) -> bytes:
    steps = [
        {"step_id": k + 1, "source": "user", "message": 5 if _invalid(i) else f"doc {i} step {k}"}
        for k in range(_steps(i))
    ]
    agent = {"name": f"agent-{i % 5}", "version": "1"}
    return orjson.dumps({"schema_version": "ATIF-v1.7", "agent": agent, "steps": steps})


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("many")
    data = folder / "many.jsonl"
    data.write_bytes(b"\n".join(_doc(i) for i in range(DOCS)) + b"\n")
    page = folder / "many.html"
    page.write_text(render([str(data)], ViewOptions(max_docs=DOCS)))
    return page


def _settle(browser: Browser) -> None:
    """Let a scroll event and the frames after it run (the index draws on the next frame)."""
    wait(browser, 50)
    browser.call(
        "Runtime.evaluate",
        expression="new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))",
        awaitPromise=True,
    )


def _drawn(browser: Browser) -> list[int]:
    """The '#' (the document's place in the dataset) of every drawn row, in order."""
    numbers = browser.evaluate(
        "Array.from(document.querySelectorAll('tr.doc td:first-child')).map(td => td.textContent)"
    )
    assert isinstance(numbers, list)
    return [int(n) for n in numbers]


def _scroll_to_end(browser: Browser) -> None:
    browser.evaluate(f"{{ const s = {SCROLLER}; s.scrollTop = s.scrollHeight; }}")
    _settle(browser)


def _visible(browser: Browser, row: str, *, on_screen: bool = False) -> bool:
    """True when the row is inside the index's scroll box (below its header) and, with
    ``on_screen``, inside the window too."""
    return bool(
        browser.evaluate(
            f"(() => {{ const r = ({row}).getBoundingClientRect(),"
            f" b = {SCROLLER}.getBoundingClientRect(),"
            f" h = {SCROLLER}.querySelector('thead').getBoundingClientRect();"
            " return r.top >= h.bottom - 1 && r.bottom <= b.bottom + 1"
            f"{' && r.top >= 0 && r.bottom <= innerHeight' if on_screen else ''}; }})()"
        )
    )


def test_only_the_rows_in_view_are_drawn_and_the_end_is_reached(
    browser: Browser, many: Path
) -> None:
    assert open_page(browser, many) == []
    assert browser.evaluate(COUNT) == "3,000 of 3,000 documents"
    first = _drawn(browser)
    assert first[0] == 1 and first == list(range(1, len(first) + 1))
    assert 10 < len(first) < MOST_DRAWN
    assert browser.evaluate(f"{SCROLLER}.scrollHeight") > 20 * browser.evaluate(
        f"{SCROLLER}.clientHeight"
    )  # the spacers stand for the undrawn rows
    _scroll_to_end(browser)
    last = _drawn(browser)
    assert last[-1] == DOCS and len(last) < MOST_DRAWN
    assert _visible(browser, "Array.from(document.querySelectorAll('tr.doc')).pop()")
    assert browser.evaluate("document.querySelectorAll('tr.row').length") < MOST_DRAWN
    assert errors(browser.events) == []


def test_sorting_orders_every_row_not_only_the_drawn(browser: Browser, many: Path) -> None:
    assert open_page(browser, many) == []
    _scroll_to_end(browser)
    steps = "document.querySelector('.doc-table th[data-key=steps]')"
    browser.evaluate(f"{steps}.click()")
    browser.evaluate(f"{steps}.click()")  # most steps first; equals keep the page's order
    _settle(browser)
    by_steps = sorted(range(DOCS), key=lambda i: -_steps(i))
    drawn = _drawn(browser)
    assert drawn[0] == by_steps[0] + 1 and drawn == [i + 1 for i in by_steps[: len(drawn)]]
    assert len(drawn) < MOST_DRAWN
    _scroll_to_end(browser)
    assert _drawn(browser)[-1] == by_steps[-1] + 1
    assert errors(browser.events) == []


def test_filtering_narrows_the_count_over_every_row(browser: Browser, many: Path) -> None:
    assert open_page(browser, many) == []
    browser.evaluate(
        "{ const s = document.querySelector('.doc-filters select'); s.value = 'invalid';"
        " s.dispatchEvent(new Event('change')); }"
    )
    _settle(browser)
    invalid = [i + 1 for i in range(DOCS) if _invalid(i)]
    assert browser.evaluate(COUNT) == f"{len(invalid)} of 3,000 documents"
    drawn = _drawn(browser)
    assert drawn == invalid[: len(drawn)] and len(drawn) < MOST_DRAWN
    _scroll_to_end(browser)
    assert _drawn(browser)[-1] == invalid[-1]
    # Text too, with the choice: the invalid document many.jsonl:2993 (only one).
    browser.evaluate(
        "{ const q = document.querySelector('.doc-filters input'); q.value = 'many.jsonl:2993';"
        " q.dispatchEvent(new Event('input')); }"
    )
    _settle(browser)
    assert browser.evaluate(COUNT) == "1 of 3,000 documents" and _drawn(browser) == [2993]
    assert errors(browser.events) == []


def test_an_anchor_scrolls_the_index_to_a_late_document(browser: Browser, many: Path) -> None:
    browser.load("about:blank")
    assert browser.load(many.as_uri() + "#index/doc-2899") == []
    _settle(browser)
    current = "document.querySelector('tr.doc.current')"
    assert browser.evaluate(f"{current}.querySelector('td').textContent") == "2900"
    assert _visible(browser, current, on_screen=True)
    assert len(_drawn(browser)) < MOST_DRAWN
    # A document's "back to the index" link returns to its row.
    browser.evaluate("location.hash = '#doc-2500'")
    wait(browser)
    back = "document.querySelector('nav.top a')"
    assert browser.evaluate(f"{back}.getAttribute('href')") == "#index/doc-2500"
    browser.evaluate(f"{back}.click()")
    _settle(browser)
    assert browser.evaluate(f"{current}.querySelector('td').textContent") == "2501"
    assert _visible(browser, current, on_screen=True)
    assert errors(browser.events) == []


def _key(browser: Browser, key: str, **mods: bool) -> None:
    flags = "".join(f", {k}: true" for k in mods)
    browser.evaluate(
        f"document.body.dispatchEvent(new KeyboardEvent('keydown', {{key: '{key}', bubbles: true{flags}}}))"
    )


def test_keys_walk_the_rows_and_ctrl_f_goes_to_the_index_search(
    browser: Browser, many: Path
) -> None:
    assert open_page(browser, many) == []
    _key(browser, "j")
    _key(browser, "j")
    current = "document.querySelector('tr.doc.current td').textContent"
    assert browser.evaluate(current) == "2"
    _key(browser, "k")
    assert browser.evaluate(current) == "1"
    _key(browser, "Enter")
    wait(browser, 100)
    assert browser.evaluate("location.hash") == "#doc-0"
    browser.evaluate("location.hash = ''")
    wait(browser, 100)
    _key(browser, "f", ctrlKey=True)
    assert browser.evaluate(
        "document.activeElement === document.querySelector('.doc-filters input')"
    )
    assert errors(browser.events) == []
