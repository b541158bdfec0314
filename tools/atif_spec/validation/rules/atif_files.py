"""Files an ATIF document names: its folder, local paths resolved against it, and the
documents of file-referenced subagents (for the totals rule). Shared by :mod:`.atif` and
:mod:`.atif_refs`; no rules here."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from atif_spec.formats.totals import Resolver
from atif_spec.jsonio import jsontext
from atif_spec.jsonio.atomic import OutputError
from atif_spec.jsonio.samefile import refuse_read
from atif_spec.validation.rules.registry import RuleContext


def tree_of(ctx: RuleContext) -> Path | None:
    """The resolved folder of the document file, or None when there is no file.

    The folder of the file as named: a trajectory reached through a symbolic link resolves
    its media and its referenced trajectories against the link's folder (RFC.md, Subagent
    resolution), the link's own target is never consulted."""
    if ctx.path is None:
        return None
    try:
        return Path(ctx.path).parent.resolve()
    except (OSError, ValueError, RuntimeError):
        return None


def locate(tree: Path, raw: str) -> tuple[Path, bool]:
    """Where a local path read from ``tree`` points (``..`` and symlinks resolved), and whether
    that is in ``tree``; never raises (shared with ``atif_refs``)."""
    candidate = Path(raw)
    if not candidate.is_absolute():
        candidate = tree / candidate
    try:
        target = candidate.resolve()
    except (OSError, ValueError, RuntimeError):
        target = Path(os.path.normpath(candidate))
    return target, target.is_relative_to(tree)


_DOCS: dict[tuple[Path, int], Any] = {}
_DOCS_KEPT = 64
"""Referenced documents kept parsed for the totals (by path and modification time)."""


def _parsed(resolved: Path, ctx: RuleContext) -> Any:
    """The parsed document of a referenced file within ``--max-bytes`` (kept by path and change
    time), or None; raises only :class:`OutputError` (a file this run writes)."""
    try:
        if not resolved.is_file():
            return None
        stat = resolved.stat()
        if stat.st_size > ctx.options.max_bytes:
            return None
        refuse_read(resolved, stat, ctx.options.outputs, "a referenced trajectory")
        key = (resolved, stat.st_mtime_ns)
        if key not in _DOCS:
            if len(_DOCS) >= _DOCS_KEPT:
                _DOCS.clear()
            _DOCS[key] = jsontext.loads(resolved.read_bytes())
    except OutputError:
        raise  # an output of this run: the run stops before writing it
    except (OSError, ValueError, RuntimeError):
        return None
    return _DOCS[key]


def subagent_resolver(
    ctx: RuleContext,
) -> Callable[[Mapping[str, Any], Mapping[str, Any]], Mapping[str, Any] | None]:
    """Reads the documents file-referenced subagents name, for :mod:`atif_spec.formats.totals`: only
    with ``--follow-refs``, only local files inside the folder of the file holding the reference (or
    anywhere with ``--allow-outside``) and within ``--max-bytes``; None for anything it cannot
    read (it raises only :class:`OutputError`, for a file that is an output of this run). A
    relative path resolves against the folder of the file that holds the reference (RFC.md
    §2.2): the document's own for its references, the referenced file's for the references
    inside it, as the reference rules do."""
    root = tree_of(ctx)  # the folder of the file as named, as for every reference (D-6)
    folders: dict[int, Path] = {}
    """Folder of each document this resolver returned, by identity."""

    def resolve(ref: Mapping[str, Any], holder: Mapping[str, Any]) -> Mapping[str, Any] | None:
        raw = ref.get("trajectory_path")
        folder = folders.get(id(holder), root)
        if folder is None or not ctx.options.follow_refs or not isinstance(raw, str):
            return None
        if not raw or "://" in raw:
            return None
        resolved, inside = locate(folder, raw)
        if not (inside or ctx.options.allow_outside):
            return None
        doc = _parsed(resolved, ctx)
        if not isinstance(doc, dict):
            return None
        folders[id(doc)] = resolved.parent
        return doc

    typed: Resolver = resolve
    return typed
