"""What ``atif render`` and ``atif convert --to step-substep@v1.0`` call: pure functions.

``render`` takes a parsed input (a run-log or ATIF object, or the list of events of a JSON Lines
legacy log) and returns rich texts; printing them through a ``rich`` console gives colour on a
terminal and plain text when piped. ``to_run_log`` migrates a legacy log.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from atif_spec.formats.streams import detect_stream
from atif_spec.stepsubstep.legacy import dumps, extra_locations, migrate, parse_jsonl
from atif_spec.stepsubstep.render import WIDTH, UnrenderableError, render_lines, render_text
from atif_spec.validation.findings import Finding

__all__ = [
    "RUN_LOG",
    "WIDTH",
    "UnrenderableError",
    "dumps",
    "is_legacy_log",
    "parse_jsonl",
    "render",
    "render_plain",
    "stashed",
    "to_run_log",
]


RUN_LOG = "step-substep@v1.0"
"""The target a legacy log is migrated to."""


def stashed(document: dict[str, Any]) -> list[tuple[str, str]]:
    """``(pointer, what)`` for each named ``extra`` key of a migrated run log (the report's
    stashed items: what the stream carried that the run log has no field for)."""
    return extra_locations(document)


def is_legacy_log(value: Any) -> bool:
    """True for a list of provider-stream or normalized legacy turn events."""
    return isinstance(value, list) and detect_stream(value) is not None


def render(value: Any, *, verbose: bool = False, width: int = WIDTH) -> list[Text]:
    """The timeline of ``value`` (raises :class:`UnrenderableError` for other inputs); compact
    lines are cut to ``width`` columns."""
    return render_text(value, verbose=verbose, width=width)


def render_plain(value: Any, *, verbose: bool = False, width: int = WIDTH) -> str:
    """The timeline as plain text with a final newline."""
    return "".join(line + "\n" for line in render_lines(value, verbose=verbose, width=width))


def to_run_log(
    events: list[Any], *, run_id: str | None = None, provider: str | None = None
) -> tuple[dict[str, Any], list[Finding]]:
    """The run log of a legacy log, and warnings (absent times, events kept in ``extra``)."""
    result = migrate(events, run_id=run_id, provider=provider)
    return result.document, result.findings
