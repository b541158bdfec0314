"""``atif export-sft``: supervised fine-tuning examples from trajectories, as JSON Lines.

Reads like ``atif validate`` (files, directories, JSON Lines, stdin), one document at a time;
documents in another format are converted to ATIF first (:func:`atif_spec.lenses.convert`).
Each document is validated (schema and rules) and skipped when it has errors. Examples
(:mod:`atif_spec.sft`) are written as they are made, so memory stays bounded by the largest
document whatever the size of the input. The output file is written atomically: an interrupted
run leaves no partial file. A summary goes to stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import click
import orjson

from atif_spec.atomic import AtomicFile
from atif_spec.cli.options import lines_option, max_bytes_option
from atif_spec.reader import DEFAULT_MAX_BYTES, STDIN, RawDocument


@dataclass(slots=True)
class Summary:
    """What an export did."""

    documents: int = 0
    examples: int = 0
    skipped: list[tuple[str, int | None, str]] = field(default_factory=list)
    """``(source, line, why)`` of every document that gave no examples because of an error."""


def _as_atif(doc: Any) -> tuple[Any, str | None]:
    """The document as ATIF (converted when needed), or an error message."""
    from atif_spec.formats import detect
    from atif_spec.lenses import ConversionError, convert

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


def export(
    docs: Iterable[RawDocument],
    write: Any,
    *,
    validate: bool = True,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Summary:
    """Write one JSON line per example of every document to ``write`` (a bytes callable)."""
    from atif_spec.findings import Level
    from atif_spec.reader import parse
    from atif_spec.sft import examples
    from atif_spec.validation import Options, validate_document

    summary = Summary()
    for raw in docs:
        summary.documents += 1
        doc, problems = parse(raw, max_bytes)
        errors = [p for p in problems if p.level is Level.ERROR]
        if errors:
            summary.skipped.append((raw.source, raw.line, errors[0].message))
            continue
        doc, why = _as_atif(doc)
        if why is None and validate:
            report = validate_document(
                doc,
                source=raw.source,
                line=raw.line,
                path=raw.path,
                options=Options(check_files=False),
            )
            if report.errors:
                first = report.errors[0]
                why = f"{first.code} at {first.pointer or '/'}: {first.message}"
        if why is not None:
            summary.skipped.append((raw.source, raw.line, why))
            continue
        for example in examples(doc):
            meta = example["metadata"]
            example["metadata"] = {"source": raw.source, **({"line": raw.line} if raw.line else {})}
            example["metadata"].update(meta)
            write(_line(example))
            summary.examples += 1
    return summary


def _line(example: dict[str, Any]) -> bytes:
    try:
        return orjson.dumps(example) + b"\n"
    except TypeError:  # integers beyond 64 bits
        import json

        return json.dumps(example, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


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
@lines_option
@max_bytes_option
def export_sft(
    inputs: tuple[str, ...],
    output: str,
    lines: bool | None,
    validate: bool,
    max_bytes: int | None,
) -> None:
    """Export supervised fine-tuning examples from trajectories to OUT.jsonl.

    One example per trainable agent step (copied-context steps and deterministic dispatches
    are context only, empty agent steps are left out; a context-management `replace` boundary
    restarts the context, an `append` one adds to it), as chat messages with OpenAI-style tool
    calls, each followed by its tool message (every observation result reaches the context),
    and the trajectory's tool definitions. Schema:
    `atif schema show atif-spec@v1 --name sft-example`. Exit status: 0 when every document
    was exported, 1 when any was skipped, 2 for unreadable paths.
    """
    from atif_spec.reader import UnreadablePath, check_paths, read_files

    try:
        files = check_paths(inputs)
    except UnreadablePath as exc:
        click.echo(f"atif: {exc}", err=True)
        sys.exit(2)
    max_bytes = max_bytes or DEFAULT_MAX_BYTES
    docs = read_files(files, max_bytes, lines)
    if output == STDIN:
        stream: IO[bytes] = sys.stdout.buffer
        summary = export(docs, stream.write, validate=validate, max_bytes=max_bytes)
        stream.flush()
    else:
        target = AtomicFile(Path(output))
        try:
            summary = export(docs, target.write, validate=validate, max_bytes=max_bytes)
            target.commit()
        except BaseException:
            target.abort()
            raise
    for source, line, why in summary.skipped:
        where = f"{source}:{line}" if line else source
        click.echo(f"{where}: skipped: {why}", err=True)
    click.echo(
        f"{summary.documents} document(s), {summary.examples} example(s) written to {output}"
        f", {len(summary.skipped)} skipped",
        err=True,
    )
    sys.exit(1 if summary.skipped else 0)
