"""Other tools load every published schema and judge every conformance fixture as expected:
Ajv as SchemaStore runs it (strict mode), and the consumer matrix (tests/support/consumer_matrix.py)."""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import ROOT
from tests.support.consumer_matrix import (
    CONSUMERS,
    DIFFERENCES,
    DISPATCH_ONLY_CASES,
    Case,
    Result,
    cases,
    differing,
    explain,
    run,
    schema_ids,
)

SCRIPTS = ROOT / "tests" / "consumers"
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
        ["node", str(SCRIPTS / script)],
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


# --- the consumer matrix (tests/support/consumer_matrix.py) ----------------------------------------------

_RESULTS: dict[str, Result] = {}


def _result(consumer: str, all_cases: list[Case]) -> Result:
    if consumer not in _RESULTS:
        _RESULTS[consumer] = run(consumer, all_cases)
    return _RESULTS[consumer]


@pytest.fixture(scope="module")
def all_cases() -> list[Case]:
    return cases()


@pytest.mark.parametrize(
    "consumer",
    [pytest.param(c, marks=[needs_node] if c in ("ajv", "vscode") else []) for c in CONSUMERS],
)
def test_consumer_verdicts(consumer: str, all_cases: list[Case]) -> None:
    """Every schema loads in the consumer, and its verdict on every case is the expected one
    (invalid iff the case expects a schema:* or input:* finding) or a documented exception."""
    result = _result(consumer, all_cases)
    assert {k: v for k, v in result.compiled.items() if v} == {}
    assert set(result.compiled) == set(schema_ids())
    unexplained, problems = explain(
        consumer, differing(result, all_cases), [c.id for c in all_cases]
    )
    assert problems == []
    assert {i: result.messages.get(i) for i in unexplained} == {}


def test_every_difference_names_a_known_consumer() -> None:
    assert {d.consumer for d in DIFFERENCES} <= set(CONSUMERS)
    assert len({(d.consumer, d.group) for d in DIFFERENCES}) == len(DIFFERENCES)


def test_expected_verdicts_cover_both_outcomes(all_cases: list[Case]) -> None:
    assert len(all_cases) > 800
    assert 0 < sum(c.invalid for c in all_cases) < len(all_cases)


def test_integrations_names_every_case_where_generic_validators_are_stricter(
    all_cases: list[Case],
) -> None:
    """docs/INTEGRATIONS.md says generic validators are stricter "in exactly two cases" and names
    their fixtures; the matrix's dispatch-only group is that list."""
    stricter = [c.id for c in all_cases if re.fullmatch(DISPATCH_ONLY_CASES, c.id)]
    text = (ROOT / "docs/INTEGRATIONS.md").read_text(encoding="utf-8")
    assert len(stricter) == 2
    assert "in exactly two cases" in text
    assert all(f"`{case}`" in text for case in stricter)


# --- the recipes for other tools (docs/INTEGRATIONS.md) ----------------------------------------------------------


def _recipe(name: str) -> str:
    text = (ROOT / "docs/INTEGRATIONS.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- recipe: {name} -->\n```\w+\n(.*?)```", text, re.DOTALL)
    assert found, f"docs/INTEGRATIONS.md has no recipe {name!r}"
    return found.group(1)


def _atif_schema_path(target: str, *extra: str) -> str:
    exe = Path(sys.executable).parent / "atif"
    done = subprocess.run(
        [str(exe), "schema", "path", target, *extra], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


_V18 = ROOT / "conformance" / "atif" / "v1.8"


@needs_node
@pytest.mark.parametrize(
    ("fixture", "valid"),
    [
        ("valid/embedded-subagent-older-version.json", True),
        ("invalid/agent-missing-name.json", False),
    ],
)
def test_readme_ajv_recipe(tmp_path: Path, fixture: str, valid: bool) -> None:
    script = ROOT / f".recipe-ajv-{tmp_path.name}.mjs"  # beside node_modules, as a user's would be
    script.write_text(_recipe("ajv"), encoding="utf-8")
    try:
        done = subprocess.run(
            ["node", str(script), _atif_schema_path("atif@v1.8"), str(_V18 / fixture)],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        script.unlink()
    assert done.returncode == (0 if valid else 1), done.stdout + done.stderr
    assert (done.stdout.strip() == "valid") == valid


def test_readme_check_jsonschema_recipe_is_the_tested_command() -> None:
    assert (
        _recipe("check-jsonschema").split()
        == [
            "check-jsonschema",
            "--schemafile",
            '"$(atif',
            "schema",
            "path",
            'atif@v1.8)"',
            "agent/trajectory.json",
        ]
    )  # run offline by tests/codegen/test_bundles.py::test_readme_check_jsonschema_recipe_runs_offline


@needs_node
def test_readme_vscode_recipe_associates_harbor_files_with_a_packaged_schema() -> None:
    settings = json.loads(_recipe("vscode"))
    (association,) = settings["json.schemas"]
    assert association["url"] in schema_ids()
    paths = ["/w/job/task/agent/trajectory.json", "/w/run.atif.json", "/w/trajectory.json"]
    request = {"entries": [association], "paths": paths}
    answer = json.loads(
        subprocess.run(
            ["node", str(SCRIPTS / "filematch.mjs")],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        ).stdout
    )
    assert answer == {paths[0]: [association["url"]], paths[1]: [association["url"]], paths[2]: []}
    assert Path(_atif_schema_path("atif@v1.8", "--editor")).is_file()
