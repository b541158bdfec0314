"""Pydantic v2 models through datamodel-code-generator, one module per document schema."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path
from typing import Any

from atif_spec.codegen import prepare, schema_binding, unions
from atif_spec.codegen.options import cli_arguments
from atif_spec.codegen.prepare import Document
from atif_spec.jsonio import jsontext

GENERATOR = "datamodel-code-generator"
GENERATOR_VERSION = "0.89.0"
"""The exact version the committed models come from (other versions write other code)."""
FORMATTER_VERSION = "0.17.6"
"""The ruff that formats the models (pinned: another version may format differently)."""

RUFF_CONFIG = 'line-length = 100\n\n[lint]\nselect = ["F401", "I"]\n'
"""Ruff settings the generator's formatters run with (a fixed file, not the user's config)."""

PACKAGE_DOC = '"""Pydantic models generated from the schemas in spec/ (see `nox -s generate`)."""\n'


class GeneratorError(RuntimeError):
    """The generator is missing, the wrong version, or failed."""


def _environment() -> dict[str, str]:
    """The environment of the generator: this interpreter's scripts folder first on PATH, so
    that the formatter installed beside the generator is the one it runs."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


def check_formatter() -> None:
    """Refuse to run without the pinned ruff (the generator would silently skip formatting)."""
    try:
        done = subprocess.run(
            ["ruff", "--version"], capture_output=True, text=True, check=False, env=_environment()
        )
    except FileNotFoundError as exc:
        raise GeneratorError(f"ruff=={FORMATTER_VERSION} is not installed") from exc
    found = done.stdout.strip().removeprefix("ruff ").strip()
    if done.returncode != 0 or found != FORMATTER_VERSION:
        raise GeneratorError(
            f"ruff {found or '(unknown)'} is installed; the bindings need {FORMATTER_VERSION}"
        )


def check_generator() -> None:
    """Refuse to run with a generator or formatter other than the pinned ones."""
    check_formatter()
    try:
        found = metadata.version(GENERATOR)
    except metadata.PackageNotFoundError as exc:
        raise GeneratorError(f"{GENERATOR}=={GENERATOR_VERSION} is not installed") from exc
    if found != GENERATOR_VERSION:
        raise GeneratorError(
            f"{GENERATOR} {found} is installed; the bindings need {GENERATOR_VERSION}"
        )


def header(doc: Document) -> str:
    """The comment block at the top of a generated module."""
    return "\n".join(
        [
            "# Generated file: do not edit by hand.",
            f"# Schema: {doc.id}",
            f"#   (spec/{doc.path})",
            f"# Generator: {GENERATOR} {GENERATOR_VERSION} through atif_spec.codegen, options in",
            "#   [tool.datamodel-codegen]",
            "# Regenerate: nox -s generate",
        ]
    )


def _run(doc: Document, schema_file: Path, out_file: Path, options: dict[str, Any]) -> None:
    out_file.parent.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "datamodel_code_generator",
        "--ignore-pyproject",
        *cli_arguments(options),
        "--input",
        str(schema_file),
        "--output",
        str(out_file),
        "--class-name",
        doc.root_class,
        "--custom-file-header",
        header(doc),
        "--disable-warnings",
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=_environment())
    if done.returncode != 0 or not out_file.is_file():
        raise GeneratorError(f"{GENERATOR} failed on spec/{doc.path}:\n{done.stderr.strip()}")


def _format(files: list[Path], config: Path) -> None:
    """Format the finished modules with the pinned ruff (the appended binding included)."""
    command = ["ruff", "format", "--quiet", "--config", str(config), *map(str, files)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=_environment())
    if done.returncode != 0:
        raise GeneratorError(f"ruff format failed on the models:\n{done.stderr.strip()}")


def generate(
    documents: Iterable[tuple[Document, Any]],
    catalog: dict[str, Document],
    work: Path,
    out: Path,
    options: dict[str, Any],
) -> None:
    """Write the models for ``(document, canonical schema)`` pairs below ``out``."""
    check_generator()
    work.mkdir(parents=True, exist_ok=True)
    (work / "ruff.toml").write_text(RUFF_CONFIG, encoding="utf-8")
    docs = list(documents)
    prepared: dict[str, Any] = {}
    imports: dict[str, dict[str, tuple[str, str]]] = {}
    by_id = {doc.id: schema for doc, schema in docs}
    for doc, schema in docs:
        prepared[doc.id], imports[doc.id] = prepare.for_python(
            prepare.prepare(unions.dispatch_unions(schema, by_id), prepare.CHECKED_NOTE),
            doc,
            catalog,
        )
    jobs = []
    for doc, _ in docs:
        schema_file = work / "schemas" / doc.path
        schema_file.parent.mkdir(parents=True, exist_ok=True)
        schema_file.write_bytes(jsontext.dumps(prepared[doc.id], indent=True))
        jobs.append((doc, schema_file, work / "models" / doc.python_file))
    with ThreadPoolExecutor() as pool:
        list(pool.map(lambda job: _run(job[0], job[1], job[2], options), jobs))
    for doc, _, produced in jobs:
        source = schema_binding.bind(
            produced.read_text(encoding="utf-8"),
            doc,
            by_id[doc.id],
            prepared[doc.id],
            imports[doc.id],
        )
        produced.write_text(source, encoding="utf-8")
    _format([produced for _, _, produced in jobs], work / "ruff.toml")
    out.mkdir(parents=True, exist_ok=True)
    (out / "__init__.py").write_text(PACKAGE_DOC, encoding="utf-8")
    by_format: dict[str, list[Document]] = {}
    for doc, _, _ in jobs:
        by_format.setdefault(doc.format, []).append(doc)
    for fmt, members in by_format.items():
        package = out / Path(members[0].python_file).parent
        package.mkdir(parents=True, exist_ok=True)
        modules = ", ".join(Path(d.python_file).stem for d in members)
        (package / "__init__.py").write_text(
            f'"""Pydantic models of the {fmt} schemas ({modules}); generated, do not edit."""\n',
            encoding="utf-8",
        )
    for doc, _, produced in jobs:
        (out / doc.python_file).write_bytes(produced.read_bytes())
