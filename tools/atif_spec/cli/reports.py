"""How a change report is printed: one line of text, or one JSON object (``--report``)."""

from __future__ import annotations

from typing import Any

from atif_spec.cli import terminal
from atif_spec.jsonio import jsontext


def _text_line(report: dict[str, Any]) -> str:
    source = terminal.name(str(report["source"]))
    where = source + (f":{report['line']}" if report["line"] is not None else "")
    head = f"{where}: {report['from'] or '?'} -> {report['to']}"
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
