"""Generate the bindings of a repository, or check that ``generated/`` is up to date.

Both operations write a fresh generation into a temporary folder first; ``generate`` then
mirrors it into ``generated/`` (deleting files no schema produces any more) and ``check``
compares it with ``generated/`` file by file.
"""

from __future__ import annotations

import filecmp
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from atif_spec.codegen import bundles, npm_package, pydantic_models, typescript_types
from atif_spec.codegen.options import load_options
from atif_spec.codegen.prepare import Document

LANGUAGES = ("python", "typescript", "bundles")
"""Output folders below ``generated/``: one per language, and the self-contained schemas."""

_IGNORED = ("__pycache__", ".pyc")


@dataclass(frozen=True)
class Layout:
    """The folders of one repository."""

    root: Path

    @property
    def spec(self) -> Path:
        """Canonical schemas."""
        return self.root / "spec"

    @property
    def generated(self) -> Path:
        """Bindings."""
        return self.root / "generated"


def documents(root: Path) -> list[Document]:
    """Every catalog schema of kind ``document``, in catalog order."""
    catalog = orjson.loads((root / "spec" / "catalog.json").read_bytes())
    entries = [e for e in catalog["schemas"] if e.get("kind") == "document"]
    out = []
    for e in entries:
        siblings = [
            s for s in entries if s["format"] == e["format"] and s["version"] == e["version"]
        ]
        primary = e is next((s for s in siblings if s.get("primary")), siblings[0])
        out.append(
            Document(e["format"], e["version"], e["name"], e["id"], e["path"], primary=primary)
        )
    return out


def generate_into(
    root: Path,
    target: Path,
    languages: tuple[str, ...] = LANGUAGES,
    node_modules: Path | None = None,
) -> None:
    """Generate the bindings of the repository at ``root`` into ``target`` (a ``generated/``)."""
    docs = documents(root)
    catalog = {d.id: d for d in docs}
    pairs: list[tuple[Document, Any]] = [
        (d, orjson.loads((root / "spec" / d.path).read_bytes())) for d in docs
    ]
    options = load_options(root)
    if "bundles" in languages:
        bundles.generate(root, target / "bundles")
    with tempfile.TemporaryDirectory(prefix="atif-codegen-") as work:
        if "python" in languages:
            pydantic_models.generate(pairs, catalog, Path(work), target / "python", options.python)
        if "typescript" in languages:
            modules = node_modules or typescript_types.find_node_modules(
                root, Path(__file__).parent
            )
            typescript_types.generate(
                pairs, catalog, target / "typescript", options.typescript, modules
            )
            npm_package.write(target / "typescript", docs, npm_package.project_version(root))


def _files(folder: Path) -> Iterator[str]:
    if not folder.is_dir():
        return
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not any(part.endswith(_IGNORED) for part in path.parts):
            yield path.relative_to(folder).as_posix()


def differences(expected: Path, actual: Path, languages: tuple[str, ...]) -> list[str]:
    """Paths (relative to ``generated/``) that are missing, stale or different in ``actual``."""
    changed: list[str] = []
    for lang in languages:
        want = set(_files(expected / lang))
        have = set(_files(actual / lang))
        for rel in sorted(want | have):
            a, b = expected / lang / rel, actual / lang / rel
            if rel not in have or rel not in want or not filecmp.cmp(a, b, shallow=False):
                changed.append(f"{lang}/{rel}")
    return changed


def generate(
    root: Path, languages: tuple[str, ...] = LANGUAGES, node_modules: Path | None = None
) -> list[str]:
    """Regenerate ``root/generated``; returns the files that changed (relative to it)."""
    layout = Layout(root)
    with tempfile.TemporaryDirectory(prefix="atif-generated-") as fresh:
        generate_into(root, Path(fresh), languages, node_modules)
        changed = differences(Path(fresh), layout.generated, languages)
        for rel in changed:
            src, dst = Path(fresh) / rel, layout.generated / rel
            if src.is_file():
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)
            else:
                dst.unlink()
    return changed


def check(
    root: Path, languages: tuple[str, ...] = LANGUAGES, node_modules: Path | None = None
) -> list[str]:
    """Files of ``root/generated`` that differ from what the schemas produce (empty when fresh)."""
    with tempfile.TemporaryDirectory(prefix="atif-generated-") as fresh:
        generate_into(root, Path(fresh), languages, node_modules)
        return differences(Path(fresh), Layout(root).generated, languages)
