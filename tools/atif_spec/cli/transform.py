"""``atif migrate`` and ``atif convert``: transform documents and write them safely.

Both read like ``atif validate`` (files, directories, JSON Lines, stdin), transform every
document (a migration between ATIF versions, or a conversion between formats through
:func:`atif_spec.transforms.lenses.convert`), validate the result against its target (schema and
rules) and write only documents that pass. A file is written all or nothing, atomically (temporary
file, fsync, ``os.replace``), so an interrupted run leaves every original intact.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click
import orjson

from atif_spec.cli import terminal
from atif_spec.cli.destinations import (
    Writer,
    destinations,
    json_lines_out,
    refuse_inputs,
)
from atif_spec.cli.options import (
    NORMAL,
    filters,
    jobs_option,
    known_target,
    lines_option,
    max_bytes_option,
    max_bytes_out_option,
    output_level,
    quiet_option,
    selection_options,
    verbose_option,
)
from atif_spec.cli.reports import ReportPrinter
from atif_spec.datasets.progress import Progress, Total, total_of
from atif_spec.jsonio.atomic import OutputError
from atif_spec.transforms.document import MigrateOptions
from atif_spec.validation.reader import STDIN, RawDocument, UnreadablePath

if TYPE_CHECKING:
    from atif_spec.datasets.engines import Task
    from atif_spec.datasets.summary import DatasetSummary
    from atif_spec.validation.listing import Filters


# --- the command ----------------------------------------------------------------------------------


def _listing(
    inputs: tuple[str, ...], selection: Filters | None = None
) -> tuple[list[str], dict[str, tuple[Path, bool]]]:
    """The files of the inputs (as :func:`atif_spec.validation.listing.list_inputs` lists them)
    and, for each, the input it came from and whether that is a directory; a file reached
    twice (by name and through its folder) once. Prints what the folder walks skipped."""
    from atif_spec.cli.options import note_skipped
    from atif_spec.validation.listing import list_inputs

    found = list_inputs(inputs, selection)
    note_skipped(found.note())
    files: list[str] = []
    roots: dict[str, tuple[Path, bool]] = {}
    seen: set[str] = set()
    for f in found.files:
        real = f if f == STDIN else os.path.realpath(f)
        if real in seen:
            continue
        seen.add(real)
        files.append(f)
        root = found.roots[f]
        roots[f] = (Path(root), root != STDIN and Path(root).is_dir())
    return files, roots


_SHARED_OPTIONS = [
    selection_options,
    lines_option,
    max_bytes_option,
    click.option(
        "-o",
        "--output",
        "output",
        type=click.Path(path_type=Path),
        help="Output file, or directory (several inputs, a directory input, or an existing one).",
    ),
    click.option("--in-place", is_flag=True, help="Rewrite each input file (atomically)."),
    jobs_option("Work in N processes."),
    click.option(
        "--report",
        "report_format",
        type=click.Choice(["text", "json"]),
        default="text",
        show_default=True,
        help="json: one JSON report line per document (stdout; stderr when documents go there).",
    ),
    quiet_option("Print only the documents that were not written (text report)."),
    verbose_option("Print a line per document: what it became and how its values were carried."),
    click.option("--drop", is_flag=True, help="Discard what the target cannot hold (no stash)."),
    click.option("--fail-on-loss", is_flag=True, help="Refuse documents the target cannot hold."),
    click.option(
        "--fail-on-decision", is_flag=True, help="Refuse documents that need a synthesized value."
    ),
    click.option(
        "--session-ref-path",
        "session_ref_path",
        metavar="TEMPLATE",
        help="v1.6 -> v1.7: the trajectory_path of a reference holding only session_id, with "
        "{session_id} replaced (e.g. '{session_id}.json'); without it such documents are refused.",
    ),
    click.option(
        "--drop-context-only-steps",
        "drop_context_only",
        is_flag=True,
        help="Below v1.5/v1.7: drop steps with is_copied_context: true / llm_call_count: 0 "
        "(step_id renumbered, reported, not invertible) instead of keeping the fact in extra.",
    ),
]


def _shared_options(command: Any) -> Any:
    """The options ``atif migrate`` and ``atif convert`` share (output, jobs, reports, loss,
    engines)."""
    from atif_spec.cli.dataset import engine_options

    for option in reversed(_SHARED_OPTIONS):
        command = option(command)
    return engine_options(command)


def _legacy_logs(files: list[str]) -> frozenset[str]:
    """The inputs that are one legacy turn log each (provider JSON Lines streams)."""
    from atif_spec.stepsubstep.api import is_legacy_log

    found = set()
    for name in files:
        if name == STDIN or not name.lower().endswith((".jsonl", ".ndjson")):
            continue
        events = []
        with open(name, "rb") as fh:
            for raw_line in fh:
                if raw_line.strip():
                    try:
                        events.append(orjson.loads(raw_line))
                    except orjson.JSONDecodeError:
                        break
                if len(events) >= 20:
                    break
        if events and is_legacy_log(events):
            found.add(name)
    return frozenset(found)


def _documents(
    files: list[str], lines: bool | None, options: MigrateOptions
) -> Iterator[RawDocument]:
    from atif_spec.validation.reader import by_trace, read_file

    for name in files:
        if name in options.whole_files:
            yield RawDocument(name, Path(name).read_bytes(), None, Path(name))
        else:  # an OTLP/JSON file's documents are its traces
            yield from by_trace(read_file(name, options.max_bytes, lines), options.max_bytes)


def _run_dataset(
    inputs: tuple[str, ...],
    task: Task,
    options: MigrateOptions,
    *,
    engine: str,
    jobs: int,
    lines: bool | None,
    column: str,
    summary_path: str | None,
    ray_address: str | None,
    output: Path | None,
    in_place: bool,
    report_format: str,
    done: str,
    level: int,
    selection: Filters | None,
) -> NoReturn:
    """Transform a dataset through its engine and exit with the engine's status."""
    from atif_spec.cli import dataset as engines_cli
    from atif_spec.cli.options import note_skipped
    from atif_spec.datasets.engines.sources import listing

    if options.session_ref_path is not None or options.drop_context_only:
        raise click.UsageError(
            "--session-ref-path and --drop-context-only-steps apply to files, not datasets"
        )
    try:
        found = listing(inputs, selection)
        note_skipped(found.note())
        status = engines_cli.transform(
            found.files,
            task,
            engine=engine,
            jobs=jobs,
            lines=lines,
            column=column,
            summary_path=summary_path,
            ray_address=ray_address,
            output=output,
            in_place=in_place,
            report_format=report_format,
            done=done,
            level=level,
        )
    except (UnreadablePath, OutputError) as exc:
        click.echo(f"atif: {terminal.clean(str(exc))}", err=True)
        sys.exit(2)
    sys.exit(status)


def _input_files(
    inputs: tuple[str, ...], output: Path | None, in_place: bool, selection: Filters | None
) -> tuple[list[str], dict[str, tuple[Path, bool]]]:
    """The files of the inputs and their roots (see :func:`_listing`); exits 2 if unreadable."""
    if in_place and output is not None:
        raise click.UsageError("--in-place and -o/--output are mutually exclusive")
    if in_place and STDIN in inputs:
        raise click.UsageError("--in-place cannot rewrite stdin")
    try:
        return _listing(inputs, selection)
    except UnreadablePath as exc:
        click.echo(f"atif: {terminal.clean(str(exc))}", err=True)
        sys.exit(2)


def _write_outcomes(
    docs: Iterator[RawDocument],
    options: MigrateOptions,
    jobs: int,
    writer: Writer,
    printer: ReportPrinter,
    progress: Progress,
    summary: DatasetSummary,
    summary_path: str | None,
) -> None:
    """Transform, write and report every document; exits 2 when an output cannot be written or
    an input read (every target file left as it was)."""
    from atif_spec.cli.dataset import write_summary
    from atif_spec.datasets.engines.local import outcomes

    try:
        with progress:
            for raw, outcome in outcomes(docs, options, jobs):
                where = writer.add(outcome)
                report = outcome.report
                report["output"] = where if report["ok"] else None
                printer.document(report)
                summary.add(report)
                progress.advance(size=len(raw.data) or raw.oversize or 0)
        writer.close()
        write_summary(summary, summary_path)
    except (OutputError, UnreadablePath) as exc:
        writer.abort()
        printer.stream.flush()
        click.echo(f"atif: {terminal.clean(str(exc))}", err=True)
        sys.exit(2)
    except BaseException:
        writer.abort()
        raise


def _run(
    inputs: tuple[str, ...],
    options: MigrateOptions,
    output: Path | None,
    in_place: bool,
    jobs: int,
    report_format: str,
    lines: bool | None,
    done: str,
    engine: str = "local",
    ray_address: str | None = None,
    summary_path: str | None = None,
    column: str = "trajectory",
    level: int = NORMAL,
    selection: Filters | None = None,
) -> None:
    """Read, transform, check, write and report; exits with the command's status."""
    from atif_spec.cli.dataset import is_dataset_run
    from atif_spec.datasets.engines import Task
    from atif_spec.validation.pipeline import Options

    task = Task(
        "convert" if options.convert else "migrate",
        Options(max_bytes=options.max_bytes),
        to=options.to,
        drop=options.drop,
        fail_on_loss=options.fail_on_loss,
        fail_on_decision=options.fail_on_decision,
    )
    # --summary is a side output: it never turns a run into a dataset run (Parquet output).
    if is_dataset_run(inputs, engine, None):
        _run_dataset(
            inputs,
            task,
            options,
            engine=engine,
            jobs=jobs,
            lines=lines,
            column=column,
            summary_path=summary_path,
            ray_address=ray_address,
            output=output,
            in_place=in_place,
            report_format=report_format,
            done=done,
            level=level,
            selection=selection,
        )
    files, roots = _input_files(inputs, output, in_place, selection)
    if options.convert:
        options = replace(options, whole_files=_legacy_logs(files))
    dest = destinations(files, roots, output, in_place)
    refuse_inputs(files, dest, summary_path)
    to_stdout = output is None and not in_place
    if json_lines_out(output if not dest.directory else None, to_stdout, files):
        options = replace(options, compact=True)
    # Documents on the terminal are lines of their own: no progress line between them.
    show = sys.stderr.isatty() and not (to_stdout and sys.stdout.isatty())
    progress = Progress(show, done, total_of(files, lines) if show else Total())
    report_stream = sys.stderr if to_stdout else sys.stdout
    printer = ReportPrinter(report_stream, report_format, level, before=progress.clear)
    summary = task.summary()
    docs = _documents(files, lines, options)
    _write_outcomes(docs, options, jobs, Writer(dest), printer, progress, summary, summary_path)
    printer.finish(done)
    sys.exit(1 if summary.failed else 0)


@click.command("migrate")
@click.argument("inputs", nargs=-1, required=True)
@click.option("--to", required=True, metavar="VERSION", help="e.g. v1.7, or tao@v0.9.0.")
@_shared_options
def migrate(
    inputs: tuple[str, ...],
    to: str,
    output: Path | None,
    in_place: bool,
    jobs: int,
    report_format: str,
    drop: bool,
    fail_on_loss: bool,
    fail_on_decision: bool,
    session_ref_path: str | None,
    drop_context_only: bool,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    lines: bool | None,
    max_bytes: int | None,
    engine: str,
    ray_address: str | None,
    summary_path: str | None,
    column: str,
    quiet: bool,
    verbose: bool,
) -> None:
    """Migrate ATIF documents (or TAO records) to another version, keeping what the target cannot
    hold in a stash.

    INPUT is a file, a directory (recursively: *.json, *.jsonl) or - for stdin. Without -o or
    --in-place, migrated documents go to stdout. Every result is validated against the target
    version before it is written; a file is written only when all its documents pass.

    Exit status: 0 when every document was migrated, 1 when any was refused or invalid,
    2 for usage errors, unreadable paths and an output that is an input (but --in-place).
    """
    from atif_spec.transforms.migrations import parse_version
    from atif_spec.transforms.tao_versions import tao_target
    from atif_spec.validation.reader import DEFAULT_MAX_BYTES

    try:
        target = tao_target(to) or parse_version(to)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    options = MigrateOptions(
        target,
        drop,
        fail_on_loss,
        fail_on_decision,
        max_bytes or DEFAULT_MAX_BYTES,
        session_ref_path=session_ref_path,
        drop_context_only=drop_context_only,
    )
    _run(
        inputs,
        options,
        output,
        in_place,
        jobs,
        report_format,
        lines,
        "migrated",
        engine,
        ray_address,
        summary_path,
        column,
        output_level(quiet, verbose),
        filters(include, exclude),
    )


@click.command("convert")
@click.argument("inputs", nargs=-1, required=True)
@click.option(
    "--to",
    "to",
    required=True,
    metavar="FORMAT@VERSION",
    help="Target, e.g. atif@v1.7, tao@v0.2.0, step-substep@v1.0, trajectory-sdk@v0.4, otel.",
)
@max_bytes_out_option(
    "Refuse a trajectory-sdk document projected larger than BYTES: each of its snapshots repeats "
    "every message before it, so it grows with the square of the steps"
)
@click.option(
    "--otel-convention",
    type=click.Choice(["gen_ai", "openinference"]),
    default="gen_ai",
    show_default=True,
    help="--to otel: span attributes as OpenTelemetry GenAI (gen_ai.*) or OpenInference.",
)
@_shared_options
def convert(
    inputs: tuple[str, ...],
    to: str,
    output: Path | None,
    in_place: bool,
    jobs: int,
    report_format: str,
    drop: bool,
    fail_on_loss: bool,
    fail_on_decision: bool,
    session_ref_path: str | None,
    drop_context_only: bool,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    lines: bool | None,
    max_bytes: int | None,
    engine: str,
    ray_address: str | None,
    summary_path: str | None,
    column: str,
    max_bytes_out: int,
    otel_convention: str,
    quiet: bool,
    verbose: bool,
) -> None:
    """Convert documents to another format (the source format is detected from each document).

    Conversions go through ATIF: TAO, step-substep run logs and trajectory-sdk files convert to
    and from ATIF, and ATIF versions are migrated on the way as needed. Legacy turn logs
    (Codex, Claude or Gemini JSON Lines streams) convert to step-substep@v1.0, one run log per
    file. What a target cannot hold is kept in a stash (RFC.md §4.5) unless --drop.

    Exit status: 0 when every document was converted, 1 when any was refused or invalid,
    2 for usage errors, unreadable paths and an output that is an input (but --in-place).
    """
    from atif_spec.validation.reader import DEFAULT_MAX_BYTES

    known_target(to, "--to")
    options = MigrateOptions(
        to,
        drop,
        fail_on_loss,
        fail_on_decision,
        max_bytes or DEFAULT_MAX_BYTES,
        convert=True,
        session_ref_path=session_ref_path,
        drop_context_only=drop_context_only,
        max_bytes_out=max_bytes_out or None,
        otel_convention=otel_convention,
    )
    _run(
        inputs,
        options,
        output,
        in_place,
        jobs,
        report_format,
        lines,
        "converted",
        engine,
        ray_address,
        summary_path,
        column,
        output_level(quiet, verbose),
        filters(include, exclude),
    )
