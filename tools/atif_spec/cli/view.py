"""``atif view``: one self-contained HTML page for trajectories and datasets."""

from __future__ import annotations

import os
import secrets
import sys
import tempfile
from pathlib import Path

import click

from atif_spec.cli.dataset import column_option
from atif_spec.cli.options import filters, max_bytes_option, note_skipped, selection_options


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    help="Write the page here ('-': stdout). Default: on a terminal (or with --open) next to "
    "the input as NAME.view.html (a temporary file when there are several inputs, a folder, or "
    "the folder is read-only); piped, to stdout.",
)
@click.option(
    "--open",
    "open_page",
    is_flag=True,
    help="Open the page in the default browser once written.",
)
@click.option(
    "--compare",
    is_flag=True,
    help="Two trajectory files A and B side by side: their steps aligned by a sequence diff over "
    "each step's source and tool names (inserted or missing steps show against a gap), with "
    "per-step tokens, tools and findings.",
)
@click.option(
    "--follow-refs",
    is_flag=True,
    help="Also show file-referenced subagents (trajectory_path) and continuation files.",
)
@click.option(
    "--allow-outside",
    is_flag=True,
    help="Embed media files and follow references outside the document's folder.",
)
@click.option(
    "--max-docs",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Most documents of a dataset put in the page (the statistics count all; the page "
    "says when documents were left out, and how to write the others with --page).",
)
@click.option(
    "--page",
    "page_number",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Which --max-docs documents of a dataset the page shows: page N holds documents "
    "(N-1)*MAX_DOCS+1 to N*MAX_DOCS.",
)
@selection_options
@column_option
@max_bytes_option
def view(
    paths: tuple[str, ...],
    output: str | None,
    open_page: bool,
    compare: bool,
    follow_refs: bool,
    allow_outside: bool,
    max_docs: int,
    page_number: int,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    column: str,
    max_bytes: int | None,
) -> None:
    """Write one self-contained HTML page showing trajectories, with findings in place.

    PATHS are trajectory files of any format we read (shown through ATIF), directories, JSON
    Lines or Parquet datasets (in a Harbor job folder, its trajectories; --include, --exclude
    and .atifignore choose the files of other folders: docs/INPUTS.md). The page loads nothing
    from the network: its Content-Security-Policy allows only its own script and style and
    data: media. Images and audio are embedded only from files inside the document's folder
    (type and size checked); URLs are shown as links, never loaded. The validator's findings
    appear at the step and field they point at, listed at the top. Datasets get an index
    (validity, one click to each document) and statistics with small charts; a Harbor job
    folder gets a trials index (reward and outcome from each trial's result.json, agent,
    model, steps, tokens, cost, findings; references followed). Provider streams and native
    sessions (a Claude Code session .jsonl) are converted in memory as atif convert does.
    With --compare, two trajectories side by side (docs/USAGE.md: how steps are aligned).

    Without -o on a terminal, the page is written to a file (next to the input, or a
    temporary one) and its path is printed; --open opens it in the default browser.

    Exit status: 0 when the page was written, 2 for usage errors, unreadable paths, inputs
    --compare cannot compare and an output that cannot be written or is a file the page is
    made from.
    """
    from atif_spec.cli import terminal
    from atif_spec.jsonio.atomic import OutputError, write_atomic
    from atif_spec.jsonio.samefile import file_ids
    from atif_spec.validation.reader import DEFAULT_MAX_BYTES, UnreadablePath
    from atif_spec.view import CompareError, ViewOptions, build, page

    if open_page and output == "-":
        raise click.UsageError("--open opens a file: leave out -o - (or name a file)")
    target = output if output is not None else destination(paths, open_page or stdout_is_terminal())
    options = ViewOptions(
        allow_outside=allow_outside,
        follow_refs=follow_refs,
        max_docs=max_docs,
        page=page_number,
        max_bytes=max_bytes or DEFAULT_MAX_BYTES,
        column=column,
        outputs=file_ids([target]),
        selection=filters(include, exclude),
        compare=compare,
    )
    try:
        payload = build(list(paths), options)
        note_skipped(payload["skipped"])
        html = page(payload)
        if target is None or target == "-":
            sys.stdout.write(html)
            return
        write_atomic(target, html.encode())
    except (UnreadablePath, OutputError, CompareError) as exc:
        click.echo(f"atif: {terminal.clean(str(exc))}", err=True)
        sys.exit(2)
    click.echo(f"atif: wrote {terminal.name(target)}", err=True)
    if open_page:
        import webbrowser

        if not webbrowser.open(Path(target).resolve().as_uri()):
            click.echo("atif: no browser could be started; open the file yourself", err=True)


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def destination(paths: tuple[str, ...], to_file: bool) -> str | None:
    """Where the page goes without ``-o``: None (stdout) unless ``to_file``; then next to a
    single input file (``NAME.view.html``), else a new temporary file."""
    if not to_file:
        return None
    if len(paths) == 1 and paths[0] != "-" and Path(paths[0]).is_file():
        source = Path(paths[0])
        beside = source.with_name(f"{source.stem}.view.html")
        if os.access(source.parent, os.W_OK) and not beside.is_dir():
            return str(beside)
    # A new name, not a file yet: nothing is left behind when the page cannot be made.
    return str(Path(tempfile.gettempdir()) / f"atif-view-{secrets.token_hex(8)}.html")
