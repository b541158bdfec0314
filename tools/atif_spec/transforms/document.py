"""Transforming one raw document: parse, migrate or convert, check the result, serialize.

The pure core of ``atif migrate`` and ``atif convert``, shared by the command line, the local and
Ray engines and worker processes: :func:`migrate_raw` takes a
:class:`~atif_spec.validation.reader.RawDocument` and returns an :class:`Outcome` (its change report
and, when it passed, the bytes to write).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from atif_spec.jsonio import jsontext
from atif_spec.schemas.targets import Target
from atif_spec.validation.findings import Finding, Level, input_finding
from atif_spec.validation.pipeline import Options, validate_document
from atif_spec.validation.reader import RawDocument, parse, parse_stream

if TYPE_CHECKING:
    from atif_spec.transforms.changes import ChangeReport

LARGE_OUTPUT = 64 * 1024 * 1024
"""An output that grows with the square of the steps is named with its size above this (and above
20 times its input's size); ``atif export-sft`` uses the same threshold."""


@dataclass(frozen=True, slots=True)
class MigrateOptions:
    """The switches of ``atif migrate``/``atif convert`` as plain data (picklable for workers)."""

    to: str
    drop: bool = False
    fail_on_loss: bool = False
    fail_on_decision: bool = False
    max_bytes: int = 512 * 1024 * 1024
    convert: bool = False
    """Convert between formats (``to`` is ``FORMAT@VERSION``) instead of migrating ATIF."""
    whole_files: frozenset[str] = frozenset()
    """Sources whose whole content is one legacy turn log (converted to a step-substep run log)."""
    session_ref_path: str | None = None
    """The v1.6 -> v1.7 policy for session-only references (``--session-ref-path``)."""
    drop_context_only: bool = False
    """``--drop-context-only-steps``."""
    max_bytes_out: int | None = None
    """Refuse a trajectory-sdk document whose JSON would be larger (``--max-bytes-out``; None: no
    limit). Its snapshots repeat every message before them: the size grows with the square of
    the steps, and it is known exactly before anything is serialized."""
    otel_convention: str = "gen_ai"
    """``--otel-convention``: the attribute convention of OTLP spans written."""
    compact: bool = False
    """Write every document as one compact line (the output is JSON Lines). Otherwise a document
    read as a whole file is written indented, and one read from a line of JSON Lines compact."""

    @property
    def target(self) -> str:
        """``to`` as ``FORMAT@VERSION`` (a bare version of ``migrate`` is ATIF's)."""
        return self.to if self.convert or "@" in self.to else f"atif@{self.to}"

    def pretty(self, raw: RawDocument) -> bool:
        """Whether ``raw``'s result is written indented (a lone document, not JSON Lines)."""
        otel = self.convert and self.to.partition("@")[0] == "otel"  # OTLP/JSON is JSON Lines
        return not self.compact and raw.line is None and not otel


@dataclass(slots=True)
class Outcome:
    """One document's report (JSON form) and, when it may be written, its bytes."""

    source: str
    line: int | None
    report: dict[str, Any]
    data: bytes | None
    streamed: Any = None
    """A trajectory-sdk document, written in pieces instead of ``data``: its snapshots repeat
    the conversation, so the text grows quadratically while the document (sharing its message
    objects, also across processes: pickle keeps shared references) stays linear."""

    @property
    def writable(self) -> bool:
        """True when the document passed and has something to write."""
        return self.data is not None or self.streamed is not None

    def chunks(self) -> Iterator[bytes]:
        """The bytes to write, in pieces."""
        if self.streamed is not None:
            from atif_spec.transforms.lenses.trajectory_sdk import json_chunks  # noqa: PLC0415 - start-up: `atif --help` imports this module

            yield from json_chunks(self.streamed)
        elif self.data is not None:
            yield self.data


def migrate_raw(raw: RawDocument, options: MigrateOptions) -> Outcome:
    """Parse, transform, check and serialize one document (worker entry point).

    A document nested too deeply for the transformations (Python's recursion limit) is refused
    with an ``input:too-deep`` finding, never a ``RecursionError``: by ``migrate`` and ``convert``
    themselves (:func:`atif_spec.transforms.driver.too_deep`), and here for what comes after them
    (a trajectory-sdk document's size, the check of the result, its text). The report of a document
    gathered from several JSON Lines records (an OTLP trace) names them all in a first warning,
    ``convert:otel-trace-lines``; its ``line`` is the first of them."""
    try:
        outcome = _migrate_raw(raw, options)
    except RecursionError:
        from atif_spec.transforms.changes import ChangeReport  # noqa: PLC0415 - start-up: `atif --help` imports this module
        from atif_spec.transforms.driver import too_deep  # noqa: PLC0415 - start-up: `atif --help` imports this module

        report = ChangeReport(source=raw.source, line=raw.line, to=options.target)
        report.errors.append(too_deep())
        outcome = Outcome(raw.source, raw.line, report.to_dict(), None)
    if raw.lines is not None:
        outcome.report["warnings"].insert(0, trace_lines(raw.lines).to_dict())
    return outcome


def trace_lines(lines: tuple[int, ...]) -> Finding:
    """The warning that names the lines a trace was gathered from (RFC.md §7.1 item 2)."""
    message = (
        f"the spans of this trace come from lines {', '.join(map(str, lines))} of the file "
        "(an exporter writes a line per batch); pointers are into the trace gathered from them"
    )
    return Finding("convert:otel-trace-lines", "otel-trace-lines", Level.WARNING, "", message)


def _migrate_raw(raw: RawDocument, options: MigrateOptions) -> Outcome:
    from atif_spec.transforms.changes import ChangeReport  # noqa: PLC0415 - start-up: `atif --help` imports this module
    from atif_spec.transforms.lenses import ConversionError, convert  # noqa: PLC0415 - start-up: `atif --help` imports this module
    from atif_spec.transforms.migrations import MigrationError, migrate  # noqa: PLC0415 - start-up: `atif --help` imports this module

    if raw.source in options.whole_files:
        return _legacy_outcome(raw, options)
    doc, problems = (parse if raw.stream is None else parse_stream)(raw, options.max_bytes)
    if any(p.level is Level.ERROR for p in problems):
        report = ChangeReport(source=raw.source, line=raw.line, to=options.target)
        report.errors.extend(problems)
        return Outcome(raw.source, raw.line, report.to_dict(), None)
    shared: dict[str, Any] = {
        "drop": options.drop,
        "fail_on_loss": options.fail_on_loss,
        "fail_on_decision": options.fail_on_decision,
        "source": raw.source,
        "line": raw.line,
        "session_ref_path": options.session_ref_path,
        "drop_context_only": options.drop_context_only,
    }
    try:
        if options.convert:
            out, report = convert(
                doc, options.to, **shared, otel_convention=options.otel_convention
            )
        else:
            out, report = migrate(doc, options.to, **shared)
    except (MigrationError, ConversionError) as exc:
        return Outcome(raw.source, raw.line, exc.report.to_dict(), None)
    streamed = options.convert and (report.to or "").startswith("trajectory-sdk@")
    if streamed and _over_size(out, len(raw.data), options.max_bytes_out, report):
        return Outcome(raw.source, raw.line, report.to_dict(), None)
    check = validate_document(
        out, source=raw.source, line=raw.line, options=Options(check_files=False)
    )
    report.errors.extend(check.errors)
    report.warnings.extend(check.warnings)
    if not report.ok:
        return Outcome(raw.source, raw.line, report.to_dict(), None)
    if streamed:
        return Outcome(raw.source, raw.line, report.to_dict(), None, streamed=out)
    return Outcome(
        raw.source, raw.line, report.to_dict(), jsontext.dumps(out, indent=options.pretty(raw))
    )


def _over_size(out: Any, size_in: int, limit: int | None, report: ChangeReport) -> bool:
    """Whether the trajectory-sdk document ``out`` is over ``limit`` bytes (then refused with
    ``convert:output-too-large``); a large one under the limit is named with its size
    (``convert:large-output``, a warning), before it is checked or written."""
    from atif_spec.transforms.lenses.trajectory_sdk import json_chunks  # noqa: PLC0415 - start-up: `atif --help` imports this module

    size = sum(map(len, json_chunks(out)))  # each shared message is encoded once
    why = (
        "each snapshot repeats every message before it: the size grows with the square of the steps"
    )
    if limit is not None and size > limit:
        message = (
            f"the trajectory-sdk document would be {size} bytes, over --max-bytes-out {limit} "
            f"({why}); raise the limit (0: none)"
        )
        report.errors.append(
            Finding("convert:output-too-large", "output-too-large", Level.ERROR, "", message)
        )
        return True
    if size > max(LARGE_OUTPUT, 20 * size_in):
        message = f"the trajectory-sdk document is {size} bytes ({why})"
        report.warnings.append(
            Finding("convert:large-output", "large-output", Level.WARNING, "", message)
        )
    return False


def _legacy_outcome(raw: RawDocument, options: MigrateOptions) -> Outcome:
    """A whole legacy turn log (provider JSON Lines stream) → a step-substep run log, then on
    to the requested target through :func:`atif_spec.transforms.lenses.convert` when it is
    another one."""
    from atif_spec.stepsubstep.api import RUN_LOG, dumps, stashed  # noqa: PLC0415 - start-up: `atif --help` imports this module
    from atif_spec.stepsubstep.legacy import read_stream  # noqa: PLC0415 - start-up: `atif --help` imports this module
    from atif_spec.transforms.changes import ChangeReport, Item  # noqa: PLC0415 - start-up: `atif --help` imports this module
    from atif_spec.transforms.lenses import ConversionError, convert  # noqa: PLC0415 - start-up: `atif --help` imports this module

    report = ChangeReport(source=raw.source, line=None, from_="legacy-turn-log", to=options.to)
    try:
        doc, notes = read_stream(raw.data)
    except ValueError as exc:
        report.errors.append(input_finding("invalid-json", str(exc)))
        return Outcome(raw.source, None, report.to_dict(), None)
    report.warnings.extend(notes)
    step = f"legacy-turn-log->{RUN_LOG}"
    report.stashed.extend(Item(ptr, step, f"kept in {what}", ptr) for ptr, what in stashed(doc))
    target = Target.parse(options.to)
    if target.format != "step-substep":
        try:
            doc, onward = convert(
                doc,
                options.to,
                drop=options.drop,
                fail_on_loss=options.fail_on_loss,
                fail_on_decision=options.fail_on_decision,
                source=raw.source,
            )
        except ConversionError as exc:
            report.errors.extend(exc.report.errors)
            return Outcome(raw.source, None, report.to_dict(), None)
        report.to = onward.to
        report.absorb(onward)
    report.tally(doc)
    check = validate_document(doc, source=raw.source)
    report.errors.extend(check.errors)
    report.warnings.extend(check.warnings)
    if not report.ok:
        return Outcome(raw.source, None, report.to_dict(), None)
    if not options.pretty(raw):
        data = jsontext.dumps(doc)
    elif target.format == "step-substep":
        data = dumps(doc).rstrip("\n").encode()
    else:
        data = jsontext.dumps(doc, indent=True)
    return Outcome(raw.source, None, report.to_dict(), data)
