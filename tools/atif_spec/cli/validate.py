"""``atif validate``: check documents and print their findings."""

from __future__ import annotations

import sys

import click

from atif_spec.cli import terminal
from atif_spec.cli.dataset import engine_options
from atif_spec.cli.options import (
    filters,
    jobs_option,
    known_target,
    lines_option,
    max_bytes_option,
    note_skipped,
    quiet_option,
    selection_options,
)
from atif_spec.cli.report_formats import FORMATS


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--format",
    "output",
    type=click.Choice(list(FORMATS)),
    default="text",
    show_default=True,
    help="; ".join(f"{name}: {what}" for name, what in FORMATS.items()) + ".",
)
@click.option("--strict", is_flag=True, help="Warnings make the run fail too.")
@click.option(
    "--as",
    "as_target",
    metavar="FORMAT@VERSION",
    help="Validate as this format/version instead of detecting it.",
)
@jobs_option("Validate in N processes.")
@click.option(
    "--follow-refs",
    is_flag=True,
    help="Also validate trajectory_path subagent files and continuation files (each file once, "
    "within --max-bytes, up to 64 references deep: ATIF701-ATIF705).",
)
@click.option(
    "--no-check-files",
    is_flag=True,
    help="Skip every check of referenced files: that media files exist (ATIF401), that they "
    "stay inside the document's folder (ATIF402) and --follow-refs (ATIF701-ATIF705).",
)
@click.option(
    "--allow-outside",
    is_flag=True,
    help="Let referenced files resolve outside the document's folder.",
)
@click.option(
    "--check-duplicate-keys",
    is_flag=True,
    help="Warn about repeated object keys (a second, slower parse).",
)
@selection_options
@lines_option
@max_bytes_option
@quiet_option("Print nothing but the summary line (text format).")
@engine_options
def validate(
    paths: tuple[str, ...],
    output: str,
    strict: bool,
    as_target: str | None,
    jobs: int,
    follow_refs: bool,
    no_check_files: bool,
    allow_outside: bool,
    check_duplicate_keys: bool,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    lines: bool | None,
    max_bytes: int | None,
    quiet: bool,
    engine: str,
    ray_address: str | None,
    summary_path: str | None,
    column: str,
) -> None:
    """Validate trajectory files, directories (recursively: *.json, *.jsonl) or stdin (-).

    In a Harbor job or trial folder only the trajectories are read (agent/trajectory*.json,
    steps/*/agent/trajectory*.json); --include, --exclude and .atifignore files choose the files
    of other folders (docs/INPUTS.md). The summary counts the files skipped.

    Standard input has no folder, so the checks of referenced files (media, --follow-refs) do
    not apply to it; a note on stderr says so.

    Datasets: Parquet files (one trajectory per row, as JSON text in --column) and URIs
    (s3://, gs://, ...) too; --engine ray runs on a Ray cluster, --summary writes the
    dataset summary. Both engines report the same findings and exit with the same status.

    Exit status: 0 when every document is valid, 1 when any is invalid (or has warnings with
    --strict), 2 for usage errors, unreadable paths and a --summary that is a file the run
    reads.
    """
    from atif_spec.cli.dataset import is_dataset_run
    from atif_spec.cli.output import Counts
    from atif_spec.cli.report_formats import renderer as renderer_for
    from atif_spec.datasets.runner import run_validation
    from atif_spec.jsonio.atomic import OutputError
    from atif_spec.jsonio.samefile import file_ids
    from atif_spec.validation.listing import list_inputs
    from atif_spec.validation.pipeline import Options
    from atif_spec.validation.reader import DEFAULT_MAX_BYTES, UnreadablePath

    if as_target:
        known_target(as_target)
    options = Options(
        as_target=as_target,
        check_files=not no_check_files,
        allow_outside=allow_outside,
        follow_refs=follow_refs,
        check_duplicate_keys=check_duplicate_keys,
        max_bytes=max_bytes or DEFAULT_MAX_BYTES,
        outputs=file_ids([summary_path]),  # never read as a referenced file, never overwritten
    )
    renderer = renderer_for(output, quiet=quiet, strict=strict)
    if output in ("text", "github") and not quiet:  # JSON readers get reports only
        for note in _skipped_checks(paths, no_check_files, follow_refs):
            click.echo(f"atif: note: {note}", err=True)
    summary: Counts
    skipped = None
    try:
        if is_dataset_run(paths, engine, summary_path):
            from atif_spec.cli import dataset as engines_cli
            from atif_spec.datasets.engines.sources import listing

            found = listing(paths, filters(include, exclude))
            skipped = found.note()
            summary = engines_cli.validate(
                found.files,
                options,
                engine=engine,
                jobs=jobs,
                lines=lines,
                column=column,
                summary_path=summary_path,
                ray_address=ray_address,
                sink=renderer.document,
            )
        else:
            found = list_inputs(paths, filters(include, exclude))
            files, skipped = found.files, found.note()
            # JSON Lines on a terminal is a line per document: no spinner between them.
            quiet_bar = False if output == "json" and sys.stdout.isatty() else None
            summary = run_validation(
                files, options, jobs=jobs, lines=lines, sink=renderer.document, progress=quiet_bar
            )
    except (UnreadablePath, OutputError) as exc:
        click.echo(f"atif: {terminal.clean(str(exc))}", err=True)
        sys.exit(2)
    if output in ("json", "sarif"):  # no summary line: stdout holds reports only
        note_skipped(skipped)
    renderer.finish(summary, skipped)
    failed = summary.invalid or (strict and summary.with_warnings)
    sys.exit(1 if failed else 0)


def _skipped_checks(paths: tuple[str, ...], no_check_files: bool, follow_refs: bool) -> list[str]:
    """What this run does not check although a user might expect it (printed on stderr)."""
    from atif_spec.validation.reader import STDIN

    if no_check_files:
        return [
            "--no-check-files: referenced files are not checked at all: not that media exist "
            "(ATIF401), not that paths stay inside the document's folder (ATIF402), and "
            "references are not followed (ATIF701-ATIF705)"
        ]
    if STDIN in paths:
        return [
            "standard input has no folder: its media and referenced files are not checked "
            f"(ATIF401, ATIF402{', ATIF701-ATIF705' if follow_refs else ''} off); "
            "validate the file itself to check them"
        ]
    return []
