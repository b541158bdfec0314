"""``atif export-sft``: supervised fine-tuning examples from trajectories, as JSON Lines.

Reads like ``atif validate`` (files, directories, JSON Lines, stdin), one document at a time;
documents in another format are converted to ATIF first
(:func:`atif_spec.transforms.lenses.convert`). Each document is validated (schema and rules) and
skipped when it has errors. Examples (:mod:`atif_spec.transforms.sft`) are written as they are made,
so memory stays bounded by the largest document whatever the size of the input. The output file is
written atomically: an interrupted run leaves no partial file. A summary goes to stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import click

from atif_spec.cli import terminal
from atif_spec.cli.options import (
    NORMAL,
    QUIET,
    VERBOSE,
    filters,
    lines_option,
    max_bytes_option,
    max_bytes_out_option,
    note_skipped,
    output_level,
    quiet_option,
    selection_options,
    verbose_option,
)
from atif_spec.datasets.progress import Progress, Total, total_of
from atif_spec.jsonio import jsontext
from atif_spec.jsonio.atomic import AtomicFile, OutputError
from atif_spec.transforms.document import LARGE_OUTPUT
from atif_spec.validation.reader import DEFAULT_MAX_BYTES, STDIN, RawDocument


@dataclass(slots=True)
class Summary:
    """What an export did."""

    documents: int = 0
    examples: int = 0
    skipped: list[tuple[str, int | None, str]] = field(default_factory=list)
    """``(source, line, why)`` of every document that gave no examples because of an error."""
    bytes_out: int = 0
    large: list[tuple[str, int | None, int, int]] = field(default_factory=list)
    """``(source, line, steps, projected bytes)`` of documents whose examples are large."""
    capped: bool = False
    """The run stopped before an example that would have passed ``--max-bytes-out``."""

    def text(self, output: str) -> str:
        """The summary line, e.g. ``Exported 2 of 3 documents to out.jsonl: 40 examples
        (12.3 kB); 1 skipped.``"""
        exported = self.documents - len(self.skipped)
        plural = "" if self.documents == 1 else "s"
        return (
            f"Exported {exported:,} of {self.documents:,} document{plural} to "
            f"{terminal.name(output)}: {self.examples:,} example{'' if self.examples == 1 else 's'}"
            f" ({_size(self.bytes_out)}); {len(self.skipped):,} skipped."
        )


def _as_atif(doc: Any) -> tuple[Any, str | None]:
    """The document as ATIF (converted when needed), or an error message."""
    from atif_spec.formats import detect
    from atif_spec.transforms.lenses import ConversionError, convert

    found = detect(doc)
    if found is None or found[1] == "unknown":
        return None, "cannot tell the format of this document"
    if found[0] == "atif":
        return doc, None
    try:
        out, _ = convert(doc, "atif")
    except ConversionError as exc:
        return None, str(exc)
    return out, None


class Notes:
    """What ``export-sft`` prints on stderr besides the summary: problems (skipped documents,
    large outputs) always, a line per document with ``-v``; each line first erases the progress
    line, which counts every document."""

    def __init__(self, level: int = NORMAL, progress: Progress | None = None) -> None:
        self.level = level
        self.progress = progress or Progress(False, "exported")

    def problem(self, text: str) -> None:
        """Print a line about a document that needs attention."""
        self.progress.clear()
        click.echo(text, err=True)

    def document(self, text: str) -> None:
        """Print a line about a document exported as expected (``-v``)."""
        if self.level >= VERBOSE:
            self.problem(text)


def _where(raw: RawDocument) -> str:
    return terminal.name(raw.source) + (f":{raw.line}" if raw.line else "")


def _checked(raw: RawDocument, validate: bool, max_bytes: int) -> tuple[Any, str | None]:
    """The document as ATIF, or why it gives no examples (unreadable, unknown, invalid)."""
    from atif_spec.validation.findings import Level
    from atif_spec.validation.pipeline import Options, validate_document
    from atif_spec.validation.reader import parse

    doc, problems = parse(raw, max_bytes)
    errors = [p for p in problems if p.level is Level.ERROR]
    if errors:
        return None, errors[0].message
    doc, why = _as_atif(doc)
    if why is None and validate:
        report = validate_document(
            doc, source=raw.source, line=raw.line, path=raw.path, options=Options(check_files=False)
        )
        if report.errors:
            first = report.errors[0]
            why = f"{first.code} at {first.pointer or '/'}: {first.message}"
    return doc, why


def _warn_if_large(
    doc: Any, raw: RawDocument, summary: Summary, notes: Notes, max_context_steps: int | None
) -> None:
    """Name a document whose examples are projected to be large (they grow with the square of
    its steps)."""
    from atif_spec.transforms.sft import projected_bytes

    projected = projected_bytes(doc, max_context_steps=max_context_steps)
    if projected > max(LARGE_OUTPUT, 20 * len(raw.data)):
        steps = doc.get("steps")
        count = len(steps) if isinstance(steps, list) else 0
        summary.large.append((raw.source, raw.line, count, projected))
        notes.problem(
            f"{_where(raw)}: {count} steps give about {_size(projected)} of examples (each "
            "repeats the context before it; cap with --max-context-steps or --max-bytes-out)"
        )


def export(
    docs: Iterable[RawDocument],
    write: Any,
    *,
    validate: bool = True,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_context_steps: int | None = None,
    max_bytes_out: int | None = None,
    notes: Notes | None = None,
) -> Summary:
    """Write one JSON line per example of every document to ``write`` (a bytes callable),
    stopping before the first line that would take the output past ``max_bytes_out``."""
    from atif_spec.transforms.sft import examples

    notes = notes or Notes()
    summary = Summary()
    for raw in docs:
        summary.documents += 1
        doc, why = _checked(raw, validate, max_bytes)
        if why is not None:
            summary.skipped.append((raw.source, raw.line, why))
            notes.problem(f"{_where(raw)}: skipped: {terminal.clean(why)}")
            notes.progress.advance(size=len(raw.data) or raw.oversize or 0)
            continue
        _warn_if_large(doc, raw, summary, notes, max_context_steps)
        count, size = summary.examples, summary.bytes_out
        for example in examples(doc, max_context_steps=max_context_steps):
            meta = example["metadata"]
            example["metadata"] = {"source": raw.source, **({"line": raw.line} if raw.line else {})}
            example["metadata"].update(meta)
            line = jsontext.dumps(example) + b"\n"
            if max_bytes_out is not None and summary.bytes_out + len(line) > max_bytes_out:
                summary.capped = True
                return summary
            write(line)
            summary.bytes_out += len(line)
            summary.examples += 1
        made = summary.examples - count
        notes.document(
            f"{_where(raw)}: {made} example{'' if made == 1 else 's'} "
            f"({_size(summary.bytes_out - size)})"
        )
        notes.progress.advance(size=len(raw.data) or raw.oversize or 0)
    return summary


def _size(n: int) -> str:
    """A byte count for people (1.5 GB)."""
    value = float(n)
    for unit in ("bytes", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{n} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{n} bytes"  # pragma: no cover


@click.command("export-sft")
@click.argument("inputs", nargs=-1, required=True)
@click.option(
    "-o",
    "--output",
    required=True,
    metavar="OUT.jsonl",
    help="Where to write the examples (JSON Lines; '-' for stdout). Written atomically.",
)
@click.option(
    "--validate/--no-validate",
    default=True,
    show_default=True,
    help="Skip documents with validation errors (schema and rules).",
)
@click.option(
    "--max-context-steps",
    type=click.IntRange(min=0),
    metavar="N",
    help="Keep only the context of the N steps before each target (the output then grows "
    "linearly with the steps).",
)
@max_bytes_out_option(
    "Stop before the output would exceed BYTES (exit 1; the examples so far are written)"
)
@selection_options
@lines_option
@max_bytes_option
@quiet_option("Print only the documents skipped or named as large, and a stop at the cap.")
@verbose_option("Print a line per document: how many examples it gave.")
def export_sft(
    inputs: tuple[str, ...],
    output: str,
    lines: bool | None,
    validate: bool,
    max_bytes: int | None,
    max_context_steps: int | None,
    max_bytes_out: int,
    quiet: bool,
    verbose: bool,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
) -> None:
    """Export supervised fine-tuning examples from trajectories to OUT.jsonl.

    One example per trainable agent step (copied-context steps and deterministic dispatches
    are context only, empty agent steps are left out; a context-management `replace` boundary
    restarts the context, an `append` one adds to it), as chat messages with OpenAI-style tool
    calls, each followed by its tool message (every observation result reaches the context),
    and the trajectory's tool definitions. Schema:
    `atif schema show atif-spec@v1 --name sft-example`.

    The output grows with the SQUARE of the steps: each example repeats the whole context
    before it (a trajectory of 8 000 steps and 1.7 MB gives about 2 GB). A document whose
    examples are projected to be large is named on stderr with the projected size; the output
    stops at --max-bytes-out (1 GiB unless raised; 0 lifts it), and --max-context-steps keeps
    it linear.

    Exit status: 0 when every document was exported, 1 when any was skipped or
    --max-bytes-out stopped the run, 2 for unreadable paths, write errors and an output that
    is an input.
    """
    from atif_spec.jsonio.samefile import refuse_overlap
    from atif_spec.validation.listing import list_inputs
    from atif_spec.validation.reader import UnreadablePath, read_files

    level = output_level(quiet, verbose)
    try:
        found = list_inputs(inputs, filters(include, exclude))
        note_skipped(found.note())
        files = found.files
        refuse_overlap([output], files)
    except (UnreadablePath, OutputError) as exc:
        click.echo(f"atif: {terminal.clean(str(exc))}", err=True)
        sys.exit(2)
    max_bytes = max_bytes or DEFAULT_MAX_BYTES
    docs = read_files(files, max_bytes, lines)
    # Examples on the terminal are lines of their own: no progress line between them.
    show = sys.stderr.isatty() and not (output == STDIN and sys.stdout.isatty())
    progress = Progress(show, "exported", total_of(files, lines) if show else Total())
    settings: dict[str, Any] = {
        "notes": Notes(level, progress),
        "validate": validate,
        "max_bytes": max_bytes,
        "max_context_steps": max_context_steps,
        "max_bytes_out": max_bytes_out or None,
    }
    with progress:
        summary = _export_to(output, docs, settings)
    if summary.capped:
        click.echo(
            f"stopped at --max-bytes-out {max_bytes_out}: the next example would exceed it",
            err=True,
        )
    if level > QUIET:
        click.echo(summary.text(output), err=True)
    sys.exit(1 if summary.skipped or summary.capped else 0)


def _export_to(output: str, docs: Iterable[RawDocument], settings: dict[str, Any]) -> Summary:
    """Export to ``output`` (``-``: stdout; a file: atomically, exit 2 if it cannot be
    written)."""
    if output == STDIN:
        stream: IO[bytes] = sys.stdout.buffer
        summary = export(docs, stream.write, **settings)
        stream.flush()
        return summary
    try:
        target = AtomicFile(Path(output))
        try:
            summary = export(docs, target.write, **settings)
            target.commit()
        except BaseException:
            target.abort()
            raise
    except OutputError as exc:
        settings["notes"].progress.clear()
        click.echo(f"atif: {terminal.clean(str(exc))}", err=True)
        sys.exit(2)
    return summary
