"""The contributors' gate over ``spec/`` (``atif spec check``, ``nox -s spec-check``).

Two checks, each returning problems as plain strings (empty: the gate passes):

* **Released schemas are immutable.** ``spec/RELEASED.sha256`` (``sha256sum`` format, paths
  relative to ``spec/``) records the bytes of every schema the catalog marks ``released``. A
  released schema whose bytes changed, a released schema missing from the lock, and a locked schema
  that is no longer released (or no longer exists) are problems.
* **Every version's changes are in its changelog.** ``spec/<format>/CHANGELOG.md`` has a
  ``## vX.Y`` section per catalog version, and each section names (in backticks) the subject of
  every change ``atif spec diff`` finds from the version before it (documentation changes and the
  version marker aside).
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Iterator
from importlib.resources.abc import Traversable

from atif_spec.schemas.catalog import Catalog, load_catalog, spec_root
from atif_spec.spectools.specdiff import diff_targets

LOCK_FILE = "RELEASED.sha256"
_HEADING = re.compile(r"^## (v[0-9][0-9A-Za-z.\-]*)\b.*$", re.MULTILINE)


def _file(root: Traversable, path: str) -> Traversable:
    node = root
    for part in path.split("/"):
        node = node.joinpath(part)
    return node


def sha256_of(root: Traversable, path: str) -> str:
    """Hex SHA-256 of a file below ``spec/``."""
    return hashlib.sha256(_file(root, path).read_bytes()).hexdigest()


def read_lock(root: Traversable) -> dict[str, str]:
    """``{path: sha256}`` from ``RELEASED.sha256`` (comments and blank lines ignored)."""
    lock = _file(root, LOCK_FILE)
    if not lock.is_file():
        return {}
    out: dict[str, str] = {}
    for line in lock.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        digest, _, path = line.partition(" ")
        out[path.strip().lstrip("*")] = digest.lower()
    return out


def lock_line(root: Traversable, path: str) -> str:
    """The ``RELEASED.sha256`` line recording a schema's current bytes."""
    return f"{sha256_of(root, path)}  {path}"


def check_released(catalog: Catalog | None = None, root: Traversable | None = None) -> list[str]:
    """Problems with released schemas (changed bytes, missing or stale lock entries)."""
    catalog = catalog or load_catalog()
    root = root or spec_root()
    lock = read_lock(root)
    problems = []
    released = {e.path for e in catalog if e.status == "released"}
    for path in sorted(released):
        if path not in lock:
            problems.append(
                f"{path}: marked released but not recorded in spec/{LOCK_FILE} "
                f"(add: {lock_line(root, path)})"
            )
        elif not _file(root, path).is_file():
            problems.append(f"{path}: released schema is missing")
        elif sha256_of(root, path) != lock[path]:
            problems.append(
                f"{path}: released schema changed (a released version never changes: "
                "make the change in a new version)"
            )
    for path in sorted(set(lock) - released):
        problems.append(
            f"{path}: recorded in spec/{LOCK_FILE} as released but the catalog no longer marks "
            "it released (a release cannot be withdrawn)"
        )
    return problems


def changelog_sections(text: str) -> dict[str, str]:
    """``{version: section text}`` of a changelog (sections start with ``## vX.Y``)."""
    matches = list(_HEADING.finditer(text))
    out: dict[str, str] = {}
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        out[m.group(1)] = text[m.end() : end]
    return out


_IMPLIED = frozenset({"conditional-added-for-new-values", "conditional-removed-for-old-values"})
"""Changes that follow from another change (the new value they apply to) and need no entry."""


def mentions(section: str, subject: str) -> bool:
    """True when ``subject`` is named in backticks, alone or as the end of a dotted path."""
    return re.search(r"`(?:[^`\s]*\.)?" + re.escape(subject) + "`", section) is not None


def _pairs(catalog: Catalog, fmt: str) -> Iterator[tuple[str, str, str]]:
    """``(old target, new target, schema name)`` for consecutive versions of a format."""
    names: list[str] = []
    for e in catalog:
        if e.format == fmt and e.kind == "document" and e.name not in names:
            names.append(e.name)
    for name in names:
        versions = [
            e.version
            for e in catalog
            if e.format == fmt and e.kind == "document" and e.name == name and e.version
        ]
        for old, new in itertools.pairwise(versions):
            yield f"{fmt}@{old}", f"{fmt}@{new}", name


def check_changelogs(catalog: Catalog | None = None, root: Traversable | None = None) -> list[str]:
    """Problems with the per-format changelogs (missing sections, unrecorded changes)."""

    catalog = catalog or load_catalog()
    root = root or spec_root()
    problems = []
    for fmt in catalog.formats:
        where = f"spec/{fmt}/CHANGELOG.md"
        node = _file(root, f"{fmt}/CHANGELOG.md")
        if not node.is_file():
            problems.append(f"{where}: missing")
            continue
        sections = changelog_sections(node.read_text(encoding="utf-8"))
        for version in catalog.versions(fmt):
            if version not in sections:
                problems.append(f"{where}: no '## {version}' section")
        for old, new, name in _pairs(catalog, fmt):
            version = new.partition("@")[2]
            section = sections.get(version)
            if section is None:
                continue
            changes = [
                c for c in diff_targets(old, new, name).significant() if c.kind not in _IMPLIED
            ]
            missing = sorted({c.subject for c in changes if not mentions(section, c.subject)})
            for subject in missing:
                kinds = sorted({c.kind for c in changes if c.subject == subject})
                problems.append(
                    f"{where}: section {version} does not mention `{subject}` "
                    f"({', '.join(kinds)} from {old}, {name})"
                )
    return problems


def check_all() -> list[str]:
    """Every problem the gate finds."""
    return check_released() + check_changelogs()
