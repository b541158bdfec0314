"""Which files a run reads: the one listing of every command's inputs.

Inputs are files, folders, ``-`` (stdin) and, for datasets, URIs. A file named on the command
line is always read. A folder is walked (recursively, sorted; links to folders are not followed,
links to files are) and its files are read when

1. the name ends in a document suffix (``.json``, ``.jsonl``, ``.ndjson``; datasets also
   ``.parquet``);
2. no ``.atifignore`` pattern of the folder walked or a folder below it matches it, relative to
   the folder holding that file (:mod:`atif_spec.validation.globs`);
3. no ``--exclude`` pattern matches it, relative to the folder walked;
4. with ``--include``: an include pattern matches it. Without: it is not one of the other files
   of a Harbor job or trial folder (:mod:`atif_spec.validation.harbor`: there only the
   trajectories are documents).

What a walk skipped is counted (:meth:`Listing.note`), so a summary can say it. Inputs that hold
no document file raise :class:`~atif_spec.validation.reader.UnreadablePath` (exit 2 in every
command): a wrong path never passes as a run with nothing wrong in it.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from atif_spec.validation.globs import Pattern, PatternError, any_match, compile_all, read_ignore
from atif_spec.validation.harbor import Layout
from atif_spec.validation.reader import JSON_SUFFIXES, STDIN, UnreadablePath, is_uri

IGNORE_FILE = ".atifignore"
"""The ignore file read in every folder walked (patterns: :mod:`atif_spec.validation.globs`)."""

Reason = Literal["harbor", "ignored", "excluded", "not-included"]
_REASONS: dict[Reason, str] = {
    "harbor": "Harbor job and trial files, not trajectories",
    "ignored": f"matching {IGNORE_FILE}",
    "excluded": "matching --exclude",
    "not-included": "not matching --include",
}


@dataclass(frozen=True, slots=True)
class Filters:
    """``--include`` and ``--exclude`` patterns (compiled: :meth:`parse`)."""

    include: tuple[Pattern, ...] = ()
    exclude: tuple[Pattern, ...] = ()

    @classmethod
    def parse(cls, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Filters:
        """Compile the patterns; :class:`~atif_spec.validation.globs.PatternError` for a bad one."""
        return cls(compile_all(include), compile_all(exclude))


@dataclass(slots=True)
class Tree:
    """What the walk of one folder found: every file (its path relative to the folder, with
    ``/``, and its name as the run reads it), every folder below, the ignore files' patterns by
    the folder holding them (``""``: the folder walked)."""

    files: list[tuple[str, str]] = field(default_factory=list)
    dirs: set[str] = field(default_factory=set)
    ignores: dict[str, tuple[Pattern, ...]] = field(default_factory=dict)
    odd: set[str] = field(default_factory=set)
    """The names of the files that are no regular files (FIFOs, sockets, dangling links)."""


@dataclass(slots=True)
class Listing:
    """The files of the inputs, in order, and what the folder walks skipped."""

    files: list[str] = field(default_factory=list)
    roots: dict[str, str] = field(default_factory=dict)
    """The input each file came from (itself when named)."""
    skipped: list[tuple[str, Reason]] = field(default_factory=list)
    trials: dict[str, str] = field(default_factory=dict)
    """The Harbor trial folder of each file that is one of its trajectories (found by the
    layout even with ``--include``)."""

    def note(self) -> str | None:
        """``skipped N file(s): ...`` (how many, why, the commonest names), or None."""
        if not self.skipped:
            return None
        by_reason = Counter(reason for _, reason in self.skipped)
        parts = []
        for reason, label in _REASONS.items():
            if by_reason[reason]:
                names = Counter(os.path.basename(f) for f, r in self.skipped if r == reason)
                common = ", ".join(f"{n} {c}" for n, c in names.most_common(4))
                more = ", ..." if len(names) > 4 else ""
                parts.append(f"{by_reason[reason]} {label} ({common}{more})")
        return f"skipped {len(self.skipped)} file(s): {'; '.join(parts)}"


Remote = Callable[[str], Tree | None]
"""Lists a URI: its tree, or None when it names one file (the datasets' sources module)."""


def list_inputs(
    inputs: Iterable[str],
    filters: Filters | None = None,
    *,
    suffixes: tuple[str, ...] = JSON_SUFFIXES,
    remote: Remote | None = None,
) -> Listing:
    """The files of ``inputs`` (see the module docstring). Raises :class:`UnreadablePath` for an
    input that does not exist or cannot be read, a folder below one that cannot be read, an
    unreadable or bad ignore file, and for inputs holding no document file."""
    inputs = list(inputs)
    rules = filters or Filters()
    listing = Listing()
    for item in inputs:
        if item == STDIN:
            _add(listing, item, item)
            continue
        tree = _tree(item, remote)
        if tree is None:
            _add(listing, item, item)
            continue
        layout = Layout((r for r, _ in tree.files), tree.dirs)
        kept, skipped = select(tree, rules, suffixes, layout)
        listing.skipped.extend(skipped)
        for name in kept:
            if not is_uri(name) and not os.access(name, os.R_OK):
                raise UnreadablePath(f"permission denied: {name}")
            _add(listing, name, item)
        if layout.trials and not is_uri(item):
            listing.trials.update(_trials(tree, layout, set(kept), item))
    if not listing.files:
        named = ", ".join(inputs) or "the inputs"
        extra = f"; {note}" if (note := listing.note()) else ""
        raise UnreadablePath(
            f"no document files in {named} (looked for *.json, *.jsonl, *.ndjson"
            f" and, for datasets, *.parquet{extra})"
        )
    return listing


def _add(listing: Listing, name: str, root: str) -> None:
    listing.files.append(name)
    listing.roots.setdefault(name, root)


def _tree(item: str, remote: Remote | None) -> Tree | None:
    """The tree of a folder or URI input; None for one file (checked readable)."""
    if remote is not None and is_uri(item):
        return remote(item)
    path = Path(item)
    if path.is_dir():
        return walk(item)
    if path.is_file():
        if not os.access(item, os.R_OK):
            raise UnreadablePath(f"permission denied: {item}")
        return None
    if path.exists():
        raise UnreadablePath(f"not a regular file: {item}")
    raise UnreadablePath(f"no such file or directory: {item}")


def walk(top: str) -> Tree:
    """Every file and folder below ``top``, and its ignore files; a folder inside that cannot
    be read raises :class:`UnreadablePath` instead of being skipped.

    The folder entries' types tell the files that are not regular files (a FIFO, a socket, a
    dangling link) without a ``stat`` of each: only links are looked up."""
    tree = Tree()
    folders = [(top, "")]
    while folders:
        folder, rel = folders.pop()
        try:
            with os.scandir(folder) as found:
                entries = list(found)
        except OSError as exc:
            raise UnreadablePath(
                f"cannot read folder {exc.filename}: {exc.strerror or exc}"
            ) from None
        base = str(Path(folder))  # spelled as pathlib spells it, joined without it per file
        prefix = "" if base == "." else os.path.join(base, "")
        for entry in entries:
            inner = _join(rel, entry.name)
            if _is_dir(entry):
                tree.dirs.add(inner)
                if not entry.is_symlink():  # links to folders are not followed
                    folders.append((entry.path, inner))
                continue
            name = prefix + entry.name
            tree.files.append((inner, name))
            if not _is_file(entry):
                tree.odd.add(name)
        if any(entry.name == IGNORE_FILE for entry in entries):
            tree.ignores[rel] = _ignore_file(Path(folder, IGNORE_FILE))
    return tree


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def _ignore_file(path: Path) -> tuple[Pattern, ...]:
    try:
        return compile_all(read_ignore(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError) as exc:
        raise UnreadablePath(f"cannot read {path}: {exc}") from exc
    except PatternError as exc:
        raise UnreadablePath(f"{path}: {exc}") from exc


def _trials(tree: Tree, layout: Layout, kept: set[str], top: str) -> Iterator[tuple[str, str]]:
    """``(file, its trial folder)`` for the kept files that are trajectories of a trial."""
    for rel, name in tree.files:
        trial = layout.trial_of(rel) if name in kept else None
        if trial is not None:
            yield name, str(Path(top, trial)) if trial else top


def select(
    tree: Tree, filters: Filters, suffixes: tuple[str, ...], layout: Layout | None = None
) -> tuple[list[str], list[tuple[str, Reason]]]:
    """The names of the document files of ``tree`` the run reads (sorted), and the others
    with the reason each is skipped (``layout``: the tree's, when already made)."""
    if filters.include:
        layout = None
    elif layout is None:
        layout = Layout((r for r, _ in tree.files), tree.dirs)
    kept: list[str] = []
    skipped: list[tuple[str, Reason]] = []
    for rel, name in tree.files:
        if not rel.lower().endswith(suffixes):
            continue
        reason = _reason(rel, tree.ignores, filters, layout)
        if reason is not None:
            skipped.append((name, reason))
        elif name not in tree.odd:  # not a FIFO, socket or dangling link
            kept.append(name)
    return sorted(kept), sorted(skipped)


def _reason(
    rel: str, ignores: dict[str, tuple[Pattern, ...]], filters: Filters, layout: Layout | None
) -> Reason | None:
    if ignores and _ignored(rel, ignores):
        return "ignored"
    if filters.exclude and any_match(filters.exclude, rel):
        return "excluded"
    if filters.include:
        return None if any_match(filters.include, rel) else "not-included"
    if layout and layout.place(rel) is False:
        return "harbor"
    return None


def _ignored(rel: str, ignores: dict[str, tuple[Pattern, ...]]) -> bool:
    parts = rel.split("/")
    for depth in range(len(parts)):
        patterns = ignores.get("/".join(parts[:depth]))
        if patterns and any_match(patterns, "/".join(parts[depth:])):
            return True
    return False


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name
