"""An ordered parallel map over forked worker processes, for small tasks (Linux).

``atif validate --jobs N`` hands its workers byte ranges of JSON Lines files: tasks of a few
bytes whose results come back in input order. :class:`concurrent.futures.ProcessPoolExecutor`
does that too, but importing it (multiprocessing, logging, tempfile, subprocess...) costs
about as much CPU as the whole start-up of a ``--jobs 1`` run, and all of it before the first
worker starts. Here each worker is forked right away and talks to the parent over two pipes;
tasks are pickled one at a time, at most ``in_flight`` per worker, and the parent reads each
result from the worker that has it, in input order.

The parent never blocks writing: a worker's task pipe holds its few outstanding tasks, which
must be small (well under the 64 KiB of a pipe together), so a worker blocked on writing a
result always gets it read. A worker's exception is raised in the parent; a worker that dies
raises :class:`WorkerDied`.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

IN_FLIGHT = 3
"""Tasks handed to one worker before its first result is read."""


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
        pending: deque[tuple[_Worker, T]] = deque()
        for item in items:
            if len(pending) >= jobs * in_flight:
                worker, done = pending.popleft()
                yield done, worker.receive()
            worker = min(workers, key=lambda w: w.outstanding)  # the one that has delivered
            worker.send(item)
            pending.append((worker, item))
        while pending:
            worker, done = pending.popleft()
            yield done, worker.receive()
    finally:
        for worker in workers:
            worker.stop()


class _Worker:
    """The parent's end of one worker: its pid, task pipe and result pipe."""

    def __init__(self, pid: int, tasks: IO[bytes], results: IO[bytes]) -> None:
        self.pid = pid
        self.tasks = tasks
        self.results = results
        self.outstanding = 0

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
                os.close(task_w)
                os.close(result_r)
                for other in others:  # the other workers' pipes stay with the parent
                    other.tasks.close()
                    other.results.close()
                _serve(work, os.fdopen(task_r, "rb"), os.fdopen(result_w, "wb"))
                code = 0
            finally:
                os._exit(code)
        os.close(task_r)
        os.close(result_w)
        return cls(pid, os.fdopen(task_w, "wb"), os.fdopen(result_r, "rb"))

    def send(self, item: object) -> None:
        try:
            pickle.dump(item, self.tasks, protocol=pickle.HIGHEST_PROTOCOL)
            self.tasks.flush()
        except BrokenPipeError:
            raise WorkerDied(f"worker process {self.pid} ended unexpectedly") from None
        self.outstanding += 1

    def receive(self) -> Any:
        try:
            ok, value = pickle.load(self.results)
        except EOFError:
            raise WorkerDied(f"worker process {self.pid} ended unexpectedly") from None
        self.outstanding -= 1
        if not ok:
            raise value
        return value

    def stop(self) -> None:
        """Close the pipes and reap the process (stopped at once if it still has work)."""
        busy = self.outstanding > 0
        for pipe in (self.tasks, self.results):
            with contextlib.suppress(OSError):
                pipe.close()
        if busy:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
        os.waitpid(self.pid, 0)


def _serve(work: Callable[[T], R], tasks: IO[bytes], results: IO[bytes]) -> None:
    """The worker's loop: a result (or the exception) for every task, until the pipe closes."""
    while True:
        try:
            item = pickle.load(tasks)
        except EOFError:
            return
        try:
            out: tuple[bool, object] = (True, work(item))
        except Exception as exc:  # handed to the parent, which raises it
            out = (False, exc)
        try:
            payload = pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # an exception that does not pickle
            payload = pickle.dumps((False, RuntimeError(f"in a worker: {exc!r}")))
        results.write(payload)
        results.flush()
