"""Glob patterns of ``--include``, ``--exclude`` and ``.atifignore`` files (a small part of
gitignore's rules, the same for all three).

A pattern is matched against a path relative to the folder walked (for an ignore file: the
folder holding it), with ``/`` between names:

* ``*`` matches any run of characters but ``/``, ``?`` one character but ``/``, ``[abc]`` one
  of a set; ``**`` matches any number of folders (``**/x.json``, ``a/**``, ``a/**/b``);
* a pattern without ``/`` matches the name of the file or of any folder on its path
  (``config.json``, ``sessions``); one with a ``/`` matches the path from the start (a leading
  ``/`` changes nothing), or a folder on it (``jobs/old`` covers everything below it);
* a trailing ``/`` matches folders only (``artifacts/``).

An ignore file holds one pattern per line; blank lines and lines starting with ``#`` are
skipped. There is no ``!`` (negation): use ``--include``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


class PatternError(ValueError):
    """A pattern that cannot be read (an unclosed ``[``)."""


@dataclass(frozen=True, slots=True)
class Pattern:
    """One compiled pattern."""

    text: str
    regex: re.Pattern[str]
    anchored: bool
    """Has a ``/`` inside: matched against the path from its start."""
    folders_only: bool

    @classmethod
    def parse(cls, text: str) -> Pattern:
        """Compile ``text``; :class:`PatternError` when it cannot be read."""
        body = text.strip()
        folders_only = body.endswith("/")
        body = body.strip("/")
        if not body:
            raise PatternError(f"empty pattern {text!r}")
        return cls(text, re.compile(_regex(body)), "/" in body, folders_only)

    def matches(self, path: str) -> bool:
        """Whether ``path`` (relative, ``/``-separated) or a folder on it matches."""
        parts = path.split("/")
        last = len(parts) if not self.folders_only else len(parts) - 1
        if self.anchored:
            return any(self.regex.fullmatch("/".join(parts[:end])) for end in range(1, last + 1))
        return any(self.regex.fullmatch(part) for part in parts[:last])


def _regex(body: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if body.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = body.find("]", i + 2)
            if end < 0:
                raise PatternError(f"unclosed '[' in pattern {body!r}")
            inner = body[i + 1 : end]
            negate = inner.startswith("!")
            inner = re.sub(r"([\\\]^])", r"\\\1", inner[1:] if negate else inner)
            out.append(f"[{'^' if negate else ''}{inner}]")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def compile_all(texts: Iterable[str]) -> tuple[Pattern, ...]:
    """Compile several patterns."""
    return tuple(Pattern.parse(t) for t in texts)


def any_match(patterns: Iterable[Pattern], path: str) -> bool:
    """Whether one of ``patterns`` matches ``path``."""
    return any(p.matches(path) for p in patterns)


def read_ignore(text: str) -> list[str]:
    """The patterns of an ignore file's text."""
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]
