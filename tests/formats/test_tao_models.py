"""Each TAO schema is field-exact against the Pydantic models of its ``opentraces-schema`` release.

``tests/support/opentraces_models/v<version>.json`` holds what the published wheel says
(``TraceRecord.model_json_schema()`` and two records as its ``TraceRecord`` fills and hashes them),
written by ``dump.py`` there. Every model and field of the wheel is in our schema and nothing more,
in the same order (the order a record is written in), with the same required set, JSON types,
enums, bounds and defaults; ``atif_spec.formats.tao`` fills and hashes the records as the wheel does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import atif_spec
from atif_spec.formats import tao
from tests.support import ROOT

MODELS = ROOT / "tests" / "support" / "opentraces_models"
RELEASES = ("v0.1.0", "v0.2.0", "v0.3.0", "v0.6.0", "v0.7.0", "v0.9.0")


def _upstream(version: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((MODELS / f"{version}.json").read_text(encoding="utf-8"))
    return loaded


def _ours(version: str) -> dict[str, Any]:
    path = ROOT / "spec" / "tao" / version / "trace-record.schema.json"
    loaded: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    return loaded


def _key(alternative: dict[str, Any]) -> str:
    return json.dumps(alternative, sort_keys=True)


def alternatives(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The JSON values a schema node allows, as a sorted list of alternatives (one per type),
    in one spelling for both writers: ours (``type: [X, "null"]``, ``$ref`` with annotations)
    and pydantic's (``anyOf`` of a type and ``null``)."""
    if "$ref" in node:
        return [{"ref": node["$ref"].rsplit("/", 1)[-1]}]
    if "anyOf" in node:
        out = [a for branch in node["anyOf"] for a in alternatives(branch)]
        return sorted(out, key=_key)
    types = node.get("type", "any")
    out = []
    for t in [types] if isinstance(types, str) else types:
        alt: dict[str, Any] = {"type": t}
        if t != "null" and "enum" in node:
            alt["enum"] = sorted(v for v in node["enum"] if v is not None)
        if t == "array" and "items" in node:
            alt["items"] = alternatives(node["items"])
        if t == "object" and isinstance(node.get("additionalProperties"), dict):
            alt["values"] = alternatives(node["additionalProperties"])
        if t in ("integer", "number"):
            alt.update({k: node[k] for k in ("minimum", "maximum") if k in node})
        out.append(alt)
    return sorted(out, key=_key)


def fields(model: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]], bool, Any]]:
    """(name, alternatives, required, default as pydantic states it or ``…``), in order."""
    required = set(model.get("required", []))
    return [
        (name, alternatives(prop), name in required, prop.get("default", ...))
        for name, prop in model["properties"].items()
    ]


@pytest.mark.parametrize("version", RELEASES)
def test_every_model_is_the_wheels(version: str) -> None:
    upstream = _upstream(version)["model_json_schema"]
    ours = _ours(version)
    assert sorted(ours["$defs"]) == sorted(upstream["$defs"])
    for name, model in [("TraceRecord", upstream), *upstream["$defs"].items()]:
        mine = ours if name == "TraceRecord" else ours["$defs"][name]
        expected = fields(model)
        # pydantic states no default made by a factory (lists, nested models): the filled
        # records of the next test check those.
        stated = {f for f, _, _, default in expected if default is not ...}
        got = [(f, a, r, d if f in stated else ...) for f, a, r, d in fields(mine)]
        assert got == expected, name


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize("record", ["vector", "nested"])
def test_records_fill_and_hash_as_the_wheel_does(version: str, record: str) -> None:
    """Every default (nested models in lists included) and ``content_hash`` is the wheel's, and
    the record as the release writes it is valid, detected as its version, without findings."""
    dumped = _upstream(version)[record]
    doc = dumped["input"]
    assert tao.normalize(doc, version) == dumped["record"]
    assert tao.content_hash(doc, version) == dumped["content_hash"]
    assert _upstream(version)["schema_version"] == version.removeprefix("v")
    written = {**dumped["record"], "content_hash": dumped["content_hash"]}  # to_jsonl_line()
    report = atif_spec.validate(written)
    assert (report.format, report.version, report.errors, report.warnings) == (
        "tao",
        version,
        [],
        [],
    )
