"""Progress of a run over many documents, on standard error when it is a terminal.

One line, redrawn in place: what is done out of the total, the rate and the time left
(``validated 1,234/20,000 documents · 2,100/s · 0:00:09 left``). The total is known when it is
cheap to know: the number of files after listing when every file is one document, or their size
in bytes when some are JSON Lines (progress then counts the bytes read). On standard input, a
pipe, Parquet files and URIs it is not known, and the line shows the count and the rate only.

Shared by ``atif validate``, ``stats``, ``migrate``, ``convert`` and ``export-sft``; the text
comes from the pure function :func:`progress_text`.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TextIO

from atif_spec.validation.reader import STDIN, is_jsonl, is_parquet, is_uri


@dataclass(frozen=True, slots=True)
class Total:
    """What a run will have done at its end: ``amount`` documents, or bytes when ``in_bytes``;
    ``amount`` None when that is not known (standard input, a pipe)."""

    amount: int | None = None
    in_bytes: bool = False


def total_of(files: Iterable[str], lines: bool | None = None) -> Total:
    """The total of a run over ``files`` (read as JSON Lines by extension, or as ``lines``
    says): the number of files when each is one document, else their size in bytes."""
    count = size = 0
    in_bytes = False
    for name in files:
        if name == STDIN or is_uri(name) or is_parquet(name):  # rows are not bytes of the file
            return Total()
        try:
            info = os.stat(name)
        except OSError:
            return Total()
        if not stat.S_ISREG(info.st_mode):
            return Total()
        count += 1
        size += info.st_size
        in_bytes = in_bytes or (is_jsonl(name) if lines is None else lines)
    return Total(size, True) if in_bytes else Total(count)


def _number(n: float) -> str:
    return f"{n:,.0f}"


def _documents(n: int) -> str:
    return "document" if n == 1 else "documents"


def _bytes(n: float) -> str:
    """A byte count for people (``12.3 MB``)."""
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1000
    return f"{n:,.1f} TB"  # pragma: no cover


def _clock(seconds: float) -> str:
    whole = int(seconds + 0.5)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def progress_text(verb: str, documents: int, done: int, total: Total, elapsed: float) -> str:
    """The progress line: ``documents`` handled so far, ``done`` of ``total`` (documents, or
    bytes), ``elapsed`` seconds since the start. The rate is in documents per second; the time
    left is shown when the total is known and something is done."""
    rate = documents / elapsed if elapsed > 0 else 0.0
    if total.amount is None or total.in_bytes:
        parts = [f"{verb} {_number(documents)} {_documents(documents)}"]
        if total.amount is not None:
            parts.append(f"{_bytes(done)}/{_bytes(total.amount)}")
    else:
        parts = [f"{verb} {_number(documents)}/{_number(total.amount)} {_documents(total.amount)}"]
    parts.append(f"{_number(rate)}/s")
    if total.amount is not None and done > 0 and elapsed > 0:
        left = max(total.amount - done, 0) * elapsed / done
        parts.append(f"{_clock(left)} left")
    return " · ".join(parts)


class Progress:
    """The progress line on a terminal (rich's spinner and our text); nothing when not shown.

    It is drawn only between documents, at most every ``REFRESH_SECONDS`` (no refresh thread),
    and :meth:`clear` erases it before anything else is printed to the terminal, so that a line
    of output never shares the progress line. Colour follows rich, which honours ``NO_COLOR``.
    ``stream`` (default: standard error) is where it is drawn; a test passes its own.
    """

    REFRESH_SECONDS = 0.1

    def __init__(
        self, show: bool, verb: str, total: Total = Total(), stream: TextIO | None = None
    ) -> None:
        self._show = show
        self._verb = verb
        self._total = total
        self._stream = stream
        self._progress: Any = None
        self._task: Any = None
        self._started = 0.0
        self._drawn_at = 0.0
        self._drawn = False
        self.documents = 0
        self.done = 0

    def __enter__(self) -> Progress:
        if self._show:
            from rich.console import Console  # noqa: PLC0415 - start-up: only a run that shows progress needs rich
            from rich.progress import (  # noqa: PLC0415 - start-up: as above
                Progress as RichProgress,
            )
            from rich.progress import SpinnerColumn, TextColumn  # noqa: PLC0415 - as above

            console = Console(file=self._stream or sys.stderr, force_terminal=True)
            self._progress = RichProgress(
                SpinnerColumn(),
                TextColumn("{task.description}", markup=False),
                transient=True,
                auto_refresh=False,
                redirect_stdout=False,
                redirect_stderr=False,
                console=console,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task(self._text(0.0), total=None)
            self._started = time.monotonic()
            self._drawn = True  # starting draws it once
        return self

    def _text(self, elapsed: float) -> str:
        return progress_text(self._verb, self.documents, self.done, self._total, elapsed)

    def clear(self) -> None:
        """Erase the drawn line (it comes back at the next refresh, on a line of its own)."""
        if self._progress is not None and self._drawn:
            self._progress.console.file.write("\r\x1b[2K")
            self._progress.console.file.flush()
            self._drawn = False

    def advance(self, documents: int = 1, size: int = 0) -> None:
        """Count ``documents`` more documents, of ``size`` bytes in all (read when the total is
        in bytes; otherwise the documents are what is counted)."""
        if self._progress is None:
            return
        self.documents += documents
        self.done += size if self._total.in_bytes else documents
        now = time.monotonic()
        if now - self._drawn_at >= self.REFRESH_SECONDS:
            sys.stdout.flush()
            self._progress.update(self._task, description=self._text(now - self._started))
            self._progress.refresh()
            self._drawn, self._drawn_at = True, now

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)
