"""``atif render``: the timeline of a run log, a legacy turn log or an ATIF trajectory, or of
each trajectory of a JSON Lines file; an input that is none of these is one line and exit 2."""

from __future__ import annotations

import sys
from typing import Any

import click

from atif_spec.cli import terminal


def _load_input(path: str) -> Any:
    """A parsed input: one JSON document, or the list of events of a JSON Lines log."""
    from atif_spec.jsonio.jsontext import loads
    from atif_spec.validation.reader import is_jsonl

    try:
        data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()  # noqa: SIM115
    except OSError as exc:
        click.echo(f"atif: cannot read {terminal.name(path)}: {exc.strerror or exc}", err=True)
        sys.exit(2)
    if path != "-" and is_jsonl(path):
        from atif_spec.stepsubstep.api import parse_jsonl

        try:
            return parse_jsonl(data)
        except ValueError as exc:
            click.echo(f"atif: {terminal.name(path)}: {terminal.clean(str(exc))}", err=True)
            sys.exit(2)
    try:
        return loads(data)
    except ValueError:
        from atif_spec.stepsubstep.api import parse_jsonl

        try:
            return parse_jsonl(data)
        except ValueError as exc:
            why = terminal.clean(str(exc))
            click.echo(f"atif: {terminal.name(path)}: not JSON or JSON Lines ({why})", err=True)
            sys.exit(2)


def _as_atif(value: Any, path: str) -> Any:
    """``value`` with each document of another format we read (TAO, trajectory-sdk, an ATOF
    stream) converted to ATIF in memory, as ``view`` and ``stats`` read them (said on stderr)."""
    from atif_spec.datasets.stats import HUB, as_atif
    from atif_spec.formats import detect

    def one(doc: Any) -> Any:
        found = detect(doc)
        if found is None or found[0] in ("atif", "step-substep"):
            return doc
        atif = as_atif(doc, *found)
        if atif is None:
            return doc  # refused: the renderer says it cannot show it
        note = f"{found[0]}@{found[1]} shown as {HUB}, converted in memory (atif convert)"
        click.echo(f"atif: {terminal.name(path)}: {note}", err=True)
        return atif

    if isinstance(value, list) and detect(value) is None:
        return [one(doc) for doc in value]
    return one(value)


@click.command()
@click.argument("input_path", metavar="INPUT")
@click.option(
    "-v", "--verbose", is_flag=True, help="Show every substep (S<n>.<m>), not only steps."
)
def render(input_path: str, verbose: bool) -> None:
    """Print the timeline of a run log, a legacy turn log, or an ATIF trajectory.

    A TAO record, a trajectory-sdk file or an ATOF stream is shown as the ATIF it converts to
    (in memory, as atif convert makes it; a line on stderr says so).

    Compact by default: exactly one line per step (anchored S<n>, cut with an ellipsis to the
    terminal's width, or 100 columns when not a terminal; copied-context steps marked
    "(copied)"). --verbose adds every substep and the run-level events. Embedded subagents
    (ATIF v1.7+) are shown indented under the step that references them. A JSON Lines file of
    trajectories or run logs shows each in turn under a "[Document <n>]" line. Control
    characters from the document are escaped. Colour on a terminal, plain text when piped.
    Exit 2 when INPUT cannot be read or is none of these.
    """
    from rich.console import Console

    from atif_spec.stepsubstep.api import WIDTH, UnrenderableError
    from atif_spec.stepsubstep.api import render as render_timeline

    value = _as_atif(_load_input(input_path), input_path)
    console = Console(highlight=False, soft_wrap=True)
    width = console.width if console.is_terminal else WIDTH
    try:
        lines = render_timeline(value, verbose=verbose, width=width)
    except UnrenderableError as exc:
        click.echo(f"atif: {terminal.name(input_path)}: {terminal.clean(str(exc))}", err=True)
        sys.exit(2)
    for line in lines:
        console.print(line)
