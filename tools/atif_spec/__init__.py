"""atif-spec: schemas, validator and tools for the Agent Trajectory Interchange Format.

The public API is imported lazily so that ``atif`` starts fast:

- :func:`validate` — validate a document, JSON text or file; returns a :class:`Report`.
- :func:`load` — a valid document as the generated Pydantic model of its own format and version;
  raises :class:`InvalidDocumentError` (carrying the :class:`Report`) otherwise.
- :func:`migrate` — move an ATIF document to another version; returns ``(doc, ChangeReport)``.
- :func:`convert` — convert a document to another format (``FORMAT@VERSION``), the same way.
- :class:`Report`, :class:`Finding`, :class:`Level` — the one report and findings shape.
- :class:`ChangeReport` — what ``migrate`` and ``convert`` did; :class:`MigrationError` and
  :class:`ConversionError` carry it when they refuse a document.

docs/API.md documents each, with examples that tests/project/test_api_docs.py runs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "1.0.0"

if TYPE_CHECKING:
    from atif_spec.bindings.models_io import InvalidDocumentError, load
    from atif_spec.transforms.changes import ChangeReport
    from atif_spec.transforms.lenses import ConversionError, convert
    from atif_spec.transforms.migrations import MigrationError, migrate
    from atif_spec.validation.findings import Finding, Level, Report
    from atif_spec.validation.pipeline import validate

_LAZY = {
    "validate": ("atif_spec.validation.pipeline", "validate"),
    "load": ("atif_spec.bindings.models_io", "load"),
    "InvalidDocumentError": ("atif_spec.bindings.models_io", "InvalidDocumentError"),
    "Report": ("atif_spec.validation.findings", "Report"),
    "Finding": ("atif_spec.validation.findings", "Finding"),
    "Level": ("atif_spec.validation.findings", "Level"),
    "migrate": ("atif_spec.transforms.migrations", "migrate"),
    "convert": ("atif_spec.transforms.lenses", "convert"),
    "ChangeReport": ("atif_spec.transforms.changes", "ChangeReport"),
    "MigrationError": ("atif_spec.transforms.migrations", "MigrationError"),
    "ConversionError": ("atif_spec.transforms.lenses", "ConversionError"),
}

__all__ = [
    "ChangeReport",
    "ConversionError",
    "Finding",
    "InvalidDocumentError",
    "Level",
    "MigrationError",
    "Report",
    "__version__",
    "convert",
    "load",
    "migrate",
    "validate",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value  # later look-ups find it without coming back here
        return value
    raise AttributeError(f"module 'atif_spec' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
