"""The engine switches of ``atif validate``, ``atif migrate`` and ``atif convert``.

``--engine local`` (the default) works on this machine in ``--jobs`` processes; ``--engine ray``
on a Ray cluster. A run is a *dataset run* (this module) with ``--engine ray`` or any Parquet or
URI input (for ``validate`` also ``--summary``); other runs keep the commands' own reading and
writing, and ``--summary`` is only a side output. Both engines
produce the same reports, the same summary (``--summary FILE``, the dataset-summary schema) and
the same exit status.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # imported when used: the command line loads this module at start-up
    from atif_spec.datasets.engines import Result, Task
    from atif_spec.datasets.summary import DatasetSummary

ENGINES = ("local", "ray")
DEFAULT_COLUMN = "trajectory"  # atif_spec.datasets.engines.sources.DEFAULT_COLUMN


def engine_available(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """``--engine ray`` without Ray installed is a usage error naming the extra (exit 2); the
    ``--engine`` callback of every command that has the option."""
    import importlib.util

    if value == "ray" and (
        importlib.util.find_spec("ray") is None or importlib.util.find_spec("pyarrow") is None
    ):
        raise click.BadParameter(
            "the Ray engine is not installed: it needs the 'ray' extra "
            "(docs/USAGE.md, Optional extras)",
            ctx,
            param,
        )
    return value


ray_address_option = click.option(
    "--ray-address", metavar="ADDRESS", help="Ray cluster to join (with --engine ray)."
)
"""``--ray-address ADDRESS``: the Ray cluster to join."""

column_option = click.option(
    "--column",
    default=DEFAULT_COLUMN,
    show_default=True,
    help="The Parquet column that holds each trajectory as JSON text (without it, a file with "
    "a 'steps' column is read a row per document, one column per field).",
)
"""``--column NAME``: the Parquet column that holds the trajectories."""

ENGINE_OPTIONS = [
    click.option(
        "--engine",
        type=click.Choice(ENGINES),
        default="local",
        show_default=True,
        callback=engine_available,
        help="local: this machine, in --jobs processes. ray: a Ray cluster (--ray-address or "
        "RAY_ADDRESS; without either, one started on this machine).",
    ),
    ray_address_option,
    click.option(
        "--summary",
        "summary_path",
        type=click.Path(dir_okay=False),
        help="Write the dataset summary (JSON: counts per version and code, failed documents).",
    ),
    column_option,
]


def engine_options(command: Any) -> Any:
    """Add ``--engine``, ``--ray-address``, ``--summary`` and ``--column`` to a command."""
    for option in reversed(ENGINE_OPTIONS):
        command = option(command)
    return command


def is_dataset_run(inputs: Iterable[str], engine: str, summary_path: str | None) -> bool:
    """True when a run goes through the engines (see the module docstring)."""
    from atif_spec.validation.reader import (  # not engines: validate -q needs none
        is_parquet,
        is_uri,
    )

    return (
        engine != "local"
        or summary_path is not None
        or any(is_parquet(i) or is_uri(i) or _has_parquet(i) for i in inputs)
    )


def _has_parquet(item: str) -> bool:
    path = Path(item)
    return path.is_dir() and any(f.is_file() for f in path.rglob("*.parquet"))


def run(
    task: Task,
    files: list[str],
    *,
    engine: str = "local",
    jobs: int = 1,
    lines: bool | None = None,
    column: str = DEFAULT_COLUMN,
    ray_address: str | None = None,
    output: str | None = None,
    sink: Callable[[Result], None] | None = None,
    written: Iterable[str | None] = (),
) -> DatasetSummary:
    """Run ``task`` over ``files`` (as :func:`atif_spec.datasets.engines.sources.listing` lists
    a run's inputs) on ``engine``; raises ``OutputError`` when a file of ``written`` (the side
    outputs: ``--summary``) is one of the files read.

    ``output`` (a directory or URI) receives the results as Parquet (ray: written by Ray; local:
    one file); ``sink`` sees every result in input order.
    """
    from atif_spec.jsonio.samefile import refuse_overlap

    refuse_overlap(written, files)
    note_rows(files, column)
    if engine == "ray":
        from atif_spec.datasets import ray as ray_engine

        return ray_engine.run(
            task,
            files,
            lines=lines,
            column=column,
            output=output,
            sink=sink,
            address=ray_address,
        )
    from atif_spec.datasets.engines import local

    if output is None:
        return local.run(task, files, jobs=jobs, lines=lines, column=column, sink=sink)
    from atif_spec.datasets.engines.results import ParquetResults

    with ParquetResults(output, task) as results:

        def both(result: Result) -> None:
            results.add(result)
            if sink is not None:
                sink(result)

        return local.run(task, files, jobs=jobs, lines=lines, column=column, sink=both)


def note_rows(files: list[str], column: str) -> None:
    """Say on standard error which Parquet files are read a row per document (their columns
    are the document's fields), before the run."""
    from atif_spec.cli import terminal
    from atif_spec.datasets.engines.sources import rows_note

    note = rows_note(files, column)
    if note is not None:
        click.echo(f"atif: note: {terminal.clean(note)}", err=True)


def write_summary(summary: DatasetSummary, path: str | None) -> None:
    """Write the summary's JSON form to ``path`` (``-``: standard error)."""
    if path is None:
        return
    if path == "-":
        sys.stderr.write(summary.to_json().decode())
        return
    from atif_spec.cli import terminal
    from atif_spec.jsonio.atomic import OutputError, write_atomic

    try:
        write_atomic(path, summary.to_json())
    except OutputError as exc:
        click.echo(f"atif: {terminal.clean(str(exc))}", err=True)
        sys.exit(2)


def validate(
    files: list[str],
    options: Any,
    *,
    engine: str,
    jobs: int,
    lines: bool | None,
    column: str,
    summary_path: str | None,
    ray_address: str | None,
    sink: Callable[[dict[str, Any]], None],
) -> DatasetSummary:
    """``atif validate`` as a dataset run over the listed ``files``: every report to ``sink``
    in input order; returns the summary (its renderer and exit status read ``invalid``,
    ``errors``, ``warnings``, ...)."""
    from atif_spec.datasets.engines import Task

    summary = run(
        Task("validate", options),
        files,
        engine=engine,
        jobs=jobs,
        lines=lines,
        column=column,
        ray_address=ray_address,
        sink=lambda result: sink(result.report),
        written=[summary_path],
    )
    write_summary(summary, summary_path)
    return summary


def transform(
    files: list[str],
    task: Task,
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
) -> int:
    """``atif migrate``/``atif convert`` as a dataset run over the listed ``files``; returns the
    exit status.

    With ``-o DIR`` the results (source, line, passed, report, document) are written there as
    Parquet; without, each transformed document goes to stdout as one JSON line and the reports
    to stderr.
    """
    from atif_spec.cli.reports import ReportPrinter

    if in_place:
        raise click.UsageError("--in-place is not available for dataset runs; use -o DIRECTORY")
    if output is not None and output.exists() and (not output.is_dir() or any(output.iterdir())):
        raise click.UsageError(f"-o {output}: a dataset run writes into a new or empty directory")
    to_stdout = output is None
    stream = sys.stderr if to_stdout else sys.stdout
    where = "<stdout>" if to_stdout else str(output)
    printer = ReportPrinter(stream, report_format, level)

    def each(result: Result) -> None:
        report = result.report
        report["output"] = where if result.passed else None
        if to_stdout and result.document is not None:
            sys.stdout.buffer.write(result.document.replace(b"\n", b"") + b"\n")
        printer.document(report)

    summary = run(
        task,
        files,
        engine=engine,
        jobs=jobs,
        lines=lines,
        column=column,
        ray_address=ray_address,
        output=None if output is None else str(output),
        sink=each,
        written=[summary_path],
    )
    printer.finish(done)
    sys.stdout.flush()
    write_summary(summary, summary_path)
    return 1 if summary.failed else 0
