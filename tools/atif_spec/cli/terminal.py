"""Text that reaches a terminal: control characters escaped, names quoted, colour optional.

Everything a document or a file name puts into human-readable output goes through
:func:`clean` (or :func:`name` for a path), so that no escape sequence, carriage return or
newline from the input reaches the terminal or forges a line of output. Shared by every
command that prints text (validate, migrate, convert, rules, render, ...).
"""

from __future__ import annotations

import os
import re
import sys
from typing import TextIO

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""C0 and C1 controls, DEL, line/paragraph separators and bidirectional overrides."""
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def clean(text: str) -> str:
    """``text`` with every control character written as an escape (``\\n``, ``\\e``, ``\\x07``);
    backslashes are left alone, so ordinary text prints unchanged."""
    return _CONTROL.sub(_escape, text)


def clean_lines(text: str) -> str:
    """Multi-line ``text`` with each line cleaned (its line breaks kept, nothing else)."""
    return "\n".join(clean(line) for line in text.split("\n"))


def name(path: str) -> str:
    """A file name as printed: unchanged when it is plain, else quoted with its control
    characters escaped (``'a\\nb.json'``), so that it cannot pass for other output."""
    if not _CONTROL.search(path):
        return path
    return "'" + clean(path.replace("\\", "\\\\").replace("'", "\\'")) + "'"


def colour_enabled(stream: TextIO | None = None) -> bool:
    """Whether to colour output to ``stream`` (stdout): a terminal, and ``NO_COLOR`` unset or
    empty (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    target = stream or sys.stdout
    return bool(getattr(target, "isatty", lambda: False)())
