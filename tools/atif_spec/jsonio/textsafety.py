"""Text from documents made safe to print: control and format characters written as escapes.

One definition for every human-readable output (``atif render``'s timelines, and every text the
command line prints through :mod:`atif_spec.cli.terminal`): C0 and C1 controls, DEL, line and
paragraph separators, and format characters (bidirectional overrides and isolates, soft hyphens,
zero-width spaces, byte order marks; the zero-width joiner of emoji sequences excepted) never
reach a terminal as themselves, so document text cannot move the cursor, recolour the screen,
reorder what is shown or forge a line of output.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

_PLAIN = re.compile(r"[\x20-\x7e]*")
"""Printable ASCII: text made only of it is returned unchanged without a character loop."""
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ZERO_WIDTH_JOINER = "\u200d"


def unsafe(char: str) -> bool:
    """Whether ``char`` must not reach a terminal as itself."""
    category = unicodedata.category(char)
    return category in ("Cc", "Zl", "Zp") or (category == "Cf" and char != _ZERO_WIDTH_JOINER)


def has_unsafe(text: str) -> bool:
    """Whether ``text`` holds a character :func:`escape` would rewrite."""
    return _PLAIN.fullmatch(text) is None and any(unsafe(c) for c in text)


def escape(text: str, *, keep: Collection[str] = ()) -> str:
    """``text`` with every unsafe character (but those in ``keep``) written as an escape:
    ``\\n``, ``\\r``, ``\\t``, else ``\\xNN`` or ``\\uNNNN``; backslashes are left alone, so
    ordinary text prints unchanged."""
    if _PLAIN.fullmatch(text) is not None:
        return text
    out: list[str] = []
    for char in text:
        if char in keep or not unsafe(char):
            out.append(char)
        elif char in _NAMED:
            out.append(_NAMED[char])
        else:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")
    return "".join(out)
