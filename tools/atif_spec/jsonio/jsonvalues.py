"""Reading parsed JSON that may have any shape: typed members, or nothing.

The rules, the migration steps, the lenses and the SFT export all read documents that may be
malformed; they skip what has the wrong type instead of raising, through these helpers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from atif_spec.jsonio.pointers import join


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


def lone_surrogates(value: Any) -> Iterator[tuple[str, str, str]]:
    """``(pointer, "key" or "string", character)`` of each key and string below ``value`` that
    holds a lone surrogate (U+D800..U+DFFF), in document order: no UTF-8 (and so no JSON text)
    can hold one, though a Python string can. The pointer writes such a character ``\\udXXX``,
    so that it stays printable."""
    stack: list[tuple[str, Any, str | None]] = [("", value, None)]
    while stack:
        ptr, node, key_char = stack.pop()
        if key_char is not None:
            yield ptr, "key", key_char
        if isinstance(node, str):
            if (char := _lone_surrogate(node)) is not None:
                yield ptr, "string", char
        elif isinstance(node, dict):
            children: list[tuple[str, Any, str | None]] = []
            for key, child in node.items():
                token = key if isinstance(key, str) else str(key)
                char = _lone_surrogate(token)
                children.append(
                    (join(ptr, token if char is None else _printable(token)), child, char)
                )
            stack.extend(reversed(children))
        elif isinstance(node, list):
            stack.extend((join(ptr, i), node[i], None) for i in reversed(range(len(node))))


def _lone_surrogate(text: str) -> str | None:
    """The first character of ``text`` that UTF-8 cannot encode, or None."""
    if text.isascii():
        return None
    try:
        text.encode()
    except UnicodeEncodeError as exc:
        return text[exc.start]
    return None


def _printable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode()
