"""Helpers shared by the sibling-format strategies: how a producer writes an object's keys.

Producers of the sibling formats write records in one of two ways: a model dump (every field in
declaration order, defaults and nulls written out: opentraces' ``to_jsonl_line``, the
trajectory-sdk builder's ``asdict``, gza's store export) or a hand-written or trimmed file that
leaves out what is at its default. A drawn :data:`Style` decides per document; ``mixed`` decides
per key.
"""

from __future__ import annotations

from typing import Any, Literal

from hypothesis import strategies as st

from tests.support.strategies import json_values, text

Draw = Any
Style = Literal["full", "sparse", "mixed"]
styles: st.SearchStrategy[Style] = st.sampled_from(("full", "sparse", "mixed"))

OMIT = object()
"""A field's value meaning "not written at all"."""

WORDS = (
    "Running the tests.",
    "Looking at the failing import.",
    "Done: the parser now skips the BOM.",
    "ls -la",
    "pytest -q",
    "src/app.py",
    "1 failed, 12 passed",
    "Café ☕ — naïve",
    "",
    " ",
    "line one\nline two",
    '{"ok": true}',
)
prose = st.sampled_from(WORDS) | text
"""Realistic strings, with arbitrary short text (any Unicode, empty) mixed in."""

small_objects = st.dictionaries(
    st.sampled_from(("path", "command", "pattern", "limit", "offset", "query", "x")) | text,
    json_values,
    max_size=3,
)
"""Free-form objects with the key names tools use, and others."""


def emit(draw: Draw, style: Style, fields: list[tuple[str, Any, Any]]) -> dict[str, Any]:
    """An object from ``(key, value, default)`` triples in declaration order.

    A value of :data:`OMIT` is never written; a value equal to its ``default`` is written always
    (``full``), never (``sparse``) or as drawn (``mixed``); any other value always. Use a default
    of :data:`OMIT` for a required field (always written).
    """
    out: dict[str, Any] = {}
    for key, value, default in fields:
        if value is OMIT:
            continue
        at_default = default is not OMIT and value == default and type(value) is type(default)
        if at_default and (style == "sparse" or (style == "mixed" and draw(st.booleans()))):
            continue
        out[key] = value
    return out


def maybe(draw: Draw, values: st.SearchStrategy[Any], none_weight: int = 1) -> Any:
    """A drawn value or ``None`` (about one time in ``none_weight + 1``)."""
    return None if draw(st.integers(0, none_weight)) == 0 else draw(values)
