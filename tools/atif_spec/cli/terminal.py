"""Text that reaches a terminal: control characters escaped, names quoted, colour optional.

Everything a document or a file name puts into human-readable output goes through
:func:`clean` (or :func:`name` for a path), so that no escape sequence, carriage return or
newline from the input reaches the terminal or forges a line of output. Shared by every
command that prints text (validate, migrate, convert, rules, render, ...).
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from atif_spec.jsonio.textsafety import escape, has_unsafe


def clean(text: str) -> str:
    """``text`` with every unsafe character written as an escape (``\\n``, ``\\x1b``,
    ``\\u202e``; :mod:`atif_spec.jsonio.textsafety`); ordinary text prints unchanged."""
    return escape(text)


def clean_lines(text: str) -> str:
    """Multi-line ``text`` with each line cleaned (its line breaks kept, nothing else)."""
    return "\n".join(clean(line) for line in text.split("\n"))


def name(path: str) -> str:
    """A file name as printed: unchanged when it is plain, else quoted with its control
    characters escaped (``'a\\nb.json'``), so that it cannot pass for other output."""
    if not has_unsafe(path):
        return path
    return "'" + clean(path.replace("\\", "\\\\").replace("'", "\\'")) + "'"


def colour_enabled(stream: TextIO | None = None) -> bool:
    """Whether to colour output to ``stream`` (stdout): a terminal, and ``NO_COLOR`` unset or
    empty (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    target = stream or sys.stdout
    return bool(getattr(target, "isatty", lambda: False)())
