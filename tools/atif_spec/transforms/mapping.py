"""The mapping registry (RFC.md §4.5.5): the ``MAPPING_TABLES`` of every lens module and of the
migrations, rows saying where a source field goes (a field, a named key, the stash, a decided
or dropped value). They render MAPPING.md's and RFC.md's tables (``spectools.docgen``, whose
``--check`` fails on drift); tests check each named key a step writes has a row.
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
    """One source location and what a step makes of it (Markdown allowed in the texts)."""

    source: str
    target: str
    """The target field or named member ("—" when there is none)."""
    kind: Kind = "field"
    note: str = ""
    key: str | None = None
    """The pointer, relative to its owner, of the member a ``named`` row writes (e.g.
    ``/extra/llm_call_count``), or of the conventional free-form member a ``field`` row fills
    (a run log's ``extra.model``)."""
    nests: bool = False
    """For ``named`` rows: the member is an array of documents the step maps by the same rules
    (embedded subagents), so each of its named keys recurs as ``<key>/<index><named key>``."""

    def __post_init__(self) -> None:
        if self.kind == "named" and self.key is None:
            raise ValueError(f"{self.source}: a named row needs a key")
        if self.key is not None and self.kind not in ("named", "field"):
            raise ValueError(f"{self.source}: only a named or field row has a key")


@dataclass(frozen=True, slots=True)
class Table:
    """One table, rendered into the region ``mapping-<id>``, for one or more step signatures."""

    id: str
    steps: tuple[str, ...]
    columns: tuple[str, str]  # the headings of the source and target columns
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


def named_keys(step: str) -> frozenset[str]:
    """The owner-relative pointers of the named members ``step`` may write."""
    return frozenset(r.key for r in rows_of(step) if r.key is not None and r.kind == "named")


def pattern_matches(pattern: Sequence[str], tokens: Sequence[str | int]) -> bool:
    """True when the raw tokens of a named-key pattern (``*`` for any array index) match
    ``tokens`` (a path, or raw pointer tokens) one for one."""
    return len(pattern) == len(tokens) and all(
        p == str(t) or (p == "*" and (isinstance(t, int) or t.isdigit()))
        for p, t in zip(pattern, tokens, strict=True)
    )


def documents(step: str, path: tuple[str | int, ...]) -> bool:
    """True when the tables of ``step`` document the free-form member at ``path`` (from the
    root): the end of the path matches a documented key (owner-relative: a named key or the
    member a field row fills), or its part down to a free-form member
    (``/steps/*/extra/run_log_substeps/*`` documents the array too)."""
    tokens = [str(t) for t in path]
    for key in {r.key for r in rows_of(step) if r.key is not None}:
        parts = [t.replace("~1", "/").replace("~0", "~") for t in key.split("/")[1:]]
        for n in range(len(parts), 0, -1):
            member = n == len(parts) or (n >= 2 and parts[n - 2] in ("extra", "metadata", "data"))
            if member and pattern_matches(parts[:n], tokens[-n:]):
                return True
    return False


def is_named(step: str, pointer: str) -> bool:
    """True when ``pointer`` (from a layer's ``wrote``) is a named key of ``step`` (a ``*`` of
    the key matching any array index: ``/steps/*/extra/outcome``) or a member inside one, also
    below an element of a ``nests`` key or of ``/subagent_trajectories`` (documents the step
    maps by the same rules)."""
    tokens = pointer.split("/")
    for key in ("/subagent_trajectories", *(r.key for r in rows_of(step) if r.nests and r.key)):
        n = len(parts := key.split("/"))
        index = tokens[n] if len(tokens) > n + 1 and tokens[:n] == parts else ""
        if (index == "*" or index.isdigit()) and is_named(step, "/".join(["", *tokens[n + 1 :]])):
            return True
    keys = (key.split("/") for key in named_keys(step))
    return any(pattern_matches(key, tokens[: len(key)]) for key in keys if len(key) <= len(tokens))


_MARK = {"field": "", "stashed": " (stash)"} | {
    k: f" ({k})" for k in ("named", "decided", "dropped")
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
