"""``atif view`` pages in a real browser: Debian's chromium, headless, network blocked.

Each page is opened from a file with every http(s)/ws request blocked and the browser offline;
a test fails on any console error, exception, CSP violation or request that is not the page
itself or a ``data:`` URI. DOM assertions check that findings jump to their step, folding
works and hostile content stays text. Screenshots go to ``$ATIF_ARTIFACTS/view`` (default
``.bench/artifacts/view``) as artifacts; they are not compared. Skips without chromium or
websockets; ``nox -s site-browser`` runs this file with ATIF_FAIL_ON_SKIP=1.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import orjson
import pytest

from atif_spec.view import ViewOptions, render
from tests.support import ROOT
from tests.support.browser import CHROMIUM, Browser, errors
from tests.support.harbor import harbor_job
from tests.support.viewpage import browser, open_page, screenshot, wait

__all__ = ["browser"]  # the fixture, used by name

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)"
)
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
HOSTILE = [
    "<script>window.pwned=1</script>",
    "</script><script>window.pwned=2</script>",
    '<img src=x onerror="window.pwned=3">',
    "javascript:window.pwned=4",
    "\u2028\u2029 & < > end",
]


def _trajectory(folder: Path) -> Path:
    """A trajectory with findings, hostile strings, an image, a subagent and long text."""
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "images" / "dot.png").write_bytes(PNG)
    (folder / "images" / "fake.png").write_bytes(b"<svg onload=alert(1)>")
    sub = {
        "schema_version": "ATIF-v1.7",
        "trajectory_id": "sub-1",
        "agent": {"name": "helper", "version": "1"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "sub task"},
            {"step_id": 2, "source": "agent", "message": "done", "metrics": {"prompt_tokens": -5}},
        ],
    }
    steps: list[dict[str, Any]] = [
        {
            "step_id": 1,
            "source": "system",
            "message": "You are an agent. " + HOSTILE[0],
            "timestamp": "2026-01-01T00:00:00Z",
        },
        {
            "step_id": 2,
            "source": "user",
            "timestamp": "2026-01-01T00:00:01Z",
            "message": [
                {"type": "text", "text": HOSTILE[2]},
                {"type": "image", "source": {"media_type": "image/png", "path": "images/dot.png"}},
                {"type": "image", "source": {"media_type": "image/png", "path": "images/fake.png"}},
                {
                    "type": "image",
                    "source": {"media_type": "image/png", "path": "../../etc/passwd"},
                },
                {
                    "type": "image",
                    "source": {"media_type": "image/png", "path": "https://example.com/x.png"},
                },
            ],
        },
        {
            "step_id": 3,
            "source": "agent",
            "timestamp": "2026-01-01T00:00:05Z",
            "message": HOSTILE[1],
            "reasoning_content": "thinking " * 400,
            "tool_calls": [
                {
                    "tool_call_id": "c1",
                    "function_name": "bash",
                    "arguments": {"cmd": HOSTILE[3], "long": "x" * 5000},
                },
                {"tool_call_id": "c2", "function_name": "task", "arguments": {"goal": "sub"}},
            ],
            "observation": {
                "results": [
                    {"source_call_id": "c1", "content": HOSTILE[4]},
                    {
                        "source_call_id": "c2",
                        "content": "delegated",
                        "subagent_trajectory_ref": {"trajectory_id": "sub-1"},
                    },
                ]
            },
            "metrics": {"prompt_tokens": 100, "completion_tokens": 20, "cost_usd": 0.01},
        },
        {
            "step_id": 4,
            "source": "system",
            "message": "compacted",
            "extra": {"context_management": {"type": "compaction", "boundary": "replace"}},
        },
        {"step_id": 5, "source": "agent", "message": "copied", "is_copied_context": True},
        {"step_id": 6, "source": "agent", "message": "no call", "llm_call_count": 0},
    ]
    for i in range(7, 120):
        steps.append({"step_id": i, "source": "agent" if i % 2 else "user", "message": f"step {i}"})
    steps.append({"step_id": 999, "source": "agent", "message": 5})  # a finding far down
    doc = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s-1" + "<b>" * 200_000,
        "agent": {"name": "demo-agent", "version": "2.0", "model_name": "model-x"},
        "steps": steps,
        "subagent_trajectories": [sub],
    }
    path = folder / "trajectory.json"
    path.write_bytes(orjson.dumps(doc))
    return path


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("single")
    page = folder / "page.html"
    page.write_text(render([str(_trajectory(folder / "run"))]))
    return page


def test_single_trajectory_loads_offline_without_errors(browser: Browser, single: Path) -> None:
    assert open_page(browser, single) == []
    assert browser.evaluate("document.querySelector('h1').textContent").endswith("trajectory.json")
    assert (
        browser.evaluate("document.querySelectorAll('li.step').length") == 50
    )  # lazy: first chunk
    assert browser.evaluate("document.querySelectorAll('.findings-list li').length") >= 3
    screenshot(browser, "single-trajectory.png")


def test_hostile_content_is_text(browser: Browser, single: Path) -> None:
    assert open_page(browser, single) == []
    assert browser.evaluate("window.pwned") is None
    assert browser.evaluate("document.querySelectorAll('script').length") == 2
    handlers = "Array.from(document.querySelectorAll('*')).filter(e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).length"
    assert browser.evaluate(handlers) == 0
    assert browser.evaluate(
        "Array.from(document.images).every(i => i.src.startsWith('data:image/png;base64,'))"
    )
    assert browser.evaluate("document.images.length") == 1  # only the real PNG inside the folder
    body = browser.evaluate("document.getElementById('app').textContent")
    for s in HOSTILE[:4]:
        assert s in body
    assert "outside the document's folder" in body and "is not image/png" in body
    # A huge string in a header field is shortened, as text.
    assert "s-1<b><b>" in body and len(body) < 200_000
    assert browser.evaluate("document.querySelectorAll('b').length") == 0
    assert (
        browser.evaluate(
            "Array.from(document.links).filter(a => !a.href.startsWith('https://') && !a.href.includes('#')).length"
        )
        == 0
    )
    assert browser.evaluate(
        "Array.from(document.links).some(a => a.href === 'https://example.com/x.png')"
    )


def test_clicking_a_finding_scrolls_to_its_step(browser: Browser, single: Path) -> None:
    assert open_page(browser, single) == []
    # The finding on step index 119 (message 5) is past the first rendered chunk.
    index = browser.evaluate(
        "Array.from(document.querySelectorAll('.findings-list li')).findIndex(li => li.textContent.includes('/steps/119/message'))"
    )
    assert index >= 0
    browser.evaluate(f"document.querySelectorAll('.findings-list li')[{index}].click()")
    step = "document.getElementById('s-0-/steps/119')"
    assert browser.evaluate(f"!!{step}") is True
    top = browser.evaluate(f"{step}.getBoundingClientRect().top")
    assert 0 <= top < browser.evaluate("window.innerHeight")
    # Each finding sits at the field its pointer names.
    message = f"{step}.querySelector('[data-ptr=\"/steps/119/message\"] .finding').textContent"
    assert browser.evaluate(message).startswith("schema:type")
    step_id = f"{step}.querySelector(':scope > .finding').textContent"
    assert browser.evaluate(step_id).startswith("ATIF101")
    # A finding inside the embedded subagent opens it under the call that launched it.
    sub = browser.evaluate(
        "Array.from(document.querySelectorAll('.findings-list li')).findIndex(li => li.textContent.includes('/subagent_trajectories/0/steps/1'))"
    )
    assert sub >= 0
    browser.evaluate(f"document.querySelectorAll('.findings-list li')[{sub}].click()")
    assert browser.evaluate("document.querySelector('details.subagent').open") is True
    assert (
        browser.evaluate(
            "document.querySelector('details.subagent').closest('.result').querySelector('.label').textContent"
        )
        == "observation result"
    )
    assert open_page(browser, single) == []


def test_folding_and_call_result_links(browser: Browser, single: Path) -> None:
    assert open_page(browser, single) == []
    reasoning = "document.querySelector('details.field[data-ptr=\"/steps/2/reasoning_content\"]')"
    assert browser.evaluate(f"{reasoning}.open") is False
    browser.evaluate(f"{reasoning}.querySelector('summary').click()")
    assert browser.evaluate(f"{reasoning}.open") is True
    args = "document.querySelector('[data-ptr=\"/steps/2/tool_calls/0/arguments\"] pre')"
    # Folded: the rest is in the page, hidden until found (the browser's find sees it).
    assert (
        browser.evaluate(f"{args}.querySelector('.rest').getAttribute('hidden')") == "until-found"
    )
    assert browser.evaluate(f"{args}.querySelector('.rest').getBoundingClientRect().height") == 0
    assert browser.evaluate(f"{args}.innerText.length") < 2000
    browser.evaluate(
        "document.querySelector('[data-ptr=\"/steps/2/tool_calls/0/arguments\"] button.more').click()"
    )
    assert browser.evaluate(f"{args}.innerText.length") > 5000
    browser.evaluate(
        "Array.from(document.querySelectorAll('button.link')).find(b => b.textContent === '→ result').click()"
    )
    assert browser.evaluate("document.querySelector('.result.flash') !== null") is True
    marks = browser.evaluate(
        "Array.from(document.querySelectorAll('.badge.mark')).map(b => b.textContent)"
    )
    assert any("copied context" in m for m in marks) and any("llm_call_count 0" in m for m in marks)
    assert "compaction" in browser.evaluate("document.querySelector('.boundary').textContent")


def test_scrolling_renders_more_steps(browser: Browser, single: Path) -> None:
    assert open_page(browser, single) == []
    browser.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    browser.call(
        "Runtime.evaluate", expression="new Promise(r => setTimeout(r, 300))", awaitPromise=True
    )
    assert browser.evaluate("document.querySelectorAll('li.step').length") > 50


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("dataset")
    lines = [
        path.read_bytes().replace(b"\n", b"")
        for path in sorted((ROOT / "conformance/atif/v1.7").glob("*/*.json"))[::3][:40]
    ]
    lines.append(b"{not json")
    data = folder / "data.jsonl"
    data.write_bytes(b"\n".join(lines) + b"\n")
    page = folder / "index.html"
    page.write_text(render([str(data)], ViewOptions(max_docs=30)))
    return page


def test_dataset_index_and_one_click_to_a_document(browser: Browser, dataset: Path) -> None:
    assert open_page(browser, dataset) == []
    assert 0 < browser.evaluate("document.querySelectorAll('table tr.row').length") <= 30
    note = browser.evaluate("document.querySelector('.note').textContent")
    total = len(sorted((ROOT / "conformance/atif/v1.7").glob("*/*.json"))[::3][:40]) + 1
    assert note.startswith(f"{total} documents; this page shows documents 1\u201330 (page 1 of 2,")
    assert "--max-docs 30 --page N (N from 1 to 2)" in note
    assert browser.evaluate("document.querySelectorAll('.chart svg').length") >= 4
    assert browser.evaluate("document.querySelectorAll('.badge.invalid').length") >= 1
    screenshot(browser, "dataset-index.png")
    browser.evaluate("document.querySelectorAll('table tr.row')[2].click()")
    browser.call(
        "Runtime.evaluate", expression="new Promise(r => setTimeout(r, 100))", awaitPromise=True
    )
    assert browser.evaluate("location.hash") == "#doc-2"
    assert browser.evaluate("document.querySelector('nav.top a').textContent") == "← dataset index"
    assert errors(browser.events) == []


def _doc_column(browser: Browser, column: int) -> list[str]:
    cells = browser.evaluate(
        f"Array.from(document.querySelectorAll('tr.doc td:nth-child({column})')).map(td => td.textContent)"
    )
    assert isinstance(cells, list)
    return cells


def test_a_datasets_index_sorts_and_filters(browser: Browser, dataset: Path) -> None:
    """The documents' index is the trials' table: sorted by a column, filtered by validity and
    by text, the count saying how many of the page's rows show."""
    assert open_page(browser, dataset) == []
    count = "document.querySelector('.doc-count').textContent"
    total = len(sorted((ROOT / "conformance/atif/v1.7").glob("*/*.json"))[::3][:40]) + 1
    on_page = f"on this page, of {total} in the dataset (--max-docs 30; --page N for the others)"
    assert browser.evaluate(count) == f"30 of 30 documents {on_page}"
    drawn = _doc_column(browser, 1)  # the rows in the index's scroll box (it is virtualised)
    assert drawn == [str(n) for n in range(1, len(drawn) + 1)]
    # Sorted by steps, most first (a second click turns the order); '#' stays each document's place.
    steps = "document.querySelector('.doc-table th[data-key=steps]')"
    browser.evaluate(f"{steps}.click()")
    browser.evaluate(f"{steps}.click()")
    assert browser.evaluate(f"{steps}.getAttribute('aria-sort')") == "descending"
    shown = [int(v.replace(",", "")) for v in _doc_column(browser, 7) if v != "\u2013"]
    assert shown == sorted(shown, reverse=True) and shown[0] > shown[-1]
    assert _doc_column(browser, 1) != drawn
    # Invalid documents only, then one by its name.
    browser.evaluate(
        "{ const s = document.querySelector('.doc-filters select'); s.value = 'invalid';"
        " s.dispatchEvent(new Event('change')); }"
    )
    invalid = int(browser.evaluate(count).split()[0])
    assert 0 < invalid < 30 and browser.evaluate(count) == f"{invalid} of 30 documents {on_page}"
    assert set(_doc_column(browser, 4)) == {"invalid"}
    browser.evaluate(
        "{ const s = document.querySelector('.doc-filters select'); s.value = '';"
        " s.dispatchEvent(new Event('change'));"
        " const q = document.querySelector('.doc-filters input'); q.value = 'data.jsonl:12';"
        " q.dispatchEvent(new Event('input')); }"
    )
    assert _doc_column(browser, 1) == ["12"]
    browser.evaluate("document.querySelector('tr.doc td:nth-child(3)').click()")
    wait(browser, 100)
    assert browser.evaluate("location.hash") == "#doc-11"
    assert errors(browser.events) == []


def test_a_claude_code_session_is_converted_and_says_so(browser: Browser, tmp_path: Path) -> None:
    session = (
        ROOT
        / "conformance/native/claude-code/task-subagent-session"
        / "7c41d2e8-0b9a-4f63-a5d1-2e8f4c9b1a70.jsonl"
    )
    page = tmp_path / "session.html"
    page.write_text(render([str(session)]))
    assert open_page(browser, page) == []
    note = browser.evaluate("document.querySelector('p.converted').textContent")
    assert "Claude Code stream-json provider stream, converted in memory" in note
    text = browser.evaluate("document.getElementById('app').textContent")
    assert "empty document" not in text and "As ATIF (converted to atif@v1.7)" in text
    assert browser.evaluate("document.querySelectorAll('.timeline li.step').length") >= 3
    assert errors(browser.events) == []


def test_a_datasets_second_page_shows_the_rest(browser: Browser, tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    lines = [
        path.read_bytes().replace(b"\n", b"")
        for path in sorted((ROOT / "conformance/atif/v1.7").glob("*/*.json"))[:25]
    ]
    data.write_bytes(b"\n".join(lines) + b"\n")
    page = tmp_path / "page2.html"
    page.write_text(render([str(data)], ViewOptions(max_docs=10, page=2)))
    assert open_page(browser, page) == []
    note = browser.evaluate("document.querySelector('.note').textContent")
    assert note.startswith("25 documents; this page shows documents 11\u201320 (page 2 of 3,")
    assert f"atif view {data} --max-docs 10 --page N" in note
    first = browser.evaluate("document.querySelector('table tr.row td').textContent")
    assert (
        first == "11" and browser.evaluate("document.querySelectorAll('table tr.row').length") == 10
    )
    browser.evaluate("document.querySelectorAll('table tr.row')[0].click()")
    wait(browser, 100)
    assert browser.evaluate("location.hash") == "#doc-0"
    assert browser.evaluate("document.querySelector('h1').textContent") == f"{data}:11"
    assert errors(browser.events) == []


def test_non_atif_findings_on_the_source_tree(browser: Browser, tmp_path: Path) -> None:
    source = ROOT / "conformance/tao/v0.2.0/invalid/agent-missing-name.json"
    page = tmp_path / "tao.html"
    page.write_text(render([str(source)]))
    assert open_page(browser, page) == []
    assert "Source document (tao)" in browser.evaluate("document.getElementById('app').textContent")
    browser.evaluate("document.querySelector('.findings-list li').click()")
    # /agent/name is missing: the finding shows on /agent, the deepest node that exists.
    box = "document.getElementById('f-0-0')"
    assert browser.evaluate(f"{box}.parentElement.getAttribute('data-ptr')") == "/agent"
    assert browser.evaluate(f"{box}.parentElement.open") is True
    assert browser.evaluate(f"{box}.getBoundingClientRect().height") > 0
    assert "not converted to ATIF" in browser.evaluate("document.getElementById('app').textContent")


def test_followed_subagent_files_open_under_their_call(browser: Browser, tmp_path: Path) -> None:
    source = ROOT / "conformance/atif/v1.7/valid/summarization-file-refs/trajectory.json"
    page = tmp_path / "refs.html"
    page.write_text(render([str(source)], ViewOptions(follow_refs=True)))
    assert open_page(browser, page) == []
    files = "document.querySelectorAll('.result details.subagent')"
    assert browser.evaluate(f"{files}.length") == 3
    browser.evaluate(f"{files}[0].querySelector('summary').click()")
    inner = f"{files}[0].querySelector('section.document')"
    assert browser.evaluate(f"{inner}.querySelector('h1').textContent").endswith(
        "trajectory.summarization-1-summary.json"
    )
    assert browser.evaluate(f"{inner}.querySelectorAll('li.step').length") > 0
    assert errors(browser.events) == []


def _search(browser: Browser, query: str, shift: bool = False) -> None:
    """Type a query into the page's search box and press Enter (Shift+Enter: previous)."""
    browser.evaluate(
        f"(() => {{ const q = document.getElementById('q'); q.value = {orjson.dumps(query).decode()};"
        f" q.dispatchEvent(new KeyboardEvent('keydown', {{key: 'Enter', shiftKey: {str(shift).lower()}, bubbles: true}})); }})()"
    )


def _key(browser: Browser, key: str) -> None:
    browser.evaluate(
        f"document.body.dispatchEvent(new KeyboardEvent('keydown', {{key: '{key}', bubbles: true}}))"
    )


def _in_view(browser: Browser, expression: str) -> bool:
    """True when the element is on screen once the page has settled (two frames: the page
    scrolls again after steps coming into view are laid out)."""
    browser.call(
        "Runtime.evaluate",
        expression="new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r))))",
        awaitPromise=True,
    )
    return bool(
        browser.evaluate(
            f"(() => {{ const r = ({expression}).getBoundingClientRect(); "
            "return r.height > 0 && r.bottom > 0 && r.top < window.innerHeight; })()"
        )
    )


def test_search_counts_hits_and_walks_them_past_the_drawn_steps(
    browser: Browser, single: Path
) -> None:
    assert open_page(browser, single) == []
    # 'step 11' is the message of step_ids 11 and 110-119: 11 steps, most not drawn yet.
    _search(browser, "step 11")
    assert browser.evaluate("document.getElementById('q-count').textContent") == (
        "1 / 11 steps · 11 hits"
    )
    assert browser.evaluate("document.querySelector('li.step.current .id').textContent") == (
        "step 11"
    )
    _search(browser, "step 11")  # Enter again: the next hit, step 110 (index 109)
    current = "document.querySelector('li.step.current')"
    assert browser.evaluate(f"{current}.id") == "s-0-/steps/109"
    assert browser.evaluate("document.getElementById('q-count').textContent").startswith("2 / 11")
    assert _in_view(browser, current)
    assert browser.evaluate("CSS.highlights.get('hit').size") == 1
    _search(browser, "step 11", shift=True)
    _search(browser, "step 11", shift=True)  # previous from the first wraps to the last
    assert browser.evaluate(f"{current}.querySelector('.id').textContent") == "step 119"
    # Folded text counts: the reasoning of step 3 repeats 'thinking' 400 times; going there
    # opens the reasoning and unfolds its rest.
    _search(browser, "thinking")
    assert browser.evaluate("document.getElementById('q-count').textContent") == (
        "1 / 1 step · 400 hits"
    )
    reasoning = "document.querySelector('details.field[data-ptr=\"/steps/2/reasoning_content\"]')"
    assert browser.evaluate(f"{reasoning}.open") is True
    assert browser.evaluate(f"{reasoning}.querySelector('.rest')") is None
    assert browser.evaluate("CSS.highlights.get('hit').size") == 400
    # A hit inside an embedded subagent opens it under the call that launched it.
    _search(browser, "sub task")
    assert browser.evaluate("document.getElementById('q-count').textContent") == (
        "1 / 1 step · 1 hit"
    )
    assert browser.evaluate("document.querySelector('details.subagent').open") is True
    assert _in_view(browser, "document.getElementById('s-0-/subagent_trajectories/0/steps/0')")
    _search(browser, "no such words anywhere")
    assert browser.evaluate("document.getElementById('q-count').textContent") == "no hits"
    # Ctrl+F goes to the page's search first (it sees steps not drawn yet).
    browser.evaluate("document.getElementById('q').blur()")
    browser.evaluate(
        "document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'f', ctrlKey: true, bubbles: true, cancelable: true}))"
    )
    assert browser.evaluate("document.activeElement.id") == "q"
    assert errors(browser.events) == []


def _visible_ids(browser: Browser) -> list[str]:
    return list(
        browser.evaluate(
            "Array.from(document.querySelectorAll('.timeline > ol.steps > li.step:not(.filtered-out)'))"
            ".map(li => li.querySelector('.id').textContent)"
        )
    )


def _filter(browser: Browser, name: str, value: str) -> None:
    browser.evaluate(
        f"(() => {{ const s = document.querySelector('.toolbar select[name={name}]'); s.value = '{value}';"
        " s.dispatchEvent(new Event('change')); })()"
    )


def test_filters_by_source_tool_findings_and_subagents(browser: Browser, single: Path) -> None:
    assert open_page(browser, single) == []
    _filter(browser, "source", "system")
    assert _visible_ids(browser) == ["step 1", "step 4"]
    assert browser.evaluate("document.getElementById('f-count').textContent") == (
        "showing 2 of 120 steps"
    )
    _filter(browser, "source", "")
    _filter(browser, "tool", "bash")
    assert _visible_ids(browser) == ["step 3"]
    _filter(browser, "tool", "")
    # Steps with errors: step 3 (its result, and the subagent it launched) and step 999.
    _filter(browser, "findings", "error")
    assert _visible_ids(browser) == ["step 3", "step 999"]
    _filter(browser, "findings", "warning")
    assert _visible_ids(browser) == ["step 2"]
    _filter(browser, "findings", "")
    browser.evaluate(
        "(() => { const c = document.querySelector('.toolbar input[name=subagents]'); c.checked = true;"
        " c.dispatchEvent(new Event('change')); })()"
    )
    assert _visible_ids(browser) == ["step 3"]
    # Search counts only the steps the filters show (a subagent's steps go with the step that
    # launched it).
    _search(browser, "step 11")
    assert browser.evaluate("document.getElementById('q-count').textContent") == "no hits"
    _search(browser, "sub task")
    assert browser.evaluate("document.getElementById('q-count').textContent") == (
        "1 / 1 step · 1 hit"
    )
    browser.evaluate(
        "(() => { const c = document.querySelector('.toolbar input[name=subagents]'); c.checked = false;"
        " c.dispatchEvent(new Event('change')); })()"
    )
    assert len(_visible_ids(browser)) == 120
    assert browser.evaluate("document.getElementById('f-count').textContent") == ""
    assert errors(browser.events) == []


def test_anchors_copy_links_and_keys(browser: Browser, single: Path) -> None:
    # A link to a step not drawn yet.
    browser.load("about:blank")
    assert browser.load(single.as_uri() + "#step-110") == []
    current = "document.querySelector('li.step.current')"
    assert browser.evaluate(f"{current}.id") == "s-0-/steps/109"
    assert _in_view(browser, current)
    # Following a link within the page: a subagent's step, a tool call, a finding.
    browser.evaluate("location.hash = '#sub-sub-1/step-2'")
    wait(browser)
    assert browser.evaluate("document.querySelector('details.subagent').open") is True
    assert _in_view(browser, "document.getElementById('s-0-/subagent_trajectories/0/steps/1')")
    browser.evaluate("location.hash = '#step-3/call-c2'")
    wait(browser)
    call = "document.querySelector('[data-ptr=\"/steps/2/tool_calls/1\"]')"
    assert browser.evaluate(f"{call}.classList.contains('flash')") is True
    assert _in_view(browser, call)
    browser.evaluate("location.hash = '#finding-2'")
    wait(browser)
    assert _in_view(browser, "document.getElementById('f-0-1')")
    assert "step 999" in browser.evaluate("document.getElementById('f-0-1').textContent")
    # Copy-link buttons put the step's anchor in the address bar (and the clipboard if allowed).
    browser.evaluate("document.querySelector('li.step button.copy').click()")
    wait(browser, 50)
    assert browser.evaluate("location.hash") == "#step-1"
    assert browser.evaluate("document.querySelector('li.step button.copy').textContent") in (
        "link copied",
        "link in the address bar",
    )
    subs = "document.querySelector('[data-ptr=\"/subagent_trajectories/0/steps/0\"] button.copy')"
    assert browser.evaluate(f"{subs}.title").endswith("#sub-sub-1/step-1)")
    # Keys: j/k between steps, n/p between findings.
    browser.load("about:blank")
    assert open_page(browser, single) == []
    _key(browser, "j")
    assert browser.evaluate(f"{current}.querySelector('.id').textContent") == "step 1"
    _key(browser, "j")
    _key(browser, "j")
    assert browser.evaluate(f"{current}.querySelector('.id').textContent") == "step 3"
    assert browser.evaluate("location.hash") == "#step-3"
    _key(browser, "k")
    assert browser.evaluate(f"{current}.querySelector('.id').textContent") == "step 2"
    _key(browser, "n")
    assert browser.evaluate("location.hash") == "#finding-1"
    _key(browser, "n")
    _key(browser, "n")
    assert browser.evaluate("location.hash") == "#finding-3"
    assert _in_view(browser, "document.getElementById('f-0-2')")  # inside the subagent
    _key(browser, "p")
    assert browser.evaluate("location.hash") == "#finding-2"
    assert browser.evaluate("document.querySelector('.findings-list li.current').id") == "fl-0-1"
    assert errors(browser.events) == []


def test_findings_show_the_step_label_and_the_pointer(browser: Browser, single: Path) -> None:
    assert open_page(browser, single) == []
    items = browser.evaluate(
        "Array.from(document.querySelectorAll('.findings-list li')).map(li => li.textContent)"
    )
    assert any("step 999 \u203a message" in t and "/steps/119/message" in t for t in items)
    assert any(
        "subagent sub-1 \u203a step 2 \u203a metrics/prompt_tokens" in t
        and "/subagent_trajectories/0/steps/1/metrics/prompt_tokens" in t
        for t in items
    )
    # Steps are labelled by their step_id.
    assert browser.evaluate("document.querySelectorAll('li.step .id')[2].textContent") == "step 3"


def test_collapsed_subagent_says_it_holds_errors(browser: Browser, single: Path) -> None:
    assert open_page(browser, single) == []
    summary = "document.querySelector('details.subagent > summary')"
    assert browser.evaluate("document.querySelector('details.subagent').open") is False
    assert browser.evaluate(f"{summary}.textContent") == "subagent sub-1 · 2 steps 1 error"
    assert browser.evaluate(f"{summary}.querySelector('.badge.error') !== null") is True


def test_a_remote_media_url_is_shown_once(browser: Browser, single: Path) -> None:
    assert open_page(browser, single) == []
    box = browser.evaluate(
        "Array.from(document.querySelectorAll('.media')).map(m => m.textContent)"
        ".find(t => t.includes('example.com'))"
    )
    assert box.count("https://example.com/x.png") == 1


def test_compact_mode_and_dark_mode(browser: Browser, single: Path) -> None:
    assert open_page(browser, single) == []
    step = "document.getElementById('s-0-/steps/2')"
    full = browser.evaluate(f"{step}.getBoundingClientRect().height")
    browser.evaluate("document.getElementById('compact').click()")
    assert browser.evaluate("document.body.classList.contains('compact')") is True
    assert browser.evaluate(f"{step}.getBoundingClientRect().height") < min(60, full)
    message = f"{step}.querySelector('[data-ptr=\"/steps/2/message\"]')"
    assert browser.evaluate(f"{message}.checkVisibility()") is False
    # Its body is hidden until found: the browser's find still sees it, and opens the step.
    assert browser.evaluate(f"{step}.querySelector('.body').getAttribute('hidden')") == (
        "until-found"
    )
    assert browser.evaluate(f"{step}.querySelector('.preview').textContent").endswith(
        "→ bash, task"
    )
    # A step's findings are counted in its one line.
    assert browser.evaluate(f"{step}.querySelector('.step-head .badge.error').textContent") == (
        "1 error"
    )
    browser.evaluate(f"{step}.querySelector('.step-head').click()")  # opened in place
    assert browser.evaluate(f"{message}.checkVisibility()") is True
    _key(browser, "c")
    assert browser.evaluate("document.body.classList.contains('compact')") is False
    assert browser.evaluate("document.querySelectorAll('li.step > .body[hidden]').length") == 0
    background = "getComputedStyle(document.body).backgroundColor"
    assert browser.evaluate(background) == "rgb(255, 255, 255)"
    browser.call(
        "Emulation.setEmulatedMedia",
        features=[{"name": "prefers-color-scheme", "value": "dark"}],
    )
    try:
        assert browser.evaluate(background) == "rgb(17, 20, 24)"
        screenshot(browser, "single-trajectory-dark.png")
    finally:
        browser.call("Emulation.setEmulatedMedia", features=[])


def test_totals_beside_final_metrics_with_the_reason(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "rich.html"
    page.write_text(render([str(ROOT / "conformance/atif/v1.8/valid/rich.json")]))
    assert open_page(browser, page) == []
    rows = browser.evaluate(
        "Array.from(document.querySelectorAll('.totals tr.differs')).map(tr => tr.innerText)"
    )
    assert rows[0] == "steps\t5\t8" and rows[1] == "prompt tokens\t934\t1,774"
    reasons = browser.evaluate("document.querySelector('.totals .reasons').textContent")
    assert "final_metrics counts this trajectory's own steps only, without its 1 subagent" in (
        reasons
    )
    # rich.json continues in an s3:// URL: with --follow-refs the page says why it is not shown,
    # not that --follow-refs is missing.
    page.write_text(
        render([str(ROOT / "conformance/atif/v1.8/valid/rich.json")], ViewOptions(follow_refs=True))
    )
    assert open_page(browser, page) == []
    body = browser.evaluate("document.getElementById('app').textContent")
    assert "(not followed: a URL (never loaded))" in body and "--follow-refs)" not in body


def test_the_3000_step_fixture_opens_compact_and_search_reaches_its_end(
    browser: Browser, tmp_path: Path
) -> None:
    page = tmp_path / "large.html"
    page.write_text(render([str(ROOT / "conformance/atif/v1.8/valid/large-3000-steps.json")]))
    assert open_page(browser, page) == []
    assert browser.evaluate("document.body.classList.contains('compact')") is True
    assert browser.evaluate("document.querySelectorAll('li.step').length") == 50  # still lazy
    assert browser.evaluate("document.querySelector('.totals').textContent") == (
        "final_metrics agrees with the computed totals (RFC.md §2.4)."
    )
    _search(browser, "Iteration 2998:")
    assert browser.evaluate("document.getElementById('q-count').textContent") == (
        "1 / 1 step · 1 hit"
    )
    assert browser.evaluate("document.querySelector('li.step.current .id').textContent") == (
        "step 3000"
    )
    assert _in_view(browser, "document.querySelector('li.step.current')")
    assert errors(browser.events) == []


def test_draw_all_steps_for_the_browsers_find(browser: Browser, single: Path) -> None:
    assert open_page(browser, single) == []
    assert browser.evaluate("document.querySelectorAll('li.step').length") == 50
    draw = "Array.from(document.querySelectorAll('.toolbar button')).find(b => b.textContent.startsWith('draw all'))"
    assert browser.evaluate(f"{draw}.textContent") == "draw all 120 steps"
    browser.evaluate(f"{draw}.click()")
    assert browser.evaluate("document.querySelectorAll('li.step').length") == 120
    assert "the browser's find sees them" in browser.evaluate(
        "document.querySelector('.toolbar').textContent"
    )


def test_anchors_on_a_datasets_page(browser: Browser, tmp_path: Path) -> None:
    def doc(name: str) -> bytes:
        steps = [{"step_id": i, "source": "user", "message": f"{name} {i}"} for i in (1, 2, 3)]
        return orjson.dumps(
            {"schema_version": "ATIF-v1.7", "agent": {"name": name, "version": "1"}, "steps": steps}
        )

    data = tmp_path / "two.jsonl"
    data.write_bytes(doc("first") + b"\n" + doc("second") + b"\n")
    page = tmp_path / "two.html"
    page.write_text(render([str(data)]))
    browser.load("about:blank")
    assert browser.load(page.as_uri() + "#doc-1/step-2") == []
    assert browser.evaluate("document.querySelector('h1').textContent").endswith("two.jsonl:2")
    current = "document.querySelector('li.step.current')"
    assert browser.evaluate(f"{current}.querySelector('pre').textContent") == "second 2"
    assert browser.evaluate(f"{current}.querySelector('button.copy').title").endswith(
        "(#doc-1/step-2)"
    )
    assert browser.evaluate("document.querySelector('nav.top a').textContent") == "← dataset index"
    browser.evaluate("location.hash = '#doc-0/step-3'")  # another document of the same page
    wait(browser)
    assert browser.evaluate(f"{current}.querySelector('pre').textContent") == "first 3"
    browser.evaluate("location.hash = ''")
    wait(browser)
    assert browser.evaluate("document.querySelectorAll('table tr.row').length") == 2
    assert errors(browser.events) == []


def _trial_names(browser: Browser) -> list[str]:
    names = browser.evaluate(
        "Array.from(document.querySelectorAll('tr.trial td:first-child')).map(td => td.textContent)"
    )
    assert isinstance(names, list)
    return names


def test_a_harbor_job_folder_gets_a_trials_index(browser: Browser, tmp_path: Path) -> None:
    job = harbor_job(tmp_path)
    page = tmp_path / "job.html"
    page.write_text(render([str(job.root)]))
    assert open_page(browser, page) == []
    assert browser.evaluate("document.querySelector('h1').textContent").startswith("Harbor job: ")
    summary = browser.evaluate("document.querySelector('.trial-summary').textContent")
    assert summary.startswith("5 trials: 1 error, 1 failed, 3 passed; mean reward 0.750")
    assert len(_trial_names(browser)) == 5
    failed = (
        "Array.from(document.querySelectorAll('tr.trial')).find(r => r.dataset.outcome === 'error')"
    )
    text = browser.evaluate(f"{failed}.textContent")
    assert "AgentTimeoutError: Agent execution timed out after 900.0 seconds" in text
    assert "terminus-2 2.0.0" in text and "claude-sonnet-4-5" in text and "$0.0105" in text
    screenshot(browser, "harbor-job.png")
    # Sorting by reward: ascending puts the missing reward last, descending first is a 1.0.
    browser.evaluate("document.querySelector('th[data-key=reward]').click()")
    assert _trial_names(browser)[0] == "hello-world__Kq9Lm2x"
    assert _trial_names(browser)[-1] == "hello-world__Ee0Rr1t"
    assert (
        browser.evaluate("document.querySelector('th[data-key=reward]').getAttribute('aria-sort')")
        == "ascending"
    )
    browser.evaluate("document.querySelector('th[data-key=reward]').click()")
    assert _trial_names(browser)[-1] == "hello-world__Ee0Rr1t"
    assert _trial_names(browser)[-2] == "hello-world__Kq9Lm2x"
    # Filters: by outcome, then by text.
    browser.evaluate(
        "{ const s = document.querySelector('.trial-filters select'); s.value = 'passed';"
        " s.dispatchEvent(new Event('change')); }"
    )
    assert len(_trial_names(browser)) == 3
    assert browser.evaluate("document.querySelector('.trial-count').textContent") == "3 of 5 trials"
    browser.evaluate(
        "{ const q = document.querySelector('.trial-filters input'); q.value = 'claude-code';"
        " q.dispatchEvent(new Event('input')); }"
    )
    assert _trial_names(browser) == ["fix-csv-bom__Zt5Wn8p"]
    browser.evaluate(
        "{ const s = document.querySelector('.trial-filters select'); s.value = '';"
        " s.dispatchEvent(new Event('change'));"
        " const q = document.querySelector('.trial-filters input'); q.value = 'Kq9';"
        " q.dispatchEvent(new Event('input')); }"
    )
    assert _trial_names(browser) == ["hello-world__Kq9Lm2x"]
    # One click to the trial's trajectory, its summarization subagents under their calls.
    browser.evaluate("document.querySelector('tr.trial td:nth-child(3)').click()")
    wait(browser)
    assert browser.evaluate("location.hash").startswith("#doc-")
    shown = browser.evaluate("document.getElementById('app').textContent")
    assert "hello-world__Kq9Lm2x/agent/trajectory.json" in shown
    assert "not shown: atif view --follow-refs" not in shown
    summaries = browser.evaluate(
        "Array.from(document.querySelectorAll('details.subagent summary')).map(s => s.textContent)"
    )
    assert any(
        s.startswith("subagent file trajectory.summarization-1-summary.json") for s in summaries
    )
    assert browser.evaluate("document.querySelector('nav.top a').textContent") == "← dataset index"
    assert errors(browser.events) == []
