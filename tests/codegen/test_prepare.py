"""What the generators are given: relaxed schemas, bound references, option tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from atif_spec.codegen import prepare
from atif_spec.codegen.options import cli_arguments, load_options
from atif_spec.codegen.prepare import RELAXED_NOTE, BindingError, Document

V17 = Document("atif", "v1.7", "trajectory", "https://x.org/atif/v1.7/t.json", "atif/v1.7/t.json")
V18 = Document("atif", "v1.8", "trajectory", "https://x.org/atif/v1.8/t.json", "atif/v1.8/t.json")
CATALOG = {V17.id: V17, V18.id: V18}


def test_if_then_else_becomes_any_of_and_one_sided_conditionals_go() -> None:
    both = {"description": "d", "if": {"x": 1}, "then": {"$ref": "#/a"}, "else": {"$ref": "#/b"}}
    assert prepare.relax(both) == {
        "description": f"d {RELAXED_NOTE}",
        "anyOf": [{"$ref": "#/a"}, {"$ref": "#/b"}],
    }
    one = {"type": "object", "allOf": [{"if": {"required": ["a"]}, "then": {"required": ["b"]}}]}
    assert prepare.relax(one) == {"type": "object"}


def test_closed_objects_lose_narrowing_applicators_and_orphan_helpers() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"a": {"type": ["string", "null"]}},
        "anyOf": [{"required": ["a"]}],
        "$ref": "#/$defs/Helper",
        "$defs": {"Helper": {"type": "null"}, "Unused": {"type": "string"}},
    }
    out = prepare.prepare(schema)
    assert "anyOf" not in out and "$ref" not in out and "allOf" not in out
    assert out["$defs"] == {"Unused": {"type": "string"}}  # only what relaxing orphaned goes
    assert schema["anyOf"] == [{"required": ["a"]}]  # the input is left alone


def test_open_objects_keep_their_ref_as_all_of() -> None:
    node = {"type": "object", "required": ["id"], "$ref": "#"}
    assert prepare.relax(node) == {"type": "object", "required": ["id"], "allOf": [{"$ref": "#"}]}


def test_python_numbers_admit_integers_and_integers_are_json_integers() -> None:
    schema = {
        "properties": {
            "a": {"type": "number"},
            "b": {"type": ["number", "null"]},
            "c": {"type": ["integer", "null"], "minimum": 0},
            "d": {"type": "array", "items": {"type": "integer"}},
            "e": {"type": "integer", "const": 2},
            "f": {"type": ["integer", "string"]},
        }
    }
    out, used = prepare.python_numbers(schema)
    props = out["properties"]
    assert used
    assert props["a"]["type"] == ["integer", "number"]
    assert props["b"]["type"] == ["integer", "number", "null"]
    assert props["c"] == {
        "type": ["integer", "null"],
        "minimum": 0,
        "x-python-type": "JsonInteger | None",
    }
    assert props["d"]["items"]["x-python-type"] == "JsonInteger"
    assert "x-python-type" not in props["e"] and "x-python-type" not in props["f"]
    assert prepare.python_numbers({"type": "string"}) == ({"type": "string"}, False)


def test_typescript_numbers_are_left_alone() -> None:
    schema = {"$id": V18.id, "properties": {"a": {"type": "number"}, "b": {"type": "integer"}}}
    out = prepare.for_typescript(prepare.prepare(schema), V18, CATALOG)
    assert out["properties"] == {"a": {"type": "number"}, "b": {"type": "integer"}}


def test_typescript_intersections_declare_no_numbered_interface() -> None:
    schema = {
        "$id": V18.id,
        "$defs": {"Sub": {"description": "d", "allOf": [{"$ref": "#"}], "required": ["id"]}},
    }
    out = prepare.for_typescript(schema, V18, CATALOG)
    assert out["$defs"]["Sub"] == {
        "title": "Sub",
        "description": "d",
        "allOf": [{"$ref": "#"}, {"required": ["id"], "additionalProperties": False}],
    }
    described = {"$id": V18.id, "properties": {"t": {"$ref": "#/$defs/T", "description": "x"}}}
    assert prepare.for_typescript(described, V18, CATALOG)["properties"]["t"] == {
        "$ref": "#/$defs/T"
    }


def test_python_binding_imports_other_documents_through_a_versioned_stand_in() -> None:
    schema = {"$id": V18.id, "anyOf": [{"$ref": V17.id}, {"$ref": "#"}]}
    out, imports = prepare.for_python(schema, V18, CATALOG)
    assert out["anyOf"][0] == {"$ref": "#/$defs/AtifV17Trajectory"}
    assert out["$defs"]["AtifV17Trajectory"] == {
        "x-python-import": {"module": "atif_spec.models.atif.v1_7", "name": "AtifV17Trajectory"}
    }
    assert imports == {"AtifV17Trajectory": ("atif_spec.models.atif.v1_7", "Trajectory")}


def test_a_stand_in_becomes_the_class_of_its_module() -> None:
    from atif_spec.codegen import schema_binding

    source = (
        "from atif_spec.models.atif.v1_7 import AtifV17Trajectory\n\n"
        "class EmbeddedSubagentAtifV17(AtifV17Trajectory):\n    pass\n"
    )
    imports = {"AtifV17Trajectory": ("atif_spec.models.atif.v1_7", "Trajectory")}
    assert schema_binding.through_modules(source, imports) == (
        "from atif_spec.models.atif import v1_7 as _atif_v1_7\n\n"
        "class EmbeddedSubagentAtifV17(_atif_v1_7.Trajectory):\n    pass\n"
    )
    wrapped = source.replace("import AtifV17Trajectory", "import (AtifV17Trajectory)")
    with pytest.raises(BindingError, match="as one line"):
        schema_binding.through_modules(wrapped, imports)


def test_typescript_binding_uses_import_types_and_keeps_only_model_titles() -> None:
    schema = {
        "$id": V18.id,
        "title": "ATIF v1.8 trajectory",
        "properties": {"sub": {"title": "Sub", "$ref": V17.id}},
        "$defs": {"Agent": {"title": "Agent thing", "type": "object"}},
    }
    out = prepare.for_typescript(schema, V18, CATALOG)
    assert out["title"] == "Trajectory"
    assert out["properties"]["sub"] == {"tsType": 'import("../v1.7/trajectory.js").Trajectory'}
    assert out["$defs"]["Agent"] == {"title": "Agent", "type": "object"}
    assert "$id" not in out


def test_typescript_types_an_empty_schema_as_unknown() -> None:
    schema = {"type": "object", "properties": {"any": {"description": "any JSON value"}}}
    out = prepare.for_typescript(schema, V18, CATALOG)
    assert out["properties"]["any"] == {"description": "any JSON value", "tsType": "unknown"}
    assert "tsType" not in out


def test_references_outside_the_catalog_are_refused() -> None:
    with pytest.raises(BindingError, match="names no document schema"):
        prepare.for_python({"$ref": "https://elsewhere.org/s.json"}, V18, CATALOG)


def test_options_come_from_pyproject_when_it_has_them(tmp_path: Path) -> None:
    defaults = load_options(tmp_path)
    assert defaults.python["output-model-type"] == "pydantic_v2.BaseModel"
    (tmp_path / "pyproject.toml").write_text(
        "[tool.datamodel-codegen]\nfield-constraints = true\nallow-remote-refs = false\n"
        'use-title-as-name = false\nformatters = ["ruff-format"]\n',
        encoding="utf-8",
    )
    table = load_options(tmp_path).python
    assert cli_arguments(table) == [
        "--field-constraints",
        "--no-allow-remote-refs",
        "--formatters",
        "ruff-format",
    ]
    assert load_options(tmp_path).typescript == defaults.typescript


def test_optional_properties_that_refuse_null_are_marked() -> None:
    schema = {
        "type": "object",
        "required": ["req"],
        "properties": {
            "req": {"type": "string"},
            "plain": {"type": "string"},
            "nullable": {"type": ["string", "null"]},
            "defaulted": {"type": "string", "default": "x"},
            "ref": {"$ref": "#/$defs/Kind"},
            "ref_nullable": {"$ref": "#/$defs/Maybe"},
            "either": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "anything": {},
        },
        "$defs": {"Kind": {"enum": ["a", "b"]}, "Maybe": {"type": ["object", "null"]}},
    }
    out = prepare.never_null(schema)
    marked = {k for k, v in out["properties"].items() if v.get(prepare.NEVER_NULL)}
    assert marked == {"plain", "ref"}
