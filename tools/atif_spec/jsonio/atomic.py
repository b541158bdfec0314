"""The one place files are written: atomically, or as a stream for special files.

A regular file is written to a temporary sibling, fsynced and renamed over the target with
``os.replace``: readers see the old file or the complete new one, and a failed or interrupted
write (an error, ``KeyboardInterrupt``, ``SIGTERM`` or ``SIGHUP``) leaves the original untouched
and no temporary file behind. What the target is decides how it is written:

- a **symlink** is followed: the file it points to is replaced and the link is kept (a dangling
  link is refused);
- an existing regular file keeps its **mode and owner** (refused when the owner cannot be kept)
  and is refused when it has **hard links**, which a rename would break;
- a **device, FIFO or socket** (``/dev/null``, ``/dev/stdout``, a named pipe) is written as a
  stream, never renamed over; a directory is refused.

Every failure is an :class:`OutputError` whose message is one line naming the path.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import tempfile
import threading
from pathlib import Path
from types import FrameType
from typing import IO

_LIVE: set[Path] = set()
"""Temporary files not yet committed or discarded (removed on SIGTERM/SIGHUP)."""
_HANDLED = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
_installed = False


class OutputError(OSError):
    """An output file that cannot be written (the message is one line naming it)."""


def _describe(path: Path, exc: OSError) -> OutputError:
    return OutputError(f"cannot write {path}: {exc.strerror or exc}")


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """Remove every live temporary file, then die of the signal as if unhandled."""
    for temp in list(_LIVE):
        with contextlib.suppress(OSError):
            temp.unlink()
    _LIVE.clear()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_handlers() -> None:
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    for signum in _HANDLED:
        if signal.getsignal(signum) in (signal.SIG_DFL, None):
            signal.signal(signum, _on_signal)
    _installed = True


class AtomicFile:
    """A file written to a temporary sibling and renamed over the target on :meth:`commit`
    (or, for a device or FIFO, written straight to it; see the module docstring)."""

    def __init__(self, target: Path, mode_from: Path | None = None) -> None:
        self.target = target
        self.temp: Path | None = None
        try:
            self._fh = self._open(Path(target), mode_from)
        except OutputError:
            raise
        except OSError as exc:
            raise _describe(target, exc) from exc

    def _open(self, target: Path, mode_from: Path | None) -> IO[bytes]:
        try:
            st: os.stat_result | None = target.stat()
        except FileNotFoundError:
            if target.is_symlink():
                raise OutputError(f"cannot write {target}: it is a dangling symlink") from None
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise OutputError(f"cannot write {target}: it is a directory")
        if st is not None and not stat.S_ISREG(st.st_mode):
            return open(target, "wb")  # a device, FIFO or socket: a stream, never replaced
        real = Path(os.path.realpath(target)) if target.is_symlink() else target
        if st is not None and st.st_nlink > 1:
            raise OutputError(
                f"refusing to replace {target}: it has {st.st_nlink} hard links, which "
                "replacing it would break (copy it, or write elsewhere with -o)"
            )
        real.parent.mkdir(parents=True, exist_ok=True)
        _install_handlers()
        fd, name = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".tmp")
        self.temp = Path(name)
        _LIVE.add(self.temp)
        self.real = real
        fh = os.fdopen(fd, "wb")
        try:
            self._keep_attributes(fd, target, st, mode_from)
        except BaseException:
            fh.close()
            self._discard()
            raise
        return fh

    def _keep_attributes(
        self, fd: int, target: Path, st: os.stat_result | None, mode_from: Path | None
    ) -> None:
        source = mode_from.stat() if mode_from is not None and mode_from.exists() else st
        if source is None:
            mask = os.umask(0)
            os.umask(mask)
            os.fchmod(fd, 0o666 & ~mask)
            return
        made = os.fstat(fd)
        if (made.st_uid, made.st_gid) != (source.st_uid, source.st_gid):
            try:
                os.fchown(fd, source.st_uid, source.st_gid)
            except PermissionError:
                raise OutputError(
                    f"refusing to replace {target}: its owner ({source.st_uid}:{source.st_gid}) "
                    "could not be kept"
                ) from None
        os.fchmod(fd, source.st_mode & 0o7777)

    def write(self, data: bytes) -> None:
        """Append bytes (to the temporary file, or to the stream)."""
        try:
            self._fh.write(data)
        except OSError as exc:
            raise _describe(self.target, exc) from exc

    def commit(self) -> None:
        """Flush, fsync and rename over the target (atomic on POSIX); close a stream."""
        try:
            self._fh.flush()
            if self.temp is None:
                self._fh.close()
                return
            os.fsync(self._fh.fileno())
            self._fh.close()
            os.replace(self.temp, self.real)
        except OSError as exc:
            self.abort()
            raise _describe(self.target, exc) from exc
        _LIVE.discard(self.temp)
        self.temp = None
        try:
            dir_fd = os.open(self.real.parent, os.O_RDONLY)
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
            with contextlib.suppress(OSError):
                self._fh.close()
        self._discard()

    def _discard(self) -> None:
        if self.temp is not None:
            self.temp.unlink(missing_ok=True)
            _LIVE.discard(self.temp)
            self.temp = None


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` all at once (keeping an existing file's permissions)."""
    out = AtomicFile(Path(path))
    try:
        out.write(data)
        out.commit()
    except BaseException:
        out.abort()
        raise
