"""msgspec Struct types generated from a JSON Schema: a typed decode that only ever narrows.

:class:`Builder` turns the object definitions of a schema into ``msgspec.Struct`` classes so
that ``msgspec.json.decode(raw, type=...)`` checks a document while it decodes it. The rule is
*narrowing*: whatever the decode accepts, the schema accepts. Every keyword the builder
translates has an exact msgspec counterpart (closed objects, required members, types, string
``const``/``enum``, ``minimum``/``maximum``, ``minLength``/``maxLength``, ``minItems``); a
keyword it does not know makes the build fail with :class:`Unsupported` (the caller then has no
typed decode for that schema), never a looser type.

Where msgspec is stricter than JSON Schema the decode refuses documents the schema accepts
(an integer written ``1.0``, a second Struct type in a union), which is allowed: such documents
take the reference path. Two things msgspec cannot say are handled here too:

- ``allOf`` of ``if``/``then``/``else`` conditionals on the ``const`` of one member (the ATIF
  step's ``source``) split the object into a tagged union of variants, one per value of that
  member; a branch that follows from the variant alone is applied to its fields (a member that
  must be null becomes ``None``), and a branch that also depends on other members is returned
  as a :class:`NullWhen` check for the caller to run on the decoded value;
- *overrides* (JSON pointer → function) let a caller narrow a subschema further, as the screen
  of ``atif_spec.validation.rules.screen`` does; :func:`keep_types` narrows by dropping
  alternatives.
"""

from __future__ import annotations

import copy
import keyword
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

import msgspec

ANNOTATIONS = frozenset(
    {"title", "description", "$comment", "examples", "default", "deprecated", "readOnly"}
)
"""Keywords that constrain nothing."""

DROP: Any = object()
"""What an override returns to leave a member out of its Struct (present → unknown field)."""


class Unsupported(Exception):
    """A schema construct the builder cannot translate exactly (the message says where)."""


@dataclass(frozen=True, slots=True)
class Required:
    """What an override returns to make an optional member required (a narrowing)."""

    type: Any


@dataclass(frozen=True, slots=True)
class NullWhen:
    """On a value of ``struct``: when member ``when`` equals ``value``, each of ``fields`` must
    be None (a conditional the variant alone does not decide)."""

    struct: type
    when: str
    value: Any
    fields: tuple[str, ...]


Override = Callable[["Builder", dict[str, Any], str], Any]


def _attr(name: str) -> str:
    if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
        raise Unsupported(f"member name {name!r} is not a Python identifier")
    return name


def _union(types: list[Any]) -> Any:
    unique: list[Any] = []
    for t in types:
        if t not in unique:
            unique.append(t)
    if not unique:
        raise Unsupported("an empty union")
    return unique[0] if len(unique) == 1 else Union[tuple(unique)]  # noqa: UP007


def _allows_null(node: dict[str, Any]) -> bool:
    kinds = node.get("type")
    if kinds == "null" or (isinstance(kinds, list) and "null" in kinds):
        return True
    return any(_allows_null(m) for m in node.get("anyOf", ()) if isinstance(m, dict))


_Conditional = tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]
"""``(member -> const, then, else)`` of one conditional (see ``Builder._condition``)."""


def _tag(node: dict[str, Any], conditions: list[_Conditional], ptr: str) -> tuple[str, list[str]]:
    """The one member the conditionals test (a required string ``enum``) and its values."""
    tags = {next(iter(c[0])) for c in conditions}
    if len(tags) != 1:
        raise Unsupported(f"{ptr}: conditionals on different members")
    tag_field = tags.pop()
    tag_schema = node["properties"].get(tag_field, {})
    values = tag_schema.get("enum")
    if (
        tag_field not in node.get("required", ())
        or set(tag_schema) - ANNOTATIONS - {"type", "enum"}
        or tag_schema.get("type") != "string"
        or not isinstance(values, list)
        or not all(isinstance(v, str) for v in values)
    ):
        raise Unsupported(f"{ptr}: {tag_field!r} is not a required string enum")
    return tag_field, values


_BY_TYPE = {
    "array": ("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"),
    "string": ("minLength", "maxLength", "pattern", "format"),
    "integer": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "object": ("properties", "required", "additionalProperties", "patternProperties"),
}
"""The keywords that constrain only values of one JSON type."""


def keep_types(node: dict[str, Any], kinds: set[str]) -> dict[str, Any]:
    """``node`` with only the alternatives of a JSON type in ``kinds`` (a narrowing): the
    members of an ``anyOf`` whose ``type`` is outside ``kinds`` and the outside entries of a
    ``type`` list are dropped, with the keywords that only constrained the dropped types."""
    out = copy.deepcopy(node)
    if "anyOf" in out:
        out["anyOf"] = [m for m in out["anyOf"] if isinstance(m, dict) and m.get("type") in kinds]
        if not out["anyOf"]:
            raise Unsupported("keep_types leaves no alternative")
        return out
    kind = out.get("type")
    listed = [kind] if isinstance(kind, str) else list(kind or ())
    kept = [k for k in listed if k in kinds]
    if not kept:
        raise Unsupported("keep_types leaves no type")
    out["type"] = kept[0] if len(kept) == 1 else kept
    for kind in set(listed) - set(kept):
        for word in _BY_TYPE.get(kind, ()):
            if not any(word in _BY_TYPE.get(k, ()) for k in kept):
                out.pop(word, None)
    return out


class Builder:
    """Struct types for the definitions of one schema (see the module docstring)."""

    def __init__(self, schema: dict[str, Any], prefix: str, overrides: Mapping[str, Override]):
        self.schema = schema
        self.defs: dict[str, Any] = schema.get("$defs", {})
        self.prefix = prefix
        self.overrides = overrides
        self.null_when: list[NullWhen] = []
        self._defs_done: dict[str, Any] = {}

    # --- values --------------------------------------------------------------------------------

    def type_of(self, node: Any, ptr: str) -> Any:
        """The msgspec type of the subschema ``node`` found at JSON pointer ``ptr``."""
        override = self.overrides.get(ptr)
        if override is not None:
            return override(self, node, ptr)
        return self.plain_type(node, ptr)

    def plain_type(self, node: Any, ptr: str) -> Any:
        """:meth:`type_of` without looking up an override for ``ptr`` itself."""
        if not isinstance(node, dict):
            raise Unsupported(f"{ptr}: boolean schema")
        keys = set(node) - ANNOTATIONS
        if "$ref" in node:
            ref = node["$ref"]
            if keys != {"$ref"} or not isinstance(ref, str) or not ref.startswith("#/$defs/"):
                raise Unsupported(f"{ptr}: $ref {ref!r} with siblings or outside $defs")
            return self.definition(ref.removeprefix("#/$defs/"))
        if "anyOf" in node:
            if keys != {"anyOf"}:
                raise Unsupported(f"{ptr}: anyOf with siblings {sorted(keys)}")
            return _union(
                [self.type_of(m, f"{ptr}/anyOf/{i}") for i, m in enumerate(node["anyOf"])]
            )
        kinds = node.get("type")
        if kinds is None:
            raise Unsupported(f"{ptr}: no type")
        listed = [kinds] if isinstance(kinds, str) else list(kinds)
        if ("const" in node or "enum" in node) and listed != ["string"]:
            raise Unsupported(f"{ptr}: const/enum beside types other than string")
        used: set[str] = {"type"}
        types = [self._one_type(kind, node, ptr, used) for kind in listed]
        if keys - used:
            raise Unsupported(f"{ptr}: cannot translate {sorted(keys - used)}")
        return _union(types)

    def _one_type(self, kind: str, node: dict[str, Any], ptr: str, used: set[str]) -> Any:
        if kind == "null":
            return None
        if kind == "boolean":
            return bool
        if kind == "string":
            return self._string(node, ptr, used)
        if kind in ("integer", "number"):
            meta = self._meta(node, used, {"minimum": "ge", "maximum": "le"})
            ints = Annotated[int, meta] if meta else int
            if kind == "integer":
                return ints
            return Union[ints, Annotated[float, meta] if meta else float]  # noqa: UP007
        if kind == "array":
            used.add("items")
            items = self.type_of(node.get("items", {}), f"{ptr}/items") if "items" in node else Any
            meta = self._meta(node, used, {"minItems": "min_length", "maxItems": "max_length"})
            return Annotated[list[items], meta] if meta else list[items]  # type: ignore[valid-type]
        if kind == "object":
            if "properties" in node:
                used.update(("properties", "required", "additionalProperties", "allOf"))
                return self.struct(node, ptr, f"{self.prefix}{ptr.rsplit('/', 1)[-1]}")
            if node.get("additionalProperties", True) is not True:
                raise Unsupported(f"{ptr}: additionalProperties without properties")
            used.add("additionalProperties")
            return dict[str, Any]
        raise Unsupported(f"{ptr}: type {kind!r}")

    def _string(self, node: dict[str, Any], ptr: str, used: set[str]) -> Any:
        values: list[Any] | None = None
        if "const" in node:
            values = [node["const"]]
            used.add("const")
        elif "enum" in node:
            values = list(node["enum"])
            used.add("enum")
        if values is not None:
            if not all(isinstance(v, str) for v in values):
                raise Unsupported(f"{ptr}: const/enum of non-strings")
            return Literal[tuple(values)]
        meta = self._meta(node, used, {"minLength": "min_length", "maxLength": "max_length"})
        return Annotated[str, meta] if meta else str

    @staticmethod
    def _meta(node: dict[str, Any], used: set[str], names: dict[str, str]) -> msgspec.Meta | None:
        given = {meta: node[key] for key, meta in names.items() if key in node}
        used.update(names)
        return msgspec.Meta(**given) if given else None

    # --- objects -------------------------------------------------------------------------------

    def definition(self, name: str) -> Any:
        """The type of ``#/$defs/name`` (built once)."""
        if name not in self._defs_done:
            if name not in self.defs:
                raise Unsupported(f"no definition {name!r}")
            self._defs_done[name] = self.type_of(self.defs[name], f"#/$defs/{name}")
        return self._defs_done[name]

    def fields(
        self, node: dict[str, Any], ptr: str, skip: tuple[str, ...] = ()
    ) -> dict[str, tuple[Any, bool]]:
        """``member → (type, required)`` of an object schema, overrides applied."""
        if node.get("additionalProperties") is not False or node.get("type") != "object":
            raise Unsupported(f"{ptr}: not a closed object (additionalProperties: false)")
        required = set(node.get("required", ()))
        props: dict[str, Any] = node.get("properties", {})
        if required - set(props):
            raise Unsupported(f"{ptr}: required members without a property schema")
        out: dict[str, tuple[Any, bool]] = {}
        for name, sub in props.items():
            if name in skip:
                continue
            t = self.type_of(sub, f"{ptr}/properties/{name}")
            if t is DROP:
                continue
            if isinstance(t, Required):
                out[name] = (t.type, True)
            else:
                out[name] = (t, name in required)
        return out

    def make(
        self,
        name: str,
        fields: dict[str, tuple[Any, bool]],
        *,
        tag_field: str | None = None,
        tag: str | None = None,
    ) -> type:
        """A closed Struct; optional members default to None (absent reads as null)."""
        spec: list[Any] = []
        for member, (t, required) in fields.items():
            attr = _attr(member)
            spec.append((attr, t) if required else (attr, t, None))
        # gc=False: a decoded document holds no cycle, so the collector need not track Structs.
        kwargs: dict[str, Any] = {"forbid_unknown_fields": True, "kw_only": True, "gc": False}
        if tag_field is not None:
            kwargs.update(tag_field=tag_field, tag=tag)
        return msgspec.defstruct(name, spec, **kwargs)

    def struct(self, node: dict[str, Any], ptr: str, name: str) -> Any:
        """The Struct (or tagged union of Structs, see :meth:`variants`) of an object schema."""
        keys = set(node) - ANNOTATIONS - {"type", "properties", "required", "additionalProperties"}
        if keys == {"allOf"}:
            return self.variants(node, ptr, name)
        if keys:
            raise Unsupported(f"{ptr}: cannot translate {sorted(keys)}")
        return self.make(name, self.fields(node, ptr))

    def variants(self, node: dict[str, Any], ptr: str, name: str) -> Any:
        """A tagged union for an object whose ``allOf`` holds only conditionals on the
        ``const`` of one required string member with an ``enum`` (the tag)."""
        conditions = [self._condition(c, f"{ptr}/allOf/{i}") for i, c in enumerate(node["allOf"])]
        tag_field, values = _tag(node, conditions, ptr)
        base = self.fields(node, ptr, skip=(tag_field,))
        out: list[type] = []
        for value in values:
            out.append(self._variant(node, ptr, name, base, conditions, tag_field, value))
        return _union(out)

    def _variant(
        self,
        node: dict[str, Any],
        ptr: str,
        name: str,
        base: dict[str, tuple[Any, bool]],
        conditions: list[_Conditional],
        tag_field: str,
        value: str,
    ) -> type:
        """The Struct of one tag value, with the :class:`NullWhen` checks it needs recorded."""
        fields = dict(base)
        runtime: list[tuple[str, Any, tuple[str, ...]]] = []
        for consts, then, otherwise in conditions:
            if consts[tag_field] != value:
                branch: dict[str, Any] | None = otherwise
            elif len(consts) == 1:
                branch = then
            else:
                runtime.append(self._runtime_check(consts, then, otherwise, tag_field, ptr))
                continue
            if branch is not None:
                self._null_fields(node, ptr, fields, branch)
        cls = self.make(f"{name}_{value}", fields, tag_field=tag_field, tag=value)
        for when, const, members in runtime:
            if when not in fields or type(const) is not int:
                raise Unsupported(f"{ptr}: conditional on {when!r}")
            self.null_when.append(NullWhen(cls, when, const, members))
        return cls

    def _runtime_check(
        self,
        consts: dict[str, Any],
        then: dict[str, Any] | None,
        otherwise: dict[str, Any] | None,
        tag_field: str,
        ptr: str,
    ) -> tuple[str, Any, tuple[str, ...]]:
        """``(member, const, null members)`` of a conditional on the tag and one other member."""
        others = {k: v for k, v in consts.items() if k != tag_field}
        if len(others) != 1 or then is None or otherwise is not None:
            raise Unsupported(f"{ptr}: a conditional this builder cannot split")
        ((when, const),) = others.items()
        return when, const, self._null_members(then, ptr)

    def _null_fields(
        self,
        node: dict[str, Any],
        ptr: str,
        fields: dict[str, tuple[Any, bool]],
        branch: dict[str, Any],
    ) -> None:
        """Type as ``None`` each member a branch nulls (it must be optional and allow null)."""
        for member in self._null_members(branch, ptr):
            if member not in fields:
                raise Unsupported(f"{ptr}: a branch names the unknown {member}")
            if fields[member][1] or not _allows_null(node["properties"][member]):
                raise Unsupported(f"{ptr}: {member} must be absent")
            fields[member] = (None, False)

    def _condition(self, node: Any, ptr: str) -> _Conditional:
        """``(member → const, then, else)`` of ``{"if": ..., "then": ..., "else": ...}`` whose
        ``if`` requires each member it names and gives it a ``const``."""
        if not isinstance(node, dict) or set(node) - ANNOTATIONS - {"if", "then", "else"}:
            raise Unsupported(f"{ptr}: not a plain conditional")
        cond = node.get("if")
        if not isinstance(cond, dict) or set(cond) - {"properties", "required"}:
            raise Unsupported(f"{ptr}/if: not a plain const test")
        props = cond.get("properties", {})
        consts: dict[str, Any] = {}
        for member, sub in props.items():
            if not isinstance(sub, dict) or set(sub) != {"const"}:
                raise Unsupported(f"{ptr}/if: {member} is not a const test")
            consts[member] = sub["const"]
        if set(cond.get("required", ())) != set(consts) or not consts:
            raise Unsupported(f"{ptr}/if: tests a member it does not require")
        return consts, node.get("then"), node.get("else")

    def _null_members(self, branch: dict[str, Any], ptr: str) -> tuple[str, ...]:
        """The members a ``then``/``else`` branch sets to ``{"type": "null"}`` (nothing else
        is supported in a branch)."""
        if set(branch) - ANNOTATIONS != {"properties"}:
            raise Unsupported(f"{ptr}: a branch that does more than null members")
        out = []
        for member, sub in branch["properties"].items():
            target = sub
            if isinstance(sub, dict) and set(sub) - ANNOTATIONS == {"$ref"}:
                target = self.defs.get(sub["$ref"].removeprefix("#/$defs/"), {})
            if not isinstance(target, dict) or set(target) - ANNOTATIONS != {"type"}:
                raise Unsupported(f"{ptr}: branch member {member} is not null-only")
            if target["type"] != "null":
                raise Unsupported(f"{ptr}: branch member {member} is not null-only")
            out.append(member)
        return tuple(out)
