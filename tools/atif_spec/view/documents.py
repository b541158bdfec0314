"""What the page shows of each document: its findings, its trajectory (as ATIF), totals, media
embedded from its folder, and the documents its references name (``--follow-refs``)."""

from __future__ import annotations

import base64
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atif_spec.datasets.stats import as_atif, load, record
from atif_spec.formats import is_event_stream
from atif_spec.formats.streams import converted_note
from atif_spec.formats.totals import Totals, trajectory_totals
from atif_spec.jsonio.atomic import OutputError
from atif_spec.jsonio.jsonvalues import dict_member, dicts, list_member
from atif_spec.jsonio.pointers import join
from atif_spec.jsonio.samefile import refuse_read
from atif_spec.validation.reader import RawDocument, read_file
from atif_spec.validation.rules.atif_files import locate
from atif_spec.view.charts import step_charts
from atif_spec.view.totals import explain
from atif_spec.view.waterfall import waterfall

if TYPE_CHECKING:
    from atif_spec.validation.findings import Report
    from atif_spec.view import ViewOptions

MAX_LINKED = 100
"""Most documents followed through references (``--follow-refs``) per page."""
MAX_DEPTH = 8
"""Most levels of references followed from an input."""
MAX_MEDIA_BYTES = 8 * 1024 * 1024
"""Largest media file embedded."""
MAX_PAGE_MEDIA_BYTES = 64 * 1024 * 1024
"""Most media bytes embedded in one page (later files are listed, not embedded)."""
MAGIC: dict[str, tuple[tuple[int, bytes], ...]] = {
    "image/png": ((0, b"\x89PNG\r\n\x1a\n"),),
    "image/jpeg": ((0, b"\xff\xd8\xff"),),
    "image/gif": ((0, b"GIF87a"), (0, b"GIF89a")),
    "image/webp": ((8, b"WEBP"),),
    "audio/wav": ((8, b"WAVE"),),
    "audio/mpeg": ((0, b"ID3"), (0, b"\xff\xfb"), (0, b"\xff\xf3"), (0, b"\xff\xf2")),
    "audio/ogg": ((0, b"OggS"),),
    "audio/flac": ((0, b"fLaC"),),
    "audio/webm": ((0, b"\x1a\x45\xdf\xa3"),),
    "audio/mp4": ((4, b"ftyp"),),
}
"""Media types embedded, each with the leading bytes its files must have."""


def sniff(data: bytes, media_type: str) -> bool:
    """True when ``data`` starts the way files of ``media_type`` do."""
    return any(data[at : at + len(magic)] == magic for at, magic in MAGIC.get(media_type, ()))


class Collector:
    """Gathers the documents of a page (see :func:`atif_spec.view.build`)."""

    def __init__(self, options: ViewOptions) -> None:
        self.options = options
        self.docs: list[dict[str, Any]] = []
        self.index: list[dict[str, Any]] = []
        self.media_bytes = 0
        self._linked: dict[Path, int] = {}
        self._inputs: dict[Path, int] = {}
        """The inputs' files on the page (a reference to one links to it)."""

    def add(self, raw: RawDocument, *, shown: bool) -> tuple[dict[str, Any], dict[str, Any]]:
        """Load one document of the inputs; returns its stats record and its index row (put in
        the index when ``shown``; its ``doc`` None when not). A file already on the page (an
        earlier input's followed reference) is not added twice."""

        doc, report = load(raw, self.options.max_bytes)
        atif = as_atif(doc, report.format, report.version)
        numbers = record(raw, report, atif)
        position = None
        if shown:
            path = _resolved(raw.path) if raw.line is None else None
            position = self._inputs.get(path) if path else None
            if position is None:
                position = self._linked.get(path) if path else None
            if position is None:
                position = self._entry(raw, doc, report, atif, numbers)
            if path:
                self._inputs[path] = position
        row = _index_row(position, numbers, report)
        if shown:
            self.index.append(row)
        return numbers, row

    def _entry(
        self,
        raw: RawDocument,
        doc: Any,
        report: Report,
        atif: dict[str, Any] | None,
        numbers: dict[str, Any],
        depth: int = 0,
    ) -> int:
        position = len(self.docs)
        entry: dict[str, Any] = {
            "source": raw.source,
            "line": raw.line,
            "format": report.format,
            "version": report.version,
            "valid": report.valid,
            "findings": [f.to_dict() for f in report.findings],
            "atif": atif,
            "tree": doc if report.format != "atif" else None,
            "converted": converted_note(raw.stream or "") if _provider(raw, doc) else None,
            "numbers": numbers if numbers.get("counted") else None,
            "media": {},
            "links": {},
            "not_followed": {},
            "continuation": None,
            "totals": None,
            "final": None,
            "charts": [],
            "waterfall": None,
        }
        self.docs.append(entry)
        if atif is None:
            return position
        folder = _folder(raw.path)
        if folder is not None:
            entry["media"] = self._media(atif, folder)
        if self.options.follow_refs and folder is not None:
            self._follow(entry, atif, folder, depth)
        totals = self._totals(atif, entry["links"])
        entry["totals"] = _totals_dict(totals)
        entry["final"] = explain(atif, totals, followed=self.options.follow_refs)
        entry["charts"] = step_charts(atif)
        entry["waterfall"] = waterfall(atif)
        return position

    # --- media -------------------------------------------------------------------------------

    def _media(self, atif: dict[str, Any], folder: Path) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for ptr, source in _media_sources(atif):
            out[ptr] = self._one_medium(source, folder)
        return out

    def _one_medium(self, source: dict[str, Any], folder: Path) -> dict[str, Any]:

        path, media_type = source.get("path"), source.get("media_type")
        if not isinstance(path, str) or not isinstance(media_type, str):
            return {"error": "no path or media type"}
        if "://" in path:
            return {"url": path}
        if media_type not in MAGIC:
            return {"error": f"media type {media_type!r} is not embedded"}
        target, inside = locate(folder, path)
        if not inside and not self.options.allow_outside:
            return {"error": "outside the document's folder (--allow-outside to embed)"}
        data = self._medium_bytes(target)
        if isinstance(data, dict):
            return data
        if not sniff(data, media_type):
            return {"error": f"the file's content is not {media_type}"}
        self.media_bytes += len(data)
        encoded = base64.b64encode(data).decode()
        return {"data": f"data:{media_type};base64,{encoded}", "bytes": len(data)}

    def _medium_bytes(self, target: Path) -> bytes | dict[str, Any]:
        """A media file's bytes within the limits, or why not (``{"error": ...}``)."""
        try:
            info = target.stat()
            size = info.st_size
            if not stat.S_ISREG(info.st_mode):
                return {"error": "not a file"}
            refuse_read(target, info, self.options.outputs, "a media file")
            if size > MAX_MEDIA_BYTES:
                return {"error": f"{size} bytes: larger than {MAX_MEDIA_BYTES}"}
            if self.media_bytes + size > MAX_PAGE_MEDIA_BYTES:
                return {"error": "the page's media budget is spent"}
            return target.read_bytes()
        except OutputError:
            raise  # the page would overwrite it: the run stops before writing
        except OSError as exc:
            return {"error": f"cannot read: {exc.strerror or exc}"}

    # --- references --------------------------------------------------------------------------

    def _follow(
        self, entry: dict[str, Any], atif: dict[str, Any], folder: Path, depth: int
    ) -> None:
        """Fill the entry's ``links`` (reference pointer -> document), ``continuation`` and
        ``not_followed`` (pointer -> why a reference was not followed, in words)."""
        for ptr, ref in _file_refs(atif):
            linked = self._linked_doc(ref["trajectory_path"], folder, depth)
            if isinstance(linked, int):
                entry["links"][ptr] = linked
            else:
                entry["not_followed"][ptr] = linked
        cont = atif.get("continued_trajectory_ref")
        if isinstance(cont, str):
            linked = self._linked_doc(cont, folder, depth)
            if isinstance(linked, int):
                entry["continuation"] = linked
            else:
                entry["not_followed"]["/continued_trajectory_ref"] = linked

    def _linked_doc(self, path: str, folder: Path, depth: int) -> int | str:
        """The position of the document ``path`` names, or why it was not followed."""
        if "://" in path:
            return "a URL (never loaded)"
        target, inside = locate(folder, path)
        if not inside and not self.options.allow_outside:
            return "outside the document's folder (--allow-outside to follow)"
        if target in self._inputs:
            return self._inputs[target]
        if target in self._linked:
            return self._linked[target]
        if len(self._linked) >= MAX_LINKED:
            return f"the page already holds {MAX_LINKED} followed files"
        if not target.is_file():
            return "no such file"
        if depth >= MAX_DEPTH:
            return f"more than {MAX_DEPTH} references deep"
        raw = self._read_linked(target)
        if raw is None:
            return "cannot be read"
        self._linked[target] = len(self.docs)  # before loading: a cycle ends here
        doc, report = load(raw, self.options.max_bytes)
        atif = as_atif(doc, report.format, report.version)
        return self._entry(raw, doc, report, atif, record(raw, report, atif), depth + 1)

    def _read_linked(self, target: Path) -> RawDocument | None:
        """A referenced file as :func:`read_file` reads an input (its size looked at first: one
        over ``--max-bytes`` is not read, and its entry gets ``input:too-large``); None when it
        cannot be read."""
        refuse_read(target, None, self.options.outputs, "a referenced trajectory")
        try:
            return next(read_file(str(target), self.options.max_bytes, lines=False))
        except OSError:
            return None

    def _linked_by_ref(self, atif: dict[str, Any], links: dict[str, int]) -> dict[int, Any]:
        """The followed document of every file reference below ``atif`` and, transitively,
        below the documents it links (by the reference object's identity), so that the totals
        count a referenced file's own references too (RFC.md §2.4)."""
        by_id: dict[int, Any] = {}
        pending = [(atif, links)]
        seen: set[int] = set()
        while pending:
            doc, doc_links = pending.pop()
            if id(doc) in seen:
                continue
            seen.add(id(doc))
            for ptr, ref in _file_refs(doc):
                position = doc_links.get(ptr)
                if position is None:
                    continue
                linked = self.docs[position]
                by_id[id(ref)] = linked["atif"]
                if linked["atif"] is not None:
                    pending.append((linked["atif"], linked["links"]))
        return by_id

    def _totals(self, atif: dict[str, Any], links: dict[str, int]) -> Totals:
        by_id = self._linked_by_ref(atif, links)
        return trajectory_totals(atif, lambda ref, _holder: by_id.get(id(ref)))


def _totals_dict(totals: Totals) -> dict[str, Any]:
    return {
        "prompt_tokens": totals.prompt_tokens,
        "completion_tokens": totals.completion_tokens,
        "cached_tokens": totals.cached_tokens,
        "cost_usd": totals.cost_usd,
        "steps": totals.steps,
        "copied_context_steps": totals.copied_context_steps,
        "zero_call_steps": totals.zero_call_steps,
        "subagents": totals.subagents,
        "unresolved_refs": totals.unresolved_refs,
    }


def _folder(path: Path | None) -> Path | None:
    if path is None:
        return None
    try:
        return path.parent.resolve()
    except (OSError, RuntimeError):
        return None


def _resolved(path: Path | None) -> Path | None:
    if path is None:
        return None
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


def _index_row(position: int | None, numbers: dict[str, Any], report: Report) -> dict[str, Any]:
    return {
        "doc": position,
        "source": numbers["source"],
        "line": numbers["line"],
        "version": numbers["version"],
        "valid": numbers["valid"],
        "errors": len(report.errors),
        "warnings": len(report.warnings),
        "steps": numbers.get("steps"),
        "tokens": numbers.get("tokens"),
        "model": numbers.get("model"),
    }


def _trajectories(doc: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(pointer, trajectory)`` for the document and its embedded subagents, recursively."""
    pending: list[tuple[str, dict[str, Any]]] = [("", doc)]
    while pending:
        base, node = pending.pop()
        yield base, node
        for k, sub in dicts(node.get("subagent_trajectories")):
            pending.append((join(base, "subagent_trajectories", k), sub))


def _media_sources(doc: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(pointer of the content part, its source)`` for every image and audio part."""
    for base, node in _trajectories(doc):
        for i, step in dicts(node.get("steps")):
            places: list[tuple[str, Any]] = [
                (join(base, "steps", i, "message"), step.get("message"))
            ]
            observation = dict_member(step, "observation")
            for k, result in dicts(list_member(observation, "results")):
                where = join(base, "steps", i, "observation", "results", k, "content")
                places.append((where, result.get("content")))
            for where, parts in places:
                for j, part in dicts(parts if isinstance(parts, list) else None):
                    source = dict_member(part, "source")
                    if source is not None:
                        yield join(where, j), source


def _file_refs(doc: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(pointer of the ref, ref)`` for every subagent reference naming a file."""
    for base, node in _trajectories(doc):
        for i, step in dicts(node.get("steps")):
            observation = dict_member(step, "observation")
            for k, result in dicts(list_member(observation, "results")):
                where = join(
                    base, "steps", i, "observation", "results", k, "subagent_trajectory_ref"
                )
                refs = result.get("subagent_trajectory_ref")
                found = (
                    [(where, refs)]
                    if isinstance(refs, dict)
                    else [(join(where, j), ref) for j, ref in dicts(refs)]
                )
                for ptr, ref in found:
                    if isinstance(ref.get("trajectory_path"), str):
                        yield ptr, ref


def _provider(raw: RawDocument, doc: Any) -> bool:
    """True for a provider stream converted in memory (not an ATOF stream, a document itself)."""
    return bool(raw.stream) and not is_event_stream(raw.stream) and doc is not None
