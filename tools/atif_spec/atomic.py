"""Atomic file writes: a temporary sibling file, fsync, then ``os.replace`` over the target.

Readers see either the old file or the complete new one, never a partial write; an
interrupted or failed write leaves the original untouched (the temporary file is removed).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import IO


class AtomicFile:
    """A file written to a temporary sibling and renamed over the target on :meth:`commit`."""

    def __init__(self, target: Path, mode_from: Path | None = None) -> None:
        self.target = target
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        self.temp = Path(name)
        self._fh: IO[bytes] = os.fdopen(fd, "wb")
        source = mode_from if mode_from is not None else target
        if source.exists():
            os.chmod(self.temp, source.stat().st_mode & 0o7777)
        else:
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(self.temp, 0o666 & ~mask)

    def write(self, data: bytes) -> None:
        """Append bytes to the temporary file."""
        self._fh.write(data)

    def commit(self) -> None:
        """Flush, fsync and rename over the target (atomic on POSIX)."""
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._fh.close()
        os.replace(self.temp, self.target)
        try:
            dir_fd = os.open(self.target.parent, os.O_RDONLY)
        except OSError:  # pragma: no cover - platforms without directory fds
            return
        try:
            os.fsync(dir_fd)
        except OSError:  # pragma: no cover
            pass
        finally:
            os.close(dir_fd)

    def abort(self) -> None:
        """Discard the temporary file; the target is untouched."""
        if not self._fh.closed:
            self._fh.close()
        self.temp.unlink(missing_ok=True)


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` all at once (keeping an existing file's permissions)."""
    out = AtomicFile(Path(path))
    try:
        out.write(data)
        out.commit()
    except BaseException:
        out.abort()
        raise
