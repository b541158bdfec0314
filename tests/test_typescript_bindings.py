"""The TypeScript declarations accept every valid document and reject a mistyped one."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
TSC = ROOT / "node_modules" / ".bin" / "tsc"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not TSC.is_file(),
    reason="node or the pinned typescript package is missing (run `npm ci`)",
)


def _write_checks() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "write_checks", ROOT / "tests" / "typescript" / "write_checks.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tsc(folder: Path, files: list[str]) -> subprocess.CompletedProcess[str]:
    config = json.loads((ROOT / "tests" / "typescript" / "tsconfig.json").read_text())
    config["files"] = files
    (folder / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return subprocess.run(
        [str(TSC), "-p", str(folder)], capture_output=True, text=True, check=False
    )


def test_every_valid_document_type_checks(tmp_path: Path) -> None:
    out = tmp_path / "checks.ts"
    text, count = _write_checks().render(ROOT, out)
    assert count >= 18  # at least the two samples of each ATIF version
    out.write_text(text, encoding="utf-8")
    done = _tsc(tmp_path, ["checks.ts"])
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("field", "value"),
    [(("agent", "version"), 1), (("steps", 0, "step_id"), "1"), (("agent", "nickname"), "x")],
)
def test_a_mistyped_document_does_not_type_check(
    tmp_path: Path, field: tuple[str | int, ...], value: object
) -> None:
    doc = json.loads((ROOT / "tests/bindings_samples/atif/v1.7/rich.json").read_text())
    node = doc
    for key in field[:-1]:
        node = node[key]
    node[field[-1]] = value
    target = ROOT / "generated/typescript/atif/v1.7/trajectory"
    (tmp_path / "bad.ts").write_text(
        f'import type {{ Trajectory }} from "{target.as_posix()}";\n'
        f"export const bad: Trajectory = {json.dumps(doc)};\n",
        encoding="utf-8",
    )
    done = _tsc(tmp_path, ["bad.ts"])
    assert done.returncode != 0
    assert "error TS" in done.stdout
