"""The stash, version 2 (RFC.md §4.5): what a transform step keeps so that its inverse is exact.

A document holds at most one stash, under the reserved key :data:`STASH_KEY` of its format's one
**holder** object (ATIF: the root ``extra``; v1.0: ``agent.extra``). The stash is a stack of
layers, one per step that left something to undo::

    {"version": 2, "layers": [{"by": "tao@v0.2.0->atif@v1.8", "wrote": [...], "patch": [...]}]}

``wrote`` lists the members of this document that the step put under documented names (named
keys); ``patch`` is an RFC 6902 JSON Patch (``add``, ``remove``, ``replace``, ``test``) that turns
what the inverse step rebuilds from this document into the step's source. This module reads and
writes stashes and computes and applies patches; :mod:`atif_spec.transforms.driver` runs steps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from atif_spec.jsonio.jsonequal import same_json
from atif_spec.jsonio.jsontext import canonical_json, dumps, loads
from atif_spec.jsonio.pointers import escape_token, parse_pointer
from atif_spec.jsonio.pointers import pointer as make_pointer

STASH_KEY = "_atif_stash"
"""The reserved key, inside a document's holder, that holds its stash."""
STASH_VERSION = 2
"""Version of the stash structure written and read by this module."""

Doc = dict[str, Any]
Op = dict[str, Any]
"""One JSON Patch operation: ``{"op", "path", "value"?}``."""
Holder = tuple[str, ...]
"""The object keys from a document's root to its holder: ``("extra",)``."""


class AttributeHolder(tuple[str, ...]):
    """A holder that is one string attribute of an OTLP/JSON document's root span (RFC.md
    §4.5.2): the first span of its first scope with no ``parentSpanId``, attribute ``KEY`` (an
    OTLP ``KeyValue``), the stash as JSON text in ``value.stringValue``. OTLP has no free-form
    object, and a protobuf reader refuses unknown members. The tuple is the pointer tokens of
    that attribute list (the root span first, as the lens writes it), for reports."""

    key = "atif.stash"


_ABSENT: Any = object()

HOLDERS: dict[str, Holder] = {
    "atif": ("extra",),
    "atif@v1.0": ("agent", "extra"),
    "tao": ("metadata",),
    "step-substep": ("extra",),
    "trajectory-sdk": ("telemetry", "data"),
    "atof": ("metadata",),
    "otel": AttributeHolder(("resourceSpans", "0", "scopeSpans", "0", "spans", "0", "attributes")),
}
"""Where each format keeps its stash (RFC.md §4.5.2), by format or ``FORMAT@VERSION``. An ATOF
stream is a list of events with no holder object: no lens writes ATOF, so it never has a stash
(reading one finds none)."""


def holder(target: str) -> Holder:
    """The holder of documents of ``target`` (``FORMAT@VERSION``)."""
    return HOLDERS.get(target) or HOLDERS[target.partition("@")[0]]


class StashError(ValueError):
    """A stash cannot be read or written: the holder is not an object, or its stash key holds
    something that is not a version-2 stash. ``what`` is the finding name to report."""

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


# --- reading and writing the stash ----------------------------------------------------------


def detach(doc: Doc, holder: Holder) -> tuple[Doc, list[Doc]]:
    """``doc`` without its stash, and the stash's layers (oldest first; none when it has none).

    The holder is removed again (or set back to ``null``) when writing the stash created it and
    nothing else is in it. ``doc`` is not modified: the objects on the holder's path are copied.
    Raises :class:`StashError` when the stash key holds something that is not a stash.
    """
    if isinstance(holder, AttributeHolder):
        return _detach_attribute(doc, holder)
    parent = _at(doc, holder[:-1])
    extra = parent.get(holder[-1]) if isinstance(parent, dict) else None
    if not isinstance(extra, dict) or STASH_KEY not in extra:
        return doc, []
    stash = extra[STASH_KEY]
    where = make_pointer(*holder, STASH_KEY)
    if isinstance(stash, dict) and stash.get("version") == 1:
        raise StashError(
            where,
            "this stash was written by an earlier atif-spec (stash version 1), which is not read "
            "any more: convert the source document again",
            "stash-version",
        )
    if not _is_stash(stash):
        raise StashError(where, f"the reserved key {STASH_KEY!r} holds data that is not a stash")
    rest = {k: v for k, v in extra.items() if k != STASH_KEY}
    created = stash.get("created")
    out = _replace(doc, holder, _ABSENT if not rest and created == "absent" else rest)
    if not rest and created == "null":
        out = _replace(doc, holder, None)
    return out, list(stash["layers"])


def attach(doc: Doc, holder: Holder, layers: list[Doc]) -> Doc:
    """``doc`` with ``layers`` as its stash (``doc`` itself when there are none).

    Creates the holder when it is absent or ``null`` (recorded as ``created``). Raises
    :class:`StashError` when the holder, or an object on its path, is not an object, or when
    the holder already has the stash key (a producer's own member).
    """
    if not layers:
        return doc
    if isinstance(holder, AttributeHolder):
        return _attach_attribute(doc, holder, layers)
    parent = _at(doc, holder[:-1])
    if not isinstance(parent, dict):
        raise StashError(make_pointer(*holder[:-1]), "the stash holder's parent is not an object")
    extra = parent.get(holder[-1], _ABSENT)
    stash: Doc = {"version": STASH_VERSION, "layers": layers}
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


def _root_span(doc: Doc) -> tuple[list[Any], int] | None:
    """The span list of the first scope of ``doc``'s first resource, and the index in it of its
    first span with no parent; None when there is none."""
    resources = doc.get("resourceSpans")
    first = resources[0] if isinstance(resources, list) and resources else None
    scopes = first.get("scopeSpans") if isinstance(first, dict) else None
    scope = scopes[0] if isinstance(scopes, list) and scopes else None
    spans = scope.get("spans") if isinstance(scope, dict) else None
    for index, span in enumerate(spans if isinstance(spans, list) else ()):
        if isinstance(span, dict) and not span.get("parentSpanId"):
            return spans, index  # type: ignore[return-value]
    return None


def _with_root_span(doc: Doc, span: Doc) -> Doc:
    """``doc`` with its root span (:func:`_root_span`) replaced by ``span``; the containers on
    the way are copied."""
    found = _root_span(doc)
    assert found is not None
    spans, index = found
    resource = doc["resourceSpans"][0]
    scope = resource["scopeSpans"][0]
    new_spans = [*spans[:index], span, *spans[index + 1 :]]
    new_scope = {**scope, "spans": new_spans}
    new_resource = {**resource, "scopeSpans": [new_scope, *resource["scopeSpans"][1:]]}
    return {**doc, "resourceSpans": [new_resource, *doc["resourceSpans"][1:]]}


def _detach_attribute(doc: Doc, holder: AttributeHolder) -> tuple[Doc, list[Doc]]:
    found = _root_span(doc)
    if found is None:
        return doc, []
    span = found[0][found[1]]
    attributes = span.get("attributes")
    items = attributes if isinstance(attributes, list) else []
    hits = [i for i, kv in enumerate(items) if isinstance(kv, dict) and kv.get("key") == holder.key]
    if not hits:
        return doc, []
    where = make_pointer(*holder, str(hits[0]))
    value = items[hits[0]].get("value")
    text = value.get("stringValue") if isinstance(value, dict) else None
    try:
        stash = loads(text) if isinstance(text, str) else None
    except ValueError:
        stash = None
    if not isinstance(stash, dict) or not _is_stash(stash):
        raise StashError(where, f"the attribute {holder.key!r} holds data that is not a stash")
    rest = [kv for i, kv in enumerate(items) if i != hits[0]]
    out = {k: v for k, v in span.items() if k != "attributes"}
    if rest or stash.get("created") != "absent":
        out["attributes"] = rest
    return _with_root_span(doc, out), list(stash["layers"])


def _attach_attribute(doc: Doc, holder: AttributeHolder, layers: list[Doc]) -> Doc:
    found = _root_span(doc)
    if found is None:
        raise StashError("", "the OTLP document has no root span to hold the stash")
    span = found[0][found[1]]
    attributes = span.get("attributes", _ABSENT)
    stash: Doc = {"version": STASH_VERSION, "layers": layers}
    if attributes is _ABSENT:
        stash["created"] = "absent"
        attributes = []
    if not isinstance(attributes, list):
        raise StashError(make_pointer(*holder), "the root span's attributes are not a list")
    if any(isinstance(kv, dict) and kv.get("key") == holder.key for kv in attributes):
        raise StashError(make_pointer(*holder), f"the root span already has {holder.key!r}")
    text = dumps(stash).decode("utf-8")
    kv = {"key": holder.key, "value": {"stringValue": text}}
    return _with_root_span(doc, {**span, "attributes": [*attributes, kv]})


def _is_stash(value: Any) -> bool:
    if not isinstance(value, dict) or value.get("version") != STASH_VERSION:
        return False
    layers = value.get("layers")
    return isinstance(layers, list) and all(
        isinstance(layer, dict)
        and isinstance(layer.get("by"), str)
        and isinstance(layer.get("wrote", []), list)
        and isinstance(layer.get("patch", []), list)
        for layer in layers
    )


def _at(doc: Any, path: Sequence[str]) -> Any:
    node = doc
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def _replace(doc: Doc, path: Holder, value: Any) -> Doc:
    """``doc`` with the member at ``path`` set to ``value`` (removed for ``_ABSENT``); the
    objects on the path are copied, everything else is shared."""
    out = dict(doc)
    node = out
    for key in path[:-1]:
        node[key] = dict(node[key])
        node = node[key]
    if value is _ABSENT:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = value
    return out


# --- computing a patch ------------------------------------------------------------------------


def diff(source: Any, rebuilt: Any) -> list[Op]:
    """The JSON Patch that turns ``rebuilt`` into ``source`` (the same JSON value, RFC.md §4.6).

    Objects are compared member by member (key order is not data); arrays element by element
    after their common start and end, elements missing or extra at the end of the middle being
    added or removed one by one. Every ``remove`` and ``replace`` follows a ``test`` of the value
    it takes away. Shared objects (``source`` and ``rebuilt`` holding the same object) are equal,
    and a pair of containers found equal is not compared again where it recurs (trajectory-sdk
    snapshots share their messages on both sides).
    """
    ops: list[Op] = []
    _diff(source, rebuilt, "", ops, set())
    return ops


Pairs = set[tuple[int, int]]
"""Identities of the pairs of containers found equal during one :func:`diff`."""


def _diff(s: Any, r: Any, path: str, ops: list[Op], equal: Pairs) -> None:
    if s is r:
        return
    walk: Callable[[Any, Any, str, list[Op], Pairs], None]
    if isinstance(s, dict) and isinstance(r, dict):
        walk = _diff_dict
    elif isinstance(s, list) and isinstance(r, list):
        walk = _diff_list
    else:
        if not _same(s, r):
            ops += [{"op": "test", "path": path, "value": r}, _op("replace", path, s)]
        return
    pair = (id(s), id(r))
    if pair not in equal:
        done = len(ops)
        walk(s, r, path, ops, equal)
        if len(ops) == done:
            equal.add(pair)


def _diff_dict(s: Doc, r: Doc, path: str, ops: list[Op], equal: Pairs) -> None:
    if not r.keys() <= s.keys():
        for key in r:
            if key not in s:
                here = f"{path}/{escape_token(key)}"
                ops += [{"op": "test", "path": here, "value": r[key]}, _op("remove", here)]
    for key, value in s.items():
        other = r.get(key, _ABSENT)
        if other is value:  # shared: equal (most members of a mapped object)
            continue
        here = f"{path}/{escape_token(key)}"
        if other is _ABSENT:
            ops.append(_op("add", here, value))
        else:
            _diff(value, other, here, ops, equal)


def _diff_list(s: list[Any], r: list[Any], path: str, ops: list[Op], equal: Pairs) -> None:
    if len(s) == len(r):  # element by element (what the common start and end leave)
        for i, (a, b) in enumerate(zip(s, r, strict=True)):
            if a is not b:
                _diff(a, b, f"{path}/{i}", ops, equal)
        return
    start = 0
    shortest = min(len(s), len(r))
    while start < shortest and _same(s[start], r[start], equal):
        start += 1
    end = 0
    while end < shortest - start and _same(s[-1 - end], r[-1 - end], equal):
        end += 1
    s_mid, r_mid = len(s) - end, len(r) - end
    paired = start + min(s_mid - start, r_mid - start)
    for i in range(start, paired):
        _diff(s[i], r[i], f"{path}/{i}", ops, equal)
    for i in range(r_mid - 1, paired - 1, -1):
        ops += [{"op": "test", "path": f"{path}/{i}", "value": r[i]}, _op("remove", f"{path}/{i}")]
    for i in range(paired, s_mid):
        ops.append(_op("add", f"{path}/{i}", s[i]))


def _same(a: Any, b: Any, equal: Pairs | None = None) -> bool:
    """Equality of RFC.md §4.6, without the pointers :func:`same_json` builds for its message;
    ``equal`` keeps the pairs of containers found equal (each is compared once)."""
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


def _op(name: str, path: str, value: Any = _ABSENT) -> Op:
    return (
        {"op": name, "path": path}
        if value is _ABSENT
        else {"op": name, "path": path, "value": value}
    )


# --- applying a patch -------------------------------------------------------------------------


def apply(doc: Any, ops: Sequence[Op]) -> tuple[Any, list[Conflict]]:
    """``doc`` with the patch ``ops`` applied, and the operations that were not.

    ``doc`` is not modified: the containers on each changed path are copied once. A ``test``
    that fails skips the operation after it; an operation whose path does not resolve is
    skipped; both are returned as conflicts (the document was edited after the step). A value
    written is shared with the patch, never modified later.
    """
    root = {"": doc}
    copied: set[int] = {id(root)}
    chain = _Chain(root)
    conflicts: list[Conflict] = []
    skip = False
    for op in ops:
        if skip:
            skip = False
            conflicts.append(Conflict(op, "the value it replaces was edited"))
            continue
        try:
            tokens = ["", *parse_pointer(op["path"])]
            parent = chain.writable(tokens[:-1], copied)
            ok = _apply_one(parent, tokens[-1], op)
        except (LookupError, TypeError, ValueError):
            chain = _Chain(root)
            conflicts.append(Conflict(op, "its place is gone"))
            continue
        if not ok:
            skip = True
    return root[""], conflicts


class _Chain:
    """The containers on the path of the last operation's parent, copied: the next operation
    walks on from the deepest one its path shares. An operation changes only a member of the
    last container, so every container of the chain stays in place."""

    def __init__(self, root: Doc) -> None:
        self.tokens: list[str] = []
        self.nodes: list[Any] = [root]

    def writable(self, tokens: list[str], copied: set[int]) -> Any:
        """The container at ``tokens`` below the root, copied (and relinked) where not yet."""
        if tokens == self.tokens:  # the last operation's parent (a test, then its operation)
            return self.nodes[-1]
        shared = 0
        for mine, last in zip(tokens, self.tokens, strict=False):
            if mine != last:
                break
            shared += 1
        del self.tokens[shared:], self.nodes[shared + 1 :]
        node = self.nodes[-1]
        for token in tokens[shared:]:
            key: str | int = token if isinstance(node, dict) else _index(token, len(node), False)
            child = node[key]
            if not isinstance(child, (dict, list)):
                raise LookupError(token)
            if id(child) not in copied:
                child = dict(child) if isinstance(child, dict) else list(child)
                node[key] = child
                copied.add(id(child))
            node = child
            self.tokens.append(token)
            self.nodes.append(node)
        return node


def _apply_one(parent: Any, token: str, op: Op) -> bool:
    """Apply one operation on ``parent``'s member ``token``; False for a failed ``test``."""
    name, value = op.get("op"), op.get("value")
    if name not in ("add", "remove", "replace", "test"):
        raise ValueError(name)
    if isinstance(parent, dict):
        if name == "test":
            return token in parent and _same(parent[token], value)
        if name != "add" and token not in parent:
            raise LookupError(token)
        if name == "remove":
            del parent[token]
        else:
            parent[token] = value
        return True
    if not isinstance(parent, list):
        raise LookupError(token)
    if name == "add":
        parent.insert(_index(token, len(parent), True), value)
        return True
    index = _index(token, len(parent), False)
    if name == "test":
        return _same(parent[index], value)
    if name == "remove":
        del parent[index]
    else:
        parent[index] = value
    return True


def _index(token: str, length: int, adding: bool) -> int:
    if token == "-" and adding:
        return length
    if not token.isdigit() or (len(token) > 1 and token[0] == "0"):
        raise LookupError(token)
    index = int(token)
    if index > length or (index == length and not adding):
        raise LookupError(token)
    return index
