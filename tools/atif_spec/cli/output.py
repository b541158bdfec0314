"""Renderers of validation reports: human-readable text, or JSON Lines."""

from __future__ import annotations

import sys
from typing import Any, Protocol

import click

from atif_spec.cli import terminal
from atif_spec.jsonio import jsontext
from atif_spec.validation.reader import is_parquet

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


def ordered(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The findings of a report, errors and warnings together, in document order (by line and
    column; findings without them first, errors before warnings, each list in its order)."""
    findings = [*report["errors"], *report["warnings"]]
    return sorted(findings, key=lambda f: (f.get("line") or 0, f.get("column") or 0))


def summary_text(summary: Counts, skipped: str | None = None) -> str:
    """The summary line of a run (with what the folder walks ``skipped``, if anything)."""
    ok = summary.documents - summary.invalid
    text = (
        f"{summary.documents} document(s): {ok} valid, {summary.invalid} invalid; "
        f"{summary.errors} error(s), {summary.warnings} warning(s)"
    )
    return f"{text}; {terminal.clean(skipped)}" if skipped else text


def _location(report: dict[str, Any], finding: dict[str, Any]) -> str:
    """``source:line:column`` of a finding that has a place, else ``source[:line]``, or
    ``source row N`` for a Parquet row (no line an editor could open)."""
    source = terminal.name(str(report["source"]))
    if finding.get("line") is not None:
        return f"{source}:{finding['line']}:{finding['column']}"
    line = report.get("line")
    if line is None:
        return source
    return f"{source} row {line}" if is_parquet(str(report["source"])) else f"{source}:{line}"


class TextRenderer:
    """One line per finding (``source[:line[:column]]: level pointer code name: message``) in
    document order, and a summary."""

    def __init__(self, quiet: bool = False, strict: bool = False) -> None:
        self.quiet = quiet
        self.strict = strict
        self.colour = terminal.colour_enabled()

    def document(self, report: dict[str, Any]) -> None:
        """Print the findings of one document."""
        if self.quiet:
            return
        for finding in ordered(report):
            where = _location(report, finding)
            level = finding["level"]
            tag = click.style(level, fg=_LEVEL_COLOURS[level], bold=True) if self.colour else level
            ptr = terminal.clean(finding["pointer"] or "/")
            message = terminal.clean(finding["message"])
            click.echo(f"{where}: {tag} {ptr} {finding['code']} {finding['name']}: {message}")

    def finish(self, summary: Counts, skipped: str | None = None) -> None:
        """Print the summary line (with what the folder walks ``skipped``, if anything)."""
        text = summary_text(summary, skipped)
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
