"""The rule registry: every check beyond JSON Schema, described as data.

A rule is a record (code, name, level, format, versions, spec section, summary) plus one
check function. The check receives a :class:`RuleContext` for one trajectory-like node and
yields ``(pointer, message)`` pairs; it never raises on malformed input (a mistyped field is
skipped by the rule). The engine adds code, name and level, so no rule can get them wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atif_spec.validation.findings import Level, Report

if TYPE_CHECKING:
    from atif_spec.jsonio.samefile import FileId


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """Switches that change what file-level rules may do."""

    check_files: bool = True
    """Check files the document references (media, referenced trajectories)."""
    allow_outside: bool = False
    """Let referenced files resolve outside the document's folder."""
    follow_refs: bool = False
    """Open, parse and validate referenced trajectory files (``--follow-refs``)."""
    max_bytes: int = 512 * 1024 * 1024
    """Largest referenced file read (``--max-bytes``;
    ``atif_spec.validation.reader.DEFAULT_MAX_BYTES``)."""
    validate_file: Callable[[Path, bytes], Report] | None = None
    """Validates a referenced file's bytes (``--follow-refs``); the validation pipeline sets it,
    so that rules never import the pipeline that runs them."""
    outputs: frozenset[FileId] = frozenset()
    """Files this run writes: a referenced file among them is refused, not read
    (:func:`atif_spec.jsonio.samefile.refuse_read`)."""


@dataclass(frozen=True, slots=True)
class RuleContext:
    """What a check sees: one trajectory node and where it sits."""

    node: Any
    """The node checked: the document root, or an embedded subagent trajectory."""
    base: str
    """JSON pointer of ``node`` inside the whole document (``""`` for the root)."""
    version: str
    """Version the node declares, as ``vX.Y``."""
    is_root: bool
    """True for the top-level document, False for embedded subagents."""
    path: Path | None = None
    """The file the document was read from, when validating a file."""
    options: RuleOptions = field(default_factory=RuleOptions)
    vouched: bool = False
    """True when the format's screen schema accepted this node (see ``rules.screen``): rules
    may then take the node's schema validity, and the conditions the screen adds, for granted."""
    memo: dict[str, Any] = field(default_factory=dict)
    """Per-node scratch space that lets several rules share one walk (see ``memoized``)."""

    def memoized(self, key: str, build: Callable[[Any], Any]) -> Any:
        """``build(node)``, computed once per node however many rules ask for it."""
        if key not in self.memo:
            self.memo[key] = build(self.node)
        return self.memo[key]


Check = Callable[[RuleContext], Iterable[tuple[str, str]]]


@dataclass(frozen=True, slots=True)
class Rule:
    """One registry entry."""

    code: str
    name: str
    level: Level
    format: str
    versions: tuple[str, ...]
    section: str
    summary: str
    check: Check
    needs_file: bool = False

    @property
    def doc(self) -> str:
        """The check's docstring (What it checks / Why / Example / Valid instead / Spec)."""
        return (self.check.__doc__ or "").strip()

    def to_dict(self) -> dict[str, Any]:
        """JSON form used by ``atif rules --format json``."""
        return {
            "code": self.code,
            "name": self.name,
            "level": str(self.level),
            "format": self.format,
            "versions": list(self.versions),
            "section": self.section,
            "summary": self.summary,
            "needs_file": self.needs_file,
        }


REGISTRY: list[Rule] = []


def rule(
    *,
    code: str,
    name: str,
    level: Level,
    format: str,
    versions: Iterable[str],
    section: str,
    summary: str,
    needs_file: bool = False,
) -> Callable[[Check], Check]:
    """Register the decorated check function as a rule."""

    def register(check: Check) -> Check:
        REGISTRY.append(
            Rule(
                code=code,
                name=name,
                level=level,
                format=format,
                versions=tuple(versions),
                section=section,
                summary=summary,
                check=check,
                needs_file=needs_file,
            )
        )
        return check

    return register


def versions_between(
    all_versions: Iterable[str], first: str, last: str | None = None
) -> tuple[str, ...]:
    """The versions from ``first`` to ``last`` (inclusive) in the given order."""
    out: list[str] = []
    inside = False
    for v in all_versions:
        if v == first:
            inside = True
        if inside:
            out.append(v)
        if v == last:
            break
    return tuple(out)
