"""Where ``atif migrate`` and ``atif convert`` write: the destination of each input, the writer
that commits whole files atomically, and the refusals (two inputs to one file, an output that is
an input)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import click

from atif_spec.cli import terminal
from atif_spec.jsonio.atomic import AtomicFile, OutputError
from atif_spec.transforms.document import Outcome
from atif_spec.validation.reader import STDIN


@dataclass(slots=True)
class Destinations:
    """Where each input's documents go: stdout, one file, a directory, or back in place."""

    in_place: bool = False
    out: Path | None = None
    directory: bool = False
    roots: dict[str, tuple[Path, bool]] = field(default_factory=dict)
    """Expanded file -> (the input it came from, whether that input is a directory)."""

    def target_of(self, source: str) -> Path | None:
        """The file the documents of ``source`` go to (None: stdout)."""
        if self.in_place:
            return Path(source)
        if self.out is None:
            return None
        if not self.directory:
            return self.out
        root, is_dir = self.roots.get(source, (Path(source), False))
        name = "stdin.json" if source == "<stdin>" else Path(source).name
        relative = Path(source).relative_to(root) if is_dir else Path(name)
        return self.out / relative


class Writer:
    """Writes outcomes in order; each target file is committed only if all its documents pass."""

    def __init__(self, dest: Destinations) -> None:
        self.dest = dest
        self._current: str | None = None
        self._file: AtomicFile | None = None
        self._failed = False
        self._count = 0
        self._shared: AtomicFile | None = None
        self._shared_failed = False
        self._pending_newline = False

    def add(self, outcome: Outcome) -> str | None:
        """Write one outcome; returns where it will be written (None when it is not)."""
        target = self.dest.target_of(outcome.source)
        if target is None:
            if outcome.writable:
                out = sys.stdout.buffer
                for chunk in outcome.chunks():
                    out.write(chunk)
                out.write(b"\n")
                out.flush()
                return "<stdout>"
            return None
        if self.dest.in_place or self.dest.directory:
            if outcome.source != self._current:
                self._finish_source()
                self._current = outcome.source
                mode = Path(outcome.source) if self.dest.in_place else None
                self._file = AtomicFile(target, mode)
            assert self._file is not None
            return self._put(self._file, outcome, target, per_source=True)
        if self._shared is None:
            self._shared = AtomicFile(target)
        return self._put(self._shared, outcome, target, per_source=False)

    def _put(self, fh: AtomicFile, outcome: Outcome, target: Path, per_source: bool) -> str | None:
        if not outcome.writable:
            if per_source:
                self._failed = True
            else:
                self._shared_failed = True
            return None
        for chunk in outcome.chunks():
            fh.write(chunk)
        fh.write(b"\n")
        return str(target)

    def _finish_source(self) -> None:
        if self._file is not None:
            if self._failed:
                self._file.abort()
            else:
                self._file.commit()
        self._file, self._failed = None, False

    def close(self) -> None:
        """Commit every file whose documents all passed."""
        self._finish_source()
        if self._shared is not None:
            if self._shared_failed:
                self._shared.abort()
            else:
                self._shared.commit()

    def abort(self) -> None:
        """Discard every temporary file (an interrupted run)."""
        for fh in (self._file, self._shared):
            if fh is not None:
                fh.abort()


def collision(files: list[str], dest: Destinations) -> str | None:
    """Why two inputs would be written to one output file (None when every output is distinct)."""
    taken: dict[str, str] = {}
    for name in files:
        target = dest.target_of("<stdin>" if name == STDIN else name)
        if target is None or not (dest.in_place or dest.directory):
            continue
        key = os.path.realpath(target)
        if key in taken:
            return f"{taken[key]} and {name} would both be written to {target}"
        taken[key] = name
    return None


def json_lines_out(shared: Path | None, to_stdout: bool, files: list[str]) -> bool:
    """Whether one stream receives JSON Lines: several inputs on stdout, or a ``.jsonl`` file."""
    if to_stdout:
        return len(files) > 1
    return shared is not None and shared.suffix.lower() in (".jsonl", ".ndjson")


def destinations(
    files: list[str], roots: dict[str, tuple[Path, bool]], output: Path | None, in_place: bool
) -> Destinations:
    """Where the files' documents go; exits 2 when two inputs would write one target."""
    directory = output is not None and (
        output.is_dir() or len(files) > 1 or any(is_dir for _, is_dir in roots.values())
    )
    dest = Destinations(in_place=in_place, out=output, directory=directory, roots=roots)
    clash = collision(files, dest)
    if clash is not None:
        click.echo(f"atif: refusing to run: {clash}", err=True)
        sys.exit(2)
    return dest


def refuse_inputs(files: list[str], dest: Destinations, summary_path: str | None) -> None:
    """Exit 2 when an output (``-o``, ``--summary``) is one of the files read: only
    ``--in-place`` rewrites an input."""
    from atif_spec.jsonio.samefile import refuse_overlap

    names = ("<stdin>" if f == STDIN else f for f in files)
    targets = [] if dest.in_place else [dest.target_of(name) for name in names]
    try:
        refuse_overlap(targets, files, " (--in-place rewrites an input)")
        refuse_overlap([summary_path], files)
    except OutputError as exc:
        click.echo(f"atif: {terminal.clean(str(exc))}", err=True)
        sys.exit(2)
