"""An output that is an input: the one check every command that writes a file makes first.

A file is known by its device and inode (links followed), so another spelling of a path, a
symbolic link or a hard link to an input is recognised as that input. Only an existing regular
file can be clobbered: a new file, ``-`` (standard input or output), a device or a FIFO is never
an input's file. ``--in-place`` is the one way to rewrite an input; every other output that is a
file the run reads is refused before anything is written, with an :class:`OutputError`.

Files found while the run reads (``--follow-refs`` subagent and continuation files, embedded
media) are checked where they are read, against the identities of the outputs
(:func:`file_ids`), with :func:`refuse_read`.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

from atif_spec.jsonio.atomic import OutputError

FileId = tuple[int, int]
"""``(st_dev, st_ino)`` of a regular file."""

Name = str | os.PathLike[str]


def file_id(path: Name | None) -> FileId | None:
    """The identity of the regular file ``path`` names (links followed); None when it names
    none (it does not exist, ``-``, a device, a FIFO, a folder, a URI)."""
    if path is None or os.fspath(path) == "-":
        return None
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


def file_ids(paths: Iterable[Name | None]) -> frozenset[FileId]:
    """The identities of those of ``paths`` that name regular files."""
    return frozenset(found for path in paths if (found := file_id(path)) is not None)


def refuse_overlap(outputs: Iterable[Name | None], inputs: Iterable[Name], hint: str = "") -> None:
    """Raise :class:`OutputError` when an output names the same file as an input (``hint`` is
    added to the message). The inputs are looked at only when some output already exists."""
    existing: dict[FileId, Name] = {}
    for output in outputs:
        found = file_id(output)
        if found is not None and output is not None:
            existing.setdefault(found, output)
    if not existing:
        return
    for name in inputs:
        found = file_id(name)
        if found is not None and found in existing:
            output = existing[found]
            which = "an input" if os.fspath(output) == os.fspath(name) else f"the input {name}"
            raise OutputError(f"refusing to write {output}: it is {which}{hint}")


def refuse_read(
    path: Name, info: os.stat_result | None, outputs: frozenset[FileId], what: str
) -> None:
    """Raise :class:`OutputError` when ``path`` (``info``: its ``stat``, or None to look), which
    the run reads as ``what`` (``an input``, ``a referenced trajectory``, ``a media file``), is
    one of its ``outputs``."""
    if not outputs:
        return
    found = file_id(path) if info is None else (info.st_dev, info.st_ino)
    if found is not None and found in outputs:
        raise OutputError(f"refusing to write {path}: this run reads it ({what})")
