"""Engines: the same per-document work over many documents, here or on a cluster.

The work itself is pure and engine-free: :func:`process` takes a :class:`Task` (what to do, as
plain picklable data) and one :class:`~atif_spec.validation.reader.RawDocument` (bytes plus where
they came from) and returns a :class:`Result` (the report in JSON form and, for a migration or
conversion that passed, the bytes of the new document). An engine only decides where
:func:`process` runs and adds the reports up in a
:class:`~atif_spec.datasets.summary.DatasetSummary`:

* :mod:`atif_spec.datasets.engines.local`: this machine, in ``--jobs`` processes;
* :mod:`atif_spec.datasets.ray`: a Ray cluster (``map_batches`` over a Ray Dataset).

Any other engine (Spark, Dask, a queue of serverless functions) calls :func:`process` per
document, or :func:`process_batch` per batch, and merges :class:`DatasetSummary` parts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from atif_spec.datasets.summary import DatasetSummary
from atif_spec.schemas.targets import Target
from atif_spec.transforms.document import MigrateOptions, migrate_raw
from atif_spec.transforms.migrations import parse_version
from atif_spec.validation.pipeline import Options, validate_raw

if TYPE_CHECKING:  # kept light: the command line imports this package at start-up
    from atif_spec.datasets.summary import DatasetSummary, Operation
    from atif_spec.validation.pipeline import Options
    from atif_spec.validation.reader import RawDocument


def _default_options() -> Options:

    return Options()


__all__ = ["Result", "Task", "process", "process_batch"]


@dataclass(frozen=True, slots=True)
class Task:
    """What to do with every document: the switches of a command as plain data."""

    operation: Operation = "validate"
    options: Options = field(default_factory=_default_options)
    """Validation switches (``validate``; ``max_bytes`` applies to every operation)."""
    to: str | None = None
    """Target of ``migrate`` (``v1.6``) and ``convert`` (``FORMAT@VERSION``)."""
    drop: bool = False
    fail_on_loss: bool = False
    fail_on_decision: bool = False

    def __post_init__(self) -> None:
        if self.operation not in ("validate", "migrate", "convert"):
            raise ValueError(f"unknown operation {self.operation!r}")
        if self.operation != "validate" and not self.to:
            raise ValueError(f"{self.operation} needs a target (to=...)")

    @property
    def target(self) -> str | None:
        """The target as written in summaries (``atif@v1.6``); None for validation."""
        if self.operation == "validate" or self.to is None:
            return None
        if self.operation == "migrate" and not self.to.startswith("tao@"):
            return f"atif@{parse_version(self.to)}"

        return str(Target.parse(self.to))

    @property
    def max_bytes(self) -> int:
        """Largest document loaded."""
        return self.options.max_bytes

    def summary(self) -> DatasetSummary:
        """An empty summary for this task."""

        return DatasetSummary(self.operation, self.target)


@dataclass(frozen=True, slots=True)
class Result:
    """One document's outcome."""

    report: dict[str, Any]
    """Validation report or change report, JSON form."""
    document: bytes | None = None
    """The migrated or converted document when it passed; None otherwise (and for validate)."""

    @property
    def passed(self) -> bool:
        """Valid (validate), or changed and valid under the target (migrate, convert)."""
        return bool(self.report["valid"] if "valid" in self.report else self.report["ok"])


def process(task: Task, raw: RawDocument) -> Result:
    """Do ``task`` to one document. Pure: no I/O beyond file-level rules of validation."""
    if task.operation == "validate":
        return Result(validate_raw(raw, task.options).to_dict())

    assert task.to is not None
    if task.operation == "migrate":
        to, convert = parse_version(task.to), False
    else:
        to, convert = task.to, True
    options = MigrateOptions(
        to,
        task.drop,
        task.fail_on_loss,
        task.fail_on_decision,
        task.max_bytes,
        convert=convert,
    )
    outcome = migrate_raw(raw, options)
    return Result(outcome.report, b"".join(outcome.chunks()) if outcome.writable else None)


def process_batch(task: Task, batch: list[RawDocument]) -> list[Result]:
    """:func:`process` over a batch (the unit engines ship to workers)."""
    return [process(task, raw) for raw in batch]
