"""The site in a real browser: Debian's chromium, headless, driven over the DevTools protocol.

Loads the index and a schema page and fails on any console error, uncaught exception or failed
resource load. Skips (with the reason) when chromium or the `websockets` client is missing; CI
installs chromium and runs this file with ATIF_FAIL_ON_SKIP=1, so there a skip is a failure.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from atif_spec.spectools import site as site_builder
from tests.support.browser import CHROMIUM, Browser

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)"
)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    out = tmp_path_factory.mktemp("site")
    site_builder.build(out)
    # A deliberately broken page: proves that the harness sees console errors at all.
    (out / "broken.html").write_text(
        "<!DOCTYPE html><html><head><link rel='icon' href='data:,'></head><body>"
        "<script>console.error('boom')</script><img src='missing.png'></body></html>"
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    pytest.importorskip("websockets", reason="the websockets package is not installed")
    b = Browser(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield b
    finally:
        b.close()


def test_harness_sees_console_errors(browser: Browser, base_url: str) -> None:
    found = browser.load(f"{base_url}/broken.html")
    assert any("boom" in e for e in found), found
    assert any("404" in e for e in found), found


def test_index_loads_without_console_errors(browser: Browser, base_url: str) -> None:
    assert browser.load(f"{base_url}/index.html") == []
    assert browser.evaluate("document.title") == "atif-spec schemas"
    assert browser.evaluate("document.querySelectorAll('table tr').length") > 20


def test_schema_page_loads_without_console_errors(browser: Browser, base_url: str) -> None:
    assert browser.load(f"{base_url}/schemas/atif/v1.8/trajectory.html") == []
    assert browser.evaluate("document.querySelector('h1').textContent") == "ATIF v1.8 trajectory"
    assert browser.evaluate("!!document.getElementById('AudioSource')") is True
    href = browser.evaluate("document.querySelector('a[href$=\".schema.json\"]').href")
    assert href == f"{base_url}/schemas/atif/v1.8/trajectory.schema.json"
