"""What the site serves loads offline (RFC.md §8, issue 33): the schema part of the site built
into a temporary folder, the network blocked, and each consumer given a retrieval hook that maps
a URL of the site to its file and refuses every other URL — python-jsonschema's `referencing`
``retrieve``, jsonschema-rs's ``retriever`` and Ajv's ``loadSchema``.

* Every JSON file the site serves resolves completely through the hook, fetching exactly that
  URL and the ``$id`` of every schema it reaches. A bare ``$id`` may need more than one fetch
  (v1.8 refers to v1.7); the URLs the catalog names for tools, ``bundle`` and ``editor``, need
  exactly one.
* Every conformance fixture gets its expected verdict from the schema loaded from the one URL the
  catalog says a validator fetches (its ``bundle``), and nothing else.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema
import jsonschema_rs
import pytest
import referencing
from referencing.jsonschema import DRAFT202012

from atif_spec.codegen.bundles import reached
from atif_spec.schemas.catalog import Catalog, load_catalog, schema_by_id
from atif_spec.spectools import site as site_builder
from tests.support import ROOT
from tests.support.consumer_matrix import DISPATCH_ONLY_CASES, Case, cases

CATALOG: Catalog = load_catalog()
ORIGIN = "{0.scheme}://{0.netloc}".format(urlsplit(CATALOG.base_url))
DEAD_PROXY = "http://127.0.0.1:9"
NODE_MODULES = ROOT / "node_modules"


class NotServed(LookupError):
    """A URL the site does not serve (or not on the catalog's host)."""


class Site:
    """The built site as a URL space, with a log of the URLs read through it."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.fetched: list[str] = []

    def read(self, url: str) -> Any:
        self.fetched.append(url)
        parts = urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}" != ORIGIN or parts.query:
            raise NotServed(f"not served by the site: {url}")
        path = (self.root / parts.path.lstrip("/")).resolve()
        if not path.is_relative_to(self.root) or not path.is_file():
            raise NotServed(f"not served by the site: {url}")
        return json.loads(path.read_bytes())

    def urls(self) -> list[str]:
        """Every JSON file of the site, as the URL it is served at."""
        files = sorted(p.relative_to(self.root).as_posix() for p in self.root.rglob("*.json"))
        return [f"{ORIGIN}/{f}" for f in files]


@pytest.fixture(scope="module")
def offline() -> Iterator[None]:
    """No socket connects and no name resolves; proxies point at a closed port."""

    def refuse(*args: object, **kwargs: object) -> Any:
        raise OSError("network blocked by the test")

    with pytest.MonkeyPatch.context() as patch:
        for name in ("connect", "connect_ex"):
            patch.setattr(socket.socket, name, refuse)
        patch.setattr(socket, "getaddrinfo", refuse)
        patch.setattr(socket, "create_connection", refuse)
        for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
            patch.setenv(var, DEAD_PROXY)
            patch.setenv(var.lower(), DEAD_PROXY)
        # urlopen caches its first opener, proxies read then: the one made here must not
        # outlive the module (later files on the same pytest-xdist worker would use it)
        patch.setattr(urllib.request, "_opener", None)
        yield


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, offline: None) -> Site:
    built = site_builder.write_schemas(tmp_path_factory.mktemp("site"), CATALOG)
    served = Site(built.root)
    schemas = {*built.schemas.values(), *built.latest, *built.bundles}
    catalogs = {"/schemas/catalog.json", "/schemas/schemastore-catalog.json"}
    assert {urlsplit(u).path for u in served.urls()} == schemas | catalogs
    return served


def schema_urls(site: Site) -> list[str]:
    return [u for u in site.urls() if not u.endswith("catalog.json")]


def expected_fetches(site: Site, url: str) -> set[str]:
    """The URL and, for a bare ``$id`` or a latest alias, the ``$id`` of every schema its schema
    reaches; a bundle needs itself only."""
    if "/bundles/" in urlsplit(url).path:
        return {url}
    root_id = json.loads((site.root / urlsplit(url).path.lstrip("/")).read_bytes())["$id"]
    return {url, *reached(root_id, schema_by_id)}


def test_the_network_is_blocked(offline: None) -> None:
    with pytest.raises((OSError, urllib.error.URLError)):
        urllib.request.urlopen(CATALOG.base_url + "/catalog.json", timeout=5)
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", 9), timeout=5)


def test_some_ids_need_more_than_one_fetch_and_the_catalog_names_one_that_does_not() -> None:
    """The reason for ``bundle``: these ``$id``s refer to other schemas by URL."""
    multi = {e.target + "/" + e.name for e in CATALOG if reached(e.id, schema_by_id)}
    assert multi == {
        "atif@v1.8/trajectory",
        "atif/trajectory",
        "atif-spec@v1/change-report",
        "atif-spec@v1/conformance-report",
    }


# --------------------------------------------------------------------------- python-jsonschema

_DATA_KEYWORDS = frozenset({"const", "enum", "examples", "default"})


def _retrieve(site: Site) -> Callable[[str], referencing.Resource[Any]]:
    def retrieve(uri: str) -> referencing.Resource[Any]:
        return DRAFT202012.create_resource(site.read(uri))

    return retrieve


def resolve_everything(site: Site, url: str) -> None:
    """Load ``url`` through a `referencing` registry whose only source is the site, and resolve
    every ``$ref`` of every schema it reaches (`referencing` resolves lazily otherwise)."""
    registry: referencing.Registry[Any] = referencing.Registry(retrieve=_retrieve(site))
    start = registry.resolver().lookup(url)
    todo: list[tuple[Any, Any]] = [(start.contents, start.resolver)]  # (node, its resolver)
    seen: dict[int, Any] = {}  # keeps each visited node alive, so that ids stay unique
    while todo:
        node, resolver = todo.pop()
        if id(node) in seen or not isinstance(node, (dict, list)):
            continue
        seen[id(node)] = node
        if isinstance(node, list):
            todo += [(v, resolver) for v in node]
            continue
        if isinstance(node.get("$id"), str):
            resolver = resolver.in_subresource(DRAFT202012.create_resource(node))
        if isinstance(node.get("$ref"), str):
            target = resolver.lookup(node["$ref"])
            todo.append((target.contents, target.resolver))
        todo += [(v, resolver) for k, v in node.items() if k not in _DATA_KEYWORDS]


def test_python_jsonschema_resolves_every_served_url(site: Site) -> None:
    for url in schema_urls(site):
        site.fetched = []
        resolve_everything(site, url)
        assert set(site.fetched) == expected_fetches(site, url), url


def _python_validator(site: Site, url: str) -> jsonschema.Draft202012Validator:
    registry: referencing.Registry[Any] = referencing.Registry(retrieve=_retrieve(site))
    return jsonschema.Draft202012Validator({"$ref": url}, registry=registry)


def judged(all_cases: list[Case]) -> list[Case]:
    """The cases a schema alone judges (the dispatch-only ones are valid by decision only:
    tests/support/consumer_matrix.py)."""
    return [c for c in all_cases if not re.fullmatch(DISPATCH_ONLY_CASES, c.id)]


@pytest.fixture(scope="module")
def all_cases() -> list[Case]:
    found = judged(cases())
    assert len(found) > 100 and any(c.invalid for c in found)
    return found


def _read(case: Case) -> Any:
    try:
        return json.loads(case.file.read_bytes())
    except ValueError:
        return None  # not JSON: every consumer rejects it


def test_python_jsonschema_judges_every_fixture_through_its_bundle_url(
    site: Site, all_cases: list[Case]
) -> None:
    registry: referencing.Registry[Any] = referencing.Registry(retrieve=_retrieve(site))
    site.fetched = []
    validators = {
        e.id: jsonschema.Draft202012Validator(site.read(e.bundle), registry=registry)
        for e in CATALOG
    }
    assert site.fetched == [e.bundle for e in CATALOG]
    site.fetched = []
    wrong = {}
    for case in all_cases:
        document = _read(case)
        ok = document is not None and validators[case.schema].is_valid(document)
        if ok == case.invalid:
            wrong[case.id] = ok
    assert site.fetched == []  # a bundle, once fetched, needs no further fetch
    assert wrong == {}


def test_the_served_catalog_validates_through_its_own_schema_url(site: Site) -> None:
    url = f"{CATALOG.base_url}/catalog.json"
    catalog = site.read(url)
    schema_url = urlsplit(url)._replace(path="/schemas/catalog.schema.json").geturl()
    assert catalog["$schema"] == "./catalog.schema.json"
    errors = list(_python_validator(site, schema_url).iter_errors(catalog))
    assert errors == []


# --------------------------------------------------------------------------- jsonschema-rs


def _rs_validator(site: Site, url: str) -> Any:
    return jsonschema_rs.validator_for({"$ref": url}, retriever=site.read)


def test_jsonschema_rs_resolves_every_served_url(site: Site) -> None:
    for url in schema_urls(site):
        site.fetched = []
        _rs_validator(site, url)
        assert set(site.fetched) == expected_fetches(site, url), url


def test_jsonschema_rs_judges_every_fixture_through_its_bundle_url(
    site: Site, all_cases: list[Case]
) -> None:
    validators = {}
    for entry in CATALOG:
        site.fetched = []
        validators[entry.id] = _rs_validator(site, entry.bundle)
        assert site.fetched == [entry.bundle]
    site.fetched = []
    wrong = {}
    for case in all_cases:
        document = _read(case)
        ok = document is not None and validators[case.schema].is_valid(document)
        if ok == case.invalid:
            wrong[case.id] = ok
    assert site.fetched == []
    assert wrong == {}


# --------------------------------------------------------------------------- Ajv


def _offline_prefix() -> list[str]:
    """``unshare -rn`` (a network namespace with no interface) when this machine allows it."""
    if shutil.which("unshare") is None:
        return []
    done = subprocess.run(["unshare", "-rn", "true"], capture_output=True, check=False)
    return ["unshare", "-rn"] if done.returncode == 0 else []


@pytest.mark.skipif(
    shutil.which("node") is None or not (NODE_MODULES / "ajv").is_dir(),
    reason="node or the pinned npm packages are missing (run `npm ci`)",
)
def test_ajv_load_schema_resolves_every_served_url_and_judges_every_fixture(
    site: Site, all_cases: list[Case]
) -> None:
    urls = schema_urls(site)
    bundle = {e.id: e.bundle for e in CATALOG}
    request = {
        "root": str(site.root),
        "origin": ORIGIN,
        "urls": urls,
        "cases": [{"id": c.id, "url": bundle[c.schema], "file": str(c.file)} for c in all_cases],
    }
    done = subprocess.run(
        [*_offline_prefix(), "node", str(ROOT / "tests" / "consumers" / "ajv_urls.mjs")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env={**os.environ, "NODE_PATH": str(NODE_MODULES)},
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    loads = answer["loads"]
    assert {u: loads[u].get("error") for u in urls} == dict.fromkeys(urls)
    assert {u: set(loads[u]["fetched"]) for u in urls} == {
        u: expected_fetches(site, u) for u in urls
    }
    for entry in CATALOG:  # exactly one fetch, not merely the same set
        assert loads[entry.bundle]["fetched"] == [entry.bundle]
        assert loads[entry.editor]["fetched"] == [entry.editor]
    verdicts = answer["verdicts"]
    wrong = {c.id: verdicts[c.id] for c in all_cases if verdicts[c.id] is not (not c.invalid)}
    assert wrong == {}
