"""``atif view``: one self-contained HTML page for trajectories and datasets, findings in place.

:func:`build` reads the inputs, validates every document, gathers what the page shows (the
documents, their findings, totals per RFC.md §2.4, media from the documents' folders as
``data:`` URIs, followed references, dataset statistics) into one JSON payload, and
:func:`page` wraps it with the page's script and style (package data in ``assets/``).

The page loads nothing: its Content-Security-Policy allows only its own script and style (by
hash) and ``data:`` images and audio; the payload is embedded as JSON with ``<``, ``>``, ``&``,
U+2028 and U+2029 escaped; the script builds the DOM with ``textContent`` only, so content of
any kind renders as text.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, replace
from html import escape
from importlib import resources
from typing import Any

from atif_spec import __version__
from atif_spec.datasets.engines.sources import DEFAULT_COLUMN, listing, read_documents
from atif_spec.datasets.stats import Stats
from atif_spec.jsonio import jsontext
from atif_spec.jsonio.samefile import FileId, refuse_read
from atif_spec.validation.listing import Filters
from atif_spec.validation.reader import DEFAULT_MAX_BYTES, is_jsonl, is_parquet
from atif_spec.view.charts import dataset_charts
from atif_spec.view.compare import CompareError, comparison
from atif_spec.view.documents import Collector
from atif_spec.view.jobs import Trials

DEFAULT_MAX_DOCS = 200


@dataclass(frozen=True, slots=True)
class ViewOptions:
    """The switches of ``atif view``."""

    allow_outside: bool = False
    """Embed media files (and follow references) outside the document's folder."""
    follow_refs: bool = False
    """Show file-referenced subagents and continuation files."""
    max_docs: int = DEFAULT_MAX_DOCS
    """Most documents of a dataset shown (statistics count every document)."""
    page: int = 1
    """Which ``max_docs`` documents are shown: the page'th (1: the first ``max_docs``)."""
    max_bytes: int = DEFAULT_MAX_BYTES
    column: str = DEFAULT_COLUMN
    outputs: frozenset[FileId] = frozenset()
    """Files the page is written to (:func:`atif_spec.jsonio.samefile.file_ids`): reading one
    (an input, a referenced trajectory, a media file) raises
    :class:`atif_spec.jsonio.atomic.OutputError`."""
    selection: Filters | None = None
    """``--include``/``--exclude`` of folder inputs (Harbor job folders: the trajectories)."""
    compare: bool = False
    """Two inputs, one trajectory each, side by side (:mod:`atif_spec.view.compare`)."""


def build(inputs: list[str], options: ViewOptions | None = None) -> dict[str, Any]:
    """The page's payload for ``inputs`` (files, directories, JSON Lines, Parquet); raises
    :class:`atif_spec.jsonio.atomic.OutputError` when it would read one of ``options.outputs``
    and :class:`CompareError` when ``options.compare`` is set and the inputs are not two
    trajectories."""

    opts = options or ViewOptions()
    found = listing(inputs, opts.selection)
    files = found.files
    if opts.compare and len(files) != 2:
        raise CompareError(f"--compare takes two trajectory files (A and B), not {len(files)}")
    for name in files:
        refuse_read(name, None, opts.outputs, "an input")
    if found.trials:  # a trial's subagents and continuations open under its trajectory
        opts = replace(opts, follow_refs=True)
    collector = Collector(opts)
    first = (opts.page - 1) * opts.max_docs
    stats = Stats()
    trials = Trials()
    total = 0
    runs: set[str] = set()  # provider streams: one run each, not a dataset
    for name in files:
        for raw in read_documents(name, max_bytes=opts.max_bytes, column=opts.column):
            total += 1
            numbers, row = collector.add(raw, shown=first < total <= first + opts.max_docs)
            stats.add(numbers)
            if name in found.trials:
                trials.add(found.trials[name], name, numbers, row)
            if raw.stream is not None:
                runs.add(name)
    dataset = total > 1 or any(_is_dataset(f) for f in files if f not in runs)
    compared = _compare(collector, total) if opts.compare else None
    return {
        "generator": f"atif-spec {__version__}",
        "inputs": files,
        "named": list(inputs),
        "skipped": found.note(),
        "dataset": dataset,
        "total": total,
        "shown": len(collector.index),
        "first": first,
        "page": opts.page,
        "pages": max(1, -(-total // opts.max_docs)),
        "max_docs": opts.max_docs,
        "follow_refs": opts.follow_refs,
        "index": collector.index,
        "trials": trials.to_list(),
        "docs": collector.docs,
        "stats": stats.to_dict()["total"] if dataset else None,
        "charts": dataset_charts(stats.total) if dataset else None,
        "compare": compared,
    }


def _compare(collector: Collector, total: int) -> dict[str, Any]:
    if total != 2 or len(collector.index) != 2:
        raise CompareError(f"--compare: each input must be one trajectory (A and B hold {total})")
    a, b = (row["doc"] for row in collector.index)
    return comparison(collector.docs[a], collector.docs[b], (a, b))


def _is_dataset(name: str) -> bool:

    return is_jsonl(name) or is_parquet(name)


SCRIPTS = (
    "core.js",
    "charts.js",
    "waterfall.js",
    "compare.js",
    "findings.js",
    "steps.js",
    "document.js",
    "index.js",
    "dataset.js",
    "jobs.js",
    "search.js",
    "navigate.js",
)
"""The page's script, in order, one job each (helpers; charts; the spans' waterfall; two runs
compared; findings; the timeline; a document's page; the index table, virtualised; a dataset's
index; a Harbor job's trials; search and filters; anchors, keys and routing): concatenated into
one function scope by :func:`script`."""


def _asset(name: str) -> str:
    return (resources.files("atif_spec.view") / "assets" / name).read_text(encoding="utf-8")


def script() -> str:
    """The page's one script: :data:`SCRIPTS` in one strict-mode function scope."""
    parts = "\n".join(f"// --- {name} ---\n{_asset(name)}" for name in SCRIPTS)
    return f"(function () {{\n'use strict';\n{parts}\n}})();\n"


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def embed_json(value: Any) -> str:
    """JSON safe inside an HTML ``<script>`` element (and in JavaScript source)."""
    data = jsontext.dumps(value)
    for raw, escaped in (
        (b"&", b"\\u0026"),
        (b"<", b"\\u003c"),
        (b">", b"\\u003e"),
        ("\u2028".encode(), b"\\u2028"),
        ("\u2029".encode(), b"\\u2029"),
    ):
        data = data.replace(raw, escaped)  # only inside strings: JSON has these nowhere else
    return data.decode()


def csp(script: str, style: str) -> str:
    """The page's Content-Security-Policy: its own script and style, ``data:`` media."""
    return (
        f"default-src 'none'; script-src '{_hash(script)}'; style-src '{_hash(style)}'; "
        "img-src data:; media-src data:; base-uri 'none'; form-action 'none'"
    )


def page(payload: dict[str, Any]) -> str:
    """The HTML page for a payload from :func:`build`."""
    script_text, style = script(), _asset("view.css")
    title = "atif view"
    if payload["docs"] and not payload["dataset"]:
        title = f"atif view: {payload['docs'][0]['source']}"

    slots = {
        "CSP": escape(csp(script_text, style), quote=True),
        "TITLE": escape(title),
        "STYLE": style,
        "DATA": embed_json(payload),
        "SCRIPT": script_text,
    }
    # One pass over the template: text put into one slot is never searched for another.
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda m: slots[m.group(1)], _asset("page.html"))


def render(inputs: list[str], options: ViewOptions | None = None) -> str:
    """:func:`build` then :func:`page`."""
    return page(build(inputs, options))


__all__ = [
    "DEFAULT_MAX_DOCS",
    "CompareError",
    "ViewOptions",
    "build",
    "embed_json",
    "page",
    "render",
    "script",
]
