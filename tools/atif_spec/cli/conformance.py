"""``atif conformance``: run the suite against an implementation, lint it, compare reports."""

from __future__ import annotations

import shlex
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import click

from atif_spec.cli import terminal


def _suite_option(f: click.decorators.FC) -> click.decorators.FC:
    return click.option(
        "--suite",
        "suite_dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        callback=_check_suite,
        help="The folder holding <format>/<version>/manifest.json [default: ./conformance in "
        "an atif-spec checkout, else the suite installed with the package].",
    )(f)


def _check_suite(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path:
    """The suite named, or the default one; a folder that holds no manifest is a usage error."""
    from atif_spec.conformance.suite import default_suite, manifests

    if value is None:
        found = default_suite()
        if found is None:  # an installation without its package data
            raise click.BadParameter("no conformance suite is installed: give --suite", ctx, param)
        return found
    if manifests(value):
        return value
    raise click.BadParameter(f"{value} holds no <format>/<version>/manifest.json", ctx, param)


def _git_commit(root: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


@click.group()
def conformance() -> None:
    """The conformance suite: run it against an implementation, lint the fixtures."""


@conformance.command("run")
@click.option(
    "--impl",
    "impl",
    required=True,
    metavar="CMD",
    help="Command that starts the implementation's adapter (split like a shell would).",
)
@_suite_option
@click.option(
    "--only", multiple=True, metavar="PATTERN", help="Run only case ids matching (repeatable)."
)
@click.option(
    "--skip-file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Case-id patterns not to run, one per line, '# reason' after each.",
)
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the JSON Lines report here.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=30.0,
    show_default=True,
    help="Seconds to wait for the answer to one case.",
)
@click.option(
    "--start-timeout",
    type=click.FloatRange(min=0.1),
    default=60.0,
    show_default=True,
    help="Seconds to wait for the implementation to start.",
)
@click.option("-v", "--verbose", is_flag=True, help="Also list skipped cases.")
@click.option("-q", "--quiet", is_flag=True, help="Print only the summary tables.")
def run_command(
    impl: str,
    suite_dir: Path,
    only: tuple[str, ...],
    skip_file: Path | None,
    report_path: Path | None,
    timeout: float,
    start_timeout: float,
    verbose: bool,
    quiet: bool,
) -> None:
    """Run every case of the suite against the implementation started by --impl.

    Exit status: 0 when no case failed or errored, 1 otherwise, 2 for usage errors and a
    --report that cannot be written or is a file of the suite the run reads.
    """
    from atif_spec.conformance.report import (
        SuiteInfo,
        dumps_lines,
        failed,
        header,
        render_text,
        report_lines,
    )
    from atif_spec.conformance.runner import RunOptions, run_suite
    from atif_spec.conformance.suite import SkipList, SuiteError, load_suite, manifests, select
    from atif_spec.jsonio.atomic import OutputError, write_atomic
    from atif_spec.jsonio.samefile import refuse_overlap

    command = shlex.split(impl)
    if not command:
        raise click.UsageError("--impl is empty")
    try:
        cases = select(load_suite(suite_dir), only)
    except SuiteError as exc:
        raise click.UsageError(str(exc)) from exc
    if not cases:
        raise click.UsageError(f"no case id matches {', '.join(only)}")
    read = [*manifests(suite_dir), *(case.document for case in cases), skip_file]
    try:
        refuse_overlap([report_path], [path for path in read if path is not None])
    except OutputError as exc:
        click.echo(f"atif: {terminal.clean(str(exc))}", err=True)
        sys.exit(2)
    skip = SkipList.parse(skip_file.read_text(encoding="utf-8")) if skip_file else SkipList()
    started = datetime.now(UTC).isoformat(timespec="seconds")
    run = run_suite(
        cases, command, RunOptions(timeout=timeout, start_timeout=start_timeout, skip=skip)
    )
    suite = SuiteInfo(root=str(suite_dir.resolve()), commit=_git_commit(suite_dir))
    head = header(run, suite, started, only, str(skip_file) if skip_file else None)
    lines = report_lines(run, head)
    if report_path is not None:
        try:
            write_atomic(report_path, dumps_lines(lines).encode())
        except OutputError as exc:
            click.echo(f"atif: {terminal.clean(str(exc))}", err=True)
            sys.exit(2)
    click.echo(terminal.clean_lines(render_text(lines, verbose=verbose, quiet=quiet)))
    sys.exit(1 if failed(run.results) else 0)


@conformance.command("export")
@click.argument("out", type=click.Path(path_type=Path))
@_suite_option
def export_command(out: Path, suite_dir: Path) -> None:
    """Write the suite (manifests, cases, migration pairs, training examples, PROTOCOL.md) to
    OUT: a new folder, or an archive when OUT ends in .tar.gz. For implementations in any
    language; the runner protocol is in PROTOCOL.md."""
    from atif_spec.conformance.suite import export
    from atif_spec.jsonio.atomic import OutputError

    if out.exists() and not (out.is_dir() and not any(out.iterdir())):
        raise click.UsageError(f"{out} exists: give a new folder or archive name")
    try:
        count = export(suite_dir, out)
    except OSError as exc:
        reason = str(exc) if isinstance(exc, OutputError) else exc.strerror
        click.echo(f"atif: cannot write {terminal.clean(str(out))}: {reason}", err=True)
        sys.exit(2)
    click.echo(f"atif: wrote {count} files of the conformance suite to {terminal.clean(str(out))}")


@conformance.command("lint")
@_suite_option
@click.option(
    "--format",
    "formats",
    multiple=True,
    metavar="NAME",
    help="Only the manifests of this format (repeatable; default: all).",
)
@click.option(
    "--no-validator", is_flag=True, help="Skip the checks that run our validator over the cases."
)
def lint_command(suite_dir: Path, formats: tuple[str, ...], no_validator: bool) -> None:
    """Check the fixtures: manifests, ids, descriptions, files, and our validator's findings.

    Exit status: 0 when every invariant holds, 1 otherwise.
    """
    from atif_spec.conformance.lint import lint

    problems = lint(suite_dir, formats=formats, validator=not no_validator)
    for p in problems:
        click.echo(terminal.clean(str(p)))
    click.echo(f"{len(problems)} problem(s)" if problems else "fixtures OK")
    sys.exit(1 if problems else 0)


@conformance.command("compare")
@click.argument(
    "reports", nargs=-1, required=True, type=click.Path(dir_okay=False, exists=True, path_type=Path)
)
def compare_command(reports: tuple[Path, ...]) -> None:
    """Print the per-version pass rates of several JSON Lines reports side by side."""
    from atif_spec.conformance.report import compare, parse_report

    parsed = [parse_report(p.read_text(encoding="utf-8")) for p in reports]
    click.echo(terminal.clean_lines(compare(parsed)))
