"""``atif validate --format github`` and ``--format sarif``: findings where CI and editors look.

``github``: one GitHub Actions workflow command per finding
(``::error file=F,line=L,col=C,title=T::MESSAGE``), escaped as GitHub requires, then the
summary line. ``sarif``: one SARIF 2.1.0 log for the whole run, for code scanning. Both take
the report dicts of :mod:`atif_spec.cli.output` and keep each document's findings in document
order. docs/OUTPUT.md describes every format.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import click

from atif_spec.cli.output import Counts, JsonRenderer, TextRenderer, ordered, summary_text
from atif_spec.jsonio import jsontext
from atif_spec.jsonio.textsafety import escape
from atif_spec.validation.reader import is_parquet, is_uri

FORMATS = {
    "text": "one line per finding, `file:line:column: level pointer code name: message`",
    "json": "one JSON object per document (JSON Lines)",
    "github": "GitHub Actions annotations (workflow commands)",
    "sarif": "one SARIF 2.1.0 log (code scanning)",
}
"""The report formats of ``atif validate --format``, with their help."""

STDIN = "<stdin>"
SRCROOT = "%SRCROOT%"
"""The ``uriBaseId`` of every file under the current directory (``originalUriBaseIds``)."""
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
_SARIF_LEVELS = {"error": "error", "warning": "warning"}
"""Finding level to SARIF level; any other level is a ``note``."""
_GITHUB_COMMANDS = {"error": "error", "warning": "warning"}
"""Finding level to workflow command; any other level is a ``notice``."""


def renderer(output: str, *, quiet: bool, strict: bool) -> Any:
    """The renderer of one ``--format`` (``document(report)`` per report, then ``finish``)."""
    if output == "json":
        return JsonRenderer()
    if output == "github":
        return GithubRenderer(strict=strict)
    if output == "sarif":
        return SarifRenderer()
    return TextRenderer(quiet=quiet, strict=strict)


# --- where a finding is ------------------------------------------------------------------------


def relative_path(source: str) -> str | None:
    """A file's path relative to the current directory with ``/`` separators, or None when it
    is not below it (or not a local file)."""
    if source == STDIN or is_uri(source):
        return None
    rel = os.path.relpath(os.path.abspath(source))
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None
    return Path(rel).as_posix()


def _place(report: dict[str, Any], finding: dict[str, Any]) -> tuple[int | None, int | None]:
    """The line and column of a finding: its own, else a JSON Lines record's line; a Parquet
    row has no line."""
    if finding.get("line") is not None:
        return finding["line"], finding.get("column")
    if is_parquet(str(report["source"])):
        return None, None
    return report.get("line"), None


def _row(report: dict[str, Any]) -> int | None:
    """The row of a Parquet document (its report's ``line``), or None."""
    return report.get("line") if is_parquet(str(report["source"])) else None


def _where_in_document(report: dict[str, Any], finding: dict[str, Any]) -> str:
    """``/steps/0/source``, after ``row N`` for a Parquet row."""
    ptr = finding["pointer"] or "/"
    row = _row(report)
    return ptr if row is None else f"row {row} {ptr}"


# --- GitHub workflow commands ------------------------------------------------------------------


def escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF percent-encoded (GitHub's escaping);
    other control and format characters written as escapes so they cannot reach the log."""
    text = escape(text, keep="\r\n")
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: as :func:`escape_data`, and ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(report: dict[str, Any], finding: dict[str, Any]) -> str:
    """The workflow command of one finding: ``::error file=…,line=…,col=…,title=…::…``."""
    command = _GITHUB_COMMANDS.get(finding["level"], "notice")
    line, column = _place(report, finding)
    path = relative_path(str(report["source"]))
    if path is None and report["source"] != STDIN:
        path = str(report["source"])
    props = [
        ("file", path),
        ("line", None if line is None else str(line)),
        ("col", None if column is None else str(column)),
        ("title", f"{finding['code']} {finding['name']}"),
    ]
    head = ",".join(f"{key}={escape_property(value)}" for key, value in props if value is not None)
    message = f"{_where_in_document(report, finding)}: {finding['message']}"
    return f"::{command} {head}::{escape_data(message)}"


class GithubRenderer:
    """One workflow command per finding, in document order, then the plain summary line."""

    def __init__(self, strict: bool = False) -> None:
        self.strict = strict

    def document(self, report: dict[str, Any]) -> None:
        """Print the annotations of one document."""
        for finding in ordered(report):
            click.echo(annotation(report, finding))

    def finish(self, summary: Counts, skipped: str | None = None) -> None:
        """Print the summary line (with what the folder walks ``skipped``, if anything)."""
        click.echo(summary_text(summary, skipped))


# --- SARIF 2.1.0 -------------------------------------------------------------------------------


def _artifact(source: str) -> dict[str, Any]:
    """The ``artifactLocation`` of a source: relative to ``%SRCROOT%`` when below the current
    directory, else an absolute URI; standard input has only a description."""
    if source == STDIN:
        return {"description": {"text": "standard input"}}
    if is_uri(source):
        return {"uri": source}
    rel = relative_path(source)
    if rel is None:
        return {"uri": Path(os.path.abspath(source)).as_uri()}
    return {"uri": quote(rel), "uriBaseId": SRCROOT}


def _location(report: dict[str, Any], finding: dict[str, Any]) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": _artifact(str(report["source"]))}
    line, column = _place(report, finding)
    if line is not None:
        physical["region"] = {"startLine": line} | ({"startColumn": column} if column else {})
    location: dict[str, Any] = {"physicalLocation": physical}
    logical = []
    row = _row(report)
    if row is not None:
        logical.append({"name": f"row {row}", "kind": "element"})
    if finding["pointer"]:
        logical.append({"fullyQualifiedName": finding["pointer"], "kind": "value"})
    if logical:
        location["logicalLocations"] = logical
    return location


def _unwrapped(text: str) -> str:
    """Paragraphs of a docstring each on one line (a SARIF viewer wraps them itself)."""
    return "\n\n".join(" ".join(p.split()) for p in text.split("\n\n"))


def rule_descriptors(codes: dict[str, int], levels: dict[str, str]) -> list[dict[str, Any]]:
    """``tool.driver.rules``: one descriptor per code in ``codes`` (code to index), described
    as ``atif rules CODE`` describes it; ``levels`` gives the level of a code nothing describes."""
    import inspect

    from atif_spec.cli.rules import plain
    from atif_spec.validation.codes import OTHER_CODES
    from atif_spec.validation.rules import REGISTRY

    rules = {r.code: r for r in REGISTRY}
    others = {c.code: c for c in OTHER_CODES}
    out = []
    for code in sorted(codes, key=codes.__getitem__):
        rule, other = rules.get(code), others.get(code)
        if rule is not None:
            name, level, summary = rule.name, str(rule.level), plain(rule.summary)
            text, section = _unwrapped(plain(inspect.cleandoc(rule.doc))), plain(rule.section)
        elif other is not None:
            name, level, summary = other.name, str(other.level), plain(other.summary)
            text, section = "", plain(other.section)
        else:
            name, level, section = code.split(":")[-1], levels[code], "RFC.md §4.2 Findings"
            summary, text = f"The check {code} of atif-spec.", ""
        text = text or summary
        spec = "" if "Spec:" in text else f"\n\nSpec: {section}"
        out.append(
            {
                "id": code,
                "name": name,
                "shortDescription": {"text": summary},
                "fullDescription": {"text": text},
                "help": {"text": f"{text}{spec}\n\n`atif rules {code}` explains it."},
                "defaultConfiguration": {"level": _SARIF_LEVELS.get(level, "note")},
            }
        )
    return out


class SarifRenderer:
    """The results of the whole run as one SARIF 2.1.0 log, written when the run ends."""

    def __init__(self) -> None:
        self.results: list[dict[str, Any]] = []
        self.rules: dict[str, int] = {}
        self.levels: dict[str, str] = {}

    def document(self, report: dict[str, Any]) -> None:
        """Keep the results of one document."""
        for finding in ordered(report):
            code = finding["code"]
            index = self.rules.setdefault(code, len(self.rules))
            self.levels.setdefault(code, finding["level"])
            properties = {"name": finding["name"], "pointer": finding["pointer"]}
            properties |= {"format": report.get("format"), "version": report.get("version")}
            self.results.append(
                {
                    "ruleId": code,
                    "ruleIndex": index,
                    "level": _SARIF_LEVELS.get(finding["level"], "note"),
                    "message": {
                        "text": f"{_where_in_document(report, finding)}: {finding['message']}"
                    },
                    "locations": [_location(report, finding)],
                    "properties": properties,
                }
            )

    def log(self, summary: Counts) -> dict[str, Any]:
        """The SARIF log of the run."""
        import atif_spec

        driver = {
            "name": "atif",
            "fullName": "atif-spec validator (atif validate)",
            "version": atif_spec.__version__,
            "semanticVersion": atif_spec.__version__,
            "rules": rule_descriptors(self.rules, self.levels),
        }
        run = {
            "tool": {"driver": driver},
            "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().as_uri().rstrip("/") + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": self.results,
            "properties": {
                "documents": summary.documents,
                "invalid": summary.invalid,
                "errors": summary.errors,
                "warnings": summary.warnings,
            },
        }
        return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}

    def finish(self, summary: Counts, skipped: str | None = None) -> None:
        """Write the log to standard output (what was ``skipped`` goes to stderr: the caller)."""
        out = sys.stdout.buffer
        out.write(jsontext.dumps(self.log(summary), indent=True) + b"\n")
        out.flush()
