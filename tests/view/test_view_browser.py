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
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from atif_spec.view import ViewOptions, render
from tests.support import ROOT
from tests.support.browser import CHROMIUM, Browser, errors

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)"
)
ARTIFACTS = Path(os.environ.get("ATIF_ARTIFACTS", ROOT / ".bench" / "artifacts")) / "view"
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
WATCH = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', e => window.__violations.push(e.violatedDirective));
"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    pytest.importorskip("websockets", reason="the websockets package is not installed")
    b = Browser(tmp_path_factory.mktemp("chromium-profile"))
    b.call("Network.setBlockedURLs", urls=["http://*", "https://*", "ws://*", "wss://*"])
    b.call(
        "Network.emulateNetworkConditions",
        offline=True,
        latency=0,
        downloadThroughput=-1,
        uploadThroughput=-1,
    )
    b.call("Page.addScriptToEvaluateOnNewDocument", source=WATCH)
    try:
        yield b
    finally:
        b.close()


def _open(browser: Browser, page: Path) -> list[str]:
    """Load a page; the problems seen, including requests other than the page and data: URIs."""
    found = browser.load(page.as_uri())
    for event in browser.events:
        if event["method"] == "Network.requestWillBeSent":
            url = event["params"]["request"]["url"]
            if not url.startswith(("data:", page.as_uri())):
                found.append(f"request: {url}")
    assert browser.evaluate("document.documentElement.dataset.ready") == "1"
    violations = browser.evaluate("window.__violations")
    return found + [f"csp: {v}" for v in violations or []]


def _screenshot(browser: Browser, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        width=1200,
        height=900,
        deviceScaleFactor=1,
        mobile=False,
    )
    shot = browser.call("Page.captureScreenshot", format="png")
    path = ARTIFACTS / name
    path.write_bytes(base64.b64decode(shot["data"]))
    assert path.stat().st_size > 1000
    return path


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
    assert _open(browser, single) == []
    assert browser.evaluate("document.querySelector('h1').textContent").endswith("trajectory.json")
    assert (
        browser.evaluate("document.querySelectorAll('li.step').length") == 50
    )  # lazy: first chunk
    assert browser.evaluate("document.querySelectorAll('.findings-list li').length") >= 3
    _screenshot(browser, "single-trajectory.png")


def test_hostile_content_is_text(browser: Browser, single: Path) -> None:
    assert _open(browser, single) == []
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
    assert _open(browser, single) == []
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
    assert _open(browser, single) == []


def test_folding_and_call_result_links(browser: Browser, single: Path) -> None:
    assert _open(browser, single) == []
    reasoning = "document.querySelector('details.field[data-ptr=\"/steps/2/reasoning_content\"]')"
    assert browser.evaluate(f"{reasoning}.open") is False
    browser.evaluate(f"{reasoning}.querySelector('summary').click()")
    assert browser.evaluate(f"{reasoning}.open") is True
    args = "document.querySelector('[data-ptr=\"/steps/2/tool_calls/0/arguments\"] pre')"
    folded = browser.evaluate(f"{args}.textContent.length")
    assert folded < 2000
    browser.evaluate(
        "document.querySelector('[data-ptr=\"/steps/2/tool_calls/0/arguments\"] button.more').click()"
    )
    assert browser.evaluate(f"{args}.textContent.length") > 5000
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
    assert _open(browser, single) == []
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
    assert _open(browser, dataset) == []
    assert browser.evaluate("document.querySelectorAll('table tr.row').length") == 30
    note = browser.evaluate("document.querySelector('.note').textContent")
    total = len(sorted((ROOT / "conformance/atif/v1.7").glob("*/*.json"))[::3][:40]) + 1
    assert f"{total} documents" in note and "first 30" in note and "--max-docs 30" in note
    assert browser.evaluate("document.querySelectorAll('.chart svg').length") >= 4
    assert browser.evaluate("document.querySelectorAll('.badge.invalid').length") >= 1
    _screenshot(browser, "dataset-index.png")
    browser.evaluate("document.querySelectorAll('table tr.row')[2].click()")
    browser.call(
        "Runtime.evaluate", expression="new Promise(r => setTimeout(r, 100))", awaitPromise=True
    )
    assert browser.evaluate("location.hash") == "#doc-2"
    assert browser.evaluate("document.querySelector('nav.top a').textContent") == "← dataset index"
    assert errors(browser.events) == []


def test_non_atif_findings_on_the_source_tree(browser: Browser, tmp_path: Path) -> None:
    source = ROOT / "conformance/tao/v0.2.0/invalid/agent-missing-name.json"
    page = tmp_path / "tao.html"
    page.write_text(render([str(source)]))
    assert _open(browser, page) == []
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
    assert _open(browser, page) == []
    files = "document.querySelectorAll('.result details.subagent')"
    assert browser.evaluate(f"{files}.length") == 3
    browser.evaluate(f"{files}[0].querySelector('summary').click()")
    inner = f"{files}[0].querySelector('section.document')"
    assert browser.evaluate(f"{inner}.querySelector('h1').textContent").endswith(
        "trajectory.summarization-1-summary.json"
    )
    assert browser.evaluate(f"{inner}.querySelectorAll('li.step').length") > 0
    assert errors(browser.events) == []
