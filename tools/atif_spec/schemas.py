"""The packaged schemas: loaded from the installed package, resolved offline, compiled once.

Every ``$id`` in the catalog resolves to its file in ``spec/``; nothing is ever fetched over
the network (a reference to an unknown URL is an error, not a download).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from atif_spec.catalog import SchemaEntry, load_catalog, read_spec_json

if TYPE_CHECKING:
    import jsonschema_rs
    import referencing


@functools.cache
def schema_by_id(schema_id: str) -> dict[str, Any]:
    """The parsed schema with this ``$id``."""
    entry = load_catalog().by_id(schema_id)
    schema: dict[str, Any] = read_spec_json(entry.path)
    return schema


def schema_for(entry: SchemaEntry) -> dict[str, Any]:
    """The parsed schema of a catalog entry."""
    return schema_by_id(entry.id)


def all_schemas() -> list[tuple[str, dict[str, Any]]]:
    """``($id, schema)`` for every schema in the catalog."""
    return [(e.id, schema_by_id(e.id)) for e in load_catalog()]


def refuse_retrieval(uri: str) -> Any:
    """The retriever of every validator: a schema outside the catalog is an error, never a fetch."""
    raise LookupError(f"schema {uri} is not in the atif-spec catalog (no network access)")


@functools.cache
def rs_registry() -> jsonschema_rs.Registry:
    """A jsonschema-rs registry holding every packaged schema."""
    import jsonschema_rs

    return jsonschema_rs.Registry(all_schemas(), retriever=refuse_retrieval)


@functools.cache
def rs_validator(schema_id: str) -> jsonschema_rs.Validator:
    """The compiled jsonschema-rs validator of one schema (cached per process)."""
    import jsonschema_rs

    return jsonschema_rs.validator_for(
        schema_by_id(schema_id), registry=rs_registry(), retriever=refuse_retrieval
    )


@functools.cache
def rs_validator_at(location: str) -> jsonschema_rs.Validator:
    """The compiled jsonschema-rs validator of the schema node at ``<$id>#<JSON pointer>``
    (the whole schema when the pointer is empty; cached per process)."""
    import jsonschema_rs

    base, _, fragment = location.partition("#")
    if not fragment:
        return rs_validator(base)
    schema_by_id(base)  # an unknown $id fails here, before any compilation
    wrapper = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": location}
    return jsonschema_rs.validator_for(wrapper, registry=rs_registry(), retriever=refuse_retrieval)


@functools.cache
def referencing_registry() -> referencing.Registry[Any]:
    """A ``referencing`` registry of every packaged schema (for python ``jsonschema``)."""
    import referencing
    from referencing.jsonschema import DRAFT202012

    resources = [(sid, DRAFT202012.create_resource(s)) for sid, s in all_schemas()]
    return referencing.Registry().with_resources(resources).crawl()


def node_at(uri: str) -> Any:
    """The schema node at an absolute keyword location (``<$id>#/json/pointer``)."""
    base, _, fragment = uri.partition("#")
    node: Any = schema_by_id(base)
    for token in fragment.split("/")[1:] if fragment else []:
        key = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            node = node[int(key)]
        elif isinstance(node, dict):
            node = node[key]
        else:
            raise LookupError(uri)
    return node
