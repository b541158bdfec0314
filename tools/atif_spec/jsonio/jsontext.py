"""JSON text in and out without losing digits: orjson, and the standard library where it is not
enough.

orjson parses an integer beyond the 64-bit range (below -2**63 or above 2**64-1) as a float and
refuses to serialize one, and refuses documents nested deeper than 255 levels. :func:`loads`
re-parses with :mod:`json` when the text holds an integer literal that long, so ``10**30`` stays
an ``int`` with all its digits; :func:`dumps` falls back to :mod:`json` for big integers and deep
nesting. Both raise :class:`ValueError` (``orjson.JSONDecodeError`` is one) on bad text and
:class:`RecursionError` when even the standard library cannot go that deep.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_DIGITS_TO_ZERO = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))
"""A ``bytes.translate`` table: ASCII digits become ``0``, every other byte a space."""
_LONG_INTEGER = b"0" * 19
"""Nineteen digits in a row: the shortest literal that can fall outside 64 bits (2**63 has 19).
Searched in the translated text, which is many times faster than a regular expression
on digit-rich documents (the regex tries a match at every digit)."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(data: bytes | str) -> Any:
    """Parse JSON text (orjson), keeping the exact value of integers beyond 64 bits."""
    value = orjson.loads(data)
    raw = data.encode() if isinstance(data, str) else data
    if _LONG_INTEGER not in raw.translate(_DIGITS_TO_ZERO):
        return value
    return json.loads(raw, parse_constant=_reject_constant)


def dumps(value: Any, *, indent: bool = False, sort_keys: bool = False) -> bytes:
    """Serialize a JSON value (orjson; :mod:`json` for big integers or deep nesting)."""
    option = (orjson.OPT_INDENT_2 if indent else 0) | (orjson.OPT_SORT_KEYS if sort_keys else 0)
    try:
        return orjson.dumps(value, option=option)
    except TypeError:
        text = json.dumps(
            value,
            ensure_ascii=False,
            indent=2 if indent else None,
            separators=None if indent else (",", ":"),
            sort_keys=sort_keys,
        )
        return text.encode()


def canonical_json(value: Any) -> bytes:
    """Compact JSON with sorted keys: equal bytes exactly for values equal by RFC.md §4.6
    (``atif_spec.jsonio.jsonequal``), so it serves as a hashable key or a fingerprint of one."""
    return dumps(value, sort_keys=True)
