"""The waterfall of ``atif view``: a run's spans on a time axis, as the OpenTelemetry mapping
makes them (RFC.md §7.1, spec/otel/MAPPING.md; the tree is the lens's own,
:func:`~atif_spec.transforms.lenses.otel.tree.span_tree`). Computed here (pure), drawn by the
page's script (``assets/waterfall.js``) when its section is opened.

A row is ``[pointer, depth, name, start, duration]``: the span's member (``""``, ``/steps/3``,
``/steps/3/tool_calls/0``, ``/subagent_trajectories/0``, ...), its depth in the tree, its name
(``invoke_agent NAME``, ``chat MODEL``, ``atif.step``, ``execute_tool FUNCTION``) as an index
into ``names`` (a long run repeats a few names thousands of times), and seconds
from the earliest timestamp to its start and from its start to its end. Only the document's own
timestamps give times: a start the mapping synthesizes (a step without ``timestamp``) is
``None``, and so is a duration whose end is not a timestamp (a trajectory's last step, a step
whose next step has none or an earlier one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from atif_spec.datasets import histogram
from atif_spec.transforms.lenses.otel.tree import Span, span_tree
from atif_spec.view.charts import none

TITLE = "spans over time"


def waterfall(atif: Mapping[str, Any]) -> dict[str, Any]:
    """The ``waterfall`` of a trajectory (its embedded subagents included), or a ``none`` chart
    whose note says why there is none."""
    spans = span_tree(dict(atif))
    moments = [s.start for s in spans if s.start_known] + [s.end for s in spans if s.end_known]
    timed = sum(s.start_known and s.end_known for s in spans)
    if not timed:
        stamped = len({s.start for s in spans if s.start_known and s.what == "step"})
        why = "no step has a timestamp" if not stamped else "no step's duration is known"
        if stamped:  # a duration is from a step's timestamp to the next step's
            why += f" ({stamped} distinct timestamp{'s' if stamped > 1 else ''})"
        return none(TITLE, why + ": no waterfall")
    zero = min(moments)
    top = _seconds(max(moments) - zero)
    note = (
        f"{timed:,} of {len(spans):,} spans timed. A step lasts from its timestamp to the next "
        "step's timestamp in the same trajectory (the OpenTelemetry mapping's end time); a tool "
        "call spans its step; a trajectory spans its steps. No bar: the mapping synthesizes the "
        "time (no timestamp), or the end is not a timestamp (a trajectory's last step)."
    )
    names: dict[str, int] = {}
    rows = [_row(s, zero, names.setdefault(s.name, len(names))) for s in spans]
    return {
        "kind": "waterfall",
        "title": TITLE,
        "names": list(names),
        "rows": rows,
        "ticks": histogram.ticks(top),
        "total": top,
        "note": note,
    }


def _row(span: Span, zero: int, name: int) -> list[Any]:
    start = _seconds(span.start - zero) if span.start_known else None
    duration = _seconds(span.end - span.start) if span.start_known and span.end_known else None
    return [span.pointer, span.depth, name, start, duration]


def _seconds(nanos: int) -> float:
    return round(nanos / 1e9, 6)
