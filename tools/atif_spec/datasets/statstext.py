"""The text and CSV forms of ``atif stats`` (from the JSON form of
:class:`atif_spec.datasets.stats.Stats`), and histograms of per-document values for the terminal
(``atif stats --histogram``)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from typing import Any

from atif_spec.datasets import histogram
from atif_spec.datasets.stats import STREAM_CODE, Group
from atif_spec.jsonio.textsafety import escape

_ROWS: tuple[tuple[str, str], ...] = (
    ("documents", "documents"),
    ("valid", "valid"),
    ("invalid", "invalid"),
    ("steps", "steps"),
    ("agent_steps", "agent steps"),
    ("tool_call_count", "tool calls"),
    ("tokens.prompt", "prompt tokens"),
    ("tokens.completion", "completion tokens"),
    ("tokens.cached", "cached tokens"),
    ("cost_usd", "cost (USD)"),
    ("duration_sec", "duration (s)"),
    ("copied_context_steps", "copied-context steps"),
    ("zero_call_steps", "zero-call steps"),
    ("distributions.steps.p50", "steps/doc p50"),
    ("distributions.steps.p90", "steps/doc p90"),
    ("distributions.steps.max", "steps/doc max"),
    ("distributions.tokens.p50", "tokens/doc p50"),
    ("distributions.tokens.p90", "tokens/doc p90"),
    ("distributions.tokens.max", "tokens/doc max"),
)


def _get(group: Mapping[str, Any], path: str) -> Any:
    if path == "tool_call_count":
        return sum(group["tool_calls"].values())
    value: Any = group
    for key in path.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}" if abs(value) < 1e6 else f"{value:.0f}"
    return str(value)


def to_text(data: Mapping[str, Any]) -> str:
    """A plain-text table: one column for the whole dataset and one per group (group, tool and
    code names with their control characters escaped: document text never reaches a terminal
    as itself)."""
    columns = [("all", data["total"]), *((escape(k), g) for k, g in data["groups"].items())]
    label_width = max(len(label) for _, label in _ROWS)
    cells = [[_cell(_get(g, path)) or "-" for _, g in columns] for path, _ in _ROWS]
    widths = [
        max(len(name), *(len(row[i]) for row in cells)) for i, (name, _) in enumerate(columns)
    ]
    head = " " * label_width + "".join(
        f"  {n:>{w}}" for (n, _), w in zip(columns, widths, strict=True)
    )
    lines = [head.rstrip()]
    for (_, label), row in zip(_ROWS, cells, strict=True):
        lines.append(
            f"{label:<{label_width}}"
            + "".join(f"  {c:>{w}}" for c, w in zip(row, widths, strict=True))
        )
    for title, key in (("tool calls", "tool_calls"), ("findings", "findings")):
        items = data["total"][key]
        if items:
            lines.append("")
            lines.append(f"{title} (all documents):")
            for name, value in sorted(items.items(), key=lambda kv: (-_count_of(kv[1]), kv[0])):
                extra = f" in {value['documents']} document(s)" if isinstance(value, dict) else ""
                lines.append(f"  {_count_of(value):>8}  {escape(name)}{extra}")
    streams = data["total"]["findings"].get(STREAM_CODE)
    if streams:
        lines.append("")
        lines.append(
            f"{streams['documents']} provider stream(s) converted in memory to ATIF"
            " (as atif convert FILE --to atif@v1.8 does) and counted"
        )
    return "\n".join(lines) + "\n"


def _count_of(value: Any) -> int:
    return int(value["findings"] if isinstance(value, dict) else value)


def to_csv(data: Mapping[str, Any]) -> str:
    """One row per group (``all`` first) and one column per number (names escaped as in
    :func:`to_text`; ``--format json`` keeps them exactly)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["group", *(path for path, _ in _ROWS), "tool_calls", "findings"])
    for name, group in [("all", data["total"]), *data["groups"].items()]:
        calls = ";".join(f"{escape(k)}={v}" for k, v in group["tool_calls"].items())
        found = ";".join(f"{escape(k)}={v['findings']}" for k, v in group["findings"].items())
        writer.writerow([escape(name), *(_cell(_get(group, p)) for p, _ in _ROWS), calls, found])
    return out.getvalue()


HISTOGRAMS: dict[str, tuple[str, str, bool]] = {
    "steps": ("steps", "steps per document", True),
    "tokens": ("tokens", "tokens per document, prompt + completion", True),
    "cost": ("costs", "cost per document (USD)", False),
    "duration": ("durations", "seconds per document, first to last step timestamp", False),
}
"""``atif stats --histogram`` names: the :class:`~atif_spec.datasets.stats.Group` list of
per-document values each draws, its title, and whether its values are integers."""


def histograms_text(group: Group, names: Iterable[str]) -> str:
    """The histograms ``names`` (keys of :data:`HISTOGRAMS`) of a group's documents, for the
    terminal; documents without the value (no token metrics, no cost, fewer than two
    timestamps) are not in its histogram, and its title's count says how many are."""
    out: list[str] = []
    for name in names:
        attribute, title, integer = HISTOGRAMS[name]
        values = getattr(group, attribute)
        out += [
            "",
            *histogram.text(title, histogram.bins(values, integer=integer), integer=integer),
        ]
    return "\n".join(out) + "\n" if out else ""
