"""Read a trajectory into its generated Pydantic model and write it back unchanged.

``load`` picks the model from what the document declares (for ATIF, ``schema_version``) and
validates strictly; ``dump`` writes only the fields the document had, in its key order, so
``dump(load(text))`` is the same JSON value as ``text``: ``1``, ``1.0`` and ``true`` stay
apart and an explicit ``null`` stays distinct from an absent key. The models accept exactly what
the document's schema accepts (its conditionals included); ``atif_spec.validate`` adds the spec's
rules beyond the schema.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from atif_spec.codegen import naming
from atif_spec.formats import detect, get_format
from atif_spec.jsonio.jsontext import loads
from atif_spec.schemas.catalog import UnknownSchemaError, load_catalog

Source = str | bytes | bytearray | os.PathLike[str] | Mapping[str, Any]
"""A path, JSON text (``str`` starting with ``{``, or bytes), or an already parsed document."""


class UnknownDocumentError(ValueError):
    """The document's format or version has no generated model."""


def parse(source: Source) -> Any:
    """The JSON value behind ``source`` (numbers keep their type: ``1.0`` stays a float)."""
    if isinstance(source, Mapping):
        return source
    if isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        raw: bytes | str = source
    elif isinstance(source, bytes | bytearray):
        raw = bytes(source)
    else:
        raw = Path(source).read_bytes()

    return loads(raw)  # integers beyond 64 bits keep their digits


def model_class(fmt: str, version: str) -> type[BaseModel]:
    """The generated root model of ``fmt@version`` (``atif``, ``v1.7`` → ``v1_7.Trajectory``)."""
    catalog = load_catalog()
    try:
        entry = catalog.find(f"{fmt}@{version}")
    except UnknownSchemaError as exc:
        raise UnknownDocumentError(str(exc)) from None
    siblings = [
        e
        for e in catalog
        if e.kind == "document" and e.format == fmt and e.version == entry.version
    ]
    primary = entry is next((e for e in siblings if e.primary), siblings[0])
    module = importlib.import_module(naming.module_path(fmt, version, entry.name, primary=primary))
    cls = getattr(module, naming.class_name(entry.name))
    if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
        raise UnknownDocumentError(f"{module.__name__} has no model for {fmt}@{version}")
    return cls


def _declared(fmt: str, doc: Any) -> str:
    spec = get_format(fmt)
    if spec.version_field and isinstance(doc, Mapping):
        return f"{spec.version_field} {doc.get(spec.version_field)!r}"
    return "no version"


def load(source: Source) -> BaseModel:
    """Parse and strictly validate a document into the model of the version it declares.

    Raises :class:`UnknownDocumentError` for an unknown format or version and
    ``pydantic.ValidationError`` when the document does not fit the model.
    """
    doc = parse(source)
    found = detect(doc)
    if found is None:
        raise UnknownDocumentError("not a document of any known trajectory format")
    fmt, version = found
    known = load_catalog().versions(fmt)
    if version not in known:
        spec = get_format(fmt)
        spelled = [spec.version_spelling(v) if spec.version_spelling else v for v in known]
        raise UnknownDocumentError(
            f"{fmt} document declares {_declared(fmt, doc)}, which has no generated model "
            f"(known: {', '.join(spelled)})"
        )
    return model_class(fmt, version).model_validate(doc)


def to_json_value(model: BaseModel) -> Any:
    """The document a model holds: only the fields that were set, in the order they were read."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def dump(model: BaseModel, *, indent: int | None = 2) -> str:
    """JSON text of the document a model holds (see :func:`to_json_value`)."""
    return json.dumps(to_json_value(model), ensure_ascii=False, indent=indent)
