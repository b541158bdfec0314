"""``atif view``: one self-contained HTML page for trajectories and datasets."""

from __future__ import annotations

import sys

import click

from atif_spec.cli.dataset import column_option
from atif_spec.cli.options import filters, max_bytes_option, note_skipped, selection_options


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    help="Write the page here (default: stdout).",
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
    "says when documents were left out).",
)
@selection_options
@column_option
@max_bytes_option
def view(
    paths: tuple[str, ...],
    output: str | None,
    follow_refs: bool,
    allow_outside: bool,
    max_docs: int,
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
    (validity, one click to each document) and statistics with small charts.

    Exit status: 0 when the page was written, 2 for usage errors, unreadable paths and an
    output that cannot be written or is a file the page is made from.
    """
    from atif_spec.cli import terminal
    from atif_spec.jsonio.atomic import OutputError, write_atomic
    from atif_spec.jsonio.samefile import file_ids
    from atif_spec.validation.reader import DEFAULT_MAX_BYTES, UnreadablePath
    from atif_spec.view import ViewOptions, build, page

    options = ViewOptions(
        allow_outside=allow_outside,
        follow_refs=follow_refs,
        max_docs=max_docs,
        max_bytes=max_bytes or DEFAULT_MAX_BYTES,
        column=column,
        outputs=file_ids([output]),
        selection=filters(include, exclude),
    )
    try:
        payload = build(list(paths), options)
        note_skipped(payload["skipped"])
        html = page(payload)
        if output is None or output == "-":
            sys.stdout.write(html)
            return
        write_atomic(output, html.encode())
    except (UnreadablePath, OutputError) as exc:
        click.echo(f"atif: {terminal.clean(str(exc))}", err=True)
        sys.exit(2)
    click.echo(f"atif: wrote {terminal.name(output)}", err=True)
