"""docs/API.md: its Python examples run, in order, as one script (like a doctest)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import atif_spec
from tests.support import ROOT

PAGE = ROOT / "docs" / "API.md"
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)


def python_blocks(text: str) -> list[str]:
    """The fenced ```python blocks of a Markdown page, in order."""
    return BLOCK.findall(text)


def test_blocks_are_found() -> None:
    text = "a\n```python\nx = 1\n```\nb\n```sh\nls\n```\n```python\ny = 2\n```\n"
    assert python_blocks(text) == ["x = 1\n", "y = 2\n"]


def test_the_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the page's examples write into an empty folder
    blocks = python_blocks(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) >= 10
    namespace: dict[str, object] = {"__name__": "api_docs"}
    for number, block in enumerate(blocks, 1):
        code = compile(block, f"docs/API.md (python block {number})", "exec")
        exec(code, namespace)


def test_the_page_documents_the_whole_public_api() -> None:
    text = PAGE.read_text(encoding="utf-8")
    missing = [
        name for name in atif_spec.__all__ if name != "__version__" and f"`{name}" not in text
    ]
    assert not missing


def test_the_readme_links_the_page() -> None:
    assert "(docs/API.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
