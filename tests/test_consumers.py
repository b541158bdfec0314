"""Other tools load every published schema: Ajv as SchemaStore runs it (strict mode)."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONSUMERS = ROOT / "tests" / "consumers"
NODE_MODULES = ROOT / "node_modules"

needs_node = pytest.mark.skipif(
    shutil.which("node") is None or not (NODE_MODULES / "ajv").is_dir(),
    reason="node or the pinned npm packages are missing (run `npm ci`)",
)


def spec_schemas() -> list[dict[str, Any]]:
    """Every schema file in spec/ (the unbundled sources)."""
    files = sorted(glob.glob(str(ROOT / "spec" / "**" / "*.schema.json"), recursive=True))
    return [json.loads(Path(f).read_text(encoding="utf-8")) for f in files]


def run_node(script: str, request: dict[str, Any]) -> dict[str, Any]:
    """Run a consumer script under node with a JSON request on stdin; its JSON answer."""
    done = subprocess.run(
        ["node", str(CONSUMERS / script)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env={**os.environ, "NODE_PATH": str(NODE_MODULES)},
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


@needs_node
def test_ajv_strict_compiles_every_schema() -> None:
    schemas = spec_schemas()
    compiled = run_node("ajv.mjs", {"schemas": schemas})["compiled"]
    assert set(compiled) == {s["$id"] for s in schemas}
    assert {sid: err for sid, err in compiled.items() if err} == {}
