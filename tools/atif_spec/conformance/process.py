"""An implementation under test, as a child process spoken to in JSON lines.

Standard output is read by a thread into a queue so that every wait has a timeout; standard
error is drained by another thread and its last lines are kept for reports. Both read lines of
bounded length (:data:`MAX_RESPONSE_BYTES`, :data:`MAX_STDERR_LINE_BYTES`), so an adapter that
writes one endless line cannot exhaust memory. Anything that goes wrong (exit, timeout, a line
that is not JSON or is too long) raises :class:`AdapterError`; the caller decides whether to
restart.
"""

from __future__ import annotations

import collections
import contextlib
import queue
import subprocess
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import orjson

from atif_spec.jsonio import jsontext

STDERR_LINES = 20
STDERR_SETTLE_SECONDS = 2.0
"""How long a report waits for the last standard-error lines of an exited process (a child
that left the pipe open to a grandchild would otherwise hold it forever)."""

MAX_RESPONSE_BYTES = 64 * 1024 * 1024
"""Longest line read from an adapter's standard output. A response holds at most the documents
of one case (``produce`` answers with every document written from a native log); the largest
file of the suite is 1.5 MB, so 64 MiB leaves a margin of over 40. A longer line is an adapter
error, and at most this much of it is held at once."""

MAX_STDERR_LINE_BYTES = 64 * 1024
"""Longest line of an adapter's standard error kept for reports; the rest of it is dropped."""


class AdapterError(Exception):
    """The implementation gave no usable answer."""


class Adapter:
    """One running implementation process."""

    def __init__(self, command: Sequence[str], cwd: Path | None = None) -> None:
        self.command = list(command)
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._lines: queue.Queue[bytes | AdapterError | None] = queue.Queue()
        try:
            self._proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
            )
        except OSError as exc:
            raise AdapterError(f"cannot start {self.command[0]!r}: {exc}") from exc
        assert self._proc.stdout is not None and self._proc.stderr is not None
        threading.Thread(target=self._pump, args=(self._proc.stdout,), daemon=True).start()
        self._drainer = threading.Thread(target=self._drain, args=(self._proc.stderr,), daemon=True)
        self._drainer.start()

    def _pump(self, stream: IO[bytes]) -> None:
        """Queue each line of standard output; a line over :data:`MAX_RESPONSE_BYTES` is
        queued as the error it is, and the rest of it read and dropped."""
        for line, whole in _lines(stream, MAX_RESPONSE_BYTES):
            if whole:
                self._lines.put(line)
            else:
                mib = MAX_RESPONSE_BYTES // (1024 * 1024)
                start = line[:60].decode("utf-8", "replace")
                too_long = f"a line on standard output is longer than {mib} MiB: {start!r}…"
                self._lines.put(AdapterError(too_long))
        self._lines.put(None)

    def _drain(self, stream: IO[bytes]) -> None:
        for line, whole in _lines(stream, MAX_STDERR_LINE_BYTES):
            text = line[:MAX_STDERR_LINE_BYTES].decode("utf-8", "replace").rstrip()
            self._stderr.append(text if whole else f"{text}… (line cut)")

    @property
    def alive(self) -> bool:
        """True while the process has not exited."""
        return self._proc.poll() is None

    def stderr_tail(self) -> list[str]:
        """The last lines the process wrote to standard error; once it has exited, waits
        (briefly) for the drain thread to read what was still in the pipe."""
        if not self.alive:
            self._drainer.join(timeout=STDERR_SETTLE_SECONDS)
        return list(self._stderr)

    def send(self, message: dict[str, Any]) -> None:
        """Write one request line."""
        stdin = self._proc.stdin
        assert stdin is not None
        try:
            stdin.write(jsontext.dumps(message) + b"\n")
            stdin.flush()
        except (BrokenPipeError, ValueError, OSError) as exc:
            raise AdapterError(f"the implementation stopped reading requests ({exc})") from exc

    def receive(self, timeout: float) -> Any:
        """Read one response line and parse it; blank lines are not responses."""
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise AdapterError(f"no answer within {timeout:g} s") from None
            if line is None:
                self._lines.put(None)
                status = self._proc.wait()
                raise AdapterError(f"the implementation exited (status {status})")
            if isinstance(line, AdapterError):
                raise line
            if line.strip():
                break
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            text = line.decode("utf-8", "replace").strip()
            raise AdapterError(f"not a JSON line on standard output: {text[:120]!r}") from None

    def request(self, message: dict[str, Any], timeout: float) -> Any:
        """Send one request and wait for its response."""
        self.send(message)
        return self.receive(timeout)

    def close(self, stop: dict[str, Any] | None, grace: float = 5.0) -> None:
        """Ask the process to stop (when ``stop`` is given), then kill it if it lingers."""
        if stop is not None and self.alive:
            with contextlib.suppress(AdapterError):
                self.send(stop)
        if self._proc.stdin is not None:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
        try:
            self._proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """End the process now."""
        if self.alive:
            self._proc.kill()
        self._proc.wait()


def _lines(stream: IO[bytes], limit: int) -> Iterator[tuple[bytes, bool]]:
    """``(line, whole)`` for each line of ``stream``: a line longer than ``limit`` bytes comes
    once, as its first ``limit + 1`` bytes with ``whole`` False, and the rest of it is dropped."""
    dropping = False
    while line := stream.readline(limit + 1):
        ends = line.endswith(b"\n")
        if dropping:
            dropping = not ends
        elif len(line) > limit:
            dropping = not ends
            yield line, False
        else:
            yield line, True
