"""The fixture linter: invariants every manifest and case of the suite keeps.

Each check is a generator of :class:`Problem`; :func:`lint` runs them all. The invariants:

- every manifest validates against ``conformance-manifest.schema.json`` and names the
  ``<format>/<version>`` folder it sits in;
- case ids are unique across the suite and stable: an id is derived from the case's path
  (``<format>-<version>-<category>-<name>``), so it changes only when the file is renamed;
- descriptions are unique within a manifest;
- every file below a category folder belongs to exactly one case, and every ``.json`` parses;
- under our validator, valid and warning cases are valid, invalid cases are invalid, and each
  case produces exactly its expected findings (a multiset of code and pointer).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

import atif_spec
from atif_spec.conformance.grading import compare_findings
from atif_spec.conformance.suite import Case, SuiteError, cases_of, manifests, read_manifest
from atif_spec.schemas.compiled import rs_validator

CATEGORIES = ("valid", "invalid", "warning")
MANIFEST_SCHEMA = "https://atif-spec.org/schemas/atif-spec/v1/conformance-manifest.schema.json"


@dataclass(frozen=True, slots=True)
class Problem:
    """One broken invariant."""

    check: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: [{self.check}] {self.message}"


@dataclass(frozen=True, slots=True)
class Manifest:
    path: Path
    data: dict[str, Any]
    cases: list[Case]


def _schema_problems(m: Manifest) -> Iterator[Problem]:

    for err in rs_validator(MANIFEST_SCHEMA).iter_errors(m.data):
        where = "/" + "/".join(str(p) for p in err.instance_path)
        yield Problem("manifest-schema", f"{m.path}#{where}", err.message[:200])
    fmt, version = m.path.parent.parent.name, m.path.parent.name
    if (m.data.get("format"), m.data.get("version")) != (fmt, version):
        yield Problem("manifest-folder", str(m.path), f"does not declare {fmt}@{version}")


def _case_name(case: Case) -> str:
    rel = case.document.relative_to(case.manifest.parent.resolve())
    parts = rel.parts
    return parts[1] if len(parts) > 2 else rel.stem


def _id_problems(manifests_: list[Manifest]) -> Iterator[Problem]:
    counts = Counter(c.id for m in manifests_ for c in m.cases)
    for case_id, n in counts.items():
        if n > 1:
            yield Problem("unique-id", case_id, f"used by {n} cases")
    for m in manifests_:
        for c in m.cases:
            try:
                stable = f"{c.format}-{c.version}-{c.category}-{_case_name(c)}"
            except ValueError:
                yield Problem("stable-id", c.id, "the document lies outside the manifest's folder")
                continue
            if c.id != stable:
                yield Problem("stable-id", c.id, f"the id derived from its path is {stable!r}")
        descriptions = Counter(c.description for c in m.cases)
        for text, n in descriptions.items():
            if n > 1:
                yield Problem("unique-description", str(m.path), f"{n} cases say {text!r}")


def _file_problems(m: Manifest) -> Iterator[Problem]:
    root = m.path.parent.resolve()
    owners: Counter[Path] = Counter()
    for c in m.cases:
        if not c.document.is_file():
            yield Problem("files", c.id, f"document {c.document} does not exist")
    files = [p for cat in CATEGORIES for p in sorted((root / cat).rglob("*")) if p.is_file()]
    for f in files:
        for c in m.cases:
            folder_case = (
                c.document.name == "trajectory.json" and c.document.parent != root / c.category
            )
            if f == c.document or (folder_case and c.document.parent in f.parents):
                owners[f] += 1
        if owners[f] != 1:
            yield Problem("files", str(f), f"belongs to {owners[f]} cases (expected exactly one)")
        if f.suffix == ".json":
            try:
                orjson.loads(f.read_bytes())
            except orjson.JSONDecodeError as exc:
                yield Problem("parses", str(f), f"not JSON: {exc}")


def _validator_problems(m: Manifest) -> Iterator[Problem]:

    for c in m.cases:
        if not c.document.is_file():
            continue
        report = atif_spec.validate(
            c.document, as_target=c.target, follow_refs=bool(c.options.get("follow_refs"))
        )
        if report.valid != c.expected_valid:
            verdict = "valid" if report.valid else "invalid"
            yield Problem("our-validator", c.id, f"is {verdict} under atif_spec.validate")
        missing, unexpected = compare_findings(
            ((f.code, f.pointer) for f in report.findings), c.expected
        )
        for code, ptr in missing:
            yield Problem(
                "our-validator", c.id, f"expected finding not reported: {code} at {ptr!r}"
            )
        for code, ptr in unexpected:
            yield Problem("our-validator", c.id, f"unexpected finding: {code} at {ptr!r}")


def load(root: Path, formats: Sequence[str] = ()) -> tuple[list[Manifest], list[Problem]]:
    """Every readable manifest below ``root`` (of ``formats``, when given) with its cases, and
    the unreadable ones."""
    out, problems = [], []
    for path in manifests(root):
        if formats and path.parent.parent.name not in formats:
            continue
        try:
            data = read_manifest(path)
            out.append(Manifest(path, data, cases_of(path, data)))
        except SuiteError as exc:
            problems.append(Problem("manifest-schema", str(path), str(exc)))
    if not out and not problems:
        problems.append(
            Problem("manifest-schema", str(root), "no <format>/<version>/manifest.json")
        )
    return out, problems


def lint(root: Path, *, formats: Sequence[str] = (), validator: bool = True) -> list[Problem]:
    """Every broken invariant of the suite below ``root`` (empty when the suite is sound).

    With ``formats``, only those formats' manifests are checked (ids are then unique among
    them only)."""
    found, problems = load(root, formats)
    per_manifest: list[Callable[[Manifest], Iterator[Problem]]] = [_schema_problems, _file_problems]
    if validator:
        per_manifest.append(_validator_problems)
    problems.extend(_id_problems(found))
    for m in found:
        for check in per_manifest:
            problems.extend(check(m))
    return problems
