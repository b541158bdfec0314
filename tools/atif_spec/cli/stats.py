"""``atif stats``: counts, totals and distributions over a dataset of trajectories."""

from __future__ import annotations

import sys

import click

from atif_spec.cli import terminal
from atif_spec.cli.dataset import (
    ENGINES,
    column_option,
    engine_available,
    note_rows,
    ray_address_option,
)
from atif_spec.cli.options import (
    filters,
    jobs_option,
    lines_option,
    max_bytes_option,
    note_skipped,
    selection_options,
)


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--by",
    type=click.Choice(["model", "agent", "version", "format"]),
    help="Also give the numbers per model, agent name, source FORMAT@VERSION or format.",
)
@click.option(
    "--format",
    "output",
    type=click.Choice(["text", "json", "csv"]),
    default="text",
    show_default=True,
    help="text: a table; json: the dataset-stats schema; csv: one row per group.",
)
@click.option(
    "--histogram",
    "histograms",
    multiple=True,
    type=click.Choice(["steps", "tokens", "cost", "duration"]),
    help="After the table, a histogram over every document of this per-document value "
    "(repeatable; text output only).",
)
@jobs_option("Read documents in N processes (local engine).")
@click.option(
    "--engine",
    type=click.Choice(ENGINES),
    default="local",
    show_default=True,
    callback=engine_available,
    help="local: this machine; ray: a Ray cluster (same numbers).",
)
@ray_address_option
@column_option
@selection_options
@lines_option
@max_bytes_option
def stats(
    paths: tuple[str, ...],
    by: str | None,
    output: str,
    histograms: tuple[str, ...],
    jobs: int,
    engine: str,
    ray_address: str | None,
    column: str,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    lines: bool | None,
    max_bytes: int | None,
) -> None:
    """Statistics of trajectory files, directories, JSON Lines and Parquet datasets.

    Documents (valid/invalid), steps, agent steps, tool calls by function name, tokens
    (prompt, completion, cached), cost, duration (first to last step timestamp), copied-context
    and zero-call steps, findings by code, and exact p50/p90/max of steps and tokens
    (prompt + completion) per document. Totals follow RFC.md §2.4 (copied-context and
    llm_call_count 0 steps do not count; embedded subagents do). Other formats are counted
    through ATIF (converted to atif@v1.7); a provider stream or native session (a Claude Code
    session .jsonl) is converted in memory as atif convert does, and counted. Both engines
    give the same output. --histogram steps|tokens|cost|duration adds a histogram of that
    per-document value to the text output. In a Harbor job folder only the trajectories count
    (--include, --exclude, .atifignore: docs/INPUTS.md).

    Exit status: 0, or 2 for usage errors and unreadable paths.
    """
    from atif_spec.datasets import stats as core
    from atif_spec.datasets import statstext
    from atif_spec.datasets.engines.sources import listing
    from atif_spec.datasets.progress import Progress, Total, total_of
    from atif_spec.jsonio import jsontext
    from atif_spec.validation.reader import DEFAULT_MAX_BYTES, STDIN, UnreadablePath

    if histograms and output != "text":
        raise click.UsageError("--histogram draws on the text output: leave out --format")
    group: core.GroupBy | None = by  # type: ignore[assignment]
    limit = max_bytes or DEFAULT_MAX_BYTES
    try:
        found = listing(paths, filters(include, exclude))
        note_skipped(found.note())
        files = found.files
        note_rows(files, column)
        if engine == "ray":
            if STDIN in files:
                raise UnreadablePath("standard input (-) is read by the local engine only")
            result = core.run_ray(
                files, group, lines=lines, column=column, address=ray_address, max_bytes=limit
            )
        else:
            show = sys.stderr.isatty()
            with Progress(show, "counted", total_of(files, lines) if show else Total()) as bar:
                result = core.run_local(
                    files,
                    group,
                    jobs=jobs,
                    lines=lines,
                    column=column,
                    max_bytes=limit,
                    progress=bar,
                )
    except UnreadablePath as exc:
        click.echo(f"atif: {terminal.clean(str(exc))}", err=True)
        sys.exit(2)
    data = result.to_dict()
    if output == "json":
        sys.stdout.buffer.write(jsontext.dumps(data, indent=True) + b"\n")
    elif output == "csv":
        sys.stdout.write(statstext.to_csv(data))
    else:
        sys.stdout.write(statstext.to_text(data))
        sys.stdout.write(statstext.histograms_text(result.total, dict.fromkeys(histograms)))
