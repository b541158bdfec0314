"""How change reports are printed: one line of text or one JSON object per document
(``--report``), and the summary of a run in plain words.

The text report follows the convention of every command over many documents: by default the
documents that were not written and a summary at the end; ``-v`` a line per document;
``-q`` only the documents that were not written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from atif_spec.cli import terminal
from atif_spec.cli.options import NORMAL, QUIET, VERBOSE
from atif_spec.jsonio import jsontext


def _text_line(report: dict[str, Any]) -> str:
    source = terminal.name(str(report["source"]))
    where = source + (f":{report['line']}" if report["line"] is not None else "")
    head = f"{where}: {report['from'] or '?'} -> {report['to']}"
    for warning in report.get("warnings", ()):  # an OTLP trace gathered from lines: which
        if warning["code"] == "convert:otel-trace-lines":
            head = f"{head} ({warning['message'].partition(' (')[0]})"
    if not report["ok"]:
        first = report["errors"][0]
        more = len(report["errors"]) - 1
        extra = f" (and {more} more)" if more else ""
        return terminal.clean(
            f"{head}: not written: {first['pointer'] or '/'} {first['code']}: "
            f"{first['message']}{extra}"
        )
    mapped = report.get("counts", {}).get("mapped")
    parts = [f"{mapped} mapped"] if mapped is not None else []
    parts += [f"{len(report.get(k, ()))} {k}" for k in ("named", "stashed", "dropped", "decided")]
    return terminal.clean(f"{head}: {', '.join(parts)}")


def report_line(report: dict[str, Any], report_format: str) -> str:
    """One document's report as printed (``--report``: a JSON object, or one line of text)."""
    return jsontext.dumps(report).decode() if report_format == "json" else _text_line(report)


def _of(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


@dataclass(slots=True)
class Tally:
    """What a migration or conversion did to its documents, counted per document."""

    target: str | None = None
    documents: int = 0
    refused: int = 0
    """Not written: refused, or invalid under the target after the change."""
    in_full: int = 0
    """Written with every value in the target's own fields or under a documented name."""
    stashed: int = 0
    """Written with data the target cannot hold kept in its stash (nothing dropped)."""
    dropped: int = 0
    """Written with data discarded (``--drop``, or a value edited since it was stashed)."""
    decided: int = 0
    """Written with a value the tool filled in by a documented policy."""

    def add(self, report: dict[str, Any]) -> None:
        """Count one change report (JSON form)."""
        self.target = self.target or report["to"]
        self.documents += 1
        if not report["ok"]:
            self.refused += 1
            return
        if report["dropped"]:
            self.dropped += 1
        elif report["stashed"]:
            self.stashed += 1
        else:
            self.in_full += 1
        self.decided += bool(report["decided"])

    def text(self, verb: str) -> str:
        """The summary line, e.g. ``Migrated 3 of 3 documents to atif@v1.6: 2 carried over
        completely, 1 kept data the target cannot hold in its stash, 0 lost data; 0 not
        written.``"""
        written = self.documents - self.refused
        filled = f", {self.decided:,} had values filled in" if self.decided else ""
        return (
            f"{verb.capitalize()} {written:,} of {_of(self.documents, 'document')} to "
            f"{terminal.clean(self.target or '?')}: {self.in_full:,} carried over completely, "
            f"{self.stashed:,} kept data the target cannot hold in its stash, "
            f"{self.dropped:,} lost data{filled}; {self.refused:,} not written."
        )


class ReportPrinter:
    """Prints the change reports of a run to ``stream`` at an output level (``-q``/``-v``);
    ``before`` runs before every line (it erases the progress line)."""

    def __init__(
        self,
        stream: TextIO,
        report_format: str,
        level: int = NORMAL,
        before: Callable[[], None] = lambda: None,
    ) -> None:
        self.stream = stream
        self.report_format = report_format
        self.level = level
        self.before = before
        self.tally = Tally()

    def document(self, report: dict[str, Any]) -> None:
        """Count one report; print it (JSON: always; text: when not written, or with ``-v``)."""
        self.tally.add(report)
        if self.report_format == "json" or not report["ok"] or self.level >= VERBOSE:
            self.before()
            self.stream.write(report_line(report, self.report_format) + "\n")

    def finish(self, verb: str) -> None:
        """Print the summary (text report, unless ``-q``) and flush."""
        if self.report_format == "text" and self.level > QUIET:
            self.before()
            self.stream.write(self.tally.text(verb) + "\n")
        self.stream.flush()
