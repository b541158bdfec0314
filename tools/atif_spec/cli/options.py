"""Command-line options shared by every command that reads documents (one definition each)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import click
from click.decorators import FC

from atif_spec.schemas.targets import Target, TargetError

if TYPE_CHECKING:
    from atif_spec.validation.listing import Filters

lines_option = click.option(
    "--lines/--no-lines",
    default=None,
    help="Read inputs as JSON Lines (default: by extension; stdin: detected).",
)
"""Read inputs as JSON Lines, or as one document each."""

max_bytes_option = click.option(
    "--max-bytes",
    type=click.IntRange(min=1),
    default=None,
    help="Largest document to load (default 512 MiB).",
)
"""The size limit of one document (``None``: ``atif_spec.validation.reader.DEFAULT_MAX_BYTES``)."""

DEFAULT_MAX_BYTES_OUT = 1024**3
"""The default of ``--max-bytes-out``: outputs that grow with the square of the steps (SFT
examples, trajectory-sdk snapshots) stop at 1 GiB unless the user raises or lifts the cap."""


def max_bytes_out_option(what: str) -> Callable[[FC], FC]:
    """``--max-bytes-out BYTES``: the cap on an output that grows with the square of the steps
    (``what`` says what the command does at the cap); 0 lifts it."""
    return click.option(
        "--max-bytes-out",
        type=click.IntRange(min=0),
        default=DEFAULT_MAX_BYTES_OUT,
        show_default="1 GiB",
        metavar="BYTES",
        help=f"{what} (0: no limit).",
    )


def jobs_option(help_text: str) -> Callable[[FC], FC]:
    """``-j/--jobs N``: how many processes do the work (the local engine)."""
    return click.option(
        "-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True, help=help_text
    )


def quiet_option(help_text: str) -> Callable[[FC], FC]:
    """``-q/--quiet``: print less (``help_text`` says what is left)."""
    return click.option("-q", "--quiet", is_flag=True, help=help_text)


def verbose_option(help_text: str) -> Callable[[FC], FC]:
    """``-v/--verbose``: print a line per document (``help_text`` says which)."""
    return click.option("-v", "--verbose", is_flag=True, help=help_text)


QUIET, NORMAL, VERBOSE = -1, 0, 1
"""Output levels: ``-q`` (only problems), the default (problems and a summary), ``-v`` (a line
per document too)."""


def output_level(quiet: bool, verbose: bool) -> int:
    """The output level of ``-q``/``-v`` (both at once: a usage error, exit 2)."""
    if quiet and verbose:
        raise click.UsageError("-q/--quiet and -v/--verbose are mutually exclusive")
    return QUIET if quiet else VERBOSE if verbose else NORMAL


def known_target(text: str, option: str = "--as") -> Target:
    """Parse ``FORMAT@VERSION`` and check that the format and version exist (a usage error,
    exit 2, otherwise: a bad option is the caller's mistake, not the document's)."""
    from atif_spec.formats import all_formats

    try:
        target = Target.parse(text)
    except TargetError as exc:
        raise click.BadParameter(str(exc), param_hint=option) from exc
    formats = all_formats()
    if target.format is not None and target.format not in formats:
        known = ", ".join(sorted(formats))
        raise click.BadParameter(
            f"unknown format {target.format!r} (known: {known})", param_hint=option
        )
    if target.version is None:
        return target
    if target.format is not None:
        versions = formats[target.format].versions
        if target.version not in versions:
            raise click.BadParameter(
                f"{target.format} has no version {target.version} (known: {', '.join(versions)})",
                param_hint=option,
            )
    elif not any(target.version in spec.versions for spec in formats.values()):
        raise click.BadParameter(f"no format has version {target.version}", param_hint=option)
    return target


def _patterns(
    ctx: click.Context, param: click.Parameter, value: tuple[str, ...]
) -> tuple[str, ...]:
    """Check the glob patterns of ``--include``/``--exclude`` (a bad one is a usage error)."""
    from atif_spec.validation.globs import PatternError, compile_all

    try:
        compile_all(value)
    except PatternError as exc:
        raise click.BadParameter(str(exc), ctx, param) from exc
    return value


def selection_options(command: FC) -> FC:
    """``--include PATTERN`` and ``--exclude PATTERN`` (repeatable): which files of a folder
    input are read (docs/INPUTS.md; files named on the command line are always read)."""
    command = click.option(
        "--exclude",
        multiple=True,
        metavar="PATTERN",
        callback=_patterns,
        help="Skip files of folder inputs that match this glob (relative to the folder; "
        "repeatable). A .atifignore file in a folder works the same way.",
    )(command)
    return click.option(
        "--include",
        multiple=True,
        metavar="PATTERN",
        callback=_patterns,
        help="Read only the files of folder inputs that match this glob (repeatable; replaces "
        "the Harbor job-folder rule).",
    )(command)


def filters(include: tuple[str, ...], exclude: tuple[str, ...]) -> Filters:
    """The :class:`~atif_spec.validation.listing.Filters` of the two options."""
    from atif_spec.validation.listing import Filters

    return Filters.parse(include, exclude)


def note_skipped(note: str | None) -> None:
    """Print what the folder walks skipped (:meth:`atif_spec.validation.listing.Listing.note`)
    on stderr, for commands whose summary is not a line of ``atif validate``."""
    if note:
        from atif_spec.cli import terminal

        click.echo(f"atif: note: {terminal.clean(note)}", err=True)
