"""Tag switches in the schemas become discriminated unions with named members."""

from __future__ import annotations

from typing import Any

import pytest

from atif_spec.codegen import unions

V17 = "https://x.org/atif/v1.7/t.json"


def _dispatching() -> dict[str, Any]:
    return {
        "$defs": {
            "Embedded": {
                "title": "Embedded",
                "description": "d",
                "type": "object",
                "required": ["v", "id"],
                "properties": {"v": {"title": "V", "enum": ["A-1.7", "A-1.8"]}, "id": {}},
                "if": {"properties": {"v": {"const": "A-1.7"}}},
                "then": {"$ref": V17},
                "else": {"$ref": "#"},
            }
        }
    }


def test_dispatch_becomes_a_discriminated_union_of_named_members() -> None:
    defs = unions.dispatch_unions(_dispatching())["$defs"]
    assert defs["Embedded"] == {
        "title": "Embedded",
        "description": "d",
        "oneOf": [{"$ref": "#/$defs/EmbeddedA17"}, {"$ref": "#/$defs/EmbeddedA18"}],
        "discriminator": {"propertyName": "v"},
    }
    old, new = defs["EmbeddedA17"], defs["EmbeddedA18"]
    assert old["allOf"] == [{"$ref": V17}] and new["allOf"] == [{"$ref": "#"}]
    assert old["properties"]["v"] == {"title": "V", "const": "A-1.7"}
    assert new["properties"]["v"] == {"title": "V", "const": "A-1.8"}
    assert old["required"] == ["v", "id"] and "if" not in old


def test_dispatch_with_uncovered_values_is_left_for_relax() -> None:
    schema = _dispatching()
    schema["$defs"]["Embedded"]["properties"]["v"]["enum"].append("A-1.9")
    assert unions.dispatch_unions(schema) == schema


def test_cases_become_one_member_per_enum_value() -> None:
    schema = {
        "$defs": {
            "Part": {
                "type": "object",
                "additionalProperties": False,
                "required": ["type"],
                "properties": {
                    "type": {"enum": ["text", "image"]},
                    "text": {"type": ["string", "null"]},
                    "source": {"anyOf": [{"$ref": "#/$defs/Src"}, {"type": "null"}]},
                },
                "allOf": [
                    {
                        "if": {"properties": {"type": {"const": "text"}}, "required": ["type"]},
                        "then": {"required": ["text"], "properties": {"text": {"type": "string"}}},
                    },
                    {
                        "if": {"properties": {"type": {"const": "image"}}, "required": ["type"]},
                        "then": {
                            "required": ["source"],
                            "properties": {"source": {"$ref": "#/$defs/Src"}, "text": {}},
                        },
                    },
                ],
            },
            "Src": {"type": "object"},
        }
    }
    defs = unions.case_unions(schema)["$defs"]
    assert [r["$ref"] for r in defs["Part"]["oneOf"]] == ["#/$defs/PartText", "#/$defs/PartImage"]
    text, image = defs["PartText"], defs["PartImage"]
    assert text["required"] == ["type", "text"] and text["properties"]["text"] == {"type": "string"}
    assert image["properties"]["source"] == {"$ref": "#/$defs/Src"}
    assert image["properties"]["text"] == {"type": ["string", "null"]}  # untyped then: kept
    assert "allOf" not in text and text["additionalProperties"] is False


def test_a_member_name_that_exists_already_is_refused() -> None:
    schema = _dispatching()
    schema["$defs"]["EmbeddedA17"] = {"type": "string"}
    with pytest.raises(unions.UnionError, match="EmbeddedA17"):
        unions.dispatch_unions(schema)


def test_members_keep_the_constraints_their_target_puts_on_shared_properties() -> None:
    schema = _dispatching()
    schema["properties"] = {"id": {"type": "string", "minLength": 1}}
    other = {"properties": {"id": {"type": "string", "maxLength": 9}}}
    defs = unions.dispatch_unions(schema, {V17: other})["$defs"]
    assert defs["EmbeddedA18"]["properties"]["id"] == {"type": "string", "minLength": 1}
    assert defs["EmbeddedA17"]["properties"]["id"] == {"type": "string", "maxLength": 9}
