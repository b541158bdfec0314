"""Compare two versions of a schema and classify every change by who it breaks.

A change is judged by the documents each schema accepts:

* **breaking for writers**: a document valid under the old schema may be invalid under the new
  one (a field removed from a closed object, a new required field, a narrower type, an enum value
  removed, a tighter constraint). Writers must change more than the version label.
* **breaking for readers**: a document valid under the new schema may be invalid under the old one,
  or carry values an old reader never saw (a closed object gained a field, a required field became
  optional, a wider type, an enum value added, a looser constraint). Old readers cannot take new
  documents as they are.
* **compatible**: neither (documentation, a field added to an open object, a constraint that only
  applies to values the old schema rejected anyway, the version marker itself).

The two schemas are walked in parallel from their roots, through ``$ref`` (local and between
packaged schemas), ``$defs``, ``properties``, ``items``, ``anyOf``/``oneOf`` branches, ``allOf``
and ``if``/``then``/``else``. Each pair of schema locations is compared once, so recursive
schemas terminate and a definition reached by several paths is reported once (at the first path).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urldefrag, urljoin

from atif_spec.jsonio.pointers import join
from atif_spec.jsonio.textsafety import escape
from atif_spec.schemas.catalog import load_catalog, schema_by_id

WRITERS = "writers"
READERS = "readers"

ANNOTATIONS = ("title", "description", "$comment", "examples", "default", "deprecated")
"""Keywords that never change which documents validate."""

_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")
_EXACT = ("pattern", "format", "multipleOf", "contentMediaType", "contentEncoding")

_FAMILY: dict[str, tuple[str, ...]] = {
    "string": (
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "contentMediaType",
        "contentEncoding",
    ),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "array": ("minItems", "maxItems", "uniqueItems", "minContains", "maxContains"),
    "object": ("minProperties", "maxProperties"),
}
_FAMILY["integer"] = _FAMILY["number"]
_ALL_TYPES = frozenset({"null", "boolean", "object", "array", "number", "string", "integer"})

KINDS: dict[str, frozenset[str]] = {
    "field-added": frozenset(),
    "closed-object-gained-field": frozenset({READERS}),
    "field-removed": frozenset({WRITERS}),
    "open-object-lost-field": frozenset({READERS}),
    "required-added": frozenset({WRITERS}),
    "required-removed": frozenset({READERS}),
    "type-widened": frozenset({READERS}),
    "type-narrowed": frozenset({WRITERS}),
    "type-changed": frozenset({WRITERS, READERS}),
    "enum-values-added": frozenset({READERS}),
    "enum-values-removed": frozenset({WRITERS}),
    "enum-values-changed": frozenset({WRITERS, READERS}),
    "constraint-tightened": frozenset({WRITERS}),
    "constraint-loosened": frozenset({READERS}),
    "constraint-changed": frozenset({WRITERS, READERS}),
    "branch-added": frozenset({READERS}),
    "branch-removed": frozenset({WRITERS}),
    "object-closed": frozenset({WRITERS}),
    "object-opened": frozenset({READERS}),
    "conditional-added-for-new-values": frozenset(),
    "conditional-removed-for-old-values": frozenset(),
    "annotation-changed": frozenset(),
    "version-marker": frozenset(),
}
"""Every change kind and whom it breaks (an empty set: compatible)."""


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between the old and the new schema."""

    kind: str
    location: str
    """Where in a document the change applies (a JSON pointer, ``*`` for any array element)."""
    schema_pointer: str
    """Where the change is in the new schema (the old one for removals)."""
    subject: str
    """The field, definition or keyword the change is about (what a changelog names)."""
    message: str

    @property
    def breaks(self) -> frozenset[str]:
        """``{"writers"}``, ``{"readers"}``, both, or empty (compatible)."""
        return KINDS[self.kind]

    @property
    def impact(self) -> str:
        """``breaking-writers``, ``breaking-readers``, ``breaking-both`` or ``compatible``."""
        return _impact(self.breaks)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``atif spec diff --format json``)."""
        return {
            "kind": self.kind,
            "impact": self.impact,
            "location": self.location,
            "schema_pointer": self.schema_pointer,
            "subject": self.subject,
            "message": self.message,
        }


def _impact(breaks: frozenset[str]) -> str:
    if breaks == {WRITERS, READERS}:
        return "breaking-both"
    if breaks == {WRITERS}:
        return "breaking-writers"
    if breaks == {READERS}:
        return "breaking-readers"
    return "compatible"


_IMPACT_TEXT = {
    "breaking-both": "breaking for writers and readers",
    "breaking-writers": "breaking for writers",
    "breaking-readers": "breaking for readers",
    "compatible": "compatible",
}


@dataclass(frozen=True)
class SchemaDiff:
    """All changes from ``old`` to ``new``."""

    old: str
    new: str
    changes: tuple[Change, ...]

    @property
    def breaks(self) -> frozenset[str]:
        """Union of what the changes break."""
        out: frozenset[str] = frozenset()
        for c in self.changes:
            out |= c.breaks
        return out

    @property
    def impact(self) -> str:
        """The overall classification (see :class:`Change.impact`)."""
        return _impact(self.breaks)

    @property
    def classification(self) -> str:
        """The overall classification in words (``breaking for writers and readers``, ...)."""
        return _IMPACT_TEXT[self.impact]

    def significant(self) -> list[Change]:
        """Changes other than documentation and the version marker."""
        return [c for c in self.changes if c.kind not in ("annotation-changed", "version-marker")]

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``atif spec diff --format json``)."""
        return {
            "old": self.old,
            "new": self.new,
            "impact": self.impact,
            "breaking_for_writers": WRITERS in self.breaks,
            "breaking_for_readers": READERS in self.breaks,
            "changes": [c.to_dict() for c in self.changes],
        }

    def render_text(self, *, annotations: bool = True) -> str:
        """Human-readable report: a summary line, then one line per change (the schemas' text
        with its control characters escaped)."""
        lines = [escape(f"{self.old} -> {self.new}: {self.classification}")]
        for c in self.changes:
            if not annotations and c.kind == "annotation-changed":
                continue
            lines.append(escape(f"  {c.impact:<17} {c.kind:<34} {c.location or '/'}  {c.message}"))
        return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- resolution

Loader = Callable[[str], dict[str, Any]]
"""Returns the schema document with a given absolute URI (no fragment)."""


@dataclass(frozen=True, slots=True)
class _Node:
    """A schema value and where it sits: its document's URI and a JSON pointer inside it."""

    uri: str
    pointer: str
    value: Any
    root: Any


def _untoken(text: str) -> str:
    return text.replace("~1", "/").replace("~0", "~")


class BrokenSchemaError(ValueError):
    """A schema given to :func:`diff_schemas` cannot be compared: a ``$ref`` that resolves to
    nothing, or nesting deeper than the walk can follow."""


class _Resolver:
    def __init__(self, loader: Loader | None) -> None:
        self._loader = loader
        self._docs: dict[str, Any] = {}
        self._names: dict[str, str] = {}

    def add(self, uri: str, doc: Any, name: str | None = None) -> None:
        self._docs[uri] = doc
        if name:
            self._names[uri] = name

    def _doc(self, uri: str) -> Any:
        if uri not in self._docs:
            if self._loader is None:
                raise LookupError(f"cannot resolve {uri} (no loader; schemas are never fetched)")
            self._docs[uri] = self._loader(uri)
        return self._docs[uri]

    def ref(self, node: _Node, ref: Any) -> _Node:
        """The node ``ref`` (a ``$ref`` at ``node``) points at; :class:`BrokenSchemaError` when
        there is none."""
        try:
            target = urljoin(node.uri, ref) if node.uri else str(ref)
            uri, fragment = urldefrag(target)
            if not uri:
                uri = node.uri
            doc = node.root if uri == node.uri else self._doc(uri)
            value = doc
            for tok in fragment.split("/")[1:] if fragment else []:
                key = _untoken(tok)
                value = value[int(key)] if isinstance(value, list) else value[key]
        except (LookupError, TypeError, ValueError) as exc:  # UnknownSchemaError is a LookupError
            where = f"{self._names.get(node.uri, node.uri)}#{node.pointer}"
            raise BrokenSchemaError(f"$ref {ref!r} at {where} resolves to nothing") from exc
        return _Node(uri, fragment, value, doc)


def _child(node: _Node, *tokens: str | int) -> _Node:
    value = node.value
    for t in tokens:
        value = value[t]
    return _Node(node.uri, join(node.pointer, *tokens), value, node.root)


# --------------------------------------------------------------------------- the walk


_STRUCTURAL_BESIDE_REF = (
    "type",
    "properties",
    "required",
    "items",
    "anyOf",
    "oneOf",
    "allOf",
    "enum",
    "const",
    "if",
    "not",
    "additionalProperties",
    *_LOWER,
    *_UPPER,
    *_EXACT,
)


def _is_pure_ref(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and "$ref" in value
        and not any(k in value for k in _STRUCTURAL_BESIDE_REF)
    )


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _types_of(value: Any) -> frozenset[str]:
    """JSON types a schema can accept by its ``type``/``const``/``enum`` alone."""
    if value is False:
        return frozenset()
    if not isinstance(value, dict):
        return _ALL_TYPES
    if "type" in value:
        t = value["type"]
        out = frozenset(t if isinstance(t, list) else [t])
        return out | {"integer"} if "number" in out else out
    values = [value["const"]] if "const" in value else value.get("enum")
    if isinstance(values, list):
        return frozenset(_json_type(v) for v in values)
    return _ALL_TYPES


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "integer" if v.is_integer() else "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


def _show(types: frozenset[str] | set[str]) -> str:
    return ", ".join(sorted(types))


@dataclass
class _Walk:
    resolver: _Resolver
    version_field: str | None
    changes: list[Change] = field(default_factory=list)
    seen: set[tuple[str, str, str, str]] = field(default_factory=set)

    # -- helpers ---------------------------------------------------------------------------

    def add(self, kind: str, loc: str, at: _Node, subject: str, message: str) -> None:
        self.changes.append(Change(kind, loc, f"{at.uri}#{at.pointer}", subject, message))

    def deref(self, node: _Node) -> _Node:
        hops = 0
        while _is_pure_ref(node.value) and hops < 64:
            node = self.resolver.ref(node, node.value["$ref"])
            hops += 1
        return node

    def _subject(self, loc: str, fallback: str) -> str:
        last = loc.rsplit("/", 1)[-1] if loc else ""
        return _untoken(last) if last and last != "*" else fallback

    # -- entry -----------------------------------------------------------------------------

    def compare(self, old: _Node, new: _Node, loc: str) -> None:
        if _is_pure_ref(old.value) or _is_pure_ref(new.value):
            self.annotations(old, new, loc)  # annotations beside a $ref
        old, new = self.deref(old), self.deref(new)
        key = (old.uri, old.pointer, new.uri, new.pointer)
        if key in self.seen:
            return
        self.seen.add(key)
        self.annotations(old, new, loc)
        if not isinstance(old.value, dict) or not isinstance(new.value, dict):
            if _canon(old.value) != _canon(new.value):
                ov, nv = old.value, new.value
                kind = (
                    "type-widened"
                    if nv is True
                    else "type-narrowed"
                    if nv is False
                    else "type-widened"
                    if ov is False
                    else "type-narrowed"
                    if ov is True
                    else "type-changed"
                )
                self.add(kind, loc, new, self._subject(loc, "schema"), f"schema {ov} -> {nv}")
            return
        if self.is_version_marker(loc):
            self.version_marker(old, new, loc)
        else:
            self.values(old, new, loc)
        if any(k in old.value or k in new.value for k in ("anyOf", "oneOf")):
            self.alternatives(old, new, loc)
        else:
            self.types(old.value, new.value, loc, new)
            self.keywords(old, new, loc, _types_of(old.value) & _types_of(new.value))
        self.conjuncts(old, new, loc)

    def annotations(self, old: _Node, new: _Node, loc: str) -> None:
        if not isinstance(old.value, dict) or not isinstance(new.value, dict):
            return
        keys = [*ANNOTATIONS, *sorted(k for k in {*old.value, *new.value} if k.startswith("x-"))]
        for k in keys:
            if old.value.get(k) != new.value.get(k) and not (
                k == "description" and self.is_version_marker(loc)
            ):
                self.add(
                    "annotation-changed",
                    loc,
                    new,
                    self._subject(loc, "schema"),
                    f"{k} changed",
                )

    # -- the version marker ----------------------------------------------------------------

    def is_version_marker(self, loc: str) -> bool:
        return bool(self.version_field) and loc.rsplit("/", 1)[-1] == self.version_field

    def version_marker(self, old: _Node, new: _Node, loc: str) -> None:
        ov = _values(old.value)
        nv = _values(new.value)
        if ov != nv:
            self.add(
                "version-marker",
                loc,
                new,
                self.version_field or "version",
                f"declared versions {_show_values(ov)} -> {_show_values(nv)}",
            )

    # -- enum / const ----------------------------------------------------------------------

    def values(self, old: _Node, new: _Node, loc: str) -> None:
        ov, nv = _values(old.value), _values(new.value)
        if ov == nv:
            return
        subject = self._subject(loc, "value")
        if ov is None and nv is not None:
            self.add(
                "constraint-tightened", loc, new, subject, f"values limited to {_show_values(nv)}"
            )
        elif nv is None and ov is not None:
            self.add(
                "constraint-loosened",
                loc,
                new,
                subject,
                f"values {_show_values(ov)} no longer fixed",
            )
        elif ov is not None and nv is not None:
            added, removed = nv - ov, ov - nv
            if added and removed:
                self.add(
                    "enum-values-changed",
                    loc,
                    new,
                    subject,
                    f"values added {_show_values(added)}, removed {_show_values(removed)}",
                )
            elif added:
                self.add(
                    "enum-values-added", loc, new, subject, f"values added {_show_values(added)}"
                )
            else:
                self.add(
                    "enum-values-removed",
                    loc,
                    old,
                    subject,
                    f"values removed {_show_values(removed)}",
                )

    # -- types and alternatives -------------------------------------------------------------

    def types(self, ov: Any, nv: Any, loc: str, at: _Node) -> None:
        valued = any(k in v for k in ("enum", "const") for v in (ov, nv))
        if valued and "type" not in ov and "type" not in nv:
            return  # the value sets were compared already
        self.type_sets(_types_of(ov), _types_of(nv), loc, at)

    def type_sets(self, ot: frozenset[str], nt: frozenset[str], loc: str, at: _Node) -> None:
        added, removed = nt - ot, ot - nt
        subject = self._subject(loc, "type")
        if added and removed:
            self.add(
                "type-changed",
                loc,
                at,
                subject,
                f"types added {_show(added)}, removed {_show(removed)}",
            )
        elif added:
            self.add("type-widened", loc, at, subject, f"now also accepts {_show(added)}")
        elif removed:
            self.add("type-narrowed", loc, at, subject, f"no longer accepts {_show(removed)}")

    def branches(self, node: _Node) -> list[_Node]:
        """The alternatives of a node: its anyOf/oneOf branches (flattened), or itself."""
        key = "anyOf" if "anyOf" in node.value else "oneOf" if "oneOf" in node.value else None
        if key is None:
            declared = node.value.get("type")
            if isinstance(declared, list) and len(declared) > 1:
                # One schema with several types: one alternative per type.
                return [
                    _Node(node.uri, node.pointer, {**node.value, "type": t}, node.root)
                    for t in declared
                ]
            return [node]
        out: list[_Node] = []
        for i in range(len(node.value[key])):
            branch = self.deref(_child(node, key, i))
            if isinstance(branch.value, dict) and (
                "anyOf" in branch.value or "oneOf" in branch.value
            ):
                out.extend(self.branches(branch))
            else:
                out.append(branch)
        return out

    def alternatives(self, old: _Node, new: _Node, loc: str) -> None:
        obs, nbs = self.branches(old), self.branches(new)
        ot = frozenset().union(*(_types_of(b.value) for b in obs)) if obs else frozenset()
        nt = frozenset().union(*(_types_of(b.value) for b in nbs)) if nbs else frozenset()
        self.type_sets(ot, nt, loc, new)
        pairs: list[tuple[_Node, _Node]] = []
        unmatched_new = list(nbs)
        unmatched_old: list[_Node] = []
        for ob in obs:
            match = _best_match(ob, unmatched_new)
            if match is None:
                unmatched_old.append(ob)
            else:
                unmatched_new.remove(match)
                pairs.append((ob, match))
        for ob, nb in pairs:
            if (ob.pointer == old.pointer and ob.uri == old.uri) or (
                nb.pointer == new.pointer and nb.uri == new.uri
            ):
                # One side has no alternatives: compare its keywords for the shared types only.
                shared = _types_of(ob.value) & _types_of(nb.value)
                self.keywords(ob, nb, loc, shared)
            else:
                self.compare(ob, nb, loc)
        subject = self._subject(loc, "value")
        for nb in unmatched_new:
            if _types_of(nb.value) - ot:
                continue  # reported as a wider type
            self.add("branch-added", loc, nb, subject, f"new alternative {_label(nb)}")
        for ob in unmatched_old:
            if _types_of(ob.value) - nt:
                continue  # reported as a narrower type
            self.add("branch-removed", loc, ob, subject, f"alternative {_label(ob)} removed")

    # -- keyword families --------------------------------------------------------------------

    def keywords(self, old: _Node, new: _Node, loc: str, types: frozenset[str]) -> None:
        ov, nv = old.value, new.value
        families: set[str] = set()
        for t in types:
            families.update(_FAMILY.get(t, ()))
        for kw in sorted(families):
            self.bound(kw, ov.get(kw), nv.get(kw), loc, new if kw in nv else old)
        if "object" in types:
            self.objects(old, new, loc)
        if "array" in types:
            self.arrays(old, new, loc)

    def bound(self, kw: str, a: Any, b: Any, loc: str, at: _Node) -> None:
        if a == b:
            return
        subject = self._subject(loc, kw)
        if kw == "uniqueItems":
            tighter = bool(b)
        elif a is None or b is None:
            tighter = a is None
        elif kw in _LOWER:
            tighter = b > a
        elif kw in _UPPER:
            tighter = b < a
        else:
            self.add("constraint-changed", loc, at, subject, f"{kw} {a!r} -> {b!r}")
            return
        kind = "constraint-tightened" if tighter else "constraint-loosened"
        self.add(kind, loc, at, subject, f"{kw} {a!r} -> {b!r}")

    def objects(self, old: _Node, new: _Node, loc: str) -> None:
        ov, nv = old.value, new.value
        oprops: dict[str, Any] = ov.get("properties") or {}
        nprops: dict[str, Any] = nv.get("properties") or {}
        oclosed = _closed(ov)
        nclosed = _closed(nv)
        self._fields_added(new, loc, oprops, nprops, oclosed)
        self._fields_kept_or_removed(old, new, loc, oprops, nprops, nclosed)
        self._required(new, loc, set(ov.get("required") or ()), set(nv.get("required") or ()))
        self._openness(old, new, loc, oclosed, nclosed)

    def _fields_added(
        self, new: _Node, loc: str, oprops: dict[str, Any], nprops: dict[str, Any], oclosed: bool
    ) -> None:
        """Report each property of ``new`` that the old object did not define."""
        for name in nprops:
            if name in oprops:
                continue
            at = _child(new, "properties", name)
            here = join(loc, name)
            if oclosed:
                self.add("closed-object-gained-field", here, at, name, f"new field {name}")
            else:
                self.add("field-added", here, at, name, f"new field {name} (object was open)")

    def _fields_kept_or_removed(
        self,
        old: _Node,
        new: _Node,
        loc: str,
        oprops: dict[str, Any],
        nprops: dict[str, Any],
        nclosed: bool,
    ) -> None:
        """Compare each old property with its new schema, or report it gone."""
        for name in oprops:
            here = join(loc, name)
            if name in nprops:
                self.compare(_child(old, "properties", name), _child(new, "properties", name), here)
            elif nclosed:
                self.add(
                    "field-removed", here, _child(old, "properties", name), name, f"{name} removed"
                )
            else:
                self.add(
                    "open-object-lost-field",
                    here,
                    _child(old, "properties", name),
                    name,
                    f"{name} no longer defined (any value now accepted)",
                )

    def _required(self, new: _Node, loc: str, oreq: set[str], nreq: set[str]) -> None:
        """Report the members that became required, then those that no longer are."""
        for name in sorted(nreq - oreq):
            self.add("required-added", join(loc, name), new, name, f"{name} now required")
        for name in sorted(oreq - nreq):
            self.add("required-removed", join(loc, name), new, name, f"{name} no longer required")

    def _openness(self, old: _Node, new: _Node, loc: str, oclosed: bool, nclosed: bool) -> None:
        """Report an object that opened or closed, or compare its ``additionalProperties``."""
        oap, nap = old.value.get("additionalProperties"), new.value.get("additionalProperties")
        subject = self._subject(loc, "object")
        if oclosed and not nclosed and nap is None:
            self.add("object-opened", loc, new, subject, "unknown fields now accepted")
        elif nclosed and not oclosed and oap is None:
            self.add("object-closed", loc, new, subject, "unknown fields now rejected")
        elif isinstance(oap, (dict, bool)) and isinstance(nap, (dict, bool)) and oap != nap:
            self.compare(
                _child(old, "additionalProperties"), _child(new, "additionalProperties"), f"{loc}/*"
            )

    def arrays(self, old: _Node, new: _Node, loc: str) -> None:
        oi, ni = old.value.get("items"), new.value.get("items")
        here = f"{loc}/*"
        if oi is not None and ni is not None:
            self.compare(_child(old, "items"), _child(new, "items"), here)
        elif ni is not None:
            self.add(
                "constraint-tightened",
                here,
                _child(new, "items"),
                self._subject(loc, "items"),
                "items now constrained",
            )
        elif oi is not None:
            self.add(
                "constraint-loosened",
                here,
                new,
                self._subject(loc, "items"),
                "items no longer constrained",
            )

    # -- conjuncts: $ref beside other keywords, allOf, if/then/else, not ---------------------

    def conjuncts(self, old: _Node, new: _Node, loc: str) -> None:
        oc, nc = self.conjuncts_of(old), self.conjuncts_of(new)
        subject = _owner(new) or self._subject(loc, "object")
        for key, (nnode, label) in nc.items():
            if key in oc:
                onode, _ = oc[key]
                if key.startswith("if:"):
                    self.conditional(onode, nnode, loc)
                else:
                    self.compare(onode, nnode, loc)
            elif key.startswith("if:") and _only_new_values(nnode.value.get("if"), old.value):
                self.add(
                    "conditional-added-for-new-values",
                    loc,
                    nnode,
                    subject,
                    f"new conditional constraint ({label}) applies only to new values",
                )
            else:
                self.add("constraint-tightened", loc, nnode, subject, f"constraint added: {label}")
        for key, (onode, label) in oc.items():
            if key in nc:
                continue
            if key.startswith("if:") and _only_new_values(onode.value.get("if"), new.value):
                self.add(
                    "conditional-removed-for-old-values",
                    loc,
                    onode,
                    subject,
                    f"conditional constraint ({label}) removed with its values",
                )
            else:
                self.add("constraint-loosened", loc, onode, subject, f"constraint removed: {label}")

    def conditional(self, old: _Node, new: _Node, loc: str) -> None:
        for part in ("then", "else"):
            if part in old.value and part in new.value:
                self.compare(_child(old, part), _child(new, part), loc)
            elif part in new.value:
                self.add(
                    "constraint-tightened", loc, new, self._subject(loc, part), f"'{part}' added"
                )
            elif part in old.value:
                self.add(
                    "constraint-loosened", loc, old, self._subject(loc, part), f"'{part}' removed"
                )

    def conjuncts_of(self, node: _Node) -> dict[str, tuple[_Node, str]]:
        """Constraints applied on top of a node's own keywords, keyed so versions can match."""
        out: dict[str, tuple[_Node, str]] = {}
        value = node.value
        if "$ref" in value:
            self._ref_conjunct(
                out, _Node(node.uri, node.pointer, {"$ref": value["$ref"]}, node.root)
            )
        if "if" in value:
            self._if_conjunct(out, node)
        for i, item in enumerate(value.get("allOf") or ()):
            child = _child(node, "allOf", i)
            if _is_pure_ref(item):
                self._ref_conjunct(out, child)
            elif isinstance(item, dict) and "if" in item:
                self._if_conjunct(out, child)
            else:
                out[f"allOf:{_canon(item)}"] = (child, f"allOf[{i}]")
        if "not" in value:
            out[f"not:{_canon(value['not'])}"] = (_child(node, "not"), "not")
        return out

    def _ref_conjunct(self, out: dict[str, tuple[_Node, str]], ref_node: _Node) -> None:
        ref = str(ref_node.value["$ref"])
        name = ref.rsplit("/", 1)[-1] if "/" in ref.partition("#")[2] else "(document root)"
        if ref.partition("#")[0]:
            name = ref
        out[f"ref:{name}"] = (self.resolver.ref(ref_node, ref), name)

    def _if_conjunct(self, out: dict[str, tuple[_Node, str]], node: _Node) -> None:
        cond = node.value["if"]
        field_name = self.version_field
        dispatch = (
            field_name is not None
            and isinstance(cond, dict)
            and set(cond.get("properties", {})) == {field_name}
        )
        if dispatch and isinstance(node.value.get("else"), dict) and "$ref" in node.value["else"]:
            # A dispatch on the version field: the default branch plays the part of a plain $ref.
            self._ref_conjunct(out, _child(node, "else"))
            return
        out[f"if:{_canon(cond)}"] = (node, _describe_if(cond))


def _describe_if(cond: Any) -> str:
    """``if source = "agent" and llm_call_count = 0`` for a simple condition, else its JSON."""
    props = cond.get("properties") if isinstance(cond, dict) else None
    if isinstance(props, dict) and props and set(cond) <= {"properties", "required"}:
        parts = [
            f"{name} = {_canon(sub['const'])}"
            for name, sub in sorted(props.items())
            if isinstance(sub, dict) and "const" in sub
        ]
        if len(parts) == len(props):
            return "if " + " and ".join(parts)
    return "if " + _canon(cond)


def _values(value: Any) -> frozenset[str] | None:
    if not isinstance(value, dict):
        return None
    if "const" in value:
        return frozenset({_canon(value["const"])})
    if isinstance(value.get("enum"), list):
        return frozenset(_canon(v) for v in value["enum"])
    return None


def _show_values(values: frozenset[str] | None) -> str:
    return "any" if values is None else ", ".join(sorted(values))


def _owner(node: _Node) -> str | None:
    """The name of the definition a node belongs to (``SubagentTrajectoryRef``), if any."""
    if node.pointer.startswith("/$defs/"):
        return _untoken(node.pointer.split("/")[2])
    return None


def _closed(value: dict[str, Any]) -> bool:
    return value.get("additionalProperties") is False or value.get("unevaluatedProperties") is False


def _label(node: _Node) -> str:
    v = node.value
    if isinstance(v, dict) and "title" in v:
        return str(v["title"])
    name = node.pointer.rsplit("/", 1)[-1] if node.pointer else ""
    return _untoken(name) if name and not name.isdigit() else _canon(v)[:60]


def _best_match(branch: _Node, candidates: list[_Node]) -> _Node | None:
    """The candidate alternative that stands for the same thing as ``branch``."""
    if not candidates:
        return None

    def name(n: _Node) -> str | None:
        parts = n.pointer.split("/")
        return parts[2] if len(parts) == 3 and parts[1] == "$defs" else None

    for c in candidates:
        if name(branch) is not None and name(c) == name(branch):
            return c
    for c in candidates:
        if _canon(c.value) == _canon(branch.value):
            return c
    types = _types_of(branch.value)
    same = [c for c in candidates if _types_of(c.value) & types]
    if len(same) == 1 and name(same[0]) is None and name(branch) is None:
        return same[0]
    if len(same) == 1 and (name(same[0]) is None) != (name(branch) is None):
        return same[0]
    return None


def _only_new_values(cond: Any, other: Any) -> bool:
    """True when an ``if`` can only match documents the other schema rejects anyway.

    That is the case when the condition pins a property to a ``const`` that the other schema does
    not allow there, or names a property a closed object in the other schema does not define.
    """
    if not isinstance(cond, dict) or not isinstance(other, dict):
        return False
    props = cond.get("properties")
    if not isinstance(props, dict):
        return False
    other_props = other.get("properties") or {}
    for name, sub in props.items():
        if not isinstance(sub, dict) or "const" not in sub:
            continue
        if name not in other_props:
            if _closed(other):
                return True
            continue
        allowed = _values(other_props[name])
        if allowed is not None and _canon(sub["const"]) not in allowed:
            return True
    return False


# --------------------------------------------------------------------------- API


def _default_loader(uri: str) -> dict[str, Any]:

    return schema_by_id(uri)


def diff_schemas(
    old: dict[str, Any],
    new: dict[str, Any],
    *,
    old_name: str | None = None,
    new_name: str | None = None,
    version_field: str | None = None,
    loader: Loader | None = _default_loader,
) -> SchemaDiff:
    """Every change from ``old`` to ``new``, classified.

    ``version_field`` names the property that declares the document's version (``schema_version``
    for ATIF): changes to its allowed values are reported as ``version-marker`` (compatible).
    ``loader`` resolves ``$ref``s to other documents by absolute URI (default: the packaged
    schemas; nothing is fetched). Raises :class:`BrokenSchemaError` for a ``$ref`` that resolves
    to nothing and for schemas nested deeper than Python's recursion limit lets the walk go.
    """
    resolver = _Resolver(loader)
    old_uri = str(old.get("$id", "urn:atif-spec:old")) if isinstance(old, dict) else "urn:old"
    new_uri = str(new.get("$id", "urn:atif-spec:new")) if isinstance(new, dict) else "urn:new"
    if old_uri == new_uri:
        old_uri, new_uri = "urn:atif-spec:old", "urn:atif-spec:new"
        old = {k: v for k, v in old.items() if k != "$id"}
        new = {k: v for k, v in new.items() if k != "$id"}
    resolver.add(old_uri, old, old_name)
    resolver.add(new_uri, new, new_name)
    walk = _Walk(resolver, version_field)
    try:
        walk.compare(_Node(old_uri, "", old, old), _Node(new_uri, "", new, new), "")
    except RecursionError:
        raise BrokenSchemaError(
            "the schemas nest too deeply to compare (beyond Python's recursion limit)"
        ) from None
    return SchemaDiff(
        old=old_name or old_uri,
        new=new_name or new_uri,
        changes=tuple(sorted(_dedupe(walk.changes), key=lambda c: c.location)),
    )


def _dedupe(changes: list[Change]) -> Iterator[Change]:
    seen: set[tuple[str, str, str]] = set()
    for c in changes:
        key = (c.kind, c.location, c.message)
        if key not in seen:
            seen.add(key)
            yield c


def diff_targets(old: str, new: str, name: str | None = None) -> SchemaDiff:
    """Compare the packaged schemas of two targets (``atif@v1.6``, ``atif@v1.7``)."""

    catalog = load_catalog()
    o, n = catalog.find(old, name), catalog.find(new, name)
    info = catalog.formats.get(n.format)
    return diff_schemas(
        schema_by_id(o.id),
        schema_by_id(n.id),
        old_name=o.target,
        new_name=n.target,
        version_field=info.version_field if info else None,
    )
