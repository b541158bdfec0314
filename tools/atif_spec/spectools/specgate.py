"""The contributors' gate over ``spec/`` (``atif spec check``, ``nox -s spec-check``).

Two checks, each returning problems as plain strings (empty: the gate passes):

* **Released schemas are immutable, and so is what their URLs serve.**
  ``spec/RELEASED.sha256`` (``sha256sum`` format) records the bytes of every schema the catalog
  marks ``released`` (paths relative to ``spec/``: what its ``$id`` serves) and of its two bundles
  (``bundles/compound/<path>`` and ``bundles/editor/<path>``: ``generated/bundles/`` in the
  repository, ``atif_spec.bundles`` in the package; what the catalog's ``bundle`` and ``editor``
  URLs serve; RFC.md §8). A locked file whose bytes changed, a released schema or bundle missing
  from the lock, a locked file whose schema is no longer released (or no longer exists), and a
  released schema that reaches a schema not released (its bundles embed that schema, so they
  would change with it) are problems.
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
from importlib import resources
from importlib.resources.abc import Traversable

import orjson

from atif_spec.schemas.catalog import Catalog, SchemaEntry, load_catalog, spec_root
from atif_spec.spectools.specdiff import diff_targets

LOCK_FILE = "RELEASED.sha256"
_HEADING = re.compile(r"^## (v[0-9][0-9A-Za-z.\-]*)\b.*$", re.MULTILINE)


BUNDLE_KINDS = ("compound", "editor")
"""The bundles of every schema (``atif_spec.codegen.bundles``), locked with it."""


def bundles_root() -> Traversable:
    """The packaged bundles (``generated/bundles`` in the repository)."""
    return resources.files("atif_spec.bundles")


def _file(root: Traversable, path: str) -> Traversable:
    node = root
    for part in path.split("/"):
        node = node.joinpath(part)
    return node


def _locked_file(root: Traversable, path: str, bundles: Traversable | None) -> Traversable:
    """A lock path's file: ``bundles/<kind>/<path>`` below the bundles, anything else below
    ``spec/``."""
    if path.startswith("bundles/"):
        return _file(bundles or bundles_root(), path.removeprefix("bundles/"))
    return _file(root, path)


def locked_paths(entry: SchemaEntry) -> list[str]:
    """The lock paths of a schema: its file and its two bundles."""
    return [entry.path, *(f"bundles/{kind}/{entry.path}" for kind in BUNDLE_KINDS)]


def sha256_of(root: Traversable, path: str, bundles: Traversable | None = None) -> str:
    """Hex SHA-256 of a file below ``spec/`` (or of a bundle, ``bundles/<kind>/<path>``)."""
    return hashlib.sha256(_locked_file(root, path, bundles).read_bytes()).hexdigest()


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


def lock_line(root: Traversable, path: str, bundles: Traversable | None = None) -> str:
    """The ``RELEASED.sha256`` line recording a file's current bytes."""
    return f"{sha256_of(root, path, bundles)}  {path}"


def _refs(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.partition("#")[0]:
            yield ref.partition("#")[0]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def unreleased_reached(catalog: Catalog, root: Traversable, entry: SchemaEntry) -> list[str]:
    """The ``$id`` of every schema ``entry`` reaches through references that is not released."""
    seen, todo = {entry.id}, [entry]
    while todo:
        current = todo.pop()
        for schema_id in _refs(orjson.loads(_file(root, current.path).read_bytes())):
            if schema_id not in seen:
                seen.add(schema_id)
                todo.append(catalog.by_id(schema_id))
    return sorted(i for i in seen if catalog.by_id(i).status != "released")


def _check_file(
    root: Traversable, path: str, lock: dict[str, str], bundles: Traversable | None
) -> str | None:
    """The problem with one locked path of a released schema, or None."""
    if path not in lock:
        return (
            f"{path}: marked released but not recorded in spec/{LOCK_FILE} "
            f"(add: {lock_line(root, path, bundles)})"
        )
    if not _locked_file(root, path, bundles).is_file():
        return f"{path}: released schema is missing"
    if sha256_of(root, path, bundles) == lock[path]:
        return None
    if path.startswith("bundles/"):
        return (
            f"{path}: the bundle of a released schema changed (what its catalog URL serves never "
            "changes: the bundle generator must reproduce the locked bytes; make a schema change "
            "in a new version)"
        )
    return (
        f"{path}: released schema changed (a released version never changes: "
        "make the change in a new version)"
    )


def check_released(
    catalog: Catalog | None = None,
    root: Traversable | None = None,
    bundles: Traversable | None = None,
) -> list[str]:
    """Problems with released schemas and their bundles (changed bytes, missing or stale lock
    entries, a released schema that reaches a draft)."""
    catalog = catalog or load_catalog()
    root = root or spec_root()
    lock = read_lock(root)
    problems = []
    released = [e for e in catalog if e.status == "released"]
    for entry in released:
        for path in locked_paths(entry):
            problem = _check_file(root, path, lock, bundles)
            if problem:
                problems.append(problem)
        problems += [
            f"{entry.path}: released, but it refers to {other}, which is not: its bundles embed "
            "that schema (release both)"
            for other in unreleased_reached(catalog, root, entry)
        ]
    expected = {p for e in released for p in locked_paths(e)}
    for path in sorted(set(lock) - expected):
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
