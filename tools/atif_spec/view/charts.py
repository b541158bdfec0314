"""What the charts of ``atif view`` show, with their scales and counts: computed here (pure), only
drawn by the page's script (``assets/charts.js``).

A chart is a JSON object, one of three kinds:

* ``bars``: horizontal bars, one per ``rows`` entry ``[label, count, class]``, on an axis marked
  at ``ticks`` (the dataset's validity, tool calls, findings by code);
* ``columns``: vertical columns at ``labels``, each the stack of its ``series`` values
  (``{name, cls, values, total}``), on an axis marked at ``ticks`` and named ``y`` (histograms
  of per-document values; a document's tokens and latency per step);
* ``none``: no chart, and ``note`` says why (no step has token metrics, or timestamps).

Scales and bins: :mod:`atif_spec.datasets.histogram`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from atif_spec.datasets import histogram
from atif_spec.datasets.stats import Group, moment
from atif_spec.datasets.statstext import HISTOGRAMS
from atif_spec.formats.totals import step_totals
from atif_spec.jsonio.jsonvalues import objects

MAX_COLUMNS = 200
"""Most columns of a per-step chart: a longer run puts consecutive steps together, each column
their sum."""
TOP = 8
"""Most rows of a bar chart (the largest)."""


def columns(
    title: str,
    labels: list[str],
    series: list[dict[str, Any]],
    axes: tuple[str, str],
    note: str = "",
) -> dict[str, Any]:
    """A ``columns`` chart (``axes``: what the columns are, what they measure); its axis reaches
    the tallest stack."""
    top = max((sum(col) for col in zip(*(s["values"] for s in series), strict=True)), default=0)
    return {
        "kind": "columns",
        "title": title,
        "labels": labels,
        "series": series,
        "ticks": histogram.ticks(top),
        "x": axes[0],
        "y": axes[1],
        "note": note,
    }


def bars(title: str, rows: list[tuple[str, int, str]], *, ordered: bool = False) -> dict[str, Any]:
    """A ``bars`` chart of the :data:`TOP` largest ``rows``, largest first (ties by label), or
    in the given order when ``ordered``."""
    kept = rows if ordered else sorted(rows, key=lambda r: (-r[1], r[0]))[:TOP]
    title = f"{title} (top {TOP} of {len(rows)})" if len(rows) > len(kept) else title
    return {
        "kind": "bars",
        "title": title,
        "rows": [list(r) for r in kept],
        "ticks": histogram.ticks(max((r[1] for r in kept), default=0)),
    }


def none(title: str, note: str) -> dict[str, Any]:
    return {"kind": "none", "title": title, "note": note}


# --- a dataset -------------------------------------------------------------------------------


def dataset_charts(group: Group) -> list[dict[str, Any]]:
    """The charts of a dataset's index: validity, tool calls and findings by code (the top
    :data:`TOP`), and histograms of steps, tokens and cost per document over every document."""
    out = [
        bars(
            "validity (documents)",
            [("valid", group.valid, "good"), ("invalid", group.documents - group.valid, "bad")],
            ordered=True,
        )
    ]
    if group.tool_calls:
        out.append(bars("tool calls", [(k, n, "") for k, n in group.tool_calls.items()]))
    if group.findings:
        out.append(bars("findings by code", [(k, n, "bad") for k, n in group.findings.items()]))
    for name in ("steps", "tokens", "cost"):
        attribute, title, integer = HISTOGRAMS[name]
        found = histogram.bins(getattr(group, attribute), integer=integer)
        if not found:
            out.append(none(title, "no document has this value"))
            continue
        counted = [b.count for b in found]
        series = [{"name": "documents", "cls": "", "values": counted, "total": sum(counted)}]
        x = {"steps": "steps", "tokens": "tokens", "cost": "USD"}[name]
        out.append(columns(title, [b.label(integer) for b in found], series, (x, "documents")))
    return out


# --- a document's steps ----------------------------------------------------------------------


def step_charts(atif: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Tokens and latency per step of a trajectory's own steps (not its subagents'): the
    tokens its ``metrics`` report where they count (RFC.md §2.4: not copied-context or
    ``llm_call_count: 0`` steps), cached tokens as the part of the prompt they are; the latency
    of a step is the seconds from the previous step's ``timestamp`` to its own."""
    steps = list(objects(atif.get("steps")))
    if not steps:
        return []
    per = math.ceil(len(steps) / MAX_COLUMNS)
    groups = [range(i, min(i + per, len(steps))) for i in range(0, len(steps), per)]
    labels = [_label(steps, g) for g in groups]
    x = "step" if per == 1 else f"{per} steps"  # what one column is
    subs = " (subagents not included)" if any(objects(atif.get("subagent_trajectories"))) else ""
    return [
        _tokens(steps, groups, labels, x, subs),
        _latency(steps, groups, labels, x, subs),
    ]


def _label(steps: list[dict[str, Any]], group: range) -> str:
    def one(i: int) -> str:
        sid = steps[i].get("step_id")
        return str(sid) if isinstance(sid, int | str) and not isinstance(sid, bool) else f"#{i + 1}"

    first, last = one(group[0]), one(group[-1])
    return first if first == last else f"{first}\u2013{last}"


def _tokens(
    steps: list[dict[str, Any]], groups: list[range], labels: list[str], x: str, subs: str
) -> dict[str, Any]:
    title = "tokens per " + x + subs
    parts: dict[str, list[int]] = {"cached": [], "prompt": [], "completion": []}
    reported = 0
    for group in groups:
        sums = dict.fromkeys(parts, 0)
        for i in group:
            one = step_totals([steps[i]])  # the one definition (RFC.md §2.4)
            prompt, completion, cached = one.prompt_tokens, one.completion_tokens, one.cached_tokens
            reported += prompt is not None or completion is not None
            cached = min(cached or 0, prompt or 0)  # cached tokens are part of the prompt
            sums["cached"] += cached
            sums["prompt"] += (prompt or 0) - cached
            sums["completion"] += completion or 0
        for name, value in sums.items():
            parts[name].append(value)
    if not reported:
        return none(title, "no step reports prompt or completion tokens: no token chart")
    names = {"cached": "cached prompt", "prompt": "prompt", "completion": "completion"}
    if any(parts["cached"]):
        names["prompt"] = "uncached prompt"
    series = [
        {"name": names[k], "cls": k, "values": v, "total": sum(v)}
        for k, v in parts.items()
        if k != "cached" or any(v)
    ]
    note = f"{reported:,} of {len(steps):,} steps report tokens"
    return {**columns(title, labels, series, (_axis(x), "tokens"), note), "per": len(groups[0])}


def _latency(
    steps: list[dict[str, Any]], groups: list[range], labels: list[str], x: str, subs: str
) -> dict[str, Any]:
    title = "latency per " + x + subs
    times = [moment(s) for s in steps]
    gaps: list[float | None] = [None] * len(steps)
    previous: float | None = None
    backwards = 0
    for i, t in enumerate(times):
        if t is None:
            continue
        if previous is not None:
            if t >= previous:
                gaps[i] = t - previous
            else:
                backwards += 1
        previous = t
    measured = sum(g is not None for g in gaps)
    if not measured:
        stamped = sum(t is not None for t in times)
        why = "no step has a timestamp" if not stamped else f"only {stamped} step has a timestamp"
        if stamped > 1:  # every later one is earlier than the one before it
            why = f"no step's timestamp is after the one before it ({stamped} timestamps)"
        return none(title, why + " (with a time zone): no latency chart")
    values = [_round(math.fsum(g for i in group if (g := gaps[i]) is not None)) for group in groups]
    note = f"{measured:,} of {len(steps):,} steps timed: seconds from the previous timestamp"
    if backwards:
        note += f"; {backwards:,} timestamps earlier than the one before them left out"
    series = [{"name": "seconds", "cls": "latency", "values": values, "total": _round(sum(values))}]
    return {**columns(title, labels, series, (_axis(x), "seconds"), note), "per": len(groups[0])}


def _axis(x: str) -> str:
    return "step_id" if x == "step" else f"step_id ({x} a column)"


def _round(x: float) -> float:
    return round(x, 3)
