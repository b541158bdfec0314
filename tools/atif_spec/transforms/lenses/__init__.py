"""Conversion between formats: a registry of lenses, composed through ATIF.

A lens is a :class:`atif_spec.transforms.driver.Step` between two formats (``tao@v0.2.0`` →
``atif@v1.7``); every format has one into ATIF and its ``inverse``, in a module of this package
that defines ``LENSES``. :func:`convert` plans the route: ATIF migrations before and after, and
ATIF as the hub between two other formats.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

from atif_spec.formats import all_formats, detect
from atif_spec.schemas.targets import Target, TargetError
from atif_spec.transforms import driver, tao_versions
from atif_spec.transforms.changes import ChangeReport
from atif_spec.transforms.migrations import MigrationError, migrate
from atif_spec.validation.findings import Finding, Level, input_finding

Doc = dict[str, Any]


class ConversionError(ValueError):
    """A document was refused; the report says why (``report.errors``)."""

    def __init__(self, report: ChangeReport) -> None:
        first = report.errors[0].message if report.errors else "conversion refused"
        super().__init__(first)
        self.report = report


@functools.cache
def all_lenses() -> tuple[driver.Step, ...]:
    """Every lens defined by a module of this package."""
    found: list[driver.Step] = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        found.extend(getattr(module, "LENSES", ()))
    return tuple(found)


def _split(target: str) -> tuple[str, str]:
    fmt, _, version = target.partition("@")
    return fmt, version


def refuse(report: ChangeReport, what: str, message: str, ptr: str = "") -> ConversionError:
    """Record a refusal of the conversion (``convert:<what>``); returns the error to raise."""
    report.errors.append(Finding(f"convert:{what}", what, Level.ERROR, ptr, message))
    return ConversionError(report)


def _lens(source_format: str, target_format: str, report: ChangeReport) -> driver.Step:
    for lens in all_lenses():
        if _split(lens.source)[0] == source_format and _split(lens.target)[0] == target_format:
            return lens
    raise refuse(report, "no-conversion", f"no conversion from {source_format} to {target_format}")


def _migrate(doc: Doc, version: str, report: ChangeReport, options: driver.Options) -> Doc:
    """Move an ATIF document to ``version``, folding the migration's items into ``report``."""
    try:
        out, sub = migrate(
            doc,
            version,
            drop=options.drop,
            source=report.source,
            line=report.line,
            session_ref_path=options.session_ref_path,
            drop_context_only=options.drop_context_only,
        )
    except MigrationError as exc:
        report.errors.extend(exc.report.errors)
        raise ConversionError(report) from exc
    report.absorb(sub)
    return out


def convert(
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
    otel_convention: str = "gen_ai",
) -> tuple[Doc, ChangeReport]:
    """A document converted to ``to`` (``FORMAT@VERSION``; ``vX.Y`` keeps its format), and its
    :class:`ChangeReport`; :class:`ConversionError` when it is refused. ``otel_convention``: of
    OTLP spans written (``gen_ai`` or ``openinference``)."""
    report = ChangeReport(source=source, line=line)
    try:
        target = Target.parse(to)
    except TargetError as exc:
        raise refuse(report, "bad-target", str(exc)) from exc
    found = detect(doc)  # only a stream format (ATOF) detects a list
    if not isinstance(doc, dict | list) or found is None or found[1] == "unknown":
        report.errors.append(
            input_finding(
                "not-an-object" if not isinstance(doc, dict | list) else "unknown-format",
                "cannot tell the format and version of this document",
            )
        )
        raise ConversionError(report)
    source_format, source_version = found
    report.from_ = f"{source_format}@{source_version}"
    target_format = target.format or source_format
    target_version = target.version or all_formats()[target_format].versions[-1]
    if (
        target_format not in all_formats()
        or target_version not in all_formats()[target_format].versions
    ):
        raise refuse(report, "bad-target", f"unknown target {target_format}@{target_version}")
    report.to = f"{target_format}@{target_version}"
    options = driver.Options(drop, session_ref_path, drop_context_only, otel_convention)
    with driver.gc_paused():
        work = _route(doc, source_format, source_version, report.to, report, options)
    report.errors.extend(report.refusals("convert", fail_on_loss, fail_on_decision))
    if report.errors:
        raise ConversionError(report)
    report.tally(work)
    return work, report


def _route(
    doc: Any, fmt: str, version: str, to: str, report: ChangeReport, options: driver.Options
) -> Any:
    """``doc`` (``fmt@version``) through the steps to ``to`` (``FORMAT@VERSION``)."""
    target_format, target_version = _split(to)
    work: Any = doc  # a list only for a stream format (ATOF), until its lens into ATIF
    if fmt == target_format:
        if fmt == "atif":
            work = _migrate(work, target_version, report, options)
        elif fmt == "tao" and version != target_version:
            work = _tao(work, version, target_version, report, options)
        elif version != target_version:
            raise refuse(report, "no-conversion", f"no migration between {fmt} versions yet")
    else:
        if fmt != "atif":  # into the hub
            lens = _lens(fmt, "atif", report)
            reads = _split(lens.source)[1]
            if fmt == "tao" and version not in ("v0.1.0", reads):
                work = _tao(work, version, reads, report, options)
            work = _run(lens, work, report, options)
            fmt, version = _split(lens.target)
        if target_format == "atif" and version != target_version:
            work = _migrate(work, target_version, report, options)
        elif target_format != "atif":  # out of the hub
            lens = _lens("atif", target_format, report)
            (_, reads), (_, writes) = _split(lens.source), _split(lens.target)
            if version != reads:
                work = _migrate(work, reads, report, options)
            work = _run(lens, work, report, options)
            if writes != target_version and target_format != "tao":
                raise refuse(
                    report, "no-conversion", f"{target_format} is written as {lens.target} only"
                )
            if writes != target_version:
                work = _tao(work, writes, target_version, report, options)
    return work


def _run(lens: driver.Step, doc: Doc, report: ChangeReport, options: driver.Options) -> Doc:
    return _refused(report, driver.run, lens, doc, report, options, "convert")


def _tao(doc: Doc, source: str, target: str, report: ChangeReport, options: driver.Options) -> Doc:
    """A TAO record migrated between versions (:mod:`atif_spec.transforms.tao_versions`), from
    the version it declares (a lens writes an older record's own, DECISIONS D35) or ``source``."""
    found = detect(doc)
    source = found[1] if found is not None and found[1] in all_formats()["tao"].versions else source
    return _refused(report, tao_versions.run, doc, source, target, report, options, "convert")


def _refused(report: ChangeReport, run: Callable[..., Doc], *args: Any) -> Doc:
    try:
        return run(*args)
    except driver.Refused as exc:
        report.errors.extend([exc.finding, *exc.details])
        raise ConversionError(report) from None
