"""Schema coverage of the conformance suite: which keyword outcomes the fixtures exercise (tests only).

Every document schema yields *obligations*, each an outcome some fixture must produce:

- ``required``: each listed property present in some evaluated object and absent in another;
- ``enum``: each value used;
- ``const``: satisfied once and violated once;
- ``if``: the condition true once (``then`` taken) and false once (``else`` taken);
- ``anyOf`` / ``oneOf``: each branch matched once.

Fixtures are evaluated with python ``jsonschema`` whose keyword functions for those keywords
are wrapped to record outcomes by absolute keyword location (``<$id>#/json/pointer``). A
location inside a ``$defs`` entry is one location however many places refer to it, and a
location reached through a reference into another schema is credited to that schema. Unlike
plain validation, every ``anyOf`` branch is evaluated, so keywords in later branches count.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, ValidationError, validators
from jsonschema._utils import equal

from atif_spec.conformance.suite import Case
from atif_spec.schemas.catalog import load_catalog

_SINGLE = (
    "items",
    "additionalProperties",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
)
_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")


@dataclass(frozen=True, order=True, slots=True)
class Obligation:
    """One outcome some fixture must produce at one keyword location."""

    location: str
    """Absolute keyword location: ``<$id>#/json/pointer/<keyword>`` (a branch for anyOf)."""
    outcome: str
    """``present 'x'`` / ``absent 'x'`` (required), ``value "v"`` (enum), ``satisfied`` /
    ``violated`` (const), ``then`` / ``else`` (if), ``matched`` (an anyOf/oneOf branch)."""

    def __str__(self) -> str:
        return f"{self.location}: {self.outcome}"


def _token(key: str | int) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def _subschemas(node: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """``(relative pointer, subschema)`` of every direct subschema of ``node``."""
    for key in _SINGLE:
        if key in node:
            yield _token(key), node[key]
    for key in _MAPS:
        if isinstance(node.get(key), dict):
            for name, sub in node[key].items():
                yield f"{_token(key)}/{_token(name)}", sub
    for key in _LISTS:
        if isinstance(node.get(key), list):
            for i, sub in enumerate(node[key]):
                yield f"{key}/{i}", sub


def _walk(node: Any, location: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object below (and including) ``node`` with its absolute location."""
    if not isinstance(node, dict):
        return
    yield location, node
    for rel, sub in _subschemas(node):
        yield from _walk(sub, f"{location}/{rel}")


def _show(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def obligations(schema_id: str, schema: dict[str, Any]) -> set[Obligation]:
    """Every obligation of one schema."""
    out: set[Obligation] = set()
    for where, node in _walk(schema, f"{schema_id}#"):
        required = node.get("required")
        if isinstance(required, list):
            for prop in required:
                out.add(Obligation(f"{where}/required", f"present {_show(prop)}"))
                out.add(Obligation(f"{where}/required", f"absent {_show(prop)}"))
        if isinstance(node.get("enum"), list):
            out.update(Obligation(f"{where}/enum", f"value {_show(v)}") for v in node["enum"])
        if "const" in node:
            out.add(Obligation(f"{where}/const", "satisfied"))
            out.add(Obligation(f"{where}/const", "violated"))
        if "if" in node:
            out.add(Obligation(f"{where}/if", "then"))
            out.add(Obligation(f"{where}/if", "else"))
        for key in ("anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                out.update(
                    Obligation(f"{where}/{key}/{i}", "matched") for i in range(len(node[key]))
                )
    return out


_HITS: contextvars.ContextVar[set[Obligation] | None] = contextvars.ContextVar(
    "atif_coverage_hits", default=None
)


def _hit(location: str, outcome: str) -> None:
    hits = _HITS.get()
    if hits is not None:
        hits.add(Obligation(location, outcome))


@functools.cache
def _locations() -> dict[int, str]:
    """``id(schema object)`` → absolute location, for every catalog schema."""
    from atif_spec.schemas.catalog import all_schemas

    return {id(node): where for sid, s in all_schemas() for where, node in _walk(s, f"{sid}#")}


def _where(schema: dict[str, Any]) -> str:
    return _locations().get(id(schema), "<unknown>")


Keyword = Callable[[Any, Any, Any, dict[str, Any]], Iterator[ValidationError]]


def _required(validator: Any, required: Any, instance: Any, schema: dict[str, Any]) -> Any:
    if isinstance(instance, dict):
        where = _where(schema) + "/required"
        for prop in required:
            _hit(where, f"{'present' if prop in instance else 'absent'} {_show(prop)}")
    yield from _ORIGINAL["required"](validator, required, instance, schema)


def _enum(validator: Any, enums: Any, instance: Any, schema: dict[str, Any]) -> Any:
    for value in enums:
        if equal(value, instance):
            _hit(_where(schema) + "/enum", f"value {_show(value)}")
    yield from _ORIGINAL["enum"](validator, enums, instance, schema)


def _const(validator: Any, const: Any, instance: Any, schema: dict[str, Any]) -> Any:
    _hit(_where(schema) + "/const", "satisfied" if equal(instance, const) else "violated")
    yield from _ORIGINAL["const"](validator, const, instance, schema)


def _if(validator: Any, if_schema: Any, instance: Any, schema: dict[str, Any]) -> Any:
    holds = validator.evolve(schema=if_schema).is_valid(instance)
    _hit(_where(schema) + "/if", "then" if holds else "else")
    branch = "then" if holds else "else"
    if branch in schema:
        yield from validator.descend(instance, schema[branch], schema_path=branch)


def _branches(keyword: str) -> Keyword:
    def check(validator: Any, branches: Any, instance: Any, schema: dict[str, Any]) -> Any:
        where = f"{_where(schema)}/{keyword}"
        errors = [
            list(validator.descend(instance, s, schema_path=i)) for i, s in enumerate(branches)
        ]
        for i, errs in enumerate(errors):
            if not errs:
                _hit(f"{where}/{i}", "matched")
        matched = sum(1 for errs in errors if not errs)
        if matched == 0:
            context = [e for errs in errors for e in errs]
            yield ValidationError(
                f"{instance!r} is valid under none of the branches", context=context
            )
        elif keyword == "oneOf" and matched > 1:
            yield ValidationError(f"{instance!r} is valid under {matched} branches of oneOf")

    return check


_ORIGINAL: dict[str, Keyword] = dict(Draft202012Validator.VALIDATORS)
_Tracing = validators.extend(
    Draft202012Validator,
    {
        "required": _required,
        "enum": _enum,
        "const": _const,
        "if": _if,
        "anyOf": _branches("anyOf"),
        "oneOf": _branches("oneOf"),
    },
)


@functools.cache
def _validator(schema_id: str) -> Any:
    from atif_spec.schemas.catalog import schema_by_id
    from atif_spec.schemas.compiled import referencing_registry

    return _Tracing(schema_by_id(schema_id), registry=referencing_registry())


def trace(schema_id: str, document: Any) -> set[Obligation]:
    """The obligations one document fulfils when validated against one schema."""
    hits: set[Obligation] = set()
    token = _HITS.set(hits)
    try:
        for _ in _validator(schema_id).iter_errors(document):
            pass
    finally:
        _HITS.reset(token)
    return hits


def schema_of(case: Case) -> str | None:
    """The ``$id`` a case's document is schema-validated against, or None when it is not
    (cases whose expected findings say the input cannot be identified)."""
    if any(code.startswith("input:") for code, _ in case.expected):
        return None
    return load_catalog().find(case.target or case.suite_target).id


@dataclass(frozen=True, slots=True)
class Coverage:
    """Obligations of the document schemas, and the ones no fixture fulfils."""

    required: frozenset[Obligation]
    fulfilled: frozenset[Obligation]

    @property
    def missing(self) -> list[Obligation]:
        """Obligations no fixture fulfils, sorted."""
        return sorted(self.required - self.fulfilled)


def document_schemas() -> list[tuple[str, dict[str, Any]]]:
    """``($id, schema)`` of every document schema in the catalog."""
    from atif_spec.schemas.catalog import schema_by_id

    return [(e.id, schema_by_id(e.id)) for e in load_catalog() if e.kind == "document"]


def measure(documents: Iterable[tuple[str, Any]]) -> Coverage:
    """Coverage of the document schemas by ``(schema $id, document)`` pairs."""
    required: set[Obligation] = set()
    for sid, schema in document_schemas():
        required |= obligations(sid, schema)
    fulfilled: set[Obligation] = set()
    for sid, doc in documents:
        fulfilled |= trace(sid, doc)
    return Coverage(frozenset(required), frozenset(fulfilled))


def suite_documents(cases: Iterable[Case]) -> Iterator[tuple[str, Any]]:
    """``(schema $id, parsed document)`` of every case that is schema-validated."""
    from atif_spec.conformance.suite import read_document

    for case in cases:
        sid = schema_of(case)
        if sid is None:
            continue
        doc = read_document(Path(case.document))
        if isinstance(doc, list):  # an event stream (ATOF): its schema is each event's
            yield from ((sid, event) for event in doc)
        else:
            yield sid, doc
