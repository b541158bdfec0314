"""Bind each generated Pydantic class to the schema definition it stands for.

Field types cannot say everything a schema says (``if``/``then``/``else``, ``not``, rules across
fields), so the generated module ends with one call to
:meth:`atif_spec.bindings.models_base.StrictModel.bind_schema_locations` that names, for every
class, its definition in the canonical schema; validation then also checks the input against it. The
locations are derived from the schemas, never listed by hand:

* the root class → ``#``;
* a class named after a canonical ``$defs`` entry → ``#/$defs/<name>``;
* a member of a union built by :mod:`atif_spec.codegen.unions` → the location of the union's
  definition (the canonical definition that dispatches on the tag).

A class that fits none of these is an error: every class must check the whole of its schema.

A class of another document is named through its module (:func:`through_modules`):
``EmbeddedSubagentAtifV17(_atif_v1_7.Trajectory)``, so ``v1_8`` exposes no class of ``v1_7``.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from atif_spec.codegen import naming
from atif_spec.codegen.prepare import BindingError, Document

Json = Any

_DEFS = "#/$defs/"


def class_names(source: str) -> list[str]:
    """Names of the top-level classes of a generated module, in file order."""
    return [node.name for node in ast.parse(source).body if isinstance(node, ast.ClassDef)]


def _union_members(prepared: Json) -> dict[str, str]:
    """``{member: union definition}`` for the discriminated unions of a prepared schema."""
    members: dict[str, str] = {}
    for name, node in (prepared.get("$defs") or {}).items():
        if not (isinstance(node, dict) and "discriminator" in node):
            continue
        for branch in node.get("oneOf", []):
            ref = branch.get("$ref") if isinstance(branch, dict) else None
            if isinstance(ref, str) and ref.startswith(_DEFS):
                members[ref[len(_DEFS) :]] = name
    return members


def locations(
    doc: Document,
    names: list[str],
    canonical: Json,
    prepared: Json,
) -> dict[str, str]:
    """``{class name: fragment}`` of every class in ``names`` (see the module docstring)."""
    defs = canonical.get("$defs") or {}
    members = _union_members(prepared)

    def locate(name: str, seen: frozenset[str] = frozenset()) -> str:
        if name == doc.root_class:
            return "#"
        if name in defs:
            return f"{_DEFS}{name}"
        if name in members and name not in seen:
            return locate(members[name], seen | {name})
        raise BindingError(
            f"spec/{doc.path}: generated class {name} stands for no definition of the schema"
        )

    return {name: locate(name) for name in names}


def footer(doc: Document, bound: dict[str, str]) -> str:
    """The statement that ends a generated module: its classes bound to their definitions."""
    entries = "".join(f'        {name}: "{fragment}",\n' for name, fragment in bound.items())
    return (
        "\n\n# Each model also checks its input against its schema definition: the conditionals\n"
        "# and other rules that field types cannot express\n"
        "# (atif_spec.bindings.models_base.StrictModel).\n"
        "StrictModel.bind_schema_locations(\n"
        f'    "{doc.id}",\n'
        "    {\n"
        f"{entries}"
        "    },\n"
        ")\n"
    )


_STRICT_IMPORT = re.compile(
    r"^from atif_spec\.bindings\.models_base import .*\bStrictModel\b", re.M
)


def through_modules(source: str, imports: dict[str, tuple[str, str]]) -> str:
    """``source`` with each imported stand-in (``{alias: (module, class)}``, see
    :func:`atif_spec.codegen.prepare.for_python`) replaced by the class through a private import
    of its module: ``from atif_spec.models.atif.v1_7 import AtifV17Trajectory`` becomes
    ``from atif_spec.models.atif import v1_7 as _atif_v1_7``, and ``AtifV17Trajectory``
    ``_atif_v1_7.Trajectory``."""
    for alias, (module, name) in imports.items():
        package, _, stem = module.rpartition(".")
        handle = naming.module_handle(module)
        line = f"from {module} import {alias}\n"
        if line not in source:
            raise BindingError(f"the generator did not write `{line.strip()}` as one line")
        source = source.replace(line, f"from {package} import {stem} as {handle}\n")
        source = re.sub(rf"\b{alias}\b", f"{handle}.{name}", source)
    return source


def bind(
    source: str,
    doc: Document,
    canonical: Json,
    prepared: Json,
    imports: dict[str, tuple[str, str]],
) -> str:
    """``source`` (a generated module) with other documents' classes named through their
    modules and the binding statement appended."""
    source = through_modules(source, imports)
    if not _STRICT_IMPORT.search(source):
        raise BindingError(f"the module of spec/{doc.path} does not import StrictModel")
    names = class_names(source)
    if not names:
        return source
    bound = locations(doc, names, canonical, prepared)
    return source.rstrip("\n") + "\n" + footer(doc, bound)
