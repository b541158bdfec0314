"""The stash, version 2 (RFC.md §4.5): what a transform step keeps so that its inverse is exact.

A document holds at most one stash, under :data:`STASH_KEY` of its format's one holder object
(ATIF: the root ``extra``): ``{"version": 2, "layers": [{"by", "wrote", "patch"}]}``, one layer
per step that left something to undo. ``wrote`` lists the named keys the step wrote; ``patch``
is an RFC 6902 JSON Patch (``add``, ``remove``, ``replace``, ``test``) that turns what the
inverse step rebuilds into the step's source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from atif_spec.jsonio.jsonequal import same_json
from atif_spec.jsonio.jsontext import canonical_json, dumps, loads
from atif_spec.jsonio.pointers import escape_token, parse_pointer
from atif_spec.jsonio.pointers import pointer as make_pointer

STASH_KEY = "_atif_stash"
"""The reserved key, inside a document's holder, that holds its stash."""
STASH_VERSION = 2

Doc = dict[str, Any]
Op = dict[str, Any]
"""One JSON Patch operation: ``{"op", "path", "value"?}``."""
Holder = tuple[str, ...]
"""The object keys from a document's root to its holder: ``("extra",)``."""


class AttributeHolder(tuple[str, ...]):
    """The holder of OTLP/JSON (RFC.md §4.5.2), which has no free-form object: the stash as JSON
    text in attribute ``key`` of the root span (the first span of the first scope with no
    ``parentSpanId``). The tuple is the pointer tokens of that attribute list, for reports."""

    key = "atif.stash"


_ABSENT: Any = object()

HOLDERS: dict[str, Holder] = {
    "atif": ("extra",),
    "atif@v1.0": ("agent", "extra"),
    "tao": ("metadata",),
    "step-substep": ("extra",),
    "trajectory-sdk": ("telemetry", "data"),
    "atof": ("metadata",),  # no lens writes ATOF (a list of events): it never has a stash
    "otel": AttributeHolder(("resourceSpans", "0", "scopeSpans", "0", "spans", "0", "attributes")),
}
"""Where each format keeps its stash (RFC.md §4.5.2), by format or ``FORMAT@VERSION``."""


def holder(target: str) -> Holder:
    return HOLDERS.get(target) or HOLDERS[target.partition("@")[0]]


class StashError(ValueError):
    """A stash cannot be read or written; ``what`` is the finding name to report."""

    def __init__(self, pointer: str, message: str, what: str = "stash-collision") -> None:
        super().__init__(message)
        self.pointer = pointer
        self.message = message
        self.what = what


@dataclass(frozen=True, slots=True)
class Conflict:
    """A patch operation not applied, because the document was edited after the step."""

    op: Op
    why: str


def detach(doc: Doc, holder: Holder) -> tuple[Doc, list[Doc]]:
    """``doc`` (not modified) without its stash (and the holder the stash ``created`` when it is
    empty), and the stash's layers; :class:`StashError` when the key holds no stash."""
    if isinstance(holder, AttributeHolder):
        return _detach_attribute(doc, holder)
    extra = _at(doc, holder)
    if not isinstance(extra, dict) or STASH_KEY not in extra:
        return doc, []
    stash, where = extra[STASH_KEY], make_pointer(*holder, STASH_KEY)
    if isinstance(stash, dict) and stash.get("version") == 1:
        old = "this stash was written by an earlier atif-spec (stash version 1), which is not read"
        raise StashError(
            where, f"{old} any more: convert the source document again", "stash-version"
        )
    if not _is_stash(stash):
        raise StashError(where, f"the reserved key {STASH_KEY!r} holds data that is not a stash")
    rest: Any = {k: v for k, v in extra.items() if k != STASH_KEY}
    if not rest and stash.get("created") in ("absent", "null"):
        rest = _ABSENT if stash["created"] == "absent" else None
    return _replace(doc, holder, rest), list(stash["layers"])


def attach(doc: Doc, holder: Holder, layers: list[Doc]) -> Doc:
    """``doc`` with ``layers`` as its stash (none: ``doc`` itself), creating an absent or null
    holder; :class:`StashError` when the holder's path is no object or has a producer's key."""
    if not layers:
        return doc
    stash: Doc = {"version": STASH_VERSION, "layers": layers}
    if isinstance(holder, AttributeHolder):
        return _attach_attribute(doc, holder, stash)
    parent = _at(doc, holder[:-1])
    if not isinstance(parent, dict):
        raise StashError(make_pointer(*holder[:-1]), "the stash holder's parent is not an object")
    extra = parent.get(holder[-1], _ABSENT)
    if extra is _ABSENT or extra is None:
        stash["created"] = "absent" if extra is _ABSENT else "null"
        return _replace(doc, holder, {STASH_KEY: stash})
    if not isinstance(extra, dict):
        raise StashError(make_pointer(*holder), "the stash holder is not an object")
    if STASH_KEY in extra:
        raise StashError(
            make_pointer(*holder, STASH_KEY), f"the document already has a member {STASH_KEY!r}"
        )
    return _replace(doc, holder, {**extra, STASH_KEY: stash})


_SPANS = ("resourceSpans", 0, "scopeSpans", 0, "spans")


def _root_span(doc: Doc) -> tuple[tuple[Any, ...], Doc] | None:
    """The path and the value of the OTLP root span (:class:`AttributeHolder`); None if none."""
    spans = _at(doc, _SPANS)
    for index, span in enumerate(spans if isinstance(spans, list) else ()):
        if isinstance(span, dict) and not span.get("parentSpanId"):
            return (*_SPANS, index), span
    return None


def _detach_attribute(doc: Doc, holder: AttributeHolder) -> tuple[Doc, list[Doc]]:
    found = _root_span(doc)
    items = found[1].get("attributes") if found else None
    items = items if isinstance(items, list) else []
    hits = [i for i, kv in enumerate(items) if isinstance(kv, dict) and kv.get("key") == holder.key]
    if found is None or not hits:
        return doc, []
    text = _at(items[hits[0]], ("value", "stringValue"))
    try:
        stash = loads(text) if isinstance(text, str) else None
    except ValueError:
        stash = None
    if not _is_stash(stash):
        where = make_pointer(*holder, str(hits[0]))
        raise StashError(where, f"the attribute {holder.key!r} holds data that is not a stash")
    rest = [kv for i, kv in enumerate(items) if i != hits[0]]
    span = {k: v for k, v in found[1].items() if k != "attributes"}
    if rest or stash.get("created") != "absent":
        span["attributes"] = rest
    return _replace(doc, found[0], span), list(stash["layers"])


def _attach_attribute(doc: Doc, holder: AttributeHolder, stash: Doc) -> Doc:
    found = _root_span(doc)
    if found is None:
        raise StashError("", "the OTLP document has no root span to hold the stash")
    attributes = found[1].get("attributes", _ABSENT)
    if attributes is _ABSENT:
        stash["created"], attributes = "absent", []
    if not isinstance(attributes, list):
        raise StashError(make_pointer(*holder), "the root span's attributes are not a list")
    if any(isinstance(kv, dict) and kv.get("key") == holder.key for kv in attributes):
        raise StashError(make_pointer(*holder), f"the root span already has {holder.key!r}")
    kv = {"key": holder.key, "value": {"stringValue": dumps(stash).decode("utf-8")}}
    return _replace(doc, found[0], {**found[1], "attributes": [*attributes, kv]})


def _is_stash(value: Any) -> TypeGuard[Doc]:
    ok = isinstance(value, dict) and value.get("version") == STASH_VERSION
    layers = value.get("layers") if ok else None
    return isinstance(layers, list) and all(
        isinstance(x, dict)
        and isinstance(x.get("by"), str)
        and all(isinstance(x.get(key, []), list) for key in ("wrote", "patch"))
        for x in layers
    )


def _at(doc: Any, path: Sequence[Any]) -> Any:
    """The value at ``path`` (object keys, or ints for array items), None where there is none."""
    node = doc
    for key in path:
        if isinstance(key, int):
            node = node[key] if isinstance(node, list) and key < len(node) else None
        else:
            node = node.get(key) if isinstance(node, dict) else None
    return node


def _replace(doc: Doc, path: Sequence[Any], value: Any) -> Doc:
    """``doc`` with the member at ``path`` set (removed for ``_ABSENT``); only the path copied."""
    out = dict(doc)
    node: Any = out
    for key in path[:-1]:
        child = node[key]
        node[key] = node = dict(child) if isinstance(child, dict) else list(child)
    if value is _ABSENT:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = value
    return out


def diff(source: Any, rebuilt: Any, *, rebuilt_whole: bool = False) -> list[Op]:
    """The JSON Patch that turns ``rebuilt`` into ``source`` (the same JSON value, RFC.md §4.6):
    objects member by member, arrays element by element after their common start and end (the
    rest of the middle added or removed at its end); a ``test`` before every ``remove`` and
    ``replace``. Shared members are skipped; with ``rebuilt_whole`` (a lens's output) containers
    are compared in C first and walked only where they differ, and a pair found equal is not
    compared again (trajectory-sdk snapshots share their messages on both sides)."""
    ops: list[Op] = []
    _diff(source, rebuilt, "", ops, set() if rebuilt_whole else None)
    return ops


_Equal = set[tuple[int, int]] | None
"""The pairs of containers found equal, with ``rebuilt_whole``; None: walk without comparing."""


def _diff(s: Any, r: Any, path: str, ops: list[Op], equal: _Equal) -> None:
    kind = type(s)
    if kind is not type(r) or (kind is not dict and kind is not list):
        if not _same(s, r):
            ops += [
                {"op": "test", "path": path, "value": r},
                {"op": "replace", "path": path, "value": s},
            ]
    elif s is not r and (equal is None or not _same(s, r, equal)):
        (_diff_dict if kind is dict else _diff_list)(s, r, path, ops, equal)


def _diff_dict(s: Doc, r: Doc, path: str, ops: list[Op], equal: _Equal) -> None:
    for key in r if not r.keys() <= s.keys() else ():
        if key not in s:
            here = f"{path}/{escape_token(key)}"
            ops += [{"op": "test", "path": here, "value": r[key]}, {"op": "remove", "path": here}]
    for key, value in s.items():
        other = r.get(key, _ABSENT)
        if other is not value:
            # (escaped only where needed: once per member walked)
            here = f"{path}/{key if '~' not in key and '/' not in key else escape_token(key)}"
            if other is _ABSENT:
                ops.append({"op": "add", "path": here, "value": value})
            else:
                _diff(value, other, here, ops, equal)


def _diff_list(s: list[Any], r: list[Any], path: str, ops: list[Op], equal: _Equal) -> None:
    start = end = 0
    shortest = min(len(s), len(r))
    if len(s) != len(r):  # the same length: element by element
        while start < shortest and _same(s[start], r[start], equal):
            start += 1
        while end < shortest - start and _same(s[-1 - end], r[-1 - end], equal):
            end += 1
    s_mid, r_mid = len(s) - end, len(r) - end
    paired = start + min(s_mid - start, r_mid - start)
    for i in [i for i in range(start, paired) if s[i] is not r[i]]:
        _diff(s[i], r[i], f"{path}/{i}", ops, equal)
    for i in range(r_mid - 1, paired - 1, -1):
        ops += [
            {"op": "test", "path": f"{path}/{i}", "value": r[i]},
            {"op": "remove", "path": f"{path}/{i}"},
        ]
    for i in range(paired, s_mid):
        ops.append({"op": "add", "path": f"{path}/{i}", "value": s[i]})


def _same(a: Any, b: Any, equal: set[tuple[int, int]] | None = None) -> bool:
    """Equality of RFC.md §4.6 (:func:`same_json` without its message); ``equal``: pairs of
    containers found equal, each compared once."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict or kind is list:
        if len(a) != len(b):
            return False
        if equal is not None and (id(a), id(b)) in equal:
            return True
        # Python's == (in C) is true for every pair equal by §4.6, and for a few more (true and
        # 1, 1 and 1.0, -0.0 and 0.0), which their canonical texts tell apart
        same = bool(a == b) and canonical_json(a) == canonical_json(b)
        if same and equal is not None:
            equal.add((id(a), id(b)))
        return same
    if kind is float:
        return same_json(a, b)
    return bool(a == b)


def apply(doc: Any, ops: Sequence[Op]) -> tuple[Any, list[Conflict]]:
    """``doc`` (not modified: the containers on each changed path are copied once) with the patch
    applied, and the operations that were not (the document was edited after the step): one
    after a failed ``test``, or whose path does not resolve. Values written are the patch's."""
    root = {"": doc}
    # the copies of the containers on the path of the last operation's parent, and their tokens:
    # an operation changes only a member of the last, so the next walks on from the deepest shared
    nodes: list[Any] = [root]
    chain: list[str] = []
    at = None  # the pointer of the last, when an operation below the root walked there
    conflicts: list[Conflict] = []
    skip = False
    for op in ops:
        if skip:
            skip = False
            conflicts.append(Conflict(op, "the value it replaces was edited"))
            continue
        try:
            parent, slash, token = op["path"].rpartition("/")
            if not slash or parent != at:
                above = ["", *parse_pointer(op["path"])]
                token = above.pop()
                if above != chain:
                    _walk(above, chain, nodes)
                at = parent if slash else None
            elif "~" in token:
                token = parse_pointer(f"/{token}")[0]
            skip = not _apply_one(nodes[-1], token, op)
        except (LookupError, TypeError, ValueError):
            del chain[:], nodes[1:]
            at = None
            conflicts.append(Conflict(op, "its place is gone"))
    return root[""], conflicts


def _walk(tokens: list[str], chain: list[str], nodes: list[Any]) -> None:
    """Move the chain to the container at ``tokens``, copying (and relinking) each container it
    enters (patches list a subtree's operations together: each is entered once)."""
    shared = 0
    for mine, last in zip(tokens, chain, strict=False):
        if mine != last:
            break
        shared += 1
    del chain[shared:], nodes[shared + 1 :]
    node: Any = nodes[-1]
    for token in tokens[shared:]:
        key: str | int = token if isinstance(node, dict) else _index(token, len(node), False)
        child = node[key]
        if not isinstance(child, dict | list):
            raise LookupError(token)
        node[key] = node = child.copy()
        nodes.append(node)
        chain.append(token)


def _apply_one(parent: Any, token: str, op: Op) -> bool:
    """Apply one operation on ``parent``'s member ``token``; False for a failed ``test``."""
    name, value = op.get("op"), op.get("value")
    if name not in ("add", "remove", "replace", "test"):
        raise ValueError(name)
    if isinstance(parent, list):
        key: Any = _index(token, len(parent), name == "add")
    elif isinstance(parent, dict) and (token in parent or name in ("add", "test")):
        key = token
    else:
        raise LookupError(token)
    if name == "test":
        return (isinstance(parent, list) or token in parent) and _same(parent[key], value)
    if name == "remove":
        del parent[key]
    elif name == "add" and isinstance(parent, list):
        parent.insert(key, value)
    else:
        parent[key] = value
    return True


def _index(token: str, length: int, adding: bool) -> int:
    """The array index ``token`` names (RFC 6901: digits without a leading zero, ``-`` the end)."""
    if token.isdigit() and (token[0] != "0" or token == "0"):
        index = int(token)
        if index < length or (adding and index == length):
            return index
    elif adding and token == "-":
        return length
    raise LookupError(token)
