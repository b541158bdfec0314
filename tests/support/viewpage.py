"""The pages of ``atif view`` in a headless chromium: the module-scoped ``browser`` fixture (network
blocked, offline, CSP violations recorded) and the helpers the viewer's browser tests share.
Screenshots go to ``$ATIF_ARTIFACTS/view`` (default ``.bench/artifacts/view``)."""

from __future__ import annotations

import base64
import copy
import os
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.support import ROOT
from tests.support.browser import Browser

ARTIFACTS = Path(os.environ.get("ATIF_ARTIFACTS", ROOT / ".bench" / "artifacts")) / "view"
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


def open_page(browser: Browser, page: Path) -> list[str]:
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


def screenshot(browser: Browser, name: str) -> Path:
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


def wait(browser: Browser, ms: int = 200) -> None:
    browser.call(
        "Runtime.evaluate", expression=f"new Promise(r => setTimeout(r, {ms}))", awaitPromise=True
    )


def two_runs(folder: Path) -> tuple[Path, Path]:
    """``a.json`` and ``b.json`` in ``folder``: the first 14 steps of the 3,000-step run, one
    calling write_file (A), and a changed copy (B): B misses a bash step and the write_file step,
    calls read_file where A calls bash, has a grep_search step and a user step more, and a
    finding."""
    doc = orjson.loads((ROOT / "conformance/atif/v1.8/valid/large-3000-steps.json").read_bytes())
    doc["steps"] = doc["steps"][:14]
    doc.pop("final_metrics", None)
    doc["steps"][11]["tool_calls"][0]["function_name"] = "write_file"
    other = copy.deepcopy(doc)
    steps = other["steps"]
    del steps[11]
    del steps[4]
    steps[6]["tool_calls"][0]["function_name"] = "read_file"
    extra = copy.deepcopy(steps[8])
    extra["tool_calls"] = [{"tool_call_id": "x1", "function_name": "grep_search", "arguments": {}}]
    extra["observation"] = {"results": [{"source_call_id": "x1", "content": "found"}]}
    steps.insert(9, extra)
    steps.insert(10, {"step_id": 0, "source": "user", "message": "try again"})
    steps[-1]["message"] = 5  # a finding on B's last step
    for i, step in enumerate(steps):
        step["step_id"] = i + 1
    a, b = folder / "a.json", folder / "b.json"
    a.write_bytes(orjson.dumps(doc))
    b.write_bytes(orjson.dumps(other))
    return a, b
