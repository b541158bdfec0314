"""The stash and change-report schemas describe what the tools write."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import orjson
import pytest
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from atif_spec.schemas.catalog import all_schemas
from atif_spec.transforms.migrations import migrate
from atif_spec.transforms.stash_v1 import STASH_KEY
from tests.support import ROOT

SPEC = ROOT / "spec" / "atif-spec" / "v1"
GOLDEN = ROOT / "conformance" / "migrations"


def validator(name: str) -> jsonschema.Draft202012Validator:
    schemas = {sid: s for sid, s in all_schemas()}
    for extra in ("stash", "change-report"):
        s = json.loads((SPEC / f"{extra}.schema.json").read_text())
        schemas[s["$id"]] = s
    registry: Registry[Any] = Registry().with_resources(
        (sid, DRAFT202012.create_resource(s)) for sid, s in schemas.items()
    )
    schema = json.loads((SPEC / f"{name}.schema.json").read_text())
    return jsonschema.Draft202012Validator(schema, registry=registry)


def stashes(node: Any) -> list[Any]:
    if isinstance(node, dict):
        found = [node[STASH_KEY]] if STASH_KEY in node else []
        return found + [s for k, v in node.items() if k != STASH_KEY for s in stashes(v)]
    if isinstance(node, list):
        return [s for v in node for s in stashes(v)]
    return []


@pytest.mark.parametrize("pair", sorted(p.name for p in GOLDEN.iterdir() if p.is_dir()))
def test_every_stash_written_matches_the_schema(pair: str) -> None:
    check = validator("stash")
    doc = orjson.loads((GOLDEN / pair / "after.json").read_bytes())
    low, _ = migrate(doc, to="v1.0")
    found = stashes(low)
    assert found
    for stash in found:
        check.validate(stash)
        for layer in stash["layers"]:  # nested stashes inside stashed values too
            for entry in layer.get("entries", []):
                for inner in stashes(entry.get("value")):
                    check.validate(inner)


def test_reports_match_the_change_report_schema() -> None:
    check = validator("change-report")
    doc = orjson.loads((GOLDEN / "v1.8__v1.7" / "before.json").read_bytes())
    for target in ("v1.0", "v1.6", "v1.8"):
        for drop in (False, True):
            _, report = migrate(doc, to=target, drop=drop)
            check.validate(report.to_dict())
    errors = list(check.iter_errors({"source": "x"}))
    assert errors  # the schema is not vacuous


def _layer(**members: Any) -> dict[str, Any]:
    return {"version": 1, "layers": [{"by": "a@v1->b@v2", "holder": "/extra", **members}]}


@pytest.mark.parametrize(
    ("stash", "valid"),
    [
        (_layer(entries=[], named=["/steps/*/extra/exit_code"]), True),
        (_layer(entries=[], named=["/extra/x"], foreign=["/extra/x"]), True),
        (_layer(entries=[]), False),  # nothing to undo and nothing declared
        (_layer(entries=[], foreign=["/extra/x"]), False),  # foreign needs named
        (_layer(entries=[], named=[]), False),
        # holder and entries have defaults (/extra, none): the written form leaves them out
        ({"version": 1, "layers": [{"by": "a@v1->b@v2", "named": ["*"]}]}, True),
        ({"version": 1, "layers": [{"by": "a@v1->b@v2", "named": ["*"], "foreign": ["/x"]}]}, True),
        ({"version": 1, "layers": [{"by": "a@v1->b@v2"}]}, False),  # nothing at all
        ({"version": 1, "layers": [{"by": "a@v1->b@v2", "entries": []}]}, False),
        ({"version": 1, "layers": [{"holder": "/extra", "named": ["*"]}]}, False),  # no `by`
        # an output style of the inverse (RFC.md §4.5.2 item 3) is enough to make a layer
        ({"version": 1, "layers": [{"by": "a@v1->b@v2", "style": "filled"}]}, True),
        (_layer(entries=[], named=["*"], style="filled"), True),
        (_layer(entries=[], style="Filled style"), False),  # a name, lower case
        (_layer(entries=[], style=1), False),
    ],
)
def test_named_declarations_in_the_schema(stash: dict[str, Any], valid: bool) -> None:
    assert validator("stash").is_valid(stash) is valid
