"""Migration between any two ATIF versions, lossless by default.

:func:`migrate` runs one :class:`atif_spec.transforms.driver.Step` per adjacent version pair
(``v1_0__v1_1`` ... ``v1_7__v1_8``, each with an ``up`` and a ``down`` mapping) through the
driver. ``schema_version`` is rewritten; everything the target can hold is kept as it is (same
JSON values, same key order); what it cannot hold goes to the stash (RFC.md §4.5, one layer per
step that leaves something to undo) and is restored by the way back; values the target requires
and the source lacks are synthesized by documented policies and reported as decided.
"""

from __future__ import annotations

import gc
from typing import Any

from atif_spec.formats.atif import VERSIONS, version_of
from atif_spec.schemas.catalog import load_catalog
from atif_spec.schemas.targets import Target, TargetError
from atif_spec.transforms import driver, tao_versions
from atif_spec.transforms.changes import ChangeReport, Item
from atif_spec.transforms.migrations import v1_6__v1_7
from atif_spec.transforms.migrations.base import drop_context_only as drop_steps
from atif_spec.transforms.migrations.planner import CONTEXT_ONLY, plan
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


def _run(
    step: driver.Step, doc: dict[str, Any], report: ChangeReport, options: driver.Options
) -> dict[str, Any]:
    """One step through the driver, with the policies that act around it: dropping context-only
    steps before it (not invertible, so not stashed), and refusing a v1.7 reference that
    neither the mapping nor the stash resolved after it."""
    key = CONTEXT_ONLY.get(step.name)
    if key is not None and options.drop_context_only:
        doc = drop_steps(doc, key, step, report)
    out = driver.run(step, doc, report, options, "migrate")
    if step.name == v1_6__v1_7.STEP.name:
        report.errors.extend(v1_6__v1_7.session_only_refs(out))
    return out


def _migrate_tao(
    doc: Any,
    to: str,
    drop: bool,
    fail_on_loss: bool,
    fail_on_decision: bool,
    source: str,
    line: int | None,
) -> tuple[dict[str, Any], ChangeReport]:
    """A TAO record migrated to ``to`` (``tao@v0.9.0``) by :mod:`..tao_versions`."""
    report = ChangeReport(source=source, line=line, to=to)
    out = tao_versions.migrate(doc, to, report, driver.Options(drop))
    report.errors.extend(report.refusals("migrate", fail_on_loss, fail_on_decision))
    if out is None or report.errors:
        raise MigrationError(report)
    report.tally(out)
    return out, report


def _source_version(doc: Any, report: ChangeReport) -> str:
    """The ATIF version of ``doc``; raises :class:`MigrationError` when it has none."""
    if not isinstance(doc, dict):
        report.errors.append(input_finding("not-an-object", "an ATIF document is a JSON object"))
        raise MigrationError(report)
    version = version_of(doc.get("schema_version"))
    if version is None and "schema_version" not in doc:
        message = "no `schema_version`: unknown version"
        report.errors.append(input_finding("missing-schema-version", message))
    elif version is None:
        message = f"unknown `schema_version` {doc['schema_version']!r}"
        report.errors.append(input_finding("unknown-schema-version", message, "/schema_version"))
    if version is None:
        raise MigrationError(report)
    return version


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
    """Migrate an ATIF document to version ``to`` (``"v1.7"``, ``"atif@v1.7"``, ``"ATIF-v1.7"``).

    Returns the migrated document and a :class:`ChangeReport`. The input is left unchanged;
    the result shares every unchanged value (steps, token arrays, tool arguments, ``extra``
    contents) with it, so copy before mutating either.

    - ``drop``: discard what the target cannot hold instead of stashing it (listed in
      ``dropped``); no stash is written.
    - ``fail_on_loss``: refuse when a non-null value would be stashed or dropped.
    - ``fail_on_decision``: refuse when a value would be synthesized (``decided``).
    - ``session_ref_path``: the policy for v1.6 references holding only a ``session_id`` on the
      way up to v1.7 (which must not resolve by session): a template whose ``{session_id}`` is
      replaced to give the reference's ``trajectory_path`` (decided). Without it such documents
      are refused (``migrate:session-only-ref``); nothing is invented silently.
    - ``drop_context_only``: below v1.5 / v1.7, drop the steps that ``is_copied_context: true`` /
      ``llm_call_count: 0`` make context only (``step_id`` renumbered; reported as dropped and
      decided; not invertible, not stashed) instead of keeping the fact as the step's
      ``extra.<field>``.

    Raises :class:`MigrationError` (carrying the report) when the document is refused: not an
    ATIF object, unknown version, a foreign value under the stash key, a session-only
    reference without a policy, or one of the ``fail_on`` switches.
    """
    if to.startswith("tao@"):  # a TAO record between TAO versions (spec/tao/DECISIONS.md D38)
        return _migrate_tao(doc, to, drop, fail_on_loss, fail_on_decision, source, line)
    target = parse_version(to)
    report = ChangeReport(source=source, line=line, to=f"atif@{target}")
    version = _source_version(doc, report)
    report.from_ = f"atif@{version}"
    options = driver.Options(drop, session_ref_path, drop_context_only)
    # The steps allocate many small objects and create no reference cycles; pausing the cyclic
    # collector keeps it from re-scanning the (large, freshly parsed) document again and again.
    paused = gc.isenabled()
    gc.disable()
    work = dict(doc)
    try:
        for step in plan(version, target):
            work = _run(step, work, report, options)
    except driver.Refused as exc:
        report.errors.append(exc.finding)
        raise MigrationError(report) from None
    finally:
        if paused:
            gc.enable()
    work = _point_schema_url(work, version, target)
    report.errors.extend(report.refusals("migrate", fail_on_loss, fail_on_decision))
    if report.errors:
        raise MigrationError(report)
    report.tally(work)
    return work, report
