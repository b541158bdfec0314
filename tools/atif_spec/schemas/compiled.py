"""The packaged schemas: loaded from the installed package, resolved offline, compiled once.

Every ``$id`` in the catalog resolves to its file in ``spec/``; nothing is ever fetched over
the network (a reference to an unknown URL is an error, not a download).
"""

from __future__ import annotations

import functools
from typing import Any

import jsonschema_rs
import referencing
from referencing.jsonschema import DRAFT202012

from atif_spec.schemas.catalog import all_schemas, load_catalog, schema_by_id


def refuse_retrieval(uri: str) -> Any:
    """The retriever of every validator: a schema outside the catalog is an error, never a fetch."""
    raise LookupError(f"schema {uri} is not in the atif-spec catalog (no network access)")


@functools.cache
def rs_registry() -> jsonschema_rs.Registry:
    """A jsonschema-rs registry holding every packaged schema."""

    return jsonschema_rs.Registry(all_schemas(), retriever=refuse_retrieval)


@functools.cache
def rs_validator(schema_id: str) -> jsonschema_rs.Validator:
    """The compiled jsonschema-rs validator of one schema (cached per process)."""

    return jsonschema_rs.validator_for(
        schema_by_id(schema_id), registry=rs_registry(), retriever=refuse_retrieval
    )


@functools.cache
def document_validator(target: str) -> jsonschema_rs.Validator:
    """The compiled validator of the document schema of ``FORMAT@VERSION`` (cached: the
    lenses check every source with it, and finding the schema costs more than a small check)."""

    return rs_validator(load_catalog().find(target).id)


@functools.cache
def rs_validator_at(location: str) -> jsonschema_rs.Validator:
    """The compiled jsonschema-rs validator of the schema node at ``<$id>#<JSON pointer>``
    (the whole schema when the pointer is empty; cached per process)."""

    base, _, fragment = location.partition("#")
    if not fragment:
        return rs_validator(base)
    schema_by_id(base)  # an unknown $id fails here, before any compilation
    wrapper = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": location}
    return jsonschema_rs.validator_for(wrapper, registry=rs_registry(), retriever=refuse_retrieval)


@functools.cache
def referencing_registry() -> referencing.Registry[Any]:
    """A ``referencing`` registry of every packaged schema (for python ``jsonschema``)."""

    resources = [(sid, DRAFT202012.create_resource(s)) for sid, s in all_schemas()]
    return referencing.Registry().with_resources(resources).crawl()
