"""JSON pointers (RFC 6901): built from raw tokens, extended, and split back into tokens."""

from __future__ import annotations

from typing import Any

MISSING: Any = object()
"""What :func:`value_at` gives for a pointer that names no value."""


def escape_token(token: str | int) -> str:
    """Escape one JSON-pointer reference token (RFC 6901)."""
    if isinstance(token, int):
        return str(token)
    return token.replace("~", "~0").replace("/", "~1")


def pointer(*tokens: str | int) -> str:
    """Build a JSON pointer from raw tokens."""
    out = ""
    for token in tokens:
        if isinstance(token, int):
            out += "/" + str(token)
        elif "~" in token or "/" in token:
            out += "/" + token.replace("~", "~0").replace("/", "~1")
        else:
            out += "/" + token
    return out


def join(base: str, *tokens: str | int) -> str:
    """Extend an existing pointer with raw tokens."""
    return base + pointer(*tokens)


def parse_pointer(ptr: str) -> list[str]:
    """The raw reference tokens of an RFC 6901 pointer."""
    if not ptr:
        return []
    if "~" not in ptr:
        return ptr[1:].split("/")
    return [t.replace("~1", "/").replace("~0", "~") for t in ptr[1:].split("/")]


def value_at(doc: Any, pointer: str) -> Any:
    """The value at an RFC 6901 pointer below ``doc``, or :data:`MISSING` when there is none."""
    node = doc
    for token in parse_pointer(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return MISSING
    return node
