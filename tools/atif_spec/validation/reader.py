"""Reading documents: files, JSON Lines and stdin, with where each came from (which files a run
reads: :mod:`atif_spec.validation.listing`).

Reading never fails on bad content: bytes are handed on, and parsing turns problems into
findings. Only paths that cannot be read at all raise :class:`UnreadablePath`.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import orjson

from atif_spec.formats import otel
from atif_spec.formats.streams import SNIFF_BYTES, sniff_stream
from atif_spec.jsonio.jsontext import dumps, loads
from atif_spec.jsonio.locate import line_column
from atif_spec.validation.findings import Finding, Level, input_finding

JSONL_SUFFIXES = (".jsonl", ".ndjson")
JSON_SUFFIXES = (".json", *JSONL_SUFFIXES)
PARQUET_SUFFIXES = (".parquet",)
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
"""Largest document read into memory (a longer JSON Lines record is reported and skipped)."""
STDIN = "-"
_BOM = b"\xef\xbb\xbf"
_READ_CHUNK = 1 << 20
LINE_BUFFER = 1 << 20
"""Buffer of a JSON Lines file open for reading. ``readline`` on a buffered file costs about
four times less per byte with 1 MiB than with the default 8 KiB once records are larger than
the buffer (trajectories often are: 5 KB to a few MB)."""


class LineSource(Protocol):
    """Anything with a binary ``readline`` (a file, or a byte range of one)."""

    def readline(self, limit: int = -1, /) -> bytes: ...


class UnreadablePath(OSError):
    """A path given on the command line that does not exist or cannot be read."""


class RawDocument(NamedTuple):
    """The bytes of one document and where they came from (immutable; a named tuple rather
    than a frozen dataclass: built once per JSON Lines record, it costs a third as much)."""

    source: str
    """File path as given (or ``<stdin>``)."""
    data: bytes
    line: int | None = None
    """1-based line number for JSON Lines records."""
    path: Path | None = None
    """The file on disk, when there is one (file-level rules resolve against it)."""
    oversize: int | None = None
    """Set instead of ``data`` when the record was longer than the size limit."""
    stream: str | None = None
    """Set instead of ``data`` when the whole file is a provider stream (its kind)."""
    lines: tuple[int, ...] | None = None
    """The lines of a document gathered from several JSON Lines records (an OTLP trace, see
    :func:`by_trace`); ``line`` is the first of them."""


def is_uri(name: str) -> bool:
    """True for ``scheme://...`` names (datasets read through pyarrow.fs)."""
    return "://" in name


def is_parquet(name: str) -> bool:
    """True for names of Parquet files."""
    return name.lower().endswith(PARQUET_SUFFIXES)


def is_jsonl(name: str) -> bool:
    """True for names that hold JSON Lines."""
    return name.lower().endswith(JSONL_SUFFIXES)


def read_lines(
    stream: LineSource, source: str, path: Path | None, max_bytes: int
) -> Iterator[RawDocument]:
    """One :class:`RawDocument` per non-blank line, holding at most one record in memory."""
    number = 0
    while True:
        line = stream.readline(max_bytes + 1)
        if not line:
            return
        number += 1
        if len(line) > max_bytes and not line.endswith(b"\n"):
            size = len(line)
            while True:  # skip the rest of the over-long record without keeping it
                rest = stream.readline(_READ_CHUNK)
                size += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
            yield RawDocument(source, b"", number, path, oversize=size)
            continue
        if not line.isspace():  # a blank line is no record (no copy made to tell)
            yield RawDocument(source, line, number, path)


def read_file(
    name: str, max_bytes: int = DEFAULT_MAX_BYTES, lines: bool | None = None
) -> Iterator[RawDocument]:
    """Documents of one file (or stdin when ``name`` is ``-``)."""
    if name == STDIN:
        yield from _read_stdin(max_bytes, lines)
        return
    path = Path(name)
    as_lines = is_jsonl(name) if lines is None else lines
    try:
        with open(name, "rb", buffering=LINE_BUFFER if as_lines else -1) as fh:
            if as_lines:
                kind = stream_kind(fh)
                if kind is not None:  # one run: read whole (view and stats convert it)
                    yield _whole(fh, name, path, max_bytes, kind)
                    return
                yield from read_lines(fh, name, path, max_bytes)
                return
            yield _whole(fh, name, path, max_bytes, None)
    except UnreadablePath:
        raise
    except OSError as exc:  # gone or unreadable since it was listed: one line, no traceback
        raise unreadable(name, exc) from None


def unreadable(name: str, exc: OSError) -> UnreadablePath:
    """The error of a file that the listing named but that cannot be read now."""
    return UnreadablePath(f"cannot read {name}: {exc.strerror or exc}")


def _whole(fh: Any, name: str, path: Path, max_bytes: int, kind: str | None) -> RawDocument:
    """A whole file as one document (``kind``: the provider stream it is), or its size when
    over ``max_bytes``."""
    size = os.fstat(fh.fileno()).st_size
    if size > max_bytes:
        return RawDocument(name, b"", None, path, oversize=size, stream=kind)
    return RawDocument(name, fh.read(), None, path, stream=kind)


def whole_file(path: Path, name: str | None = None) -> RawDocument:
    """A file read whole as one document (the API's ``validate(path)``); a JSON Lines file that
    is a stream is marked as one, as :func:`read_file` marks it."""
    data = path.read_bytes()
    name = str(path) if name is None else name
    kind = sniff_stream(data[:SNIFF_BYTES]) if is_jsonl(name) else None
    return RawDocument(name, data, None, path, stream=kind)


def stream_kind(fh: Any) -> str | None:
    """The provider-stream kind of an open JSON Lines file (read from its start, then rewound
    to where it was), or None."""

    at = fh.tell()
    head = fh.read(SNIFF_BYTES)
    fh.seek(at)
    return sniff_stream(head)


def read_files(
    names: Iterable[str], max_bytes: int = DEFAULT_MAX_BYTES, lines: bool | None = None
) -> Iterator[RawDocument]:
    """Documents of several files (see :func:`read_file`), in order."""
    for name in names:
        yield from read_file(name, max_bytes, lines)


def _read_stdin(max_bytes: int, lines: bool | None) -> Iterator[RawDocument]:
    stream = sys.stdin.buffer
    if lines:
        yield from read_lines(stream, "<stdin>", None, max_bytes)
        return
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        yield RawDocument("<stdin>", b"", None, None, oversize=len(data))
        return
    if lines is None and _looks_like_lines(data):
        kind = sniff_stream(data[:SNIFF_BYTES])
        if kind is not None:
            yield RawDocument("<stdin>", data, None, None, stream=kind)
            return
        number = 0
        for number, chunk in enumerate(data.split(b"\n"), start=1):
            if chunk.strip():
                yield RawDocument("<stdin>", chunk, number, None)
        return
    yield RawDocument("<stdin>", data, None, None)


def _looks_like_lines(data: bytes) -> bool:
    """Several non-blank lines that do not parse as one document, read as JSON Lines when some
    line is a whole JSON object and either every line starts like one or at least half of them
    are one (a malformed record, the first one too, is then one bad line, not the whole input)."""
    if data.strip().count(b"\n") == 0:
        return False
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        lines = [line.strip() for line in data.split(b"\n") if line.strip()]
        objects = sum(1 for line in lines if _is_object(line))
        if not objects:
            return False
        return all(line.startswith(b"{") for line in lines) or 2 * objects >= len(lines)
    return False


def _is_object(line: bytes) -> bool:
    try:
        return isinstance(orjson.loads(line), dict)
    except orjson.JSONDecodeError:
        return False


_NON_FINITE_TOKENS = ("NaN", "Infinity")
"""Tokens some writers emit for non-finite floats; the parser stops at their first letter."""


def parse(raw: RawDocument, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[Any, list[Finding]]:
    """Parse one document; problems become ``input:*`` findings (value ``None`` when fatal)."""
    if raw.oversize is not None:
        return None, [
            input_finding(
                "too-large",
                f"document of {raw.oversize} bytes exceeds the limit of {max_bytes} bytes "
                "(raise it with --max-bytes)",
            )
        ]
    data = raw.data
    notes: list[Finding] = []
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
        notes.append(
            input_finding(
                "byte-order-mark",
                "document starts with a UTF-8 byte order mark",
                level=Level.WARNING,
            )
        )
    try:
        return loads(data), notes
    except orjson.JSONDecodeError as exc:
        return None, [*notes, _decode_problem(data, exc)]
    except RecursionError:
        return None, [*notes, input_finding("too-deep", "nesting is too deep to read")]


_PARSER_PLACE = re.compile(r": line \d+ column \d+ \(char \d+\)$")


def _decode_problem(data: bytes, exc: orjson.JSONDecodeError) -> Finding:
    """The finding for text the parser refused, placed where it stopped (its line and column
    count code points, as :mod:`atif_spec.jsonio.locate` does). The parser's own "line 1
    column 10 (char 9)" is left out of the message: it counts within a JSON Lines record, and
    the finding's line and column say it for the file."""
    message = _PARSER_PLACE.sub("", str(exc))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as bad:
        line, column = line_column(data, bad.start)
        finding = input_finding("invalid-utf8", f"not valid UTF-8 at byte {bad.start}")
        return replace(finding, line=line, column=column)
    if "recursion" in message.lower() or "depth limit" in message.lower():
        return input_finding("too-deep", "nesting is deeper than the parser's limit of 1024 levels")
    if not data.strip():
        return input_finding("invalid-json", "empty document")
    if text[exc.pos :].startswith(_NON_FINITE_TOKENS):  # where the parser stopped, not in a string
        finding = input_finding("non-finite-number", f"NaN and Infinity are not JSON ({message})")
    elif exc.pos >= len(text.rstrip()):
        finding = input_finding(
            "invalid-json", f"truncated JSON: the document ends early ({message})"
        )
    else:
        finding = input_finding("invalid-json", f"not valid JSON: {message}")
    return replace(finding, line=exc.lineno, column=exc.colno)


def event_lines(data: bytes) -> list[tuple[int, bytes]]:
    """``(line number, bytes)`` of each non-blank line of an event stream, in order."""
    return [
        (number, line)
        for number, line in enumerate(data.removeprefix(_BOM).split(b"\n"), start=1)
        if line.strip()
    ]


def parse_stream(raw: RawDocument, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[Any, list[Finding]]:
    """An event stream (``raw.stream == "atof"``) as one document: the list of its events, the
    ``i``-th being the ``i``-th non-blank line. Each line that does not parse is an ``input:*``
    finding at that line (an error: the stream is then checked no further, as a document that
    does not parse is not)."""
    if raw.oversize is not None:
        return parse(raw, max_bytes)
    events: list[Any] = []
    problems: list[Finding] = []
    for number, line in event_lines(raw.data):
        event, found = parse(RawDocument(raw.source, line, number), max_bytes)
        events.append(event)
        problems.extend(replace(f, line=(f.line or 1) + number - 1) for f in found)
    if not events:
        problems.append(input_finding("invalid-json", "empty document"))
    return events, problems


def by_trace(docs: Iterable[RawDocument], max_bytes: int) -> Iterator[RawDocument]:
    """The documents of one JSON Lines source, one per trace when it is an OTLP/JSON file (its
    first record a ``TracesData``): an exporter writes a line per batch, so the spans of a trace
    are gathered from every line (:func:`atif_spec.formats.otel.by_trace`, ``joined``), traces
    in order of first appearance (RFC.md §7.1 item 2). A trace that is a whole line by itself is
    that line, unchanged; a record that is no ``TracesData`` with spans stays a document of its
    own, in its place. The whole source is read first, so more than ``max_bytes`` of it is an
    :class:`UnreadablePath`. Any other source passes through as it is, streamed."""
    records = iter(docs)
    first = next(records, None)
    if first is None:
        return
    if _split(first) is None:
        yield first
        yield from records
        return
    yield from _traces(chain([first], records), max_bytes)


def _split(raw: RawDocument) -> dict[str, Any] | None:
    """``raw`` split by trace, when it is a JSON Lines record holding a ``TracesData`` with
    spans (see :func:`atif_spec.formats.otel.by_trace`)."""
    if raw.line is None or raw.stream is not None or b'"resourceSpans"' not in raw.data:
        return None
    doc, problems = parse(raw)
    if any(p.level is Level.ERROR for p in problems) or otel.detect(doc) is None:
        return None
    return otel.by_trace(doc)


def _traces(records: Iterable[RawDocument], max_bytes: int) -> Iterator[RawDocument]:
    gathering = _Gathering()
    size = 0
    for raw in records:
        size += len(raw.data) or raw.oversize or 0
        if size > max_bytes:
            raise UnreadablePath(
                f"cannot read {raw.source}: an OTLP/JSON file is read whole to gather each "
                f"trace's spans from every line, and it holds more than --max-bytes "
                f"{max_bytes} bytes (raise the limit with --max-bytes)"
            )
        gathering.add(raw)
    yield from gathering.documents()


_Held = tuple[RawDocument, dict[str, Any] | None]
"""A record of a trace file, with its parts by trace when it holds several traces (a record
of one trace is parsed again when needed rather than kept parsed)."""


@dataclass(slots=True)
class _Gathering:
    """The records of a trace file, gathered into documents: in order, a record left whole or
    a group (a trace id and the indexes of its records in ``held``). A span id that comes again
    in a trace, on a later record, starts a new group of that trace id: the record is a
    repeated export, or a document whose ids our writer derived equal to another's."""

    units: list[RawDocument | int] = field(default_factory=list)
    held: list[_Held] = field(default_factory=list)
    groups: list[tuple[str, list[int]]] = field(default_factory=list)
    current: dict[str, tuple[int, set[str]]] = field(default_factory=dict)
    """Each trace id's group, and the span ids it holds."""

    def add(self, raw: RawDocument) -> None:
        parts = _split(raw)
        if parts is None:
            self.units.append(raw)
            return
        for trace, part in parts.items():
            ids = {str(span.get("spanId")) for span in otel.spans(part)}
            group, seen = self.current.get(trace, (-1, set()))
            if group < 0 or ids & seen:
                group, seen = len(self.groups), set()
                self.groups.append((trace, []))
                self.units.append(group)
                self.current[trace] = (group, seen)
            seen |= ids  # in place: a trace over many lines costs its spans once, not per line
            self.groups[group][1].append(len(self.held))
        self.held.append((raw, parts if len(parts) > 1 else None))

    def documents(self) -> Iterator[RawDocument]:
        for unit in self.units:
            if isinstance(unit, RawDocument):
                yield unit
            else:
                trace, indexes = self.groups[unit]
                yield _trace(trace, [self.held[i] for i in indexes])


def _trace(trace: str, records: list[_Held]) -> RawDocument:
    """The document of ``trace`` from the records that hold its spans (their parts when they
    hold other traces too)."""
    first = records[0][0]
    if len(records) == 1 and records[0][1] is None:
        return first
    parts = [loads(raw.data.removeprefix(_BOM)) if p is None else p[trace] for raw, p in records]
    lines = tuple(raw.line for raw, _ in records if raw.line is not None)
    data = dumps(otel.joined(parts)) + b"\n"
    return first._replace(data=data, lines=lines if len(lines) > 1 else None)


def duplicate_keys(data: bytes) -> list[Finding]:
    """Warnings for object keys that occur twice (needs a second, slower parse)."""

    found: list[Finding] = []

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                found.append(
                    input_finding(
                        "duplicate-key",
                        f"key {key!r} occurs more than once in one object; the last one wins",
                        level=Level.WARNING,
                    )
                )
            seen.add(key)
        return dict(pairs)

    try:
        json.loads(data.removeprefix(_BOM), object_pairs_hook=hook)
    except (ValueError, RecursionError):
        return []
    return found
