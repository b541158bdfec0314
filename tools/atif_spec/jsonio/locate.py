"""Where a JSON pointer's value is in the text: byte offsets, then 1-based line and column.

Used only for documents that have findings (a clean document never gets here), over the raw
bytes already in memory. :func:`value_offsets` scans the text once with a regular expression
over strings and brackets, following only the members and items that lead to a wanted pointer
and skipping every other subtree without bookkeeping. It never raises on malformed text (it
returns what it found before the text went wrong) and keeps no recursion: nesting deeper than
``MAX_DEPTH`` stops the scan.

Lines end at LF (``\\n``; a CRLF ends one line, its CR being the line's last character), as
the JSON Lines reader counts them and as SARIF's default ``newlineSequences`` does. Columns
count Unicode code points from the start of the line, the first being 1; a UTF-8 byte order
mark at the start of the text is not counted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from atif_spec.jsonio.pointers import parse_pointer

MAX_DEPTH = 4096
"""Nesting the scan follows at most (the parser refuses more than 1024 levels)."""

BOM = b"\xef\xbb\xbf"

_TOKEN = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[\[\]{},:]|[^\s\[\]{},:"]++', re.DOTALL)
"""A string, a structural character, or a bare literal (number, true, false, null)."""
_BRACKET = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[\[\]{}]', re.DOTALL)
"""What skipping a subtree needs to see: strings (to pass over their brackets) and brackets."""


@dataclass(slots=True)
class _Node:
    """One step of the wanted pointers (a trie over their reference tokens)."""

    children: dict[str, _Node] = field(default_factory=dict)
    offset: int | None = None
    """Where its value starts in the text, once the scan has met it."""


def _trie(pointers: Iterable[str]) -> _Node:
    root = _Node()
    for ptr in pointers:
        node = root
        for token in parse_pointer(ptr):
            node = node.children.setdefault(token, _Node())
    return root


def _key(raw: bytes) -> str:
    """The text of a JSON string token (quotes included)."""
    if b"\\" not in raw:
        return raw[1:-1].decode("utf-8", "replace")
    try:
        text: str = json.loads(raw)
    except ValueError:
        return raw[1:-1].decode("utf-8", "replace")
    return text


@dataclass(slots=True)
class _Frame:
    node: _Node | None
    is_object: bool
    index: int = 0
    key: str | None = None


def _skip(data: bytes, pos: int) -> int:
    """The offset just after the container that opens at ``pos`` (or the end of the text)."""
    depth = 0
    for match in _BRACKET.finditer(data, pos):
        char = data[match.start()]
        if char in b"[{":
            depth += 1
        elif char in b"]}":
            depth -= 1
            if depth == 0:
                return match.end()
    return len(data)


def value_offsets(data: bytes, pointers: Iterable[str]) -> dict[str, int]:
    """The byte offset of the first character of the value at each of ``pointers`` in the JSON
    text ``data``. A pointer whose value is not in the text (a missing member, an index past the
    end) gets the offset of its nearest ancestor that is; every pointer gets one unless the text
    holds no value at all. When a key repeats, the last occurrence counts (as for the parser)."""
    wanted = list(pointers)
    root = _trie(wanted)
    _scan(data, root)
    out: dict[str, int] = {}
    for ptr in wanted:
        node = root  # the trie holds every token of every wanted pointer
        for token in parse_pointer(ptr):
            child = node.children[token]
            if child.offset is None:
                break
            node = child
        if node.offset is not None:
            out[ptr] = node.offset
    return out


def _scan(data: bytes, root: _Node) -> None:
    """Set the offset of every node of the trie whose value the text holds."""
    scan = _Scan(data, root)
    pos = len(BOM) if data.startswith(BOM) else 0
    while pos >= 0:
        match = _TOKEN.search(data, pos)
        pos = -1 if match is None else scan.token(match)


class _Scan:
    """The state of one scan: the open containers and the trie node of the next value."""

    def __init__(self, data: bytes, root: _Node) -> None:
        self.data = data
        self.stack: list[_Frame] = []
        self.node: _Node | None = root  # the trie node of the next value (None: not wanted)

    def token(self, match: re.Match[bytes]) -> int:
        """Take one token; the offset to go on from, or -1 when the scan is over."""
        start, end = match.span()
        char = self.data[start]
        frame = self.stack[-1] if self.stack else None
        if frame is not None and frame.is_object and frame.key is None:
            return self._key(frame, match) if char == _QUOTE else self._close(end)
        if char == _COLON:
            return end
        if char == _COMMA:
            return -1 if frame is None else self._next(frame, end)
        if char in b"]}":
            return self._close(end)
        return self._value(start, end, char)

    def _key(self, frame: _Frame, match: re.Match[bytes]) -> int:
        frame.key = _key(match.group())
        self.node = frame.node.children.get(frame.key) if frame.node else None
        return match.end()

    def _next(self, frame: _Frame, end: int) -> int:
        if frame.is_object:
            frame.key = None
        else:
            frame.index += 1
            self.node = frame.node.children.get(str(frame.index)) if frame.node else None
        return end

    def _close(self, end: int) -> int:
        if not self.stack:
            return -1
        self.stack.pop()
        return end if self.stack else -1

    def _value(self, start: int, end: int, char: int) -> int:
        node = self.node
        if node is not None:  # the first character of a wanted value
            node.offset = start
        if char in b"[{":
            if node is None or not node.children:
                end = _skip(self.data, start)
            elif len(self.stack) >= MAX_DEPTH:
                return -1
            else:
                self.stack.append(_Frame(node, char == _BRACE))
                self.node = node.children.get("0") if char == _BRACKET_OPEN else None
                return end
        return end if self.stack else -1


_QUOTE, _COLON, _COMMA, _BRACE, _BRACKET_OPEN = b'":,{['


def line_column(data: bytes, offset: int) -> tuple[int, int]:
    """The 1-based line and column (Unicode code points) of the byte at ``offset``."""
    return line_columns(data, [offset])[offset]


def line_columns(data: bytes, offsets: Iterable[int]) -> dict[int, tuple[int, int]]:
    """:func:`line_column` of several offsets, counting the lines in one pass over the text."""
    out: dict[int, tuple[int, int]] = {}
    line, last = 1, 0
    bom = len(BOM) if data.startswith(BOM) else 0
    for offset in sorted(set(offsets)):
        line += data.count(b"\n", last, offset)
        last = offset
        begin = max(data.rfind(b"\n", 0, offset) + 1, bom)
        column = len(data[begin:offset].decode("utf-8", "replace")) + 1
        out[offset] = (line, column)
    return out
