"""The npm package around the TypeScript declarations: ``package.json``, ``index.d.ts``, README.

``generated/typescript`` is a types-only ES module package. Each format and version is a
subpath export (``@atif-spec/types/atif/v1.8``, the primary document of that version), every
document also under its name (``@atif-spec/types/step-substep/v1.0/legacy-turn-event``); the root
export holds the types of the latest ATIF version and every module as a namespace
(``AtifV18``). Relative specifiers carry ``.js`` so the files resolve under
``moduleResolution: nodenext`` as well as ``bundler``.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable
from pathlib import Path

from atif_spec.codegen import naming
from atif_spec.codegen.prepare import Document

PACKAGE_NAME = "@atif-spec/types"
LICENSE = "Apache-2.0"


def project_version(root: Path) -> str:
    """The Python package's version (``[project] version`` in pyproject.toml), shared by npm."""
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        version = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        if isinstance(version.get("version"), str):
            return str(version["version"])
    return "0.0.0"


LATEST_FORMAT = "atif"
"""The format whose latest version the root export re-exports."""


def subpath(doc: Document) -> str:
    """Export subpath of a document: ``./atif/v1.8`` (primary) or ``./step-substep/v1.0/name``."""
    base = f"./{doc.format}/{doc.version}"
    return base if doc.primary else f"{base}/{doc.name}"


def named_subpath(doc: Document) -> str:
    """Export subpath of a document by name: ``./atif/v1.8/trajectory``."""
    return f"./{doc.format}/{doc.version}/{doc.name}"


def latest(docs: Iterable[Document]) -> Document | None:
    """The primary document of the last :data:`LATEST_FORMAT` version in catalog order."""
    found = [d for d in docs if d.format == LATEST_FORMAT and d.primary]
    return found[-1] if found else None


def namespace(doc: Document) -> str:
    """Namespace of a document in ``index.d.ts``: ``AtifV18``, ``StepSubstepV10LegacyTurnEvent``."""
    name = naming.class_name(f"{doc.format}-{doc.version}".replace(".", "-"))
    return name if doc.primary else name + naming.class_name(doc.name)


def _target(doc: Document) -> str:
    return f"./{doc.typescript_file}"


def manifest(docs: Iterable[Document], version: str) -> str:
    """``package.json`` text."""
    ordered = list(docs)
    exports: dict[str, object] = {".": {"types": "./index.d.ts"}}
    for doc in ordered:
        exports[subpath(doc)] = {"types": _target(doc)}
    for doc in ordered:
        exports.setdefault(named_subpath(doc), {"types": _target(doc)})
    exports["./package.json"] = "./package.json"
    data = {
        "name": PACKAGE_NAME,
        "version": version,
        "description": (
            "TypeScript types of the ATIF trajectory formats, generated from the atif-spec JSON "
            "Schemas (types only, no runtime code)."
        ),
        "license": LICENSE,
        "type": "module",
        "types": "./index.d.ts",
        "exports": exports,
        "files": ["**/*.d.ts", "README.md"],
        "sideEffects": False,
    }
    return json.dumps(data, indent=2) + "\n"


def index(docs: Iterable[Document]) -> str:
    """``index.d.ts`` text: the latest ATIF version's types, then one namespace per document."""
    ordered = list(docs)
    lines = [
        "/**",
        " * Generated file: do not edit by hand. The types of the latest ATIF version, and every",
        f" * document type of {PACKAGE_NAME} as one namespace per format and version.",
        " * Regenerate: nox -s generate",
        " */",
    ]
    newest = latest(ordered)
    if newest is not None:
        lines.append(f'export * from "{_target(newest).removesuffix(".d.ts")}.js";')
    for doc in ordered:
        module = _target(doc).removesuffix(".d.ts") + ".js"
        lines.append(f'export * as {namespace(doc)} from "{module}";')
    return "\n".join(lines) + "\n"


def readme(docs: Iterable[Document]) -> str:
    """README.md of the package (the import line of each export)."""
    rows = [
        f'| `import type {{ {d.root_class} }} from "{PACKAGE_NAME}{subpath(d)[1:]}";` | {d.id} |'
        for d in docs
    ]
    return "\n".join(
        [
            f"# {PACKAGE_NAME}",
            "",
            "TypeScript declarations generated from the atif-spec JSON Schemas (types only). They",
            "check shapes; the schemas' conditional and cross-field rules need a validator.",
            "Works with `moduleResolution` `nodenext`, `node16` and `bundler`.",
            "",
            "| Import | Schema |",
            "| --- | --- |",
            *rows,
            "",
            f'The latest ATIF version: `import type {{ Trajectory }} from "{PACKAGE_NAME}";`;',
            f'every version as a namespace: `import type {{ AtifV17 }} from "{PACKAGE_NAME}";`.',
            "",
        ]
    )


def write(out: Path, docs: Iterable[Document], version: str) -> None:
    """Write ``package.json``, ``index.d.ts`` and ``README.md`` into ``out``."""
    ordered = list(docs)
    out.mkdir(parents=True, exist_ok=True)
    (out / "package.json").write_text(manifest(ordered, version), encoding="utf-8")
    (out / "index.d.ts").write_text(index(ordered), encoding="utf-8")
    (out / "README.md").write_text(readme(ordered), encoding="utf-8")
