"""The fixture suite: every ``conformance/<format>/<version>/manifest.json`` and its cases."""

from __future__ import annotations

import contextlib
import fnmatch
import importlib.resources
import io
import re
import shutil
import tarfile
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from atif_spec.jsonio.atomic import write_atomic

PROFILES = ("schema", "must", "should", "files")
"""The conformance profiles, in report order."""

MANIFEST = "manifest.json"
PROTOCOL = "PROTOCOL.md"
LOCAL_SUITE = Path("conformance")
"""The suite of a checkout, from its root: preferred to the installed one when present."""


def read_document(path: Path) -> Any:
    """The document of a case file: its JSON value, or for a ``.jsonl`` event stream (ATOF) the
    list of its lines' values (the in-memory form of a stream, ``atif_spec.formats.atof``)."""
    data = path.read_bytes()
    if path.suffix == ".jsonl":
        return [orjson.loads(line) for line in data.splitlines() if line.strip()]
    return orjson.loads(data)


def default_suite() -> Path | None:
    """The suite to use when none is named: ``./conformance`` when it holds manifests (a
    checkout, so that fixtures being edited are the ones run), else the one installed with the
    package (``atif_spec.suite``); None when neither holds a manifest."""
    roots = [LOCAL_SUITE]
    with contextlib.suppress(ModuleNotFoundError):  # an installation without the suite
        roots.append(Path(str(importlib.resources.files("atif_spec.suite"))))
    return next((root for root in roots if manifests(root)), None)


GOLDEN = ("migrations", "sft")
"""Folders of golden data beside the manifests: migration pairs and training examples."""


def suite_files(root: Path) -> list[Path]:
    """Every file of the suite proper, sorted: ``PROTOCOL.md``, each manifest with every file
    below its folder (cases, and the files they reference), and the :data:`GOLDEN` folders.
    Not the adapters, native logs and known differences, which serve this project's reports."""
    found = {root / PROTOCOL} if (root / PROTOCOL).is_file() else set()
    folders = [m.parent for m in manifests(root)] + [root / name for name in GOLDEN]
    for folder in folders:
        found.update(p for p in folder.rglob("*") if p.is_file())
    return sorted(found)


def export(root: Path, out: Path) -> int:
    """Write the suite of ``root`` to ``out``, all or nothing: a ``.tar.gz`` archive (members
    under ``conformance/``), or else a new folder. Returns the number of files written."""
    files = suite_files(root)
    if out.name.endswith(".tar.gz"):
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for path in files:
                archive.add(path, f"conformance/{path.relative_to(root).as_posix()}")
        write_atomic(out, buffer.getvalue())
        return len(files)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        for path in files:
            target = staging / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        staging.rename(out)  # an empty folder at ``out`` is replaced
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return len(files)


class SuiteError(Exception):
    """A manifest that cannot be read as a suite (missing, not JSON, missing keys)."""


@dataclass(frozen=True, slots=True)
class Case:
    """One conformance case, as its manifest states it."""

    id: str
    format: str
    version: str
    category: str
    description: str
    decided_by: str
    profiles: tuple[str, ...]
    expected: tuple[tuple[str, str], ...]
    """``(code, pointer)`` pairs, in manifest order."""
    target: str | None
    document: Path
    """Absolute path of the case's document."""
    manifest: Path
    options: Mapping[str, Any] = field(default_factory=dict)
    """Validator switches the case needs (``{"follow_refs": true}``); empty for most cases."""
    boundary_of: tuple[str, ...] = ()
    """For a valid case: the rule codes whose boundary it sits on."""

    @property
    def suite_target(self) -> str:
        """``FORMAT@VERSION`` of the manifest the case belongs to."""
        return f"{self.format}@{self.version}"

    @property
    def expected_valid(self) -> bool:
        """The verdict a conforming implementation gives."""
        return self.category != "invalid"


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", version))


def manifests(root: Path) -> list[Path]:
    """Every ``<format>/<version>/manifest.json`` below ``root``, by format then version."""
    found = [p for p in root.glob(f"*/*/{MANIFEST}") if p.is_file()]
    return sorted(found, key=lambda p: (p.parent.parent.name, _version_key(p.parent.name)))


def read_manifest(path: Path) -> dict[str, Any]:
    """Parse one manifest; :class:`SuiteError` when it is not a JSON object."""
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise SuiteError(f"{path}: {exc}") from exc
    if not isinstance(data, dict):
        raise SuiteError(f"{path}: a manifest is a JSON object")
    return data


def cases_of(path: Path, data: dict[str, Any]) -> list[Case]:
    """The cases of one parsed manifest."""
    try:
        fmt, version = str(data["format"]), str(data["version"])
        return [
            Case(
                id=str(c["id"]),
                format=fmt,
                version=version,
                category=str(c["category"]),
                description=str(c.get("description", "")),
                decided_by=str(c.get("decided_by", "")),
                profiles=tuple(c["profiles"]),
                expected=tuple((str(e["code"]), str(e["pointer"])) for e in c.get("expected", [])),
                target=c.get("target"),
                document=(path.parent / str(c["path"])).resolve(),
                manifest=path,
                options=dict(c.get("options", {})),
                boundary_of=tuple(c.get("boundary_of", ())),
            )
            for c in data["cases"]
        ]
    except (KeyError, TypeError) as exc:
        raise SuiteError(f"{path}: not a conformance manifest ({exc!r})") from exc


def load_suite(root: Path) -> list[Case]:
    """Every case of every manifest below ``root``, in suite order."""
    found = manifests(root)
    if not found:
        raise SuiteError(f"{root}: no <format>/<version>/{MANIFEST} found")
    return [case for path in found for case in cases_of(path, read_manifest(path))]


def select(cases: Iterable[Case], patterns: Iterable[str]) -> list[Case]:
    """The cases whose id matches any shell-style pattern (all cases when there is none)."""
    pats = list(patterns)
    return [c for c in cases if not pats or any(fnmatch.fnmatchcase(c.id, p) for p in pats)]


@dataclass(frozen=True, slots=True)
class SkipList:
    """Case-id patterns not to run, each with the reason written after ``#``."""

    entries: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str) -> SkipList:
        """One pattern per line; ``# reason`` after it; blank and comment-only lines ignored."""
        entries = []
        for line in text.splitlines():
            pattern, _, reason = line.partition("#")
            if pattern.strip():
                entries.append((pattern.strip(), reason.strip() or "listed in the skip file"))
        return cls(tuple(entries))

    def reason(self, case_id: str) -> str | None:
        """Why ``case_id`` is skipped, or None when it is not listed."""
        for pattern, why in self.entries:
            if fnmatch.fnmatchcase(case_id, pattern):
                return why
        return None
