"""The static schema site (``nox -s site``, ``python -m atif_spec.spectools.site [OUT]``).

Laid out so that the site root is the host of the catalog's base URL: every schema is served at
exactly the path of its ``$id`` (bytes unchanged), ``schemas/<format>/latest/<name>.schema.json``
copies each format's latest version, ``schemas/catalog.json`` is the catalog,
``schemas/schemastore-catalog.json`` a SchemaStore catalog (``spectools.schemastore``) and
``schemas/bundles/{compound,editor}/<path>`` the self-contained files
(``atif_spec.codegen.bundles``) at the URLs the catalog gives as each schema's ``bundle`` and
``editor``: a ``$id`` may refer to other schemas by URL, its bundles load alone (RFC.md §8).
Each schema also gets an HTML page (``<name>.html`` beside it)
rendered from the schema and the rule registry, and ``index.html`` lists them all. Pure: reads
the packaged ``spec/``, writes files, fetches nothing.
"""

from __future__ import annotations

import html
import posixpath
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import orjson

from atif_spec.conformance.interop import COLUMNS
from atif_spec.jsonio import jsontext
from atif_spec.schemas.catalog import (
    Catalog,
    SchemaEntry,
    bundle_file,
    load_catalog,
    schema_by_id,
    spec_root,
)
from atif_spec.spectools.schemastore import schemastore_catalog
from atif_spec.spectools.specdiff import diff_targets
from atif_spec.validation.rules import REGISTRY


@dataclass
class Site:
    """What a build wrote: URL paths (from the site root) of every file, by role."""

    root: Path
    schemas: dict[str, str] = field(default_factory=dict)
    """``$id`` -> URL path of the schema file."""
    latest: dict[str, str] = field(default_factory=dict)
    """URL path of a latest alias -> URL path of the schema it copies."""
    pages: list[str] = field(default_factory=list)
    """URL paths of the HTML pages."""
    bundles: dict[str, str] = field(default_factory=dict)
    """URL path of a self-contained file (``/schemas/bundles/{compound,editor}/<path>``) ->
    URL path of the schema it bundles."""


def url_path(schema_id: str) -> str:
    """The path part of a ``$id`` (``/schemas/atif/v1.7/trajectory.schema.json``)."""
    return urlparse(schema_id).path


def page_path(schema_id: str) -> str:
    """URL path of a schema's HTML page (``/schemas/atif/v1.7/trajectory.html``)."""
    path = url_path(schema_id)
    return path.removesuffix(".json").removesuffix(".schema") + ".html"


def _rel(from_page: str, to: str) -> str:
    """Relative link from one URL path to another (keeps ``#fragment``)."""
    target, _, frag = to.partition("#")
    link = posixpath.relpath(target, posixpath.dirname(from_page) or "/")
    return link + (f"#{frag}" if frag else "")


def _spec_bytes(path: str) -> bytes:
    node = spec_root()
    for part in path.split("/"):
        node = node.joinpath(part)
    return node.read_bytes()


def _write(root: Path, path: str, data: bytes) -> None:
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


# --------------------------------------------------------------------------- HTML

_CSS = """
body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;
line-height:1.45;color:#1b1b1b}
code{font-family:ui-monospace,monospace;font-size:.92em}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}
th,td{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}
.status{display:inline-block;padding:0 .4rem;border-radius:.3rem;background:#eee}
nav a{margin-right:.8rem}
"""


def _page(title: str, body: str, here: str, index: str) -> bytes:
    doc = (
        "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>\n"
        f"<title>{html.escape(title)}</title>\n<link rel='icon' href='data:,'>\n"
        f"<style>{_CSS}</style>\n</head>\n<body>\n"
        f"<nav><a href='{_rel(here, index)}'>All schemas</a></nav>\n{body}\n</body>\n</html>\n"
    )
    return doc.encode()


def _e(text: Any) -> str:
    return html.escape(str(text))


def _code(text: Any) -> str:
    return f"<code>{_e(text)}</code>"


def _md(text: str) -> str:
    """Schema descriptions use `backticks` for code; render them, escape everything else."""
    parts = str(text).split("`")
    return "".join(_code(p) if i % 2 else _e(p) for i, p in enumerate(parts))


class _SchemaPage:
    """Renders one schema: its objects and fields, its constraints, its rules."""

    def __init__(self, entry: SchemaEntry, schema: dict[str, Any], catalog: Catalog) -> None:
        self.entry = entry
        self.schema = schema
        self.catalog = catalog
        self.defs: dict[str, Any] = schema.get("$defs", {})
        self.here = page_path(entry.id)

    def type_of(self, node: Any) -> str:
        if not isinstance(node, dict):
            return "any" if node is True else "nothing"
        if "$ref" in node and len([k for k in node if k not in ("title", "description")]) == 1:
            return self.ref_link(str(node["$ref"]))
        for key in ("anyOf", "oneOf"):
            if key in node:
                return " | ".join(self.type_of(b) for b in node[key])
        if "const" in node:
            return _code(jsontext.dumps(node["const"]).decode())
        types = node.get("type")
        names = types if isinstance(types, list) else [types] if types else []
        out = []
        for t in names:
            if t == "array" and "items" in node:
                out.append(f"array of {self.type_of(node['items'])}")
            else:
                out.append(_e(t))
        text = " | ".join(out) or ("enum" if "enum" in node else "any")
        if "enum" in node:
            text += " (" + ", ".join(_code(v) for v in node["enum"]) + ")"
        return text

    def ref_link(self, ref: str) -> str:
        base, _, frag = ref.partition("#")
        name = frag.rsplit("/", 1)[-1] if frag else ""
        if not base and frag.startswith("/$defs/") and name in self.defs:
            return f"<a href='#{_e(name)}'>{_e(name)}</a>"
        if not base and not frag:
            return "<a href='#root'>this schema (recursive)</a>"
        try:
            target = self.catalog.by_id(base)
        except LookupError:
            return _code(ref)
        label = target.target + (f" {name}" if name else "")
        return f"<a href='{_e(_rel(self.here, page_path(target.id)))}'>{_e(label)}</a>"

    def object_table(self, name: str, anchor: str, node: dict[str, Any]) -> str:
        required = set(node.get("required", []))
        rows = []
        for field_name, sub in node.get("properties", {}).items():
            desc = sub.get("description", "") if isinstance(sub, dict) else ""
            if not desc and isinstance(sub, dict) and "$ref" in sub:
                desc = self.defs.get(str(sub["$ref"]).rsplit("/", 1)[-1], {}).get("description", "")
            rows.append(
                f"<tr><td>{_code(field_name)}</td><td>{self.type_of(sub)}</td>"
                f"<td>{'yes' if field_name in required else ''}</td><td>{_md(desc)}</td></tr>"
            )
        closed = node.get("additionalProperties") is False
        note = "Closed: other fields are errors." if closed else "Open: other fields are allowed."
        return (
            f"<h3 id='{_e(anchor)}'>{_e(name)}</h3>\n<p>{_md(node.get('description', ''))} "
            f"<em>{note}</em></p>\n<table>\n<tr><th>Field</th><th>Type</th><th>Required</th>"
            f"<th>Description</th></tr>\n" + "\n".join(rows) + "\n</table>"
        )

    def constraints(self) -> str:
        items = []
        for name, node in self.defs.items():
            if isinstance(node, dict) and "properties" not in node:
                items.append(
                    f"<li id='{_e(name)}'><strong>{_e(node.get('title', name))}</strong> "
                    f"({_code(name)}): {_md(node.get('description', ''))}</li>"
                )
        if not items:
            return ""
        return "<h2>Constraints</h2>\n<ul>\n" + "\n".join(items) + "\n</ul>"

    def rules(self) -> str:

        version = self.entry.version
        chosen = [
            r
            for r in REGISTRY
            if r.format == self.entry.format
            and self.entry.kind == "document"
            and (version is None or version in r.versions)
        ]
        if not chosen:
            return ""
        rows = "\n".join(
            f"<tr><td>{_code(r.code)}</td><td>{_code(r.name)}</td><td>{_e(r.level)}</td>"
            f"<td>{_md(r.summary)}</td><td>{_e(r.section)}</td></tr>"
            for r in chosen
        )
        return (
            "<h2 id='rules'>Rules beyond the schema</h2>\n<p>Checked by <code>atif validate"
            "</code>; an error makes a document invalid, a warning does not.</p>\n<table>\n"
            "<tr><th>Code</th><th>Name</th><th>Level</th><th>Rule</th><th>Section</th></tr>\n"
            f"{rows}\n</table>"
        )

    def versions_nav(self) -> str:
        others = [
            e
            for e in self.catalog
            if e.format == self.entry.format and e.name == self.entry.name and e.kind != "tooling"
        ]
        if len(others) < 2:
            return ""
        links = []
        for e in others:
            label = _e(e.version or "any version")
            href = _e(_rel(self.here, page_path(e.id)))
            links.append(label if e.id == self.entry.id else f"<a href='{href}'>{label}</a>")
        return "<p>Versions: " + " · ".join(links) + "</p>"

    def changes(self) -> str:
        entry = self.entry
        if entry.kind != "document" or entry.version is None:
            return ""
        versions = [
            e.version
            for e in self.catalog
            if e.format == entry.format and e.name == entry.name and e.kind == "document"
        ]
        i = versions.index(entry.version)
        if i == 0:
            return ""

        prev = f"{entry.format}@{versions[i - 1]}"
        diff = diff_targets(prev, entry.target, entry.name)
        shown = [c for c in diff.significant() if not c.kind.startswith("conditional-")]
        items = "\n".join(
            f"<li>{_code(c.location or '/')} {_e(c.kind)}: {_e(c.message)}</li>" for c in shown
        )
        return (
            f"<h2 id='changes'>Changes from {_e(prev)}</h2>\n<p>{_e(diff.classification)} "
            f"(<code>atif spec diff {_e(prev)} {_e(entry.target)}</code>).</p>\n"
            f"<ul>\n{items or '<li>documentation only</li>'}\n</ul>"
        )

    def render(self, index: str) -> bytes:
        e, s = self.entry, self.schema
        raw = _rel(self.here, url_path(e.id))
        bundle, editor = _rel(self.here, url_path(e.bundle)), _rel(self.here, url_path(e.editor))
        head = (
            f"<h1>{_e(s.get('title', e.target))}</h1>\n<p>{_md(s.get('description', ''))}</p>\n"
            f"<p><span class='status'>{_e(e.status)}</span> {_e(e.kind)} schema · "
            + (f"{_md(e.note)} · " if e.note else "")
            + f"<code>$id</code> <a href='{_e(raw)}'>{_e(e.id)}</a> · as one file: "
            f"<a href='{_e(bundle)}'>for validators</a>, <a href='{_e(editor)}'>for editors</a>"
            f"</p>\n{self.versions_nav()}"
        )
        body = [head, self.changes()]
        if "properties" in s:
            body.append("<h2>Objects</h2>")
            body.append(self.object_table(s.get("title", "Root"), "root", s))
            for name, node in sorted(self.defs.items()):
                if isinstance(node, dict) and "properties" in node:
                    body.append(self.object_table(name, name, node))
        elif "$ref" in s or "if" in s or "oneOf" in s or "anyOf" in s:
            body.append("<h2 id='root'>Dispatch</h2>\n<p>" + self.dispatch() + "</p>")
        body.append(self.constraints())
        body.append(self.rules())
        return _page(s.get("title", e.target), "\n".join(b for b in body if b), self.here, index)

    def dispatch(self) -> str:
        refs = sorted(set(_refs(self.schema)))
        return "Validates a document against the schema of the version it declares: " + ", ".join(
            self.ref_link(r) for r in refs
        )


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str) and not v.startswith("#"):
                yield v
            else:
                yield from _refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from _refs(v)


def _index(catalog: Catalog, here: str, latest: dict[str, str], interop: bool = False) -> bytes:
    parts = [
        "<h1>atif-spec schemas</h1>\n<p>JSON Schemas (draft 2020-12) for the Agent Trajectory "
        "Interchange Format (ATIF) and sibling trajectory formats. Each schema is served at its "
        "<code>$id</code>; a released version never changes.</p>",
        f"<p><a href='{_rel(here, '/schemas/catalog.json')}'>catalog.json</a> · "
        f"<a href='{_rel(here, '/schemas/schemastore-catalog.json')}'>SchemaStore catalog</a>"
        + (f" · <a href='{_rel(here, INTEROP_PAGE)}'>interop report</a>" if interop else "")
        + "</p>",
    ]
    groups: dict[str, list[SchemaEntry]] = {}
    for e in catalog:
        groups.setdefault(e.format, []).append(e)
    for fmt, entries in groups.items():
        info = catalog.formats.get(fmt)
        title = info.title if info else "atif-spec tooling"
        parts.append(f"<h2 id='{_e(fmt)}'>{_e(title)} ({_code(fmt)})</h2>\n<table>")
        parts.append(
            "<tr><th>Schema</th><th>Status</th><th><code>$id</code></th><th>JSON</th></tr>"
        )
        for e in entries:
            label = e.target + ("" if e.name in ("trajectory",) else f" / {e.name}")
            parts.append(
                f"<tr><td><a href='{_e(_rel(here, page_path(e.id)))}'>{_e(label)}</a></td>"
                f"<td>{_e(e.status)}{f'<br><small>{_md(e.note)}</small>' if e.note else ''}</td>"
                f"<td>{_code(e.id)}</td>"
                f"<td><a href='{_e(_rel(here, url_path(e.id)))}'>schema</a></td></tr>"
            )
        parts.append("</table>")
        aliases = [p for p in latest if p.startswith(f"/schemas/{fmt}/latest/")]
        if aliases:
            parts.append(
                "<p>Latest: "
                + ", ".join(f"<a href='{_e(_rel(here, p))}'>{_e(p)}</a>" for p in aliases)
                + "</p>"
            )
    return _page("atif-spec schemas", "\n".join(parts), here, here)


# --------------------------------------------------------------------------- interop

INTEROP_DATA = Path("conformance/interop.json")
"""Written by ``nox -s interop``; the site shows it when the build runs in the repository."""
INTEROP_PAGE = "/interop.html"


def interop_page(data: dict[str, Any], here: str, index: str) -> bytes:
    """The interop matrix: implementation, target, role and kind against outcome counts, each
    explained count linked to the implementation's known differences."""

    repo = "https://github.com/atif-spec/atif-spec/blob/main/conformance/"
    parts = [
        "<h1>ATIF interop report</h1>",
        "<p>Public implementations against the conformance suite, against every document "
        "atif-spec writes, and against each other (<code>nox -s interop</code>; "
        f"<a href='{repo}INTEROP.md'>INTEROP.md</a>).</p>",
        "<h2>Implementations</h2><table><tr><th>Implementation</th><th>Package</th>"
        "<th>Roles</th><th>Started</th></tr>",
    ]
    for name, peer in data.get("peers", {}).items():
        roles = ", ".join((peer.get("start") or {}).get("roles", []))
        started = "yes" if peer.get("started") else "no"
        parts.append(
            f"<tr><td>{_e(name)}</td><td>{_code(peer.get('package'))}</td>"
            f"<td>{_e(roles)}</td><td>{started}</td></tr>"
        )
    parts.append("</table><h2>Matrix</h2><table><tr><th>Implementation</th><th>Target</th>")
    parts.append("<th>Role</th><th>Items</th>" + "".join(f"<th>{c}</th>" for c in COLUMNS))
    parts.append("</tr>")
    for row in data.get("matrix", []):
        cells = []
        for c in COLUMNS:
            n = row.get(c) or ""
            if c == "explained" and n:
                peer = data.get("peers", {}).get(row["implementation"], {})
                kd_file = peer.get("differences", f"{row['implementation']}.toml")
                link = f"{repo}known-differences/{kd_file}"
                n = f"<a href='{_e(link)}'>{n}</a>"
            cells.append(f"<td>{n}</td>")
        parts.append(
            f"<tr><td>{_e(row['implementation'])}</td><td>{_e(row['target'])}</td>"
            f"<td>{_e(row['role'])}</td><td>{_e(row['kind'])}</td>{''.join(cells)}</tr>"
        )
    parts.append("</table><h2>Not run</h2><ul>")
    parts += [f"<li>{_code(x['package'])}: {_e(x['reason'])}</li>" for x in data.get("listed", [])]
    parts.append("</ul>")
    return _page("ATIF interop report", "\n".join(parts), here, index)


# --------------------------------------------------------------------------- build


def write_schemas(out: Path | str, catalog: Catalog) -> Site:
    """The JSON part of the site: every schema at its ``$id`` (the ``spec/`` bytes), the latest
    aliases, both bundles of every schema at the catalog's ``bundle`` and ``editor`` URLs, the
    catalog and the SchemaStore catalog."""

    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    site = Site(root=root)
    for e in catalog:
        path = url_path(e.id)
        _write(root, path, _spec_bytes(e.path))
        site.schemas[e.id] = path
    for fmt, info in catalog.formats.items():
        for e in catalog:
            if e.format == fmt and e.version == info.latest and e.kind == "document":
                alias = f"/schemas/{fmt}/latest/{posixpath.basename(url_path(e.id))}"
                _write(root, alias, _spec_bytes(e.path))
                site.latest[alias] = url_path(e.id)
    for e in catalog:
        for kind, url in (("compound", e.bundle), ("editor", e.editor)):
            _write(root, url_path(url), bundle_file(e, kind).read_bytes())
            site.bundles[url_path(url)] = url_path(e.id)
    _write(root, "/schemas/catalog.json", _spec_bytes("catalog.json"))
    store = jsontext.dumps(schemastore_catalog(catalog), indent=True) + b"\n"
    _write(root, "/schemas/schemastore-catalog.json", store)
    return site


def build(out: Path | str, catalog: Catalog | None = None, interop: Path | None = None) -> Site:
    """Write the site into ``out`` (created if needed) and return what was written; with
    ``interop`` (``conformance/interop.json``), the interop page too."""

    catalog = catalog or load_catalog()
    site = write_schemas(out, catalog)
    root = site.root
    index = "/index.html"
    for e in catalog:
        page = _SchemaPage(e, schema_by_id(e.id), catalog)
        _write(root, page.here, page.render(index))
        site.pages.append(page.here)
    if interop is not None and interop.is_file():
        data = orjson.loads(interop.read_bytes())
        _write(root, INTEROP_PAGE, interop_page(data, INTEROP_PAGE, index))
        site.pages.append(INTEROP_PAGE)
    shown = INTEROP_PAGE in site.pages
    _write(root, index, _index(catalog, index, site.latest, shown))
    _write(root, "/schemas/index.html", _index(catalog, "/schemas/index.html", site.latest, shown))
    site.pages += [index, "/schemas/index.html"]
    return site


def main(argv: list[str] | None = None) -> int:
    """``python -m atif_spec.spectools.site [OUT]`` (default ``_site``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    out = Path(args[0] if args else "_site")
    site = build(out, interop=INTEROP_DATA)
    print(f"site: {len(site.schemas)} schemas, {len(site.pages)} pages in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
