"""Each decision of spec/atif/DECISIONS.md that no other test pins fails here if it flips."""

from __future__ import annotations

import pytest

from atif_spec import validate
from tests.support.documents import minimal_atif


def codes(doc: object) -> list[tuple[str, str]]:
    return sorted((f.code, f.pointer) for f in validate(doc, check_files=False).errors)


def test_observation_on_user_step_is_valid() -> None:
    doc = minimal_atif("v1.7")
    doc["steps"].insert(
        0,
        {
            "step_id": 1,
            "source": "user",
            "message": "hi",
            "observation": {"results": [{"content": "x"}]},
        },
    )
    doc["steps"][1]["step_id"] = 2
    assert codes(doc) == []


def test_observation_on_system_step_v1_0() -> None:
    doc = minimal_atif("v1.0")
    doc["steps"].insert(
        0, {"step_id": 1, "source": "system", "message": "sys", "observation": {"results": []}}
    )
    doc["steps"][1]["step_id"] = 2
    assert codes(doc) == []


def test_reward_is_not_a_metrics_field() -> None:
    doc = minimal_atif("v1.7")
    doc["steps"][0]["metrics"] = {"reward": 1.0}
    assert codes(doc) == [("schema:additionalProperties", "/steps/0/metrics/reward")]


def test_empty_trajectory_path_is_invalid() -> None:
    doc = minimal_atif("v1.6")
    ref = {"session_id": "s", "trajectory_path": ""}
    doc["steps"][0]["observation"] = {"results": [{"subagent_trajectory_ref": [ref]}]}
    pointer = "/steps/0/observation/results/0/subagent_trajectory_ref/0/trajectory_path"
    assert codes(doc) == [("schema:minLength", pointer)]


def test_empty_tool_call_id_is_valid() -> None:
    doc = minimal_atif("v1.7")
    doc["steps"][0]["tool_calls"] = [{"tool_call_id": "", "function_name": "", "arguments": {}}]
    assert codes(doc) == []


@pytest.mark.parametrize(
    ("value", "ok"), [("1", False), (True, False), (1.5, False), (1.0, True), (1, True)]
)
def test_no_coercion(value: object, ok: bool) -> None:
    doc = minimal_atif("v1.7")
    doc["steps"][0]["metrics"] = {"prompt_tokens": value}
    assert (codes(doc) == []) is ok


def test_audio_alias_is_invalid() -> None:
    doc = minimal_atif("v1.8")
    doc["steps"][0]["message"] = [
        {"type": "audio", "source": {"media_type": "audio/mp3", "path": "a.mp3"}}
    ]
    assert codes(doc) == [("schema:enum", "/steps/0/message/0/source/media_type")]


@pytest.mark.parametrize(
    ("where", "field"),
    [("metrics", "prompt_tokens"), ("metrics", "cached_tokens"), ("final_metrics", "total_steps")],
)
def test_negative_counts(where: str, field: str) -> None:
    doc = minimal_atif("v1.7")
    target = doc["steps"][0] if where == "metrics" else doc
    target[where] = {field: -1}
    assert codes(doc) and codes(doc)[0][0] == "schema:minimum"
    target[where] = {"cost_usd" if where == "metrics" else "total_cost_usd": -0.5}
    assert codes(doc) == []


def test_fixtures_named_in_decisions_exist() -> None:
    """Every conformance fixture id that DECISIONS.md cites as a pin exists in a manifest."""
    import json
    import re

    from tests.support import ROOT

    text = (ROOT / "spec" / "atif" / "DECISIONS.md").read_text()
    cited = set(re.findall(r"`(atif-v1\.\d-(?:valid|invalid|warning)-[a-z0-9-]+)`", text))
    known = {
        case["id"]
        for manifest in (ROOT / "conformance" / "atif").glob("*/manifest.json")
        for case in json.loads(manifest.read_text())["cases"]
    }
    assert cited and cited <= known, sorted(cited - known)
