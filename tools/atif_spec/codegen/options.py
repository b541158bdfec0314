"""Generator options: ``pyproject.toml`` when it has them, else the defaults in ``options.toml``."""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULTS = Path(__file__).with_name("options.toml")
PYTHON_TABLE = ("tool", "datamodel-codegen")
TYPESCRIPT_TABLE = ("tool", "atif-spec", "json-schema-to-typescript")


@dataclass(frozen=True)
class Options:
    """Option tables for both generators."""

    python: dict[str, Any]
    typescript: dict[str, Any]


def _table(doc: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any] | None:
    node: Any = doc
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return dict(node) if isinstance(node, dict) else None


def load_options(root: Path) -> Options:
    """Options for a repository rooted at ``root``."""
    defaults = tomllib.loads(DEFAULTS.read_text(encoding="utf-8"))
    project: dict[str, Any] = {}
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    python = _table(project, PYTHON_TABLE) or _table(defaults, PYTHON_TABLE) or {}
    typescript = _table(project, TYPESCRIPT_TABLE) or _table(defaults, TYPESCRIPT_TABLE) or {}
    return Options(python=python, typescript=typescript)


def cli_arguments(table: dict[str, Any]) -> list[str]:
    """datamodel-codegen arguments for an option table, as its own pyproject support reads it."""
    args: list[str] = []
    for key, value in table.items():
        flag = f"--{key.replace('_', '-')}"
        if value is True:
            args.append(flag)
        elif value is False:
            if f"--no-{flag[2:]}" in _negative_flags():
                args.append(f"--no-{flag[2:]}")
        elif isinstance(value, list):
            args += [flag, *(str(v) for v in value)]
        else:
            args += [flag, str(value)]
    return args


@functools.cache
def _negative_flags() -> frozenset[str]:
    """The ``--no-X`` flags datamodel-codegen accepts (``false`` on other flags = leave off)."""
    from datamodel_code_generator.arguments import arg_parser  # noqa: PLC0415 - optional: the generator is a dev dependency

    return frozenset(re.findall(r"--no-[a-z0-9-]+", arg_parser.format_help()))
