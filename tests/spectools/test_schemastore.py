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
from typing import Any

import pytest

from atif_spec.schemas.catalog import load_catalog
from atif_spec.spectools.site import SCHEMASTORE_SCHEMA, schemastore_catalog
from tests.support import ROOT

CATALOG = schemastore_catalog(load_catalog())
ENTRIES: list[dict[str, Any]] = CATALOG["schemas"]
ATIF = next(e for e in ENTRIES if e["url"].endswith("/atif/trajectory.schema.json"))

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


MATCHED = [
    "/home/u/jobs/job-1/task-3/agent/trajectory.json",
    "/home/u/jobs/job-1/task-3/agent/trajectory.cont-1.json",
    "/home/u/jobs/job-1/task-3/agent/trajectory.summarization-1-summary.json",
    "/data/run-42.atif.json",
]
NOT_MATCHED = [
    "/repo/spec/atif/v1.8/trajectory.schema.json",  # our own schema files
    "/repo/spec/atif/trajectory.schema.json",
    "/home/u/robotics/planner/trajectory.json",  # a bare trajectory.json elsewhere
    "/home/u/rocket/trajectory.json",
    "/home/u/rocket/trajectory.cont-1.json",  # a sibling name outside agent/
    "/home/u/agent-tools/trajectory.json",
    "/data/run-42.json",
    "/data/atif.json",
]


@pytest.mark.skipif(
    shutil.which("node") is None
    or not (ROOT / "node_modules" / "vscode-json-languageservice").is_dir(),
    reason="node or the pinned npm packages are missing (run `npm ci`)",
)
def test_vscode_glob_semantics_associate_exactly_the_intended_files() -> None:
    request = {"entries": ENTRIES, "paths": MATCHED + NOT_MATCHED}
    done = subprocess.run(
        ["node", str(ROOT / "tests" / "consumers" / "filematch.mjs")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    associated = json.loads(done.stdout)
    assert {p: associated[p] for p in MATCHED} == {p: [ATIF["url"]] for p in MATCHED}
    assert {p: associated[p] for p in NOT_MATCHED} == {p: [] for p in NOT_MATCHED}
