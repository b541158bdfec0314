"""The npm package around the TypeScript declarations: ``package.json``, ``index.d.ts``, README.

``generated/typescript`` is a types-only ES module package. Each format and version is a
subpath export (``@atif-spec/types/atif/v1.8``, the primary document of that version; other
documents of the version add ``/<name>``), and the root export re-exports every module under a
namespace (``AtifV18``). Relative specifiers carry ``.js`` so the files resolve under
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


def subpath(doc: Document) -> str:
    """Export subpath of a document: ``./atif/v1.8`` (primary) or ``./step-substep/v1.0/name``."""
    base = f"./{doc.format}/{doc.version}"
    return base if doc.primary else f"{base}/{doc.name}"


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
    """``index.d.ts`` text: one namespace per document."""
    lines = [
        "/**",
        " * Generated file: do not edit by hand. Every document type of " + PACKAGE_NAME + ",",
        " * one namespace per format and version. Regenerate: nox -s generate",
        " */",
    ]
    for doc in docs:
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
            f'Everything at once: `import type {{ AtifV18 }} from "{PACKAGE_NAME}";`.',
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
