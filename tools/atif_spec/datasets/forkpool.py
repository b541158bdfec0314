"""An ordered parallel map over forked worker processes, for small tasks (Linux).

``atif validate --jobs N`` hands its workers byte ranges of JSON Lines files: tasks of a few
bytes whose results come back in input order. :class:`concurrent.futures.ProcessPoolExecutor`
does that too, but importing it (multiprocessing, logging, tempfile, subprocess...) costs
about as much CPU as the whole start-up of a ``--jobs 1`` run, and all of it before the first
worker starts. Here each worker is forked right away and talks to the parent over two pipes
(length-prefixed pickles). A task goes to a worker that has fewer than ``in_flight`` tasks;
the parent takes results as workers finish them (so a worker that the machine slows down
does not hold the others back) and hands them on in input order, with at most
``jobs * WINDOW`` tasks between the first unanswered one and the last one handed out.

The parent never blocks writing: a worker's task pipe holds its few outstanding tasks, which
must be small (well under the 64 KiB of a pipe together), so a worker blocked on writing a
result always gets it read. A worker's exception is raised in the parent; a worker that dies
raises :class:`WorkerDied`.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import struct
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

IN_FLIGHT = 2
"""Tasks handed to one worker at a time: the one it works on and the next."""
WINDOW = 4
"""Per worker: how far past the first unanswered task others may be handed out."""
_HEADER = struct.Struct("<Q")


class WorkerDied(RuntimeError):
    """A worker process ended without sending its result."""


def available() -> bool:
    """True where this pool runs: Linux (``fork`` is the platform's usual start method)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def map_forked(
    work: Callable[[T], R], items: Iterable[T], jobs: int, *, in_flight: int = IN_FLIGHT
) -> Iterator[tuple[T, R]]:
    """``(item, work(item))`` for every item, in input order, computed in ``jobs`` forked
    processes (each item one small task; see the module docstring)."""
    workers: list[_Worker] = []
    try:
        for _ in range(jobs):
            workers.append(_Worker.start(work, workers))
        source = iter(items)
        sent: dict[int, T] = {}
        done: dict[int, tuple[bool, Any]] = {}
        head = count = 0
        exhausted = False
        while True:
            if not exhausted:
                count, exhausted = _hand_out(
                    workers, source, sent, count, head + jobs * WINDOW, in_flight
                )
            if head in done:
                ok, value = done.pop(head)
                if not ok:  # the task's exception, raised where its result would have come
                    raise value
                yield sent.pop(head), value
                head += 1
                continue
            if not _receive_ready(workers, done):
                return
    finally:
        for worker in workers:
            worker.stop()


_END: Any = object()


def _hand_out(
    workers: list[_Worker],
    source: Iterator[T],
    sent: dict[int, T],
    count: int,
    limit: int,
    in_flight: int,
) -> tuple[int, bool]:
    """Send tasks ``count``.. below ``limit`` to workers with room: (next index, source ended)."""
    while count < limit:
        free = min(workers, key=lambda w: len(w.queue))
        if len(free.queue) >= in_flight:
            break
        item = next(source, _END)
        if item is _END:
            return count, True
        free.send(count, item)
        sent[count] = item
        count += 1
    return count, False


def _receive_ready(workers: list[_Worker], done: dict[int, tuple[bool, Any]]) -> bool:
    """Wait for busy workers and put their results in ``done``; False when none is busy."""
    busy = {w.results: w for w in workers if w.queue}
    if not busy:
        return False
    poll = select.poll()  # not select(): no limit on the descriptors' numbers
    for fd in busy:
        poll.register(fd, select.POLLIN)
    for fd, _ in poll.poll():
        index, ok, value = busy[fd].receive()
        done[index] = ok, value
    return True


class _Worker:
    """The parent's end of one worker: its pid, pipes and the tasks it has not answered."""

    def __init__(self, pid: int, tasks: int, results: int) -> None:
        self.pid = pid
        self.tasks = tasks
        self.results = results
        self.queue: deque[int] = deque()

    @classmethod
    def start(cls, work: Callable[[T], R], others: list[_Worker]) -> _Worker:
        task_r, task_w = os.pipe()
        result_r, result_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the worker: never returns
            code = 1
            try:
                for fd in (task_w, result_r, *(f for o in others for f in (o.tasks, o.results))):
                    os.close(fd)  # the other ends, and the other workers' pipes
                _serve(work, task_r, result_w)
                code = 0
            finally:
                os._exit(code)
        os.close(task_r)
        os.close(result_w)
        return cls(pid, task_w, result_r)

    def send(self, index: int, item: object) -> None:
        try:
            _write(self.tasks, pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL))
        except BrokenPipeError:
            raise WorkerDied(f"worker process {self.pid} ended unexpectedly") from None
        self.queue.append(index)

    def receive(self) -> tuple[int, bool, Any]:
        """This worker's oldest task: its index, whether it succeeded, its result (or the
        exception it raised)."""
        payload = _read(self.results)
        if payload is None:
            raise WorkerDied(f"worker process {self.pid} ended unexpectedly")
        ok, value = pickle.loads(payload)
        return self.queue.popleft(), ok, value

    def stop(self) -> None:
        """Close the pipes and reap the process (stopped at once if it still has work)."""
        for fd in (self.tasks, self.results):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.queue:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
        os.waitpid(self.pid, 0)


def _write(fd: int, payload: bytes) -> None:
    view = memoryview(_HEADER.pack(len(payload)) + payload)
    while view:
        view = view[os.write(fd, view) :]


def _read(fd: int) -> bytes | None:
    """One message, or None at the end of the pipe."""
    header = _read_exactly(fd, _HEADER.size)
    if header is None:
        return None
    return _read_exactly(fd, _HEADER.unpack(header)[0])


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks: list[bytes] = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _serve(work: Callable[[T], R], tasks: int, results: int) -> None:
    """The worker's loop: a result (or the exception) for every task, until the pipe closes."""
    while True:
        message = _read(tasks)
        if message is None:
            return
        try:
            out: tuple[bool, object] = (True, work(pickle.loads(message)))
        except Exception as exc:  # handed to the parent, which raises it
            out = (False, exc)
        try:
            payload = pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # an exception that does not pickle
            payload = pickle.dumps((False, RuntimeError(f"in a worker: {exc!r}")))
        _write(results, payload)
