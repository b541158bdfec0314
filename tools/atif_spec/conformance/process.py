"""An implementation under test, as a child process spoken to in JSON lines.

Standard output is read by a thread into a queue so that every wait has a timeout; standard
error is drained by another thread and its last lines are kept for reports. Anything that
goes wrong (exit, timeout, a line that is not JSON) raises :class:`AdapterError`; the caller
decides whether to restart.
"""

from __future__ import annotations

import collections
import contextlib
import queue
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import orjson

from atif_spec.jsonio import jsontext

STDERR_LINES = 20


class AdapterError(Exception):
    """The implementation gave no usable answer."""


class Adapter:
    """One running implementation process."""

    def __init__(self, command: Sequence[str], cwd: Path | None = None) -> None:
        self.command = list(command)
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._lines: queue.Queue[bytes | None] = queue.Queue()
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
        threading.Thread(target=self._drain, args=(self._proc.stderr,), daemon=True).start()

    def _pump(self, stream: IO[bytes]) -> None:
        for line in stream:
            self._lines.put(line)
        self._lines.put(None)

    def _drain(self, stream: IO[bytes]) -> None:
        for line in stream:
            self._stderr.append(line.decode("utf-8", "replace").rstrip())

    @property
    def alive(self) -> bool:
        """True while the process has not exited."""
        return self._proc.poll() is None

    def stderr_tail(self) -> list[str]:
        """The last lines the process wrote to standard error."""
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
