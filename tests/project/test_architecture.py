"""The house rules of docs/ARCHITECTURE.md: rooms, no import circle, tests that mirror the package."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from tests.support import ROOT

PACKAGE = ROOT / "tools" / "atif_spec"
TESTS = ROOT / "tests"
NOT_MIRRORS = {
    "support",
    "project",
    "typescript",
    "typing_samples",
    "bindings_samples",
    "consumers",
}
"""Folders of tests/ that are not a room: shared helpers, repository checks, and data."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The package modules an import statement names (``from pkg import mod`` names ``pkg.mod``)."""
    modules = _modules()
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".") if is_package else module.split(".")[:-1]
            package = package[: len(package) - (node.level - 1)]
            base = ".".join([*package, base] if base else package)
        names = [
            f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
            for alias in node.names
        ]
    found = []
    for name in names:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module:
            found.append(name)
    return found


def _imports(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """Every package module ``module`` imports, at any depth, outside ``if TYPE_CHECKING:``."""
    found: set[str] = set()
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.update(_imported(child, module, is_package))
            pending.append(child)
    return found


@functools.cache
def graph() -> dict[str, set[str]]:
    """Module → the package modules it imports."""
    return {
        name: _imports(ast.parse(path.read_text(encoding="utf-8")), name, path.stem == "__init__")
        for name, path in _modules().items()
    }


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_circle_finder_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_the_package() -> None:
    assert circles(graph()) == []


def test_the_package_top_holds_only_its_public_api() -> None:
    assert sorted(p.name for p in PACKAGE.glob("*.py")) == ["__init__.py"]


@pytest.mark.parametrize(
    ("room", "allowed"),
    [("jsonio", set()), ("schemas", {"jsonio"}), ("formats", {"jsonio", "schemas"})],
)
def test_the_lowest_rooms_import_only_below_them(room: str, allowed: set[str]) -> None:
    outside = {
        (module, target)
        for module, targets in graph().items()
        if module.startswith(f"atif_spec.{room}.") or module == f"atif_spec.{room}"
        for target in targets
        if target.split(".")[1] not in {room, *allowed}
    }
    assert outside == set()


def test_tests_mirror_the_package() -> None:
    rooms = {p.relative_to(PACKAGE) for p in PACKAGE.rglob("*") if (p / "__init__.py").is_file()}
    folders = {
        p.relative_to(TESTS)
        for p in TESTS.rglob("*")
        if p.is_dir()
        and p.name != "__pycache__"
        and p.relative_to(TESTS).parts[0] not in NOT_MIRRORS
    }
    assert folders <= rooms, sorted(map(str, folders - rooms))
    loose = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert loose == [], "a test belongs in the folder of the room it tests"
