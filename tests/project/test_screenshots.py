"""The pictures of `atif view` in docs/images/ are made by bench/screenshots.py, not by hand: each
one there is one the script makes, at the size it makes it, the docs show every one, and the
script runs clean in headless Chromium (``nox -s site-browser`` runs this file)."""

from __future__ import annotations

import runpy
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import ROOT
from tests.support.browser import CHROMIUM

SCRIPT = ROOT / "bench" / "screenshots.py"
IMAGES = ROOT / "docs" / "images"


def _shots() -> dict[str, int]:
    """The script's pictures: name → viewport height."""
    script: dict[str, Any] = runpy.run_path(str(SCRIPT))
    return {name: height for name, _, height in script["SHOTS"]}


def _size(png: Path) -> tuple[int, int]:
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", png
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def test_every_picture_in_docs_is_made_by_the_script_and_shown() -> None:
    shots = _shots()
    assert {"atif-view.png", "atif-view-dataset.png", "atif-view-compare.png"} <= set(shots)
    assert "atif-view-harbor-job.png" in shots
    assert {p.name for p in IMAGES.glob("*.png")} == set(shots)
    for name, height in shots.items():
        assert _size(IMAGES / name) == (1200, height), name
    viewer = (ROOT / "docs" / "VIEWER.md").read_text(encoding="utf-8")
    for name in shots:
        assert f"](images/{name})" in viewer, name
    assert "](docs/images/atif-view.png)" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "bench/screenshots.py" in (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


@pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)"
)
def test_the_script_makes_every_picture_without_a_page_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    for name, height in _shots().items():
        assert _size(tmp_path / name) == (1200, height), name
        assert (tmp_path / name).stat().st_size > 20_000, name  # a drawn page, not a blank one
