"""The places a document schema defines, read from the schema itself (tests only).

:func:`field_places` walks a document schema (``properties``, ``items``, ``prefixItems``,
through ``$ref`` and every ``anyOf``/``oneOf``/``allOf``/``if``/``then``/``else``/``not``
branch) and lists the instance paths it names, array items folded to ``*``. A ``$ref`` already
followed on the way down (a recursive definition, e.g. an embedded subagent) is not followed
again. :func:`plantings` put a value at such a path in seed documents.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin

from atif_spec.jsonio.pointers import escape_token
from atif_spec.schemas.catalog import node_at

ITEM = "*"
"""The path token of any item of an array."""

FieldPath = tuple[str, ...]

_BRANCHES = ("anyOf", "oneOf", "allOf")
_SINGLE = ("if", "then", "else", "not")


def field_places(schema_id: str) -> list[FieldPath]:
    """Every instance path the schema ``schema_id`` names, parents before children."""
    root = f"{schema_id}#"
    found: dict[FieldPath, None] = {}
    for path in _walk(node_at(schema_id), root, (), frozenset({root}), set()):
        found.setdefault(path, None)
    return list(found)


def _walk(
    node: Any, uri: str, path: FieldPath, followed: frozenset[str], seen: set[tuple[str, FieldPath]]
) -> Iterator[FieldPath]:
    """The paths below ``node`` (at ``uri``, reached at ``path``); ``seen``: nodes walked at
    their path already."""
    if not isinstance(node, dict) or (uri, path) in seen:
        return
    seen.add((uri, path))
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = urljoin(uri, ref)
        target = target if "#" in target else f"{target}#"
        if target not in followed:
            yield from _walk(node_at(target), target, path, followed | {target}, seen)
    for key in _BRANCHES:
        for i, sub in enumerate(node.get(key) or ()):
            yield from _walk(sub, f"{uri}/{key}/{i}", path, followed, seen)
    for key in _SINGLE:
        yield from _walk(node.get(key), f"{uri}/{key}", path, followed, seen)
    children = [
        ((*path, name), sub, f"{uri}/properties/{escape_token(name)}")
        for name, sub in (node.get("properties") or {}).items()
    ]
    children += [
        ((*path, ITEM), sub, f"{uri}/prefixItems/{i}")
        for i, sub in enumerate(node.get("prefixItems") or ())
    ]
    if isinstance(node.get("items"), dict):
        children.append(((*path, ITEM), node["items"], f"{uri}/items"))
    for here, sub, where in children:
        yield here
        yield from _walk(sub, where, here, followed, seen)


def plantings(seeds: list[Any], path: FieldPath, value: Any) -> Iterator[tuple[Any, str, str]]:
    """Copies of the seeds with ``value`` at ``path``: ``(document, pointer of the value,
    pointer of the deepest seed value kept above it)``. First one per place of each seed that
    holds the parent of ``path`` (``*``: any item; the third pointer is then the parent's), then
    the seed that holds most of the path, with the missing objects and arrays made below it
    (as empty as the path allows)."""
    for seed in seeds:
        for where in _holders(seed, path):
            yield _put(seed, where, value), _pointer(where), _pointer(where[:-1])
    reach, seed = max(((_reach(seed, path), seed) for seed in seeds), key=lambda r: len(r[0]))
    where = reach + tuple(0 if token == ITEM else token for token in path[len(reach) :])
    yield _put(seed, where, value), _pointer(where), _pointer(reach)


def _pointer(keys: tuple[str | int, ...]) -> str:
    return "".join(f"/{escape_token(k)}" for k in keys)


def _holders(node: Any, path: FieldPath) -> Iterator[tuple[str | int, ...]]:
    """The concrete paths (keys and indices) of ``path`` whose parent ``node`` holds."""
    token, rest = path[0], path[1:]
    if token == ITEM:
        keys: list[str | int] = list(range(len(node))) if isinstance(node, list) else []
    else:
        keys = [token] if isinstance(node, dict) and (token in node or not rest) else []
    for key in keys:
        if not rest:
            yield (key,)
        else:
            for tail in _holders(node[key], rest):
                yield (key, *tail)


def _reach(node: Any, path: FieldPath) -> tuple[str | int, ...]:
    """The longest concrete beginning of ``path`` that ``node`` holds."""
    if not path:
        return ()
    token = path[0]
    if token == ITEM:
        keys: list[str | int] = list(range(len(node))) if isinstance(node, list) else []
    else:
        keys = [token] if isinstance(node, dict) and token in node else []
    best: tuple[str | int, ...] = ()
    for key in keys:
        found = (key, *_reach(node[key], path[1:]))
        if len(found) > len(best):
            best = found
    return best


def _put(node: Any, keys: tuple[str | int, ...], value: Any) -> Any:
    """``node`` with ``value`` at ``keys``, copying only the containers on the way (and making
    those that are missing or of the wrong type)."""
    if not keys:
        return value
    key, rest = keys[0], keys[1:]
    if isinstance(key, int):
        items = list(node) if isinstance(node, list) else []
        child = items[key] if key < len(items) else None
        items[key : key + 1] = [_put(child, rest, value)]
        return items
    obj = dict(node) if isinstance(node, dict) else {}
    obj[key] = _put(obj.get(key), rest, value)
    return obj
