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
from atif_spec.transforms.document import MigrateOptions, migrate_raw
from atif_spec.transforms.migrations import migrate
from atif_spec.transforms.stash import STASH_KEY
from atif_spec.validation.reader import RawDocument
from tests.support import ROOT

SPEC = ROOT / "spec" / "atif-spec"
GOLDEN = ROOT / "conformance" / "migrations"


def validator(name: str) -> jsonschema.Draft202012Validator:
    schemas = {sid: s for sid, s in all_schemas()}
    for extra in ("v2/stash", "v1/change-report"):
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
    check = validator("v2/stash")
    doc = orjson.loads((GOLDEN / pair / "after.json").read_bytes())
    low, _ = migrate(doc, to="v1.0")
    found = stashes(low)
    assert found
    for stash in found:
        check.validate(stash)
        for layer in stash["layers"]:  # nested stashes inside stashed values too
            for op in layer.get("patch", []):
                for inner in stashes(op.get("value")):
                    check.validate(inner)


def test_reports_match_the_change_report_schema() -> None:
    check = validator("v1/change-report")
    doc = orjson.loads((GOLDEN / "v1.8__v1.7" / "before.json").read_bytes())
    for target in ("v1.0", "v1.6", "v1.8"):
        for drop in (False, True):
            _, report = migrate(doc, to=target, drop=drop)
            check.validate(report.to_dict())
    errors = list(check.iter_errors({"source": "x"}))
    assert errors  # the schema is not vacuous


def test_the_report_of_a_trace_from_several_lines_matches_the_schema() -> None:
    doc = orjson.loads((GOLDEN / "v1.8__v1.7" / "before.json").read_bytes())
    raw = RawDocument("t.jsonl", orjson.dumps(doc), 3, None, lines=(3, 7))
    report = migrate_raw(raw, MigrateOptions("atif@v1.8", convert=True)).report
    assert report["warnings"][0]["code"] == "convert:otel-trace-lines"
    validator("v1/change-report").validate(report)


def _layer(**members: Any) -> dict[str, Any]:
    return {"version": 2, "layers": [{"by": "atif@v1.7->atif@v1.6", **members}]}


TEST = {"op": "test", "path": "/x", "value": 1}


@pytest.mark.parametrize(
    ("stash", "valid"),
    [
        (_layer(wrote=["/steps/0/extra/exit_code"]), True),
        (_layer(patch=[TEST, {"op": "remove", "path": "/x"}]), True),
        (_layer(patch=[{"op": "add", "path": "/x", "value": None}], wrote=["/x"]), True),
        (_layer(), False),  # nothing to undo and nothing written
        (_layer(wrote=[]), False),
        (_layer(patch=[{"op": "move", "path": "/x", "from": "/y"}]), False),  # not used
        (_layer(patch=[{"op": "add", "path": "/x"}]), False),  # add needs a value
        (_layer(patch=[{"op": "remove", "path": "/x", "value": 1}]), False),
        (_layer(wrote=["x"]), False),  # not a pointer
        ({"version": 2, "layers": [{"wrote": ["/x"]}]}, False),  # no `by`
        (
            {"version": 2, "created": "absent", "layers": [{"by": "a@v1->b@v2", "wrote": ["/x"]}]},
            True,
        ),
        ({"version": 1, "layers": [{"by": "a@v1->b@v2", "wrote": ["/x"]}]}, False),
        ({"version": 2, "layers": []}, False),
    ],
)
def test_layers_in_the_schema(stash: dict[str, Any], valid: bool) -> None:
    assert validator("v2/stash").is_valid(stash) is valid
