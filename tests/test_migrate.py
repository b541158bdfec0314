"""atif_spec.migrate: golden fixtures per step, decided values, refusal switches, the stash."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from atif_spec import validate
from atif_spec.migrate import MigrationError, migrate
from atif_spec.migrate.planner import STEPS, plan
from atif_spec.stash import STASH_KEY

from conftest import ROOT, minimal_atif

GOLDEN = ROOT / "conformance" / "migrations"
PAIRS = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())
VERSIONS = ["v1.0", "v1.1", "v1.2", "v1.3", "v1.4", "v1.5", "v1.6", "v1.7", "v1.8"]


def load(path: Path) -> Any:
    return orjson.loads(path.read_bytes())


def no_errors(doc: Any) -> bool:
    return not validate(doc, check_files=False).errors


# --- golden fixtures ------------------------------------------------------------------------------


def test_every_step_has_golden_pairs_in_both_directions() -> None:
    expected = {f"{m.LOWER}__{m.UPPER}" for m in STEPS} | {f"{m.UPPER}__{m.LOWER}" for m in STEPS}
    assert set(PAIRS) == expected


@pytest.mark.parametrize("pair", PAIRS)
def test_golden_pair(pair: str) -> None:
    source, target = pair.split("__")
    before, after = load(GOLDEN / pair / "before.json"), load(GOLDEN / pair / "after.json")
    assert before["schema_version"] == f"ATIF-{source}"
    assert no_errors(before) and no_errors(after)
    out, _ = migrate(before, to=target)
    assert orjson.dumps(out) == orjson.dumps(after)


def test_plan_composes_adjacent_steps() -> None:
    assert [(s.source, s.target) for s in plan("v1.8", "v1.5")] == [
        ("v1.8", "v1.7"),
        ("v1.7", "v1.6"),
        ("v1.6", "v1.5"),
    ]
    assert [(s.source, s.target) for s in plan("v1.0", "v1.2")] == [
        ("v1.0", "v1.1"),
        ("v1.1", "v1.2"),
    ]
    assert plan("v1.4", "v1.4") == []


# --- what is kept, what is stashed ----------------------------------------------------------------


def test_only_schema_version_changes_when_the_target_holds_everything() -> None:
    doc = minimal_atif("v1.2")
    doc["steps"][0]["metrics"] = {"prompt_tokens": 3, "cost_usd": 1.0}
    out, report = migrate(doc, to="v1.6")
    assert out == {**doc, "schema_version": "ATIF-v1.6"}
    assert list(out) == list(doc)
    assert orjson.dumps(out["steps"]) == orjson.dumps(doc["steps"])  # 1.0 stays a float
    assert not (report.stashed or report.dropped or report.decided)


def test_llm_call_count_is_stashed_in_the_step_extra_and_reported() -> None:
    doc = minimal_atif("v1.7")
    doc["steps"][0]["llm_call_count"] = 2
    out, report = migrate(doc, to="atif@v1.6")
    step = out["steps"][0]
    assert "llm_call_count" not in step
    layer = step["extra"][STASH_KEY]["layers"][0]
    assert layer["by"] == "atif@v1.7->atif@v1.6"
    assert layer["entries"] == [
        {"op": "removed", "pointer": "/llm_call_count", "position": 3, "value": 2}
    ]
    assert [i.to_dict() for i in report.stashed] == [
        {
            "pointer": "/steps/0/llm_call_count",
            "step": "atif@v1.7->atif@v1.6",
            "stash": "/steps/0/extra",
            "reason": "v1.6 has no Step.llm_call_count",
        }
    ]
    assert report.to_dict()["from"] == "atif@v1.7"


def test_root_extra_goes_to_agent_extra_in_v1_0() -> None:
    doc = minimal_atif("v1.1")
    doc["extra"] = {"task": "t"}
    out, report = migrate(doc, to="v1.0")
    assert "extra" not in out
    layer = out["agent"]["extra"][STASH_KEY]["layers"][0]
    assert layer["holder"] == "/agent/extra"
    assert layer["entries"][0]["value"] == {"task": "t"}
    assert report.stashed[0].stash == "/agent/extra"
    back, _ = migrate(out, to="v1.1")
    assert back == doc


def test_existing_extra_content_is_kept_next_to_the_stash() -> None:
    doc = minimal_atif("v1.5")
    doc["steps"][0].update(is_copied_context=True, extra={"mine": 1})
    out, _ = migrate(doc, to="v1.4")
    assert out["steps"][0]["extra"]["mine"] == 1
    assert list(out["steps"][0]["extra"]) == ["mine", STASH_KEY]


def test_null_extra_is_restored_as_null() -> None:
    doc = minimal_atif("v1.5")
    doc["steps"][0].update(is_copied_context=None, extra=None)
    out, report = migrate(doc, to="v1.4")
    assert out["steps"][0]["extra"][STASH_KEY]["layers"][0]["created"] == "null"
    assert report.stashed and not report.lossy  # a null value is not data lost
    back, _ = migrate(out, to="v1.5")
    assert orjson.dumps(back) == orjson.dumps(doc)


def test_image_parts_become_text_below_v1_6() -> None:
    doc = minimal_atif("v1.6")
    parts = [
        {"type": "text", "text": "look"},
        {"type": "image", "source": {"media_type": "image/png", "path": "a.png"}},
        {"type": "text", "text": "here"},
    ]
    doc["steps"][0]["message"] = parts
    out, report = migrate(doc, to="v1.5")
    assert out["steps"][0]["message"] == "look\nhere"
    assert [i.pointer for i in report.stashed] == ["/steps/0/message"]
    assert [i.pointer for i in report.decided] == ["/steps/0/message"]
    back, _ = migrate(out, to="v1.6")
    assert back["steps"][0]["message"] == parts


def test_audio_parts_leave_the_list_below_v1_8() -> None:
    doc = minimal_atif("v1.8")
    audio = {"type": "audio", "source": {"media_type": "audio/wav", "path": "a.wav"}}
    doc["steps"][0]["message"] = [audio, {"type": "text", "text": "x"}, audio]
    out, report = migrate(doc, to="v1.7")
    assert out["steps"][0]["message"] == [{"type": "text", "text": "x"}]
    assert [i.pointer for i in report.stashed] == ["/steps/0/message/2", "/steps/0/message/0"]
    back, _ = migrate(out, to="v1.8")
    assert back == doc


def test_embedded_subagents_migrate_with_their_parent() -> None:
    sub = minimal_atif("v1.8") | {"trajectory_id": "s1"}
    sub["steps"][0]["message"] = [
        {"type": "audio", "source": {"media_type": "audio/wav", "path": "a.wav"}}
    ]
    old = minimal_atif("v1.7") | {"trajectory_id": "s2"}
    doc = minimal_atif("v1.8") | {"subagent_trajectories": [sub, old]}
    out, _ = migrate(doc, to="v1.7")
    assert [s["schema_version"] for s in out["subagent_trajectories"]] == ["ATIF-v1.7"] * 2
    assert out["subagent_trajectories"][1] == old
    assert no_errors(out)
    back, _ = migrate(out, to="v1.8")
    assert back == doc
    assert back["subagent_trajectories"][1]["schema_version"] == "ATIF-v1.7"


def test_input_is_not_modified() -> None:
    doc = json.loads((GOLDEN / "v1.8__v1.7" / "before.json").read_text())
    frozen = copy.deepcopy(doc)
    out, _ = migrate(doc, to="v1.0")
    migrate(out, to="v1.8")
    assert doc == frozen


# --- decided values -------------------------------------------------------------------------------


def test_missing_root_session_id_uses_trajectory_id() -> None:
    doc = minimal_atif("v1.7")
    del doc["session_id"]
    doc["trajectory_id"] = "run-7"
    out, report = migrate(doc, to="v1.6")
    assert out["session_id"] == "run-7"
    assert list(out)[:2] == ["schema_version", "session_id"]
    assert [(i.pointer, i.value) for i in report.decided] == [("/session_id", "run-7")]
    back, _ = migrate(out, to="v1.7")
    assert back == doc and list(back) == list(doc)


def test_missing_root_session_id_without_trajectory_id_is_a_digest() -> None:
    doc = minimal_atif("v1.7")
    doc["session_id"] = None
    first, _ = migrate(doc, to="v1.6")
    second, _ = migrate(doc, to="v1.6")
    assert first["session_id"] == second["session_id"]  # deterministic
    assert first["session_id"].startswith("sha256-") and len(first["session_id"]) == 23
    back, _ = migrate(first, to="v1.7")
    assert back == doc


def test_ref_session_id_is_synthesized_below_v1_7() -> None:
    doc = minimal_atif("v1.7")
    doc["steps"][0]["observation"] = {
        "results": [{"subagent_trajectory_ref": [{"trajectory_path": "sub.json"}]}]
    }
    out, report = migrate(doc, to="v1.6")
    ref = out["steps"][0]["observation"]["results"][0]["subagent_trajectory_ref"][0]
    assert ref["session_id"] == "sub.json"
    ptr = "/steps/0/observation/results/0/subagent_trajectory_ref/0/session_id"
    assert [i.pointer for i in report.decided] == [ptr]
    back, _ = migrate(out, to="v1.7")
    assert back == doc


def test_session_only_ref_gets_a_trajectory_path_above_v1_6() -> None:
    doc = minimal_atif("v1.6")
    doc["steps"][0]["observation"] = {
        "results": [{"subagent_trajectory_ref": [{"session_id": "a b/c"}]}]
    }
    assert not no_errors(doc | {"schema_version": "ATIF-v1.7"})
    out, report = migrate(doc, to="v1.8")
    ref = out["steps"][0]["observation"]["results"][0]["subagent_trajectory_ref"][0]
    assert list(ref)[:2] == ["session_id", "trajectory_path"]
    assert ref["trajectory_path"] == "atif-session://a%20b%2Fc"
    assert no_errors(out)
    assert len(report.decided) == 1
    back, _ = migrate(out, to="v1.6")
    assert back == doc


def test_fail_on_decision_refuses() -> None:
    doc = minimal_atif("v1.7")
    del doc["session_id"]
    with pytest.raises(MigrationError) as info:
        migrate(doc, to="v1.6", fail_on_decision=True)
    assert [f.code for f in info.value.report.errors] == ["migrate:needs-decision"]
    assert info.value.report.errors[0].pointer == "/session_id"


# --- --drop and --fail-on-loss --------------------------------------------------------------------


def test_drop_lists_every_dropped_item_and_writes_no_stash() -> None:
    doc = load(GOLDEN / "v1.8__v1.7" / "before.json")
    out, report = migrate(doc, to="v1.0", drop=True)
    assert STASH_KEY.encode() not in orjson.dumps(out)
    assert not report.stashed
    pointers = {i.pointer for i in report.dropped}
    assert {
        "/extra",
        "/subagent_trajectories",
        "/steps/2/llm_call_count",
        "/steps/2/tool_calls/0/extra",
        "/steps/2/metrics/prompt_token_ids",
        "/steps/1/message/2",
        "/agent/tool_definitions",
    } <= pointers
    assert no_errors(out)


def test_fail_on_loss_refuses_and_names_the_first_item() -> None:
    doc = minimal_atif("v1.7")
    doc["steps"][0]["llm_call_count"] = 1
    with pytest.raises(MigrationError) as info:
        migrate(doc, to="v1.6", fail_on_loss=True)
    error = info.value.report.errors[0]
    assert (error.code, error.pointer) == ("migrate:would-lose-data", "/steps/0/llm_call_count")
    migrate(minimal_atif("v1.7"), to="v1.6", fail_on_loss=True)  # nothing to lose: fine


# --- refusals and edits ---------------------------------------------------------------------------


def test_foreign_value_under_the_reserved_key_is_a_collision() -> None:
    doc = minimal_atif("v1.7")
    doc["steps"][0].update(llm_call_count=1, extra={STASH_KEY: "mine"})
    with pytest.raises(MigrationError) as info:
        migrate(doc, to="v1.6")
    error = info.value.report.errors[0]
    assert error.code == "migrate:stash-collision"
    assert error.pointer == "/steps/0/extra/_atif_stash"


@pytest.mark.parametrize(
    ("doc", "code"),
    [
        ([], "input:not-an-object"),
        ({"agent": {}, "steps": []}, "input:missing-schema-version"),
        ({"schema_version": "ATIF-v9"}, "input:unknown-schema-version"),
    ],
)
def test_unidentified_documents_are_refused(doc: Any, code: str) -> None:
    with pytest.raises(MigrationError) as info:
        migrate(doc, to="v1.7")
    assert info.value.report.errors[0].code == code


@pytest.mark.parametrize("bad", ["v2.0", "tao@v0.2.0", "latest"])
def test_unknown_target_is_a_value_error(bad: str) -> None:
    with pytest.raises(ValueError, match="not"):
        migrate(minimal_atif("v1.7"), to=bad)


def test_edited_synthesized_value_is_kept_on_the_way_back() -> None:
    doc = minimal_atif("v1.7")
    del doc["session_id"]
    out, _ = migrate(doc, to="v1.6")
    out["session_id"] = "edited-by-hand"
    back, report = migrate(out, to="v1.7")
    assert back["session_id"] == "edited-by-hand"
    assert [i.pointer for i in report.decided] == ["/session_id"]


def test_value_in_the_way_of_a_restore_wins_and_the_stash_is_reported_dropped() -> None:
    doc = minimal_atif("v1.5")
    doc["continued_trajectory_ref"] = "old.json"
    out, _ = migrate(doc, to="v1.4")
    out = out | {"schema_version": "ATIF-v1.4"}
    out["continued_trajectory_ref"] = "new.json"  # an (invalid) edit the way back must not lose
    back, report = migrate(out, to="v1.5")
    assert back["continued_trajectory_ref"] == "new.json"
    assert [i.pointer for i in report.dropped] == ["/continued_trajectory_ref"]


def test_layers_written_by_other_steps_are_left_alone() -> None:
    doc = minimal_atif("v1.6")
    foreign = {
        "by": "tao@v0.2.0->atif@v1.6",
        "holder": "/extra",
        "entries": [{"op": "removed", "pointer": "/span_kind", "position": 0, "value": "llm"}],
    }
    doc["steps"][0]["extra"] = {STASH_KEY: {"version": 1, "layers": [foreign]}}
    out, _ = migrate(doc, to="v1.7")
    assert out["steps"][0]["extra"] == doc["steps"][0]["extra"]
    low, _ = migrate(doc, to="v1.5")
    assert low["steps"][0]["extra"] == doc["steps"][0]["extra"]


def test_the_package_is_callable_as_the_api() -> None:
    import atif_spec.migrate as package

    out, report = package(minimal_atif("v1.7"), to="v1.6")  # type: ignore[operator]
    assert out["schema_version"] == "ATIF-v1.6" and report.ok


def test_migrate_rewrites_schema_url() -> None:
    """DECISIONS.md 6.19: a root `$schema` names the target version's URL after migration."""
    from atif_spec.migrate import migrate as run
    from atif_spec.validation import validate

    doc = json.loads(Path("conformance/atif/v1.0/valid/schema-url.json").read_text())
    up, _ = run(doc, "v1.8")
    assert up["$schema"] == "https://atif-spec.org/schemas/atif/v1.8/trajectory.schema.json"
    assert validate(up).findings == []
    down, _ = run(up, "v1.0")
    assert down == doc


@pytest.mark.parametrize("target", ["tao@v0.2.0", "trajectory-sdk@v0.4", "step-substep@v1.0"])
def test_conversions_stash_the_schema_url_and_restore_it(target: str) -> None:
    """DECISIONS.md 6.19: a format without `$schema` keeps it in its stash; the way back restores it."""
    import atif_spec

    doc = json.loads(Path("conformance/atif/v1.7/valid/schema-url.json").read_text())
    converted = atif_spec.convert(doc, to=target)
    out = converted[0] if isinstance(converted, tuple) else converted
    assert "$schema" not in out
    restored = atif_spec.convert(out, to="atif@v1.7")
    back = restored[0] if isinstance(restored, tuple) else restored
    assert back == doc
