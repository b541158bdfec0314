"""What a format is: a small record per format, discovered from this package's modules.

Each module here defines ``FORMAT: FormatSpec``. A new format is one module (plus its schemas in
``spec/``, rules in ``atif_spec.validation.rules`` and fixtures in ``conformance/``): nothing else
in the package lists formats by hand.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

Detector = Callable[[Any], "str | None"]
"""Looks at a parsed document; returns the version (``vX.Y``) if the document is in this format."""


@dataclass(frozen=True)
class FormatSpec:
    """One trajectory format."""

    name: str
    title: str
    versions: tuple[str, ...]
    detect: Detector
    version_field: str | None = None
    """Document field that declares the version, when the format has one."""
    version_spelling: Callable[[str], str] | None = None
    """Turns ``vX.Y`` into the value written in ``version_field`` (e.g. ``ATIF-v1.7``)."""
    priority: int = 100
    """Lower runs first during detection (formats with an explicit version field go first)."""
    embedded: Callable[[Any, str], Iterator[tuple[str, Any, str | None]]] | None = field(
        default=None
    )
    """Yields ``(pointer, node, declared version)`` for documents embedded in a document."""
    stream: bool = False
    """A JSON Lines event stream (ATOF): one document is a whole file, held as the list of its
    events; each event is checked against the schema, the rules see the whole list."""


@functools.cache
def all_formats() -> dict[str, FormatSpec]:
    """Every format module in this package, keyed by name, in detection order."""
    found: list[FormatSpec] = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        spec = getattr(module, "FORMAT", None)
        if isinstance(spec, FormatSpec):
            found.append(spec)
    found.sort(key=lambda f: (f.priority, f.name))
    return {f.name: f for f in found}


def get_format(name: str) -> FormatSpec:
    """The format called ``name``; KeyError if unknown."""
    return all_formats()[name]


def is_event_stream(kind: str | None) -> bool:
    """True when a stream kind (``RawDocument.stream``) names a format whose documents are event
    streams (ATOF), validated as one document; other kinds are provider streams."""
    spec = all_formats().get(kind or "")
    return spec is not None and spec.stream


def detect(doc: Any) -> tuple[str, str] | None:
    """``(format, version)`` of a parsed document, or None when no format recognises it."""
    for spec in all_formats().values():
        version = spec.detect(doc)
        if version is not None:
            return spec.name, version
    return None
