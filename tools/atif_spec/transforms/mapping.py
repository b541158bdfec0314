"""The mapping registry: where each transform step puts what it reads (RFC.md §4.5.5).

Every lens module and the ATIF migrations declare ``MAPPING_TABLES``: tables of :class:`Row`
that say, for a source field, the target field it fills (``field``), the documented name it
goes to in a free-form object (``named``), or that it is kept in the stash (``stashed``),
synthesized (``decided``) or dropped (``dropped``). The tables are the single source of the
MAPPING.md field tables and of RFC.md's table of named keys: ``python -m
atif_spec.spectools.docgen`` renders a region ``mapping-<table id>`` from them, and ``--check``
fails when prose and code drift apart.

A ``named`` row carries ``key``, the pointer of the named member relative to its owner (the
same pointer a ``moved`` stash entry records in ``to``). Tests check that every ``moved`` entry a
step writes on the conformance fixtures names a registered key of that step, so no free-form
key appears in a converted document without a row here.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

Kind = Literal["field", "named", "stashed", "decided", "dropped"]

MODULES = (
    "atif_spec.transforms.lenses.tao_mapping",
    "atif_spec.transforms.lenses.trajectory_sdk_mapping",
    "atif_spec.transforms.lenses.step_substep_mapping",
    "atif_spec.transforms.lenses.otel_mapping",
    "atif_spec.transforms.migrations.named",
    "atif_spec.transforms.tao_versions",
)
"""Modules that declare ``MAPPING_TABLES``."""


@dataclass(frozen=True, slots=True)
class Row:
    """One source location and what a step makes of it."""

    source: str
    """The source field, as written in the tables (Markdown allowed, e.g. ``"`role`"``)."""
    target: str
    """The target field or named member ("—" when there is none)."""
    kind: Kind = "field"
    note: str = ""
    key: str | None = None
    """For ``named`` rows: the member's pointer relative to its owner, e.g.
    ``/extra/llm_call_count``. A ``field`` row may carry one too, when its target is a member
    of a free-form object that the target format's own producers write by convention (a run
    log's `extra.model`): the key documents that member (:func:`documented_keys`)."""
    nests: bool = False
    """For ``named`` rows: the member is an array of documents that the step maps by the same
    rules (embedded subagents), so each of the step's named keys recurs below every element:
    ``<key>/<index><named key>``."""

    def __post_init__(self) -> None:
        if self.kind == "named" and self.key is None:
            raise ValueError(f"{self.source}: a named row needs a key")
        if self.key is not None and self.kind not in ("named", "field"):
            raise ValueError(f"{self.source}: only a named or field row has a key")


@dataclass(frozen=True, slots=True)
class Table:
    """One table of a MAPPING.md (or of RFC.md): rows for one or more step signatures."""

    id: str
    """Region id: the table renders into ``<!-- BEGIN GENERATED: mapping-<id> … -->``."""
    steps: tuple[str, ...]
    """Signatures (``SOURCE->TARGET``) whose behaviour the rows describe."""
    columns: tuple[str, str]
    """Headings of the source and target columns."""
    rows: tuple[Row, ...]


@functools.cache
def tables() -> dict[str, Table]:
    """Every registered table by id (imports the declaring modules once)."""
    found: dict[str, Table] = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for table in getattr(module, "MAPPING_TABLES", ()):
            if table.id in found:
                raise ValueError(f"mapping table {table.id!r} is declared twice")
            found[table.id] = table
    return found


def rows_of(step: str) -> Iterator[Row]:
    """Every row that describes the step ``SOURCE->TARGET``."""
    for table in tables().values():
        if step in table.steps:
            yield from table.rows


FREE_FORM = ("extra", "metadata", "telemetry/data")
"""The free-form objects named keys go into: ATIF and run-log ``extra``, TAO root ``metadata``,
trajectory-sdk ``metadata`` and ``telemetry.data`` (RFC.md §4.5.1)."""


def in_free_form(pointer: str) -> bool:
    """True when ``pointer`` names a member of a free-form object (a named key's place)."""
    parent = pointer.rsplit("/", 1)[0]
    return any(parent == f"/{name}" or parent.endswith(f"/{name}") for name in FREE_FORM)


def named_keys(step: str) -> frozenset[str]:
    """The owner-relative pointers of the named members ``step`` may write."""
    return frozenset(r.key for r in rows_of(step) if r.key is not None and r.kind == "named")


def documented_keys(step: str) -> frozenset[str]:
    """The pointers of every free-form member the tables of ``step`` document: its named keys
    and the conventional members its field rows fill."""
    return frozenset(r.key for r in rows_of(step) if r.key is not None)


def pattern_matches(pattern: Sequence[str], tokens: Sequence[str | int]) -> bool:
    """True when the raw tokens of a named-key pattern (``*`` for any array index) match
    ``tokens`` (a path, or raw pointer tokens) one for one."""
    return len(pattern) == len(tokens) and all(
        p == str(t) or (p == "*" and (isinstance(t, int) or t.isdigit()))
        for p, t in zip(pattern, tokens, strict=True)
    )


def _tail_matches(parts: list[str], tokens: list[str]) -> bool:
    """True when ``parts`` (``*`` matching an index) equal the last tokens of ``tokens``."""
    return len(parts) <= len(tokens) and pattern_matches(parts, tokens[len(tokens) - len(parts) :])


def documents(step: str, path: tuple[str | int, ...]) -> bool:
    """True when the tables of ``step`` document the free-form member at ``path`` (a path from
    the document root): a documented key, or the part of one down to a free-form member,
    matches the end of the path (a lens whose layers are owned by inner objects registers
    owner-relative keys; ``/steps/*/extra/run_log_substeps/*`` documents the array too)."""
    tokens = [str(t) for t in path]
    for key in documented_keys(step):
        parts = [t.replace("~1", "/").replace("~0", "~") for t in key.split("/")[1:]]
        for length in range(len(parts), 0, -1):
            member = length == len(parts) or (
                length >= 2 and parts[length - 2] in ("extra", "metadata", "data")
            )
            if member and _tail_matches(parts[:length], tokens):
                return True
    return False


def is_named(step: str, pointer: str) -> bool:
    """True when ``pointer`` (from a layer's ``wrote``) is a named key of ``step``, or a member
    inside one: a key equal to it or to its start, a ``*`` token of the key matching any array
    index (``/steps/*/extra/outcome``); a named key of the step below an element of a ``nests``
    key; or one below an embedded ATIF subagent (``/subagent_trajectories/<n>``), which the step
    maps by the same rules."""
    tokens = pointer.split("/")
    embedded = len(tokens) > 3 and tokens[1] == "subagent_trajectories" and tokens[2].isdigit()
    if embedded and is_named(step, "/".join(["", *tokens[3:]])):
        return True
    for row in rows_of(step):
        if not row.nests or row.key is None:
            continue
        parts = row.key.split("/")
        if len(tokens) > len(parts) + 1 and tokens[: len(parts)] == parts:
            index, rest = tokens[len(parts)], "/".join(["", *tokens[len(parts) + 1 :]])
            if (index == "*" or index.isdigit()) and is_named(step, rest):
                return True
    keys = (key.split("/") for key in named_keys(step))
    return any(pattern_matches(key, tokens[: len(key)]) for key in keys if len(key) <= len(tokens))


_MARK = {
    "field": "",
    "named": " (named)",
    "stashed": " (stash)",
    "decided": " (decided)",
    "dropped": " (dropped)",
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(table_id: str) -> str:
    """The Markdown table ``table_id`` (a generated region's body)."""
    table = tables()[table_id]
    left, right = table.columns
    lines = [f"| {left} | {right} | Notes |", "|---|---|---|"]
    for row in table.rows:
        target = _cell(row.target) + _MARK[row.kind]
        lines.append(f"| {_cell(row.source)} | {target} | {_cell(row.note)} |")
    return "\n".join(lines) + "\n"
