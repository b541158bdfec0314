"""Reading parsed JSON that may have any shape: typed members, or nothing.

The rules, the migration steps, the lenses and the SFT export all read documents that may be
malformed; they skip what has the wrong type instead of raising, through these helpers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def objects(value: Any) -> Iterator[dict[str, Any]]:
    """The object items of a list (anything else yields nothing)."""
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                yield item


def dicts(value: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(index, item)`` for the object items of a list (anything else yields nothing)."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, dict):
                yield i, item


def list_member(node: Any, key: str) -> list[Any]:
    """``node[key]`` when ``node`` is an object and the member a list; else an empty list."""
    if isinstance(node, dict):
        member = node.get(key)
        if isinstance(member, list):
            return member
    return []


def dict_member(node: Any, key: str) -> dict[str, Any] | None:
    """``node[key]`` when ``node`` is an object and the member an object too; else None."""
    if isinstance(node, dict):
        member = node.get(key)
        if isinstance(member, dict):
            return member
    return None


def json_int(value: Any) -> int | None:
    """``value`` when it is an int (``True`` is not one); else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def text_of(parts: Any) -> str:
    """The text parts of a content-part list joined by newlines (media and the rest dropped)."""
    return "\n".join(
        text
        for part in objects(parts)
        if part.get("type") == "text" and isinstance(text := part.get("text"), str)
    )


def plain_text(message: Any) -> str:
    """The text of a message: the string itself, or its text parts joined by newlines."""
    return message if isinstance(message, str) else text_of(message)
