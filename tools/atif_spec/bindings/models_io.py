"""Read a trajectory into its generated Pydantic model and write it back unchanged.

``load`` (public as ``atif_spec.load``) validates the document as ``atif_spec.validate`` does —
the same detection of format and version, the same findings — and, when it has no error, returns
the model of the version it declares; otherwise it raises :class:`InvalidDocumentError`, which
carries the report. ``dump`` writes only the fields the document had, in its key order, so
``dump(load(text))`` is the same JSON value as ``text``: ``1``, ``1.0`` and ``true`` stay
apart and an explicit ``null`` stays distinct from an absent key. The models on their own accept
exactly what the document's schema accepts (its conditionals included).
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
from atif_spec.jsonio.jsontext import loads
from atif_spec.schemas.catalog import UnknownSchemaError, load_catalog
from atif_spec.validation.findings import Finding, Report
from atif_spec.validation.pipeline import Options, validate_document
from atif_spec.validation.reader import RawDocument
from atif_spec.validation.reader import parse as parse_raw

Source = str | bytes | bytearray | os.PathLike[str] | Mapping[str, Any]
"""A path, JSON text (``str`` starting with ``{``, or bytes), or an already parsed document."""


class UnknownDocumentError(ValueError):
    """The document's format or version has no generated model."""


class InvalidDocumentError(ValueError):
    """The document is not valid: :attr:`report` holds what ``atif_spec.validate`` found (its
    :attr:`findings` with level ``error`` are why); the message is the first error."""

    def __init__(self, report: Report) -> None:
        self.report = report
        first = report.errors[0]
        more = len(report.errors) - 1
        where = f" at {first.pointer}" if first.pointer else ""
        tail = f" (and {more} more error(s))" if more else ""
        super().__init__(f"{report.source}: {first.code}{where}: {first.message}{tail}")

    @property
    def findings(self) -> list[Finding]:
        """Every finding of the report, warnings included."""
        return self.report.findings


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


def _read(source: Source, options: Options) -> tuple[Any, Report]:
    """The document behind ``source`` and its validation report (a report of ``input:*``
    findings and no document when the bytes are not JSON)."""
    if isinstance(source, Mapping):
        return source, validate_document(source, options=options)
    if isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        raw = RawDocument("<string>", source.encode("utf-8", "surrogatepass"))
    elif isinstance(source, bytes | bytearray):
        raw = RawDocument("<bytes>", bytes(source))
    else:
        path = Path(source)
        raw = RawDocument(os.fspath(source), path.read_bytes(), None, path)
    doc, problems = parse_raw(raw)
    if any(p.level == "error" for p in problems):
        return None, Report(raw.source, None, findings=problems)
    report = validate_document(doc, source=raw.source, path=raw.path, options=options)
    report.findings[:0] = problems
    return doc, report


_UNCHECKED_FILES = Options(check_files=False)
_CHECKED_FILES = Options(check_files=True)


def load(source: Source, *, check_files: bool = False) -> BaseModel:
    """The document at ``source`` (a path, JSON text, bytes or a parsed ``dict``) as the
    generated model of the format and version it declares: ``atif_spec.models.atif.v1_5
    .Trajectory`` for an ATIF-v1.5 document.

    The document is validated first, as :func:`atif_spec.validate` does, except that the media
    files it names are looked up only with ``check_files=True``; a document with an error raises
    :class:`InvalidDocumentError` carrying the report. Warnings do not stop it. Reading a path
    that does not exist raises ``OSError``.
    """
    doc, report = _read(source, _CHECKED_FILES if check_files else _UNCHECKED_FILES)
    if report.errors:
        raise InvalidDocumentError(report)
    assert report.format is not None and report.version is not None  # no error: identified
    return model_class(report.format, report.version).model_validate(doc)


def to_json_value(model: BaseModel) -> Any:
    """The document a model holds: only the fields that were set, in the order they were read."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def dump(model: BaseModel, *, indent: int | None = 2) -> str:
    """JSON text of the document a model holds (see :func:`to_json_value`)."""
    return json.dumps(to_json_value(model), ensure_ascii=False, indent=indent)
