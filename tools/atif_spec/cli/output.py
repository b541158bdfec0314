"""Renderers of validation reports: human-readable text, or JSON Lines."""

from __future__ import annotations

import sys
from typing import Any, Protocol

import click

from atif_spec.cli import terminal
from atif_spec.jsonio import jsontext

_LEVEL_COLOURS = {"error": "red", "warning": "yellow"}


class Counts(Protocol):
    """The totals a summary line needs (:class:`atif_spec.datasets.runner.Summary`, or
    :class:`atif_spec.datasets.summary.DatasetSummary` of a dataset run)."""

    @property
    def documents(self) -> int: ...
    @property
    def invalid(self) -> int: ...
    @property
    def with_warnings(self) -> int: ...
    @property
    def errors(self) -> int: ...
    @property
    def warnings(self) -> int: ...


def _location(report: dict[str, Any]) -> str:
    line = report.get("line")
    source = terminal.name(str(report["source"]))
    return f"{source}:{line}" if line is not None else source


class TextRenderer:
    """One line per finding (``source[:line]: level pointer code name: message``) and a summary."""

    def __init__(self, quiet: bool = False, strict: bool = False) -> None:
        self.quiet = quiet
        self.strict = strict
        self.colour = terminal.colour_enabled()

    def document(self, report: dict[str, Any]) -> None:
        """Print the findings of one document."""
        if self.quiet:
            return
        where = _location(report)
        for finding in (*report["errors"], *report["warnings"]):
            level = finding["level"]
            tag = click.style(level, fg=_LEVEL_COLOURS[level], bold=True) if self.colour else level
            ptr = terminal.clean(finding["pointer"] or "/")
            message = terminal.clean(finding["message"])
            click.echo(f"{where}: {tag} {ptr} {finding['code']} {finding['name']}: {message}")

    def finish(self, summary: Counts, skipped: str | None = None) -> None:
        """Print the summary line (with what the folder walks ``skipped``, if anything)."""
        ok = summary.documents - summary.invalid
        text = (
            f"{summary.documents} document(s): {ok} valid, {summary.invalid} invalid; "
            f"{summary.errors} error(s), {summary.warnings} warning(s)"
        )
        if skipped:
            text += f"; {terminal.clean(skipped)}"
        failed = summary.invalid or (self.strict and summary.with_warnings)
        if self.colour:
            text = click.style(text, fg="red" if failed else "green")
        click.echo(text)


class JsonRenderer:
    """One JSON object per document (the report shape of ``spec/atif-spec``), nothing else."""

    def __init__(self) -> None:
        self._out = sys.stdout.buffer

    def document(self, report: dict[str, Any]) -> None:
        """Write one report line."""
        self._out.write(jsontext.dumps(report) + b"\n")

    def finish(self, summary: Counts, skipped: str | None = None) -> None:
        """Flush; JSON output has no summary line."""
        self._out.flush()
