"""Turn the schemas' two ways of switching on a tag into discriminated unions with named members.

The canonical schemas choose between shapes by the value of one property, in two spellings:

* **dispatch**: ``if: {properties: {K: {const: C}}}``, ``then: A``, ``else: B`` (possibly an
  ``else`` that dispatches again) beside ``properties: {K: {enum: [...]}}``; v1.8's
  ``EmbeddedSubagent`` validates against v1.7's trajectory or v1.8's by ``schema_version``;
* **cases**: an ``allOf`` of ``if: {properties: {K: {const: V}}}``/``then: T`` entries on an
  object whose ``K`` is required and enumerated; ``ContentPart`` narrows ``text`` and ``source``
  by ``type``.

Left to :func:`atif_spec.codegen.prepare.relax`, both become loose unions or one loose class (and
generators number what they cannot name: ``EmbeddedSubagent1``). Here each such ``$defs`` entry
becomes ``oneOf`` over new ``$defs`` members, one per tag value, named ``<Definition><Value>``
(``EmbeddedSubagentAtifV17``, ``ContentPartText``), each member fixing ``K`` to its ``const``,
plus ``discriminator: {propertyName: K}`` (read by datamodel-code-generator). Every document valid
against the original stays valid against the result. A definition that does not fit the pattern
exactly is left for ``relax``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from atif_spec.codegen import naming
from atif_spec.codegen.prepare import BindingError

Json = Any

_ANNOTATIONS = ("title", "description", "$comment", "examples", "default", "deprecated")
_TAG_KEYS = ("const", "enum", "type")


class UnionError(BindingError):
    """A union member's name collides with an existing definition."""


def _tag_test(cond: Json) -> tuple[str, Json] | None:
    """``(K, C)`` when ``cond`` only tests ``K == C`` (``properties``, maybe ``required``)."""
    if not isinstance(cond, dict) or set(cond) - {"properties", "required", "type"}:
        return None
    props = cond.get("properties")
    if not isinstance(props, dict) or len(props) != 1:
        return None
    ((key, test),) = props.items()
    if cond.get("required", [key]) != [key] or cond.get("type", "object") != "object":
        return None
    if isinstance(test, dict) and set(test) == {"const"}:
        return key, test["const"]
    return None


def _enum(node: dict[str, Json], key: str) -> list[Json] | None:
    prop = node.get("properties", {}).get(key)
    if not isinstance(prop, dict):
        return None
    if "enum" in prop and isinstance(prop["enum"], list):
        return list(prop["enum"])
    if "const" in prop:
        return [prop["const"]]
    return None


def _dispatch_cases(node: dict[str, Json]) -> tuple[str, list[tuple[Json, Json]]] | None:
    """``(K, [(value, target schema), ...])`` of a dispatch node, every tag value covered."""
    key: str | None = None
    cases: list[tuple[Json, Json]] = []
    level: Json = node
    while isinstance(level, dict) and "if" in level:
        test = _tag_test(level["if"])
        if test is None or "then" not in level or (key is not None and test[0] != key):
            return None
        key = test[0]
        cases.append((test[1], level["then"]))
        level = level.get("else")
        if isinstance(level, dict) and "if" in level and set(level) - {"if", "then", "else"}:
            return None
    if key is None:
        return None
    values = _enum(node, key)
    if values is None or any(v not in values for v, _ in cases):
        return None
    rest = [v for v in values if v not in [c for c, _ in cases]]
    if level is None:
        cases += [(v, None) for v in rest]
    elif len(rest) == 1:
        cases.append((rest[0], level))
    else:
        return None
    return key, cases


def _tagged(prop: Json, value: Json) -> dict[str, Json]:
    """The property schema of the tag in one member: its annotations and ``const``."""
    keep = {k: v for k, v in prop.items() if k not in _TAG_KEYS} if isinstance(prop, dict) else {}
    return {**keep, "const": value}


def _member_name(definition: str, value: Json, taken: set[str]) -> str:
    name = naming.class_name(f"{definition}-{str(value).lower()}".replace(".", "-"))
    if name in taken:
        raise UnionError(f"union member {name} of {definition} would shadow a definition")
    return name


def _union(
    definition: str, node: dict[str, Json], key: str, members: dict[str, Json]
) -> dict[str, Json]:
    head = {k: node[k] for k in _ANNOTATIONS if k in node}
    refs = [{"$ref": f"#/$defs/{name}"} for name in members]
    return {**head, "oneOf": refs, "discriminator": {"propertyName": key}}


Resolver = Callable[[str], Json]
"""The schema behind a ``$ref`` (``#``, ``#/$defs/X`` or a catalog ``$id``), or ``None``."""


def _target_properties(target: Json, resolve: Resolver | None) -> dict[str, Json]:
    ref = target.get("$ref") if isinstance(target, dict) else None
    found = resolve(ref) if isinstance(ref, str) and resolve is not None else target
    props = found.get("properties") if isinstance(found, dict) else None
    return props if isinstance(props, dict) else {}


def _dispatch_members(
    definition: str,
    node: dict[str, Json],
    key: str,
    cases: list[tuple[Json, Json]],
    taken: set[str],
    resolve: Resolver | None = None,
) -> dict[str, Json]:
    """One member per case; a property both the member and its target define keeps the
    target's constraints (a generated subclass re-declares the field, losing the base's)."""
    base = {k: v for k, v in node.items() if k not in ("if", "then", "else", "title")}
    members: dict[str, Json] = {}
    for value, target in cases:
        member = dict(base)
        inherited = _target_properties(target, resolve) if target is not None else {}
        props = {
            name: {**inherited[name], **sub}
            if isinstance(inherited.get(name), dict) and isinstance(sub, dict)
            else sub
            for name, sub in base.get("properties", {}).items()
        }
        props[key] = _tagged(base["properties"][key], value)
        member["properties"] = props
        if target is not None:
            member["allOf"] = [target, *base.get("allOf", [])]
        members[_member_name(definition, value, taken)] = member
    return members


def dispatch_unions(schema: Json, documents: dict[str, Json] | None = None) -> Json:
    """Discriminated unions for the ``$defs`` entries that dispatch on a tag (see module doc).

    ``documents`` (catalog ``$id`` → schema) lets a member see the properties of a target in
    another document.
    """
    defs = schema.get("$defs", {}) if isinstance(schema, dict) else {}

    def resolve(ref: str) -> Json:
        if ref == "#":
            return schema
        if ref.startswith("#/$defs/"):
            return defs.get(ref[len("#/$defs/") :])
        return (documents or {}).get(ref)

    def build(
        definition: str,
        node: dict[str, Json],
        key: str,
        cases: list[tuple[Json, Json]],
        taken: set[str],
    ) -> dict[str, Json]:
        return _dispatch_members(definition, node, key, cases, taken, resolve)

    return _rewrite_defs(schema, build, _dispatch_cases)


def _case_entries(node: dict[str, Json]) -> tuple[str, list[tuple[Json, Json]]] | None:
    """``(K, [(value, then), ...])`` of an object whose ``allOf`` narrows it by ``K``."""
    entries = node.get("allOf")
    if not isinstance(entries, list) or not isinstance(node.get("properties"), dict):
        return None
    key: str | None = None
    cases: list[tuple[Json, Json]] = []
    for entry in entries:
        if not isinstance(entry, dict) or "if" not in entry:
            continue
        test = _tag_test(entry["if"])
        if test is None or set(entry) - {"if", "then"} or (key is not None and test[0] != key):
            return None
        key = test[0]
        cases.append((test[1], entry.get("then")))
    if key is None or key not in node.get("required", []):
        return None
    values = _enum(node, key)
    if values is None or any(v not in values for v, _ in cases):
        return None
    by_value = dict(cases)
    return key, [(v, by_value.get(v)) for v in values]


def _narrowed(base: Json, then: Json) -> Json:
    """A property schema inside one member: ``then``'s own when it says what type it is."""
    typed = isinstance(then, dict) and bool(set(then) & {"$ref", "type", "const", "enum", "anyOf"})
    return then if typed else base


def _case_members(
    definition: str,
    node: dict[str, Json],
    key: str,
    cases: list[tuple[Json, Json]],
    taken: set[str],
) -> dict[str, Json]:
    others = [e for e in node["allOf"] if not (isinstance(e, dict) and "if" in e)]
    base = {k: v for k, v in node.items() if k not in ("allOf", "title")}
    members: dict[str, Json] = {}
    for value, then in cases:
        then = then if isinstance(then, dict) else {}
        props = dict(base["properties"])
        for name, sub in then.get("properties", {}).items():
            props[name] = _narrowed(props.get(name, {}), sub) if name in props else sub
        props[key] = _tagged(props[key], value)
        required = [*base.get("required", [])]
        required += [r for r in then.get("required", []) if r not in required]
        rest = {k: v for k, v in then.items() if k not in ("properties", "required")}
        member = {**base, "properties": props, "required": required}
        if others or rest:
            member["allOf"] = [*others, *([rest] if rest else [])]
        members[_member_name(definition, value, taken)] = member
    return members


def case_unions(schema: Json) -> Json:
    """Discriminated unions for the ``$defs`` objects narrowed by a tag (see module doc)."""
    return _rewrite_defs(schema, _case_members, _case_entries)


def _rewrite_defs(schema: Json, build: Any, detect: Any) -> Json:
    defs = schema.get("$defs") if isinstance(schema, dict) else None
    if not isinstance(defs, dict):
        return schema
    out: dict[str, Json] = {}
    taken = set(defs)
    for name, node in defs.items():
        found = detect(node) if isinstance(node, dict) else None
        if found is None:
            out[name] = node
            continue
        key, cases = found
        members = build(name, node, key, cases, taken)
        taken |= set(members)
        out[name] = _union(name, node, key, members)
        out.update(members)
    return {**schema, "$defs": out}
