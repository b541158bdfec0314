"""Everything atif-spec writes, as files for consumers to read (the interop report's second half).

Each valid case of the suite is converted with the public API (``atif_spec.convert(doc,
to=...)``, which migrates within ATIF and goes through the lenses between formats) to every
``FORMAT@VERSION`` it can reach. Each result is validated by atif-spec itself (a document we
write that we call invalid is our bug) and written as a file, then handed to consumers as a
:class:`~atif_spec.conformance.suite.Case` of category ``valid`` whose id is
``written:<case id>><target>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import atif_spec
from atif_spec.conformance.suite import Case, read_document
from atif_spec.formats import all_formats
from atif_spec.jsonio import jsontext
from atif_spec.jsonio.atomic import write_atomic
from atif_spec.transforms.lenses import all_lenses


@dataclass(frozen=True, slots=True)
class Written:
    """One document atif-spec wrote, or the reason it could not write it."""

    case: Case
    source: str
    """The suite case it was made from."""
    target: str
    invalid: tuple[str, ...] = ()
    """atif-spec's own errors on the written document (our bug when not empty)."""


def targets() -> list[str]:
    """Every ``FORMAT@VERSION`` atif-spec writes: ATIF's and those of the formats a lens goes
    into (a format read only, such as an ATOF stream, is no target)."""
    written = {"atif"} | {lens.target.partition("@")[0] for lens in all_lenses()}
    return [
        f"{name}@{v}"
        for name, spec in all_formats().items()
        if name in written
        for v in spec.versions
    ]


def write_all(cases: Sequence[Case], out: Path) -> tuple[list[Written], int]:
    """Convert every valid case in ``cases`` to every target it reaches, into ``out``.

    Returns what was written and how many conversions were refused (a refusal is a documented
    limit of a lens or migration, e.g. a format written at one version only, not a failure).
    """
    written: list[Written] = []
    refused = 0
    every_target = targets()
    for case in cases:
        if case.category != "valid" or case.target is not None:
            continue
        document: Any = read_document(case.document)
        for target in every_target:
            if target == case.suite_target:
                continue
            try:
                converted, _ = atif_spec.convert(document, to=target)
            except ValueError:  # ConversionError / MigrationError: a refusal, counted
                refused += 1
                continue
            fmt, version = target.split("@")
            path = out / fmt / version / f"{case.id}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, jsontext.dumps(converted, indent=True))
            report = atif_spec.validate(converted, as_target=target)
            item = Case(
                id=f"written:{case.id}>{target}",
                format=fmt,
                version=version,
                category="valid",
                description=f"{case.id} converted to {target} by atif-spec",
                decided_by="",
                profiles=("schema",),
                expected=(),
                target=None,
                document=path,
                manifest=case.manifest,
            )
            errors = tuple(f"{f.code} at {f.pointer or '(root)'}" for f in report.errors)
            written.append(Written(item, case.id, target, errors))
    return written, refused
