"""Command-line options shared by every command that reads documents (one definition each)."""

from __future__ import annotations

import click

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
"""The size limit of one document (``None``: ``atif_spec.reader.DEFAULT_MAX_BYTES``)."""
