"""The SchemaStore catalog entry (site: schemas/schemastore-catalog.json) keeps SchemaStore's
rules, and VS Code's glob semantics associate exactly the intended files with it.

The rules are those of SchemaStore's catalog schema (``schema-catalog.json``: ``version`` 1, entries
with ``name``, ``description``, ``url`` and optional ``fileMatch`` / ``versions``) and of its
catalog lint (``cli.js``: no "schema" in a name or description, no trailing ``,. -`` or tab, no
line break, a glob with ``/`` starts with ``**/``, no duplicate glob or name).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from atif_spec.schemas.catalog import load_catalog
from atif_spec.spectools.schemastore import SCHEMASTORE_SCHEMA, schemastore_catalog
from tests.support import ROOT
from tests.support.harbor import harbor_job

CATALOG = schemastore_catalog(load_catalog())
ENTRIES: list[dict[str, Any]] = CATALOG["schemas"]
ATIF = next(e for e in ENTRIES if e["url"].endswith("/editor/atif/trajectory.schema.json"))

# SchemaStore's catalog schema, as a JSON Schema over one catalog (the facts of its fields).
CATALOG_SHAPE = {
    "type": "object",
    "required": ["$schema", "version", "schemas"],
    "properties": {
        "version": {"const": 1},
        "schemas": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "description", "url"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "description": {"type": "string", "minLength": 1},
                    "url": {"type": "string", "format": "uri", "pattern": "^https://"},
                    "fileMatch": {
                        "type": "array",
                        "items": {"type": "string", "minLength": 1},
                        "uniqueItems": True,
                    },
                    "versions": {
                        "type": "object",
                        "additionalProperties": {"type": "string", "pattern": "^https://"},
                    },
                },
            },
        },
    },
}


def test_catalog_has_schemastore_shape() -> None:
    import jsonschema

    assert CATALOG["$schema"] == SCHEMASTORE_SCHEMA
    jsonschema.Draft202012Validator(
        CATALOG_SHAPE, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    ).validate(CATALOG)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["name"])
def test_entry_passes_schemastore_lint(entry: dict[str, Any]) -> None:
    for key in ("name", "description"):
        text = entry[key]
        assert "schema" not in text.lower(), text
        assert not re.search(r"[,. \t-]$", text), text
        assert "\n" not in text
    for glob in entry.get("fileMatch", []):
        assert "/" not in glob or glob.startswith("**/"), glob


def test_no_duplicate_names_or_globs() -> None:
    names = [e["name"] for e in ENTRIES]
    globs = [g for e in ENTRIES for g in e.get("fileMatch", [])]
    assert len(names) == len(set(names))
    assert len(globs) == len(set(globs))


# The files producers write, by what they hold. Harbor 0.26 (`harbor run`): the ATIF files of
# tests/support/harbor.py's job folder (a trial's agent/trajectory.json, its continuations
# trajectory.cont-N.json and summarization subagents trajectory.summarization-N-*.json, a
# multi-step trial's steps/<step>/agent/trajectory.json) beside its other JSON files, the
# `fabric` agent's relay `trajectory-<session>.atif.json` (agents/installed/fabric.py), and the
# native logs its installed agents copy into agent/ (swe_agent.py, openhands.py,
# antigravity_cli.py, gemini_cli.py, mini_swe_agent.py). atif-make 0.10 (atif_make/cli.py):
# `<input>.trajectory.json` beside the input (cmd_convert), split subagents
# `<stem>.trajectory.<agent>.json` (_write), a folder run into `<folder>.atif/` (_convert_many)
# and the `--bundle` zip's `<stem>/<stem>.trajectory.json` (_bundle).
HARBOR_ATIF = [
    "/home/u/jobs/job-1/fabric-task__Ab3dE7f/artifacts/fabric/relay/trajectory-sess-7.atif.json",
    "/home/u/jobs/job-1/task-3__Kq9Lm2x/agent/trajectory.cont-12.json",
]
HARBOR_NATIVE = [
    f"/home/u/jobs/job-1/task-3__Kq9Lm2x/agent/{name}"
    for name in (
        "swe-agent.trajectory.json",
        "openhands.trajectory.json",
        "antigravity-cli.trajectory.json",
        "gemini-cli.trajectory.json",
        "mini-swe-agent.trajectory.json",
        "trae-trajectory.json",
    )
]
ATIF_MAKE = [
    "/home/u/logs/7c41d2e8.trajectory.json",
    "/home/u/logs/7c41d2e8.trajectory.agent-a1b2c3.json",
    "/home/u/logs/sessions.atif/rollout-2026-09-14.trajectory.json",
    "/home/u/logs/sessions.atif/rollout-2026-09-14.trajectory.subagent.json",
    "/tmp/unzipped/run-42/run-42.trajectory.json",
]
MATCHED = [*HARBOR_ATIF, *ATIF_MAKE, "/data/run-42.atif.json"]
NOT_MATCHED = [
    *HARBOR_NATIVE,
    "/repo/spec/atif/v1.8/trajectory.schema.json",  # our own schema files
    "/repo/spec/atif/trajectory.schema.json",
    "/home/u/robotics/planner/trajectory.json",  # a bare trajectory.json elsewhere
    "/home/u/rocket/trajectory.json",
    "/home/u/rocket/trajectory.cont-1.json",  # a sibling name outside agent/
    "/home/u/agent-tools/trajectory.json",
    "/data/run-42.json",
    "/data/atif.json",
]


def associated(paths: list[str]) -> dict[str, list[str]]:
    """The catalog URLs VS Code's JSON service associates with each path (its glob semantics)."""
    request = {"entries": ENTRIES, "paths": paths}
    done = subprocess.run(
        ["node", str(ROOT / "tests" / "consumers" / "filematch.mjs")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    answer: dict[str, list[str]] = json.loads(done.stdout)
    return answer


@pytest.mark.skipif(
    shutil.which("node") is None
    or not (ROOT / "node_modules" / "vscode-json-languageservice").is_dir(),
    reason="node or the pinned npm packages are missing (run `npm ci`)",
)
def test_vscode_glob_semantics_associate_exactly_the_intended_files(tmp_path: Path) -> None:
    job = harbor_job(tmp_path)
    harbor = [str(p) for p in job.trajectories]
    others = [str(p) for p in job.others]
    names = {Path(p).name for p in harbor}
    assert {"trajectory.json", "trajectory.cont-1.json"} <= names
    assert any(n.startswith("trajectory.summarization-") for n in names)
    found = associated([*MATCHED, *NOT_MATCHED, *harbor, *others])
    assert {p: found[p] for p in [*MATCHED, *harbor]} == {
        p: [ATIF["url"]] for p in [*MATCHED, *harbor]
    }
    assert {p: found[p] for p in [*NOT_MATCHED, *others]} == {
        p: [] for p in [*NOT_MATCHED, *others]
    }
