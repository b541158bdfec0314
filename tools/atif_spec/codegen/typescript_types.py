"""TypeScript declarations through json-schema-to-typescript (Node, pinned in package.json)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from atif_spec.codegen import prepare, unions
from atif_spec.codegen.prepare import Document

SCRIPT = Path(__file__).with_name("json2ts.cjs")
GENERATOR = "json-schema-to-typescript"


class NodeError(RuntimeError):
    """Node or the pinned npm packages are not available, or the compiler failed."""


def find_node_modules(*starts: Path) -> Path:
    """The ``node_modules`` folder (with the generator installed) nearest to one of ``starts``."""
    for start in starts:
        for folder in (start, *start.resolve().parents):
            candidate = folder / "node_modules"
            if (candidate / GENERATOR / "package.json").is_file():
                return candidate
    raise NodeError(f"{GENERATOR} is not installed: run `npm ci` at the repository root")


def banner(doc: Document) -> str:
    """The comment block at the top of a declaration file (``{version}`` filled in by Node)."""
    return "\n".join(
        [
            "/**",
            " * Generated file: do not edit by hand.",
            f" * Schema: {doc.id}",
            f" *   (spec/{doc.path})",
            f" * Generator: {GENERATOR} {{version}} through atif_spec.codegen, options in",
            " *   [tool.atif-spec.json-schema-to-typescript]",
            " * Regenerate: nox -s generate",
            " */",
        ]
    )


def generate(
    documents: Iterable[tuple[Document, Any]],
    catalog: dict[str, Document],
    out: Path,
    options: dict[str, Any],
    node_modules: Path,
) -> None:
    """Write one ``.d.ts`` per ``(document, canonical schema)`` pair below ``out``."""
    node = shutil.which("node")
    if node is None:
        raise NodeError("node is not on PATH")
    jobs = [
        {
            "schema": prepare.for_typescript(
                prepare.prepare(unions.case_unions(unions.dispatch_unions(schema))), doc, catalog
            ),
            "name": doc.root_class,
            "banner": banner(doc),
            "out": str(out / doc.typescript_file),
        }
        for doc, schema in documents
    ]
    request = {"nodeModules": str(node_modules), "options": options, "jobs": jobs}
    done = subprocess.run(
        [node, str(SCRIPT)], input=json.dumps(request), capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise NodeError(f"{GENERATOR} failed:\n{done.stderr.strip()}")
