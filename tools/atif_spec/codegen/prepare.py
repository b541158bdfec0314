"""Turn a canonical schema into the copy a code generator is given.

The canonical schemas say more than a type system can: ``if``/``then``/``else`` conditionals,
"at least one of" rules, helper definitions that only forbid a field in some context, and
references to other versions by ``$id``. The generators either ignore such keywords or turn them
into odd classes, so the copy they read is *relaxed* first (every document valid against the
original stays valid against the copy):

* ``if``/``then``/``else`` becomes ``anyOf: [then, else]`` when both branches exist and is dropped
  otherwise;
* a closed object (``additionalProperties: false`` beside ``properties``) loses the applicators
  beside its properties (``allOf``, ``anyOf``, ``oneOf``, ``not``, ``$ref``): they can only narrow
  the properties it already lists;
* definitions that only those dropped keywords used are removed.

Tag switches become discriminated unions before that (:mod:`atif_spec.codegen.unions`). For
Python, numbers are then typed as JSON Schema reads them (:func:`python_numbers`): ``1`` and
``1.0`` stay apart and an integral ``1.0`` stays valid for an integer.

Where something was relaxed, the object's description says so: for TypeScript, that the types
do not check it (use ``atif_spec.validate``); for Python, that the model checks it against the
schema definition anyway (:mod:`atif_spec.codegen.schema_binding`). References to other catalog
documents are then bound per language (:func:`for_python`, :func:`for_typescript`) so no
generator ever resolves a URL.
"""

from __future__ import annotations

import copy
import posixpath
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urldefrag, urljoin

from atif_spec.codegen import naming

RELAXED_NOTE = (
    "Generated binding: the schema's conditional and cross-field rules are not checked by this "
    "model; use `atif_spec.validate` for full validation."
)
CHECKED_NOTE = (
    "Generated binding: the schema's conditional and cross-field rules, which the field types "
    "cannot express, are checked against this definition of the schema when the model is "
    "validated; `atif_spec.validate` adds the spec's rules beyond the schema."
)
"""The note of the Python models, which check their definitions (:mod:`.schema_binding`)."""

_SCHEMA_KEYS = (
    "additionalProperties",
    "contains",
    "else",
    "if",
    "items",
    "not",
    "propertyNames",
    "then",
    "unevaluatedItems",
    "unevaluatedProperties",
)
_SCHEMA_LIST_KEYS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_MAP_KEYS = ("$defs", "definitions", "dependentSchemas", "patternProperties", "properties")
_NARROWING_KEYS = ("allOf", "anyOf", "oneOf", "not", "$ref")
_TYPING_KEYS = frozenset(
    {"$ref", "allOf", "anyOf", "const", "enum", "items", "not", "oneOf", "prefixItems"}
    | {"properties", "additionalProperties", "patternProperties", "tsType", "type"}
)
_ANNOTATIONS = ("$comment", "default", "deprecated", "description", "examples", "title")

Json = Any


class BindingError(ValueError):
    """A schema uses something the bindings cannot be generated from."""


@dataclass(frozen=True, slots=True)
class Document:
    """One document schema of the catalog, as the generator sees it."""

    format: str
    version: str
    name: str
    id: str
    path: str
    """Path below ``spec/``."""
    primary: bool = True

    @property
    def module(self) -> str:
        """Dotted import path of the Python module."""
        return naming.module_path(self.format, self.version, self.name, primary=self.primary)

    @property
    def python_file(self) -> str:
        """Path of the Python module below ``generated/python``."""
        stem = naming.module_stem(self.version, self.name, primary=self.primary)
        return f"{naming.module_token(self.format)}/{stem}.py"

    @property
    def typescript_file(self) -> str:
        """Path of the declaration file below ``generated/typescript``."""
        return f"{self.format}/{self.version}/{self.name}.d.ts"

    @property
    def root_class(self) -> str:
        """Name of the root model / type."""
        return naming.class_name(self.name)


def map_subschemas(node: Json, fn: Callable[[Json], Json]) -> Json:
    """A shallow copy of ``node`` with ``fn`` applied to each direct subschema."""
    if not isinstance(node, dict):
        return node
    out = dict(node)
    for key in _SCHEMA_KEYS:
        if isinstance(out.get(key), dict):
            out[key] = fn(out[key])
    for key in _SCHEMA_LIST_KEYS:
        if isinstance(out.get(key), list):
            out[key] = [fn(s) for s in out[key]]
    for key in _SCHEMA_MAP_KEYS:
        if isinstance(out.get(key), dict):
            out[key] = {k: fn(s) for k, s in out[key].items()}
    return out


def subschemas(node: Json) -> list[Json]:
    """The direct subschemas of ``node``."""
    found: list[Json] = []

    def keep(sub: Json) -> Json:
        found.append(sub)
        return sub

    map_subschemas(node, keep)
    return found


def walk(node: Json) -> Iterator[dict[str, Json]]:
    """Every schema object in ``node`` (itself included), depth first."""
    if not isinstance(node, dict):
        return
    yield node
    for sub in subschemas(node):
        yield from walk(sub)


INTEGER = "JsonInteger"
"""Python type of a JSON Schema integer (:data:`atif_spec.bindings.models_base.JsonInteger`)."""

INTEGER_IMPORT = {"x-python-import": {"module": "atif_spec.bindings.models_base", "name": INTEGER}}

_PYTHON_SCALARS = {"integer": INTEGER, "null": "None"}


def python_numbers(node: Json) -> tuple[Json, bool]:
    """Type numbers as JSON Schema reads them, for the Python models; ``(schema, integers used)``.

    A ``number`` may be written ``1``, so it also lists ``integer`` (``int | float``, and ``1``
    stays an ``int``). An ``integer`` (alone or with ``null``) is typed
    :data:`atif_spec.bindings.models_base.JsonInteger` through ``x-python-type``: an ``int`` to type
    checkers that also accepts an integral ``1.0`` and writes it back as ``1.0``.
    """
    used = False

    def visit(sub: Json) -> Json:
        nonlocal used
        sub = map_subschemas(sub, visit)
        if not isinstance(sub, dict):
            return sub
        kind = sub.get("type")
        kinds = [kind] if isinstance(kind, str) else kind
        if not isinstance(kinds, list):
            return sub
        if "number" in kinds and "integer" not in kinds:
            at = kinds.index("number")
            sub["type"] = [*kinds[:at], "integer", *kinds[at:]]
        elif (
            "integer" in kinds
            and set(kinds) <= set(_PYTHON_SCALARS)
            and not {"enum", "const", "x-python-type"} & set(sub)
        ):
            sub["x-python-type"] = " | ".join(_PYTHON_SCALARS[k] for k in kinds)
            used = True
        return sub

    return visit(node), used


NEVER_NULL = "x-never-null"
"""Mark of an optional property whose schema refuses null (see :func:`never_null`)."""


def _admits_null(node: Json, defs: dict[str, Json], seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``node`` may accept ``null``; ``True`` when that cannot be told (no mark then)."""
    if not isinstance(node, dict):
        return node is not False
    if "type" in node:
        kinds = node["type"] if isinstance(node["type"], list) else [node["type"]]
        return "null" in kinds
    if "const" in node:
        return node["const"] is None
    if isinstance(node.get("enum"), list):
        return None in node["enum"]
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref[len("#/$defs/") :]
        return name in seen or name not in defs or _admits_null(defs[name], defs, seen | {name})
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list):
            return any(_admits_null(b, defs, seen) for b in node[key])
    if isinstance(node.get("allOf"), list) and node["allOf"]:
        return all(_admits_null(b, defs, seen) for b in node["allOf"])
    return True


def never_null(schema: Json) -> Json:
    """Mark optional properties without a default whose schema refuses ``null``.

    The models type an optional field ``X | None`` (``None`` = absent), which would also accept
    an explicit ``null``; :class:`atif_spec.bindings.models_base.StrictModel` refuses ``null`` for
    the fields that carry this mark (``json_schema_extra``, through ``field-extra-keys``).
    """
    defs = schema.get("$defs", {}) if isinstance(schema, dict) else {}

    def visit(node: Json) -> Json:
        node = map_subschemas(node, visit)
        props = node.get("properties") if isinstance(node, dict) else None
        if isinstance(props, dict):
            required = set(node.get("required", []))
            for name, sub in props.items():
                if name in required or not isinstance(sub, dict) or "default" in sub:
                    continue
                if not _admits_null(sub, defs):
                    props[name] = {**sub, NEVER_NULL: True}
        return node

    return visit(schema)


_ROOT_KEYS = ("$schema", "$id", "$defs")
"""Keywords of a document root that say nothing about its instances."""


def _ref_to_all_of(node: dict[str, Json]) -> None:
    """``$ref`` beside other keywords → ``allOf: [{$ref}]``: same meaning, clearer to generators.
    A document root that is only a ``$ref`` (ATOF's event: its discriminated union) stays one, so
    that its class is that union."""
    if "$ref" in node and set(node) - {"$ref", *_ANNOTATIONS, *_ROOT_KEYS}:
        node["allOf"] = [{"$ref": node.pop("$ref")}, *node.get("allOf", [])]


def _relax_node(node: dict[str, Json]) -> tuple[dict[str, Json], bool]:
    changed = False
    if "if" in node or "then" in node or "else" in node:
        then, otherwise = node.pop("then", None), node.pop("else", None)
        node.pop("if", None)
        changed = True
        if then is not None and otherwise is not None:
            either = {"anyOf": [then, otherwise]}
            if "anyOf" in node:
                node["allOf"] = [*node.get("allOf", []), either]
            else:
                node.update(either)
    if isinstance(node.get("allOf"), list):
        kept = [s for s in node["allOf"] if s not in ({}, True)]
        if len(kept) != len(node["allOf"]):
            changed = True
        if kept:
            node["allOf"] = kept
        else:
            del node["allOf"]
    if node.get("additionalProperties") is False and "properties" in node:
        for key in _NARROWING_KEYS:
            if key in node:
                del node[key]
                changed = True
    _ref_to_all_of(node)
    return node, changed


def relax(node: Json, note: str = RELAXED_NOTE) -> Json:
    """The relaxed copy of ``node`` (see the module docstring); ``note`` ends the description of
    what was relaxed (empty: descriptions unchanged)."""
    node = map_subschemas(node, lambda sub: relax(sub, note))
    if not isinstance(node, dict):
        return node
    node, changed = _relax_node(node)
    description = node.get("description")
    if changed and note and isinstance(description, str) and note not in description:
        node["description"] = f"{description.rstrip()} {note}"
    return node


def local_refs(node: Json) -> set[str]:
    """Names of the ``$defs`` entries that ``node`` (``$defs`` excluded) uses, transitively."""
    defs = node.get("$defs", {}) if isinstance(node, dict) else {}
    body = {k: v for k, v in node.items() if k != "$defs"} if isinstance(node, dict) else node
    seen: set[str] = set()
    todo = [body]
    while todo:
        for sub in walk(todo.pop()):
            ref = sub.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref[len("#/$defs/") :].split("/", 1)[0]
                if name not in seen and name in defs:
                    seen.add(name)
                    todo.append(defs[name])
    return seen


def prepare(schema: Json, note: str = RELAXED_NOTE) -> Json:
    """Relax a canonical schema and drop definitions nothing uses any more (``note``: see
    :func:`relax`)."""
    before = local_refs(schema)
    out = relax(copy.deepcopy(schema), note)
    orphans = before - local_refs(out)
    if orphans and isinstance(out.get("$defs"), dict):
        out["$defs"] = {k: v for k, v in out["$defs"].items() if k not in orphans}
    return out


def external_refs(schema: Json, base: str) -> list[tuple[str, str]]:
    """``(document $id, fragment)`` of every reference that leaves ``schema``."""
    found: list[tuple[str, str]] = []
    for sub in walk(schema):
        ref = sub.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            url, fragment = urldefrag(urljoin(base, ref))
            found.append((url, fragment))
    return found


def _target(url: str, documents: dict[str, Document], source: Document) -> Document:
    target = documents.get(url)
    if target is None:
        raise BindingError(
            f"{source.path}: $ref to {url} names no document schema of the catalog; bindings "
            "can only refer to other catalog documents"
        )
    return target


def _fragment_name(fragment: str, target: Document) -> str:
    if fragment in ("", "/"):
        return target.root_class
    head, _, name = fragment.rstrip("/").rpartition("/")
    if head not in ("/$defs", "/definitions"):
        raise BindingError(f"cannot bind a reference to {target.id}#{fragment}")
    return name


def _rewrite_refs(schema: Json, base: str, fn: Callable[[dict[str, Json], str, str], None]) -> Json:
    def visit(node: Json) -> Json:
        node = map_subschemas(node, visit)
        ref = node.get("$ref") if isinstance(node, dict) else None
        if isinstance(ref, str) and not ref.startswith("#"):
            url, fragment = urldefrag(urljoin(base, ref))
            fn(node, url, fragment)
        return node

    return visit(schema)


def for_python(
    schema: Json, doc: Document, documents: dict[str, Document]
) -> tuple[Json, dict[str, tuple[str, str]]]:
    """Bind external references to imports of the target modules.

    Returns the rewritten schema and the imports it names, ``{stand-in: (module, class)}``: the
    generator reads each reference as an import of a versioned stand-in (``AtifV17Trajectory``),
    which :func:`atif_spec.codegen.schema_binding.through_modules` then turns into the target
    module's own class (``_atif_v1_7.Trajectory``), so no module exposes another one's class.
    """
    imports: dict[str, tuple[str, str]] = {}
    defs: dict[str, Json] = {}

    def bind(node: dict[str, Json], url: str, fragment: str) -> None:
        target = _target(url, documents, doc)
        name = _fragment_name(fragment, target)
        alias = naming.alias_name(target.format, target.version, name)
        imports[alias] = (target.module, name)
        defs[alias] = {"x-python-import": {"module": target.module, "name": alias}}
        node["$ref"] = f"#/$defs/{alias}"

    out, integers = python_numbers(never_null(_rewrite_refs(schema, doc.id, bind)))
    if integers:
        defs[INTEGER] = INTEGER_IMPORT
    if defs:
        out["$defs"] = {**out.get("$defs", {}), **dict(sorted(defs.items()))}
    return out, imports


def _import_path(source: Document, target: Document) -> str:
    rel = posixpath.relpath(
        target.typescript_file.removesuffix(".d.ts"), posixpath.dirname(source.typescript_file)
    )
    rel = f"{rel}.js"  # nodenext needs the extension; it resolves to the .d.ts beside it
    return rel if rel.startswith(".") else f"./{rel}"


def _closed_intersection(node: dict[str, Json]) -> dict[str, Json]:
    """``allOf: [base]`` plus object keys as ``base & {own keys}``.

    The own object is an inline ``allOf`` entry, so json-schema-to-typescript writes it in place
    instead of declaring a numbered interface (``EmbeddedSubagent1``). It gets no index signature
    (the bases say whether other keys are allowed; an intersection keeps TypeScript's checks).
    """
    head = {k: v for k, v in node.items() if k in _ANNOTATIONS}
    own = {k: v for k, v in node.items() if k not in _ANNOTATIONS and k != "allOf"}
    if not own.keys() & {"properties", "required", "additionalProperties", "patternProperties"}:
        return node
    return {**head, "allOf": [*node["allOf"], {**own, "additionalProperties": False}]}


def for_typescript(schema: Json, doc: Document, documents: dict[str, Document]) -> Json:
    """Bind external references to ``import()`` types and keep only model names as titles;
    ``integer`` beside ``number`` is dropped (both are TypeScript's ``number``).

    json-schema-to-typescript names a type after any ``title`` it meets, and every field here has
    one; only the root (named after the document) and the definitions (named after their key)
    keep a title.
    """

    def bind(node: dict[str, Json], url: str, fragment: str) -> None:
        target = _target(url, documents, doc)
        name = _fragment_name(fragment, target)
        del node["$ref"]
        node["tsType"] = f'import("{_import_path(doc, target)}").{name}'

    def untitle(node: Json) -> Json:
        node = map_subschemas(node, untitle)
        if isinstance(node, dict):
            node.pop("title", None)
            node.pop("discriminator", None)
            if "$ref" in node and set(node) <= {"$ref", *_ANNOTATIONS}:
                node = {"$ref": node["$ref"]}  # else the generator re-declares it (Timestamp1)
            if "allOf" in node:
                node = _closed_intersection(node)
            if not set(node) & _TYPING_KEYS:
                node["tsType"] = "unknown"  # any JSON value (the generator would say object)
        return node

    out = untitle(_rewrite_refs(copy.deepcopy(schema), doc.id, bind))
    for key in ("$id", "$schema"):
        out.pop(key, None)
    out = {"title": doc.root_class, **out}
    if isinstance(out.get("$defs"), dict):
        out["$defs"] = {k: {"title": k, **v} for k, v in out["$defs"].items()}
    return out
