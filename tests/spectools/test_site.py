"""The static site: every $id served unchanged at its path, aliases, catalogs, links that resolve."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from functools import partial
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest

from atif_spec.schemas.catalog import load_catalog
from atif_spec.spectools import site as site_builder
from tests.support import ROOT


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, site_builder.Site]]:
    """The site built into a temporary folder and served on 127.0.0.1 (a free port)."""
    out = tmp_path_factory.mktemp("site")
    built = site_builder.build(out)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", built
    finally:
        server.shutdown()
        server.server_close()


def fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, b""


def test_every_id_is_served_unchanged(served: tuple[str, site_builder.Site]) -> None:
    base, _ = served
    catalog = load_catalog()
    assert len(catalog.entries) > 20
    for entry in catalog:
        assert entry.id.startswith(catalog.base_url + "/")
        status, body = fetch(base + urlparse(entry.id).path)
        assert status == 200, entry.id
        assert body == (ROOT / "spec" / entry.path).read_bytes(), entry.id
        assert json.loads(body)["$id"] == entry.id


def test_latest_aliases_copy_the_latest_version(served: tuple[str, site_builder.Site]) -> None:
    base, built = served
    catalog = load_catalog()
    for fmt, info in catalog.formats.items():
        latest = catalog.find(f"{fmt}@{info.latest}")
        alias = f"/schemas/{fmt}/latest/{Path(urlparse(latest.id).path).name}"
        assert built.latest[alias] == urlparse(latest.id).path
        status, body = fetch(base + alias)
        assert status == 200
        assert body == (ROOT / "spec" / latest.path).read_bytes()


def test_catalogs(served: tuple[str, site_builder.Site]) -> None:
    base, _ = served
    status, body = fetch(base + "/schemas/catalog.json")
    assert status == 200 and body == (ROOT / "spec/catalog.json").read_bytes()
    status, body = fetch(base + "/schemas/schemastore-catalog.json")
    store = json.loads(body)
    assert store["$schema"] == "https://www.schemastore.org/schema-catalog.json"
    catalog = load_catalog()
    atif = next(s for s in store["schemas"] if s["fileMatch"][0] == "**/agent/trajectory.json")
    assert atif["url"] == catalog.by_id(f"{catalog.base_url}/atif/trajectory.schema.json").editor
    assert {"**/agent/trajectory.json", "*.atif.json"} <= set(atif["fileMatch"])
    assert list(atif["versions"]) == catalog.versions("atif")
    editors = {e.editor: e for e in catalog}
    for entry in store["schemas"]:
        for url in [entry["url"], *entry["versions"].values()]:
            # What an editor fetches: the inlined bundle, one file.
            status, body = fetch(base + urlparse(url).path)
            assert status == 200, url
            assert body == (ROOT / "generated/bundles/editor" / editors[url].path).read_bytes()


def test_bundles_are_served_at_the_catalogs_urls(served: tuple[str, site_builder.Site]) -> None:
    base, built = served
    catalog = load_catalog()
    for entry in catalog:
        for kind, url in (("compound", entry.bundle), ("editor", entry.editor)):
            assert built.bundles[urlparse(url).path] == urlparse(entry.id).path
            status, body = fetch(base + urlparse(url).path)
            assert status == 200, url
            assert body == (ROOT / "generated/bundles" / kind / entry.path).read_bytes(), url
    assert len(built.bundles) == 2 * len(catalog.entries)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        for key in ("href", "src"):
            value = found.get(key)
            if value and not value.startswith("data:"):
                self.links.append(value)


def test_every_page_link_resolves(served: tuple[str, site_builder.Site]) -> None:
    base, built = served
    # The site root and the base URL's folder both have an index page.
    queue, pages, anchors = [base + "/index.html", base + "/schemas/index.html"], {}, []
    while queue:
        url = queue.pop()
        if url in pages:
            continue
        status, body = fetch(url)
        assert status == 200, url
        parser = _Links()
        if url.endswith(".html"):
            parser.feed(body.decode())
        pages[url] = parser.ids
        for link in parser.links:
            target = urljoin(url, link)
            assert target.startswith(base), f"{url} links outside the site: {link}"
            page, fragment = urldefrag(target)
            if fragment:
                anchors.append((url, page, fragment))
            if page not in pages:
                queue.append(page)
    for source, page, fragment in anchors:
        assert fragment in pages[page], f"{source}: no #{fragment} in {page}"
    # Every schema page and every schema file is reachable from the index pages.
    reached = {urlparse(u).path for u in pages}
    assert set(built.pages) <= reached
    assert set(built.schemas.values()) <= reached
    assert set(built.bundles) <= reached  # each schema page links its two bundles


def test_schema_page_shows_fields_rules_and_changes(served: tuple[str, site_builder.Site]) -> None:
    base, _ = served
    status, body = fetch(base + "/schemas/atif/v1.7/trajectory.html")
    page = body.decode()
    assert status == 200
    assert "<h3 id='SubagentTrajectoryRef'>SubagentTrajectoryRef</h3>" in page
    assert "<code>llm_call_count</code>" in page  # a field row
    assert "<code>ATIF501</code>" in page  # a v1.7 rule
    assert "<code>ATIF401</code>" in page and "<code>SSL101</code>" not in page
    assert "breaking for writers and readers" in page
    v10 = fetch(base + "/schemas/atif/v1.0/trajectory.html")[1].decode()
    assert "<code>ATIF501</code>" not in v10  # rules are filtered by version


def test_pages_say_which_schemas_are_released_and_why_a_draft_is_not(
    served: tuple[str, site_builder.Site],
) -> None:
    base, _ = served
    index = fetch(base + "/schemas/index.html")[1].decode()
    atof = fetch(base + "/schemas/atof/v0.1/event.html")[1].decode()
    v18 = fetch(base + "/schemas/atif/v1.8/trajectory.html")[1].decode()
    assert "<td>released</td><td><code>https://atif-spec.org/schemas/atif/v1.8/" in index
    assert "<td>draft<br><small>ATOF 0.1 was just added" in index
    assert "<span class='status'>draft</span> document schema · ATOF 0.1 was just added" in atof
    assert "<span class='status'>released</span> document schema · <code>$id</code>" in v18


def test_build_is_reproducible(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    site_builder.build(a)
    site_builder.build(b)
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files_a == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in files_a:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_interop_page_links_explained_counts_to_the_peers_differences_file() -> None:
    """Two releases sharing one known-differences file (peers.toml `differences`) link to it;
    a peer without one links to its own `<name>.toml`."""
    row = {"target": "atif@v1.8", "role": "validator", "kind": "suite", "explained": 2}
    data = {
        "peers": {"harbor-0.26.0": {"differences": "harbor.toml"}, "atif-scan": {}},
        "matrix": [
            {**row, "implementation": "harbor-0.26.0"},
            {**row, "implementation": "atif-scan"},
        ],
    }
    page = site_builder.interop_page(data, "/interop.html", "/index.html").decode()
    assert "known-differences/harbor.toml'>2</a>" in page
    assert "known-differences/atif-scan.toml'>2</a>" in page
    assert "harbor-0.26.0.toml" not in page
