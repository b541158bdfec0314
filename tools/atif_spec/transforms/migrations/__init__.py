"""Migration between any two ATIF versions, lossless by default.

:func:`migrate` runs the steps between two versions, one :class:`atif_spec.transforms.driver.Step`
per adjacent pair (module ``v1_7__v1_8``: an ``up`` and a ``down`` change), through the driver:
what the target can hold is kept as it is, what it cannot goes to the stash (RFC.md §4.5), and
values the target requires are decided by documented policies.
"""

from __future__ import annotations

import importlib
import itertools
from typing import Any

from atif_spec.formats.atif import VERSIONS, version_of
from atif_spec.schemas.catalog import load_catalog
from atif_spec.schemas.targets import Target, TargetError
from atif_spec.transforms import driver, tao_versions
from atif_spec.transforms.changes import ChangeReport, Item
from atif_spec.transforms.migrations import v1_6__v1_7
from atif_spec.transforms.migrations.base import drop_context_only, version_step
from atif_spec.validation.findings import input_finding

__all__ = ["ChangeReport", "Item", "MigrationError", "migrate", "parse_version"]


class MigrationError(ValueError):
    """A document that was not migrated; ``report.errors`` says why."""

    def __init__(self, report: ChangeReport) -> None:
        super().__init__("; ".join(f"{f.pointer or '/'}: {f.message}" for f in report.errors))
        self.report = report


def parse_version(text: str) -> str:
    """``v1.7`` for ``v1.7``, ``atif@v1.7``, ``ATIF-v1.7``; ValueError for anything else."""
    try:
        target = Target.parse(text)
    except TargetError as exc:
        raise ValueError(str(exc)) from exc
    if target.format not in (None, "atif") or target.version not in VERSIONS:
        raise ValueError(f"not an ATIF version: {text!r} (known: {', '.join(VERSIONS)})")
    assert target.version is not None
    return target.version


def _point_schema_url(doc: dict[str, Any], source: str, target: str) -> dict[str, Any]:
    """A root ``$schema`` that named the source version's schema URL names the target's
    afterwards (editors validate against it). Any other value is left as it is: a URL of
    another version is already reported by ATIF104 (DECISIONS.md 6.19)."""
    if source != target and isinstance(doc.get("$schema"), str):
        catalog = load_catalog()
        if doc["$schema"] == catalog.find(f"atif@{source}").id:
            return {**doc, "$schema": catalog.find(f"atif@{target}").id}
    return doc


_MODULES = {
    (a, b): importlib.import_module(f"{__name__}.{a.replace('.', '_')}__{b.replace('.', '_')}")
    for a, b in itertools.pairwise(VERSIONS)
}
STEPS = tuple(
    version_step(a, b, getattr(m, "up", None), getattr(m, "down", None))
    for (a, b), m in _MODULES.items()
)
"""The steps up, oldest first, from the ``up`` and ``down`` changes of the module of each adjacent
pair (``v1_7__v1_8``; a change it lacks only rewrites ``schema_version``)."""
_DOWN = tuple(step.inverse for step in STEPS)
CONTEXT_ONLY = {
    f"atif@{b}->atif@{a}": m.FACT for (a, b), m in _MODULES.items() if hasattr(m, "FACT")
}
"""The steps down that take out a field which may make a step context only, and that field
(``--drop-context-only-steps`` drops such steps before the step)."""


def plan(source: str, target: str) -> list[driver.Step]:
    """The steps from ``source`` to ``target`` (``vX.Y``), in order; empty when they are equal."""
    i, j = VERSIONS.index(source), VERSIONS.index(target)
    return list(STEPS[i:j] if i <= j else _DOWN[j:i][::-1])


def _source_version(doc: Any, report: ChangeReport) -> str:
    """The ATIF version of ``doc``; raises :class:`MigrationError` when it has none."""
    if not isinstance(doc, dict):
        finding = input_finding("not-an-object", "an ATIF document is a JSON object")
    elif "schema_version" not in doc:
        finding = input_finding("missing-schema-version", "no `schema_version`: unknown version")
    elif (version := version_of(doc["schema_version"])) is None:
        message = f"unknown `schema_version` {doc['schema_version']!r}"
        finding = input_finding("unknown-schema-version", message, "/schema_version")
    else:
        return version
    report.errors.append(finding)
    raise MigrationError(report)


def _migrate(
    doc: Any, target: str, report: ChangeReport, options: driver.Options
) -> dict[str, Any]:
    """``doc`` through the planned steps, with the policies that act around a step: dropping
    context-only steps before it (not invertible, so not stashed), and refusing a v1.7
    reference that neither the mapping nor the stash resolved after it."""
    version = _source_version(doc, report)
    report.from_ = f"atif@{version}"
    work = dict(doc)
    try:
        for step in plan(version, target):
            key = CONTEXT_ONLY.get(step.name)
            if key is not None and options.drop_context_only:
                work = drop_context_only(work, key, step, report)
            work = driver.run(step, work, report, options, "migrate")
            if step.name == "atif@v1.6->atif@v1.7":
                report.errors.extend(v1_6__v1_7.session_only_refs(work))
    except driver.Refused as exc:
        report.errors.append(exc.finding)
        raise MigrationError(report) from None
    return _point_schema_url(work, version, target)


def migrate(
    doc: Any,
    to: str,
    *,
    drop: bool = False,
    fail_on_loss: bool = False,
    fail_on_decision: bool = False,
    source: str = "<object>",
    line: int | None = None,
    session_ref_path: str | None = None,
    drop_context_only: bool = False,
) -> tuple[dict[str, Any], ChangeReport]:
    """Migrate an ATIF document to version ``to`` (``"v1.7"``, ``"atif@v1.7"``, ``"ATIF-v1.7"``),
    or a TAO record to ``tao@VERSION`` (:mod:`..tao_versions`, spec/tao/DECISIONS.md D38).

    Returns the migrated document and a :class:`ChangeReport`. The input is left unchanged;
    the result shares every unchanged value with it, so copy before mutating either.

    - ``drop``: discard what the target cannot hold instead of stashing it (``dropped``).
    - ``fail_on_loss``: refuse when a non-null value would be stashed or dropped.
    - ``fail_on_decision``: refuse when a value would be synthesized (``decided``).
    - ``session_ref_path``: on the way up to v1.7, a template whose ``{session_id}`` gives the
      ``trajectory_path`` of a v1.6 reference holding only a ``session_id`` (decided); without
      it such documents are refused (``migrate:session-only-ref``).
    - ``drop_context_only``: below v1.5 / v1.7, drop the steps that ``is_copied_context: true``
      / ``llm_call_count: 0`` make context only (``step_id`` renumbered; dropped and decided, not
      stashed) instead of keeping the fact as the step's ``extra.<field>``.

    Raises :class:`MigrationError` (carrying the report) when the document is refused: not an
    ATIF object, unknown version, a foreign value under the stash key, a session-only
    reference without a policy, or one of the ``fail_on`` switches.
    """
    if to.startswith("tao@"):
        report = ChangeReport(source=source, line=line, to=to)
        with driver.gc_paused():
            out = tao_versions.migrate(doc, to, report, driver.Options(drop))
    else:
        target = parse_version(to)
        report = ChangeReport(source=source, line=line, to=f"atif@{target}")
        options = driver.Options(drop, session_ref_path, drop_context_only)
        with driver.gc_paused():
            out = _migrate(doc, target, report, options)
    report.errors.extend(report.refusals("migrate", fail_on_loss, fail_on_decision))
    if out is None or report.errors:
        raise MigrationError(report)
    report.tally(out)
    return out, report
