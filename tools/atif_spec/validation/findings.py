"""The one findings shape and the one per-document report shape shared by every command.

A *finding* is one problem: ``code``, ``name``, ``level``, ``pointer`` (RFC 6901 JSON pointer
into the document), ``message``, and, when the document was read from text, the ``line`` and
``column`` of the pointer's value in that text (:mod:`atif_spec.validation.locations`). Schema
violations use ``schema:<keyword>`` codes, input problems ``input:<what>`` codes, and registry
rules their own codes (``ATIF101``, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Level(StrEnum):
    """How serious a finding is: a MUST of the spec is an error, a SHOULD a warning."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found in one document."""

    code: str
    name: str
    level: Level
    pointer: str
    message: str
    line: int | None = None
    """1-based line of the pointer's value in the file (RFC.md §4.2); None when unknown."""
    column: int | None = None
    """1-based column of the value's first character, in Unicode code points."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used by reports (``line`` and ``column`` when known)."""
        out: dict[str, Any] = {
            "code": self.code,
            "name": self.name,
            "level": str(self.level),
            "pointer": self.pointer,
            "message": self.message,
        }
        if self.line is not None and self.column is not None:
            out["line"] = self.line
            out["column"] = self.column
        return out


_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def schema_finding(keyword: str, ptr: str, message: str) -> Finding:
    """A finding for a JSON Schema keyword that failed."""
    kebab = _CAMEL.sub("-", keyword).lower()
    return Finding(f"schema:{keyword}", f"schema-{kebab}", Level.ERROR, ptr, message)


def input_finding(what: str, message: str, ptr: str = "", level: Level = Level.ERROR) -> Finding:
    """A finding about the input itself (not JSON, wrong root type, unknown version, ...)."""
    return Finding(f"input:{what}", what, level, ptr, message)


@dataclass(slots=True)
class Report:
    """The validation result for one document."""

    source: str
    line: int | None = None
    format: str | None = None
    version: str | None = None
    findings: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        """Findings of level error."""
        return [f for f in self.findings if f.level is Level.ERROR]

    @property
    def warnings(self) -> list[Finding]:
        """Findings of level warning."""
        return [f for f in self.findings if f.level is Level.WARNING]

    @property
    def valid(self) -> bool:
        """True when the document has no error (warnings allowed)."""
        return not any(f.level is Level.ERROR for f in self.findings)

    def ok(self, strict: bool = False) -> bool:
        """Valid, and with ``strict`` also free of warnings."""
        return not self.findings if strict else self.valid

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: one line of ``atif validate --format json``."""
        if not self.findings:  # most reports of a dataset: no level to sort findings by
            return {
                "source": self.source,
                "line": self.line,
                "format": self.format,
                "version": self.version,
                "valid": True,
                "errors": [],
                "warnings": [],
            }
        return {
            "source": self.source,
            "line": self.line,
            "format": self.format,
            "version": self.version,
            "valid": self.valid,
            "errors": [f.to_dict() for f in self.errors],
            "warnings": [f.to_dict() for f in self.warnings],
        }
