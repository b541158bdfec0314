"""Where a schema's bindings live and what their root types are called.

Shared by the generator and by :mod:`atif_spec.bindings.models_io`, so both agree on module paths.
"""

from __future__ import annotations

import re

MODELS_PACKAGE = "atif_spec.models"
"""Import name of ``generated/python`` (a package-dir mapping in pyproject.toml)."""


def module_token(text: str) -> str:
    """A Python identifier for a format or version: ``step-substep`` → ``step_substep``."""
    token = re.sub(r"[^0-9A-Za-z_]", "_", text)
    return token if token.isidentifier() else f"_{token}"


def module_stem(version: str, name: str, *, primary: bool) -> str:
    """File stem of one schema's module: ``v1_7`` (or ``v1_7_<name>`` for a secondary schema)."""
    stem = module_token(version)
    return stem if primary else f"{stem}_{module_token(name)}"


def module_path(fmt: str, version: str, name: str, *, primary: bool = True) -> str:
    """Dotted import path: ``atif_spec.models.atif.v1_7``."""
    stem = module_stem(version, name, primary=primary)
    return f"{MODELS_PACKAGE}.{module_token(fmt)}.{stem}"


def class_name(name: str) -> str:
    """Root class of a schema named ``name``: ``trajectory`` → ``Trajectory``."""
    parts = re.split(r"[^0-9A-Za-z]+", name)
    return "".join(p[:1].upper() + p[1:] for p in parts if p) or "Document"


def alias_name(fmt: str, version: str, target: str) -> str:
    """Versioned stand-in the generator reads for ``target`` of another document
    (``AtifV17Trajectory``); the finished module names the class through its module instead."""
    return class_name(f"{fmt}-{version}-{target}".replace(".", "-"))


def module_handle(module: str) -> str:
    """Private name under which a model module imports another: ``atif_spec.models.atif.v1_7``
    → ``_atif_v1_7``."""
    return "_" + module.removeprefix(f"{MODELS_PACKAGE}.").replace(".", "_")
