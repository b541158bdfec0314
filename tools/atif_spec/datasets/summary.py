"""The dataset summary: counts over a whole run, the same whichever engine produced it.

Built from per-document reports (the JSON form of :class:`atif_spec.validation.findings.Report` for
validation, of :class:`atif_spec.transforms.changes.ChangeReport` for migration and conversion).
Summaries of parts of a dataset merge into the summary of the whole (:meth:`DatasetSummary.merge`),
so a distributed engine summarizes its batches where they are and adds the parts up. The JSON form
(schema: ``spec/atif-spec/v1/dataset-summary.schema.json``) is canonical: keys sorted, failed
documents ordered by source and line, so two engines agree line for line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from atif_spec.jsonio import jsontext

Operation = Literal["validate", "migrate", "convert"]
OPERATIONS: tuple[Operation, ...] = ("validate", "migrate", "convert")
UNKNOWN = "unknown"
"""The ``by_version`` key of documents whose format or version could not be identified."""


@dataclass(slots=True)
class VersionCount:
    """Documents of one source ``FORMAT@VERSION``."""

    documents: int = 0
    failed: int = 0


@dataclass(slots=True)
class CodeCount:
    """Findings of one code, and how many documents had at least one."""

    findings: int = 0
    documents: int = 0


@dataclass(slots=True)
class DatasetSummary:
    """Counts per version and per finding code, and the documents that failed."""

    operation: Operation
    target: str | None = None
    """``FORMAT@VERSION`` written by a migration or conversion; None for validation."""
    documents: int = 0
    passed: int = 0
    failed: int = 0
    with_warnings: int = 0
    errors: int = 0
    warnings: int = 0
    stashed: int = 0
    dropped: int = 0
    decided: int = 0
    by_version: dict[str, VersionCount] = field(default_factory=dict)
    by_code: dict[str, CodeCount] = field(default_factory=dict)
    failed_documents: list[tuple[str, int | None]] = field(default_factory=list)

    # Aliases read by the text renderer of ``atif validate`` (``output.TextRenderer.finish``).
    @property
    def invalid(self) -> int:
        """Documents that failed (invalid, refused, or invalid after the change)."""
        return self.failed

    def add(self, report: dict[str, Any]) -> None:
        """Count one document's report (validation or change report, JSON form)."""
        self.documents += 1
        if "valid" in report:
            ok = bool(report["valid"])
            version = (
                f"{report['format']}@{report['version']}"
                if report.get("format") and report.get("version")
                else UNKNOWN
            )
            findings = [*report["errors"], *report["warnings"]]
        else:
            ok = bool(report["ok"])
            version = report.get("from") or UNKNOWN
            findings = [*report["errors"], *report.get("warnings", ())]
            self.stashed += len(report["stashed"])
            self.dropped += len(report["dropped"])
            self.decided += len(report["decided"])
        counted = self.by_version.setdefault(version, VersionCount())
        counted.documents += 1
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            counted.failed += 1
            self.failed_documents.append((report["source"], report["line"]))
        warnings = sum(1 for f in findings if f["level"] == "warning")
        self.warnings += warnings
        self.errors += len(findings) - warnings
        if warnings:
            self.with_warnings += 1
        seen: set[str] = set()
        for f in findings:
            code = self.by_code.setdefault(f["code"], CodeCount())
            code.findings += 1
            if f["code"] not in seen:
                seen.add(f["code"])
                code.documents += 1

    def merge(self, other: DatasetSummary) -> None:
        """Add the counts of another part of the same run."""
        if (other.operation, other.target) != (self.operation, self.target):
            raise ValueError("cannot merge summaries of different operations or targets")
        for name in _TOTALS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for key, version in other.by_version.items():
            mine = self.by_version.setdefault(key, VersionCount())
            mine.documents += version.documents
            mine.failed += version.failed
        for key, code in other.by_code.items():
            counted = self.by_code.setdefault(key, CodeCount())
            counted.findings += code.findings
            counted.documents += code.documents
        self.failed_documents.extend(other.failed_documents)

    def to_dict(self) -> dict[str, Any]:
        """The canonical JSON form (sorted; independent of the order documents were seen in)."""
        failed = sorted(self.failed_documents, key=lambda d: (d[0], d[1] or 0))
        return {
            "operation": self.operation,
            "target": self.target,
            **{name: getattr(self, name) for name in _TOTALS},
            "by_version": {
                k: {"documents": v.documents, "failed": v.failed}
                for k, v in sorted(self.by_version.items())
            },
            "by_code": {
                k: {"findings": v.findings, "documents": v.documents}
                for k, v in sorted(self.by_code.items())
            },
            "failed_documents": [{"source": s, "line": n} for s, n in failed],
        }

    def to_json(self) -> bytes:
        """The JSON form, indented, one value per line (compare two runs with ``diff``)."""
        return jsontext.dumps(self.to_dict(), indent=True) + b"\n"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DatasetSummary:
        """Read the JSON form back (e.g. a part computed elsewhere)."""
        out = cls(operation=data["operation"], target=data["target"])
        for name in _TOTALS:
            setattr(out, name, data[name])
        out.by_version = {k: VersionCount(**v) for k, v in data["by_version"].items()}
        out.by_code = {k: CodeCount(**v) for k, v in data["by_code"].items()}
        out.failed_documents = [(d["source"], d["line"]) for d in data["failed_documents"]]
        return out


_TOTALS = (
    "documents",
    "passed",
    "failed",
    "with_warnings",
    "errors",
    "warnings",
    "stashed",
    "dropped",
    "decided",
)


def summarize(
    reports: list[dict[str, Any]], operation: Operation, target: str | None = None
) -> DatasetSummary:
    """The summary of some reports."""
    out = DatasetSummary(operation, target)
    for report in reports:
        out.add(report)
    return out
