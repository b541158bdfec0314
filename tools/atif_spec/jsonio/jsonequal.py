"""Equality of JSON values (RFC.md §4.6): the same tree, whatever the key order.

Two parsed JSON values (as :func:`atif_spec.jsonio.jsontext.loads` returns them) are equal when
they have the same kind (null, boolean, integer, non-integer number, string, array, object) and:
objects have the same keys with equal members, in any order; arrays have equal items in the same
order; strings the same characters; integers the same value at any size; non-integer numbers the
same IEEE 754 binary64 value (``-0.0`` and ``0.0`` apart). So ``true`` is never ``1``, ``1`` is
never ``1.0`` and ``100`` never ``1e2``, unlike Python's ``==``; ``1e2`` is ``100.0`` and ``1.50``
is ``1.5``. :func:`atif_spec.jsonio.jsontext.canonical_json` writes equal values as equal bytes
and unequal values as different bytes.
"""

from __future__ import annotations

import math
from typing import Any

from atif_spec.jsonio import jsontext
from atif_spec.jsonio.pointers import join

_KINDS: dict[type, str] = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "non-integer number",
    str: "string",
    list: "array",
    dict: "object",
}
_PLAIN = frozenset({type(None), bool, int, str})
"""Scalar kinds whose values are equal exactly when Python's ``==`` says so (not floats: -0.0)."""


def same_json(a: Any, b: Any) -> bool:
    """Whether two parsed JSON values are equal by RFC.md §4.6."""
    kind = type(a)
    if kind is type(b) and kind in _PLAIN:  # the usual scalars, without a walk
        return bool(a == b)
    return difference(a, b) is None


def same_json_text(a: bytes | str, b: bytes | str) -> bool:
    """Whether two JSON texts hold equal values by RFC.md §4.6 (parsed with
    :func:`atif_spec.jsonio.jsontext.loads`, so integers keep every digit); raises
    :class:`ValueError` on text that is not JSON."""
    return same_json(jsontext.loads(a), jsontext.loads(b))


def difference(a: Any, b: Any) -> str | None:
    """Where two parsed JSON values first differ by RFC.md §4.6, as ``"<pointer>: <what>"``
    (``(root)`` for the whole value); None when they are equal. An object's missing and added
    keys are named before anything below it; raises :class:`TypeError` on a value that is not
    parsed JSON."""
    stack: list[tuple[str, Any, Any]] = [("", a, b)]
    while stack:
        where, x, y = stack.pop()
        kind = _kind(x)
        if kind != _kind(y) or (kind not in ("array", "object") and not _same_scalar(x, y)):
            return f"{where or '(root)'}: {_show(x)} became {_show(y)}"
        if kind == "object":
            found = _keys_apart(where, x, y)
            if found is not None:
                return found
            stack.extend((join(where, k), x[k], y[k]) for k in reversed(list(x)))
        elif kind == "array":
            if len(x) != len(y):
                return f"{where or '(root)'}: {len(x)} items became {len(y)}"
            stack.extend((join(where, i), x[i], y[i]) for i in reversed(range(len(x))))
    return None


def _kind(value: Any) -> str:
    kind = _KINDS.get(type(value))
    if kind is None:
        raise TypeError(f"not a parsed JSON value: {type(value).__name__}")
    return kind


def _same_scalar(x: Any, y: Any) -> bool:
    """Two values of the same scalar kind: a float by its binary64 value and sign."""
    if isinstance(x, float):
        return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)
    return bool(x == y)


def _keys_apart(where: str, x: dict[str, Any], y: dict[str, Any]) -> str | None:
    for key in x:
        if key not in y:
            return f"{join(where, key)}: dropped"
    for key in y:
        if key not in x:
            return f"{join(where, key)}: added"
    return None


def _show(value: Any) -> str:
    return jsontext.dumps(value).decode()[:60]
