"""atif_spec.migrate (package atif_spec.transforms.migrations): golden fixtures per step, decided values, refusal switches, the stash."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from atif_spec import validate
from atif_spec.jsonio.jsonequal import difference, same_json
from atif_spec.jsonio.jsontext import dumps, loads
from atif_spec.transforms.mapping import is_named
from atif_spec.transforms.migrations import STEPS, MigrationError, migrate, plan
from atif_spec.transforms.stash import STASH_KEY
from tests.support import ROOT
from tests.support.documents import minimal_atif

GOLDEN = ROOT / "conformance" / "migrations"
PAIRS = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())
VERSIONS = ["v1.0", "v1.1", "v1.2", "v1.3", "v1.4", "v1.5", "v1.6", "v1.7", "v1.8"]


def load(path: Path) -> Any:
    return loads(path.read_bytes())


def no_errors(doc: Any) -> bool:
    return not validate(doc, check_files=False).errors


# --- golden fixtures ------------------------------------------------------------------------------


def test_every_step_has_golden_pairs_in_both_directions() -> None:
    names = [(s.source.removeprefix("atif@"), s.target.removeprefix("atif@")) for s in STEPS]
    assert names == list(itertools.pairwise(VERSIONS))
    expected = {f"{a}__{b}" for a, b in names} | {f"{b}__{a}" for a, b in names}
    assert set(PAIRS) == expected


@pytest.mark.parametrize("pair", PAIRS)
def test_golden_pair(pair: str) -> None:
    source, target = pair.split("__")
    before, after = load(GOLDEN / pair / "before.json"), load(GOLDEN / pair / "after.json")
    assert before["schema_version"] == f"ATIF-{source}"
    assert no_errors(before) and no_errors(after)
    options = GOLDEN / pair / "options.json"  # the switches the pair needs (a policy)
    out, _ = migrate(before, to=target, **(load(options) if options.exists() else {}))
    assert difference(after, out) is None  # RFC.md §4.6: key order and number spelling aside


def test_every_named_key_written_is_registered() -> None:
    """Every member a step lists in ``wrote`` is a named key of its MAPPING table row."""
    written = []
    for pair in PAIRS:
        low, _ = migrate(load(GOLDEN / pair / "before.json"), to="v1.0")
        for layer in low["agent"]["extra"][STASH_KEY]["layers"]:
            written += [(layer["by"], ptr) for ptr in layer.get("wrote", [])]
    assert {by for by, _ in written} == {"atif@v1.7->atif@v1.6", "atif@v1.5->atif@v1.4"}
    for by, ptr in written:
        assert is_named(by, ptr), (by, ptr)


def test_plan_composes_adjacent_steps() -> None:
    assert [s.name for s in plan("v1.8", "v1.5")] == [
        "atif@v1.8->atif@v1.7",
        "atif@v1.7->atif@v1.6",
        "atif@v1.6->atif@v1.5",
    ]
    assert [s.name for s in plan("v1.0", "v1.2")] == [
        "atif@v1.0->atif@v1.1",
        "atif@v1.1->atif@v1.2",
    ]
    assert plan("v1.4", "v1.4") == []


# --- what is kept, what is stashed ----------------------------------------------------------------


def test_only_schema_version_changes_when_the_target_holds_everything() -> None:
    doc = minimal_atif("v1.2")
    doc["steps"][0]["metrics"] = {"prompt_tokens": 3, "cost_usd": 1.0}
    out, report = migrate(doc, to="v1.6")
    assert not (report.stashed or report.dropped or report.decided or report.named)
    # RFC.md §4.6: a document that needs no change keeps its bytes, but for the version
    assert dumps(out) == dumps({**doc, "schema_version": "ATIF-v1.6"})


def test_llm_call_count_is_stashed_in_the_root_extra_and_reported() -> None:
    doc = minimal_atif("v1.7")
    doc["steps"][0]["llm_call_count"] = 2
    out, report = migrate(doc, to="atif@v1.6")
    assert "llm_call_count" not in out["steps"][0] and "extra" not in out["steps"][0]
    assert out["extra"][STASH_KEY] == {
        "version": 2,
        "layers": [
            {
                "by": "atif@v1.7->atif@v1.6",
                "patch": [{"op": "add", "path": "/steps/0/llm_call_count", "value": 2}],
            }
        ],
        "created": "absent",
    }
    assert [i.to_dict() for i in report.stashed] == [
        {
            "pointer": "/steps/0/llm_call_count",
            "step": "atif@v1.7->atif@v1.6",
            "stash": "/extra",
            "reason": "atif@v1.6 has no place for this value",
        }
    ]
    assert report.to_dict()["from"] == "atif@v1.7"


def test_root_extra_goes_to_agent_extra_in_v1_0() -> None:
    doc = minimal_atif("v1.1")
    doc["extra"] = {"task": "t"}
    out, report = migrate(doc, to="v1.0")
    assert "extra" not in out
    layer = out["agent"]["extra"][STASH_KEY]["layers"][0]
    assert layer["patch"] == [{"op": "add", "path": "/extra", "value": {"task": "t"}}]
    assert report.stashed[0].stash == "/agent/extra"
    back, _ = migrate(out, to="v1.1")
    assert same_json(back, doc)


def test_existing_extra_content_is_kept_next_to_the_stash() -> None:
    doc = minimal_atif("v1.5")
    doc["steps"][0].update(is_copied_context=False, extra={"mine": 1})
    doc["extra"] = {"root": 2}
    out, _ = migrate(doc, to="v1.4")
    assert out["steps"][0]["extra"] == {"mine": 1}
    assert list(out["extra"]) == ["root", STASH_KEY]


@pytest.mark.parametrize(
    ("version", "target", "key", "value"),
    [("v1.5", "v1.4", "is_copied_context", True), ("v1.7", "v1.6", "llm_call_count", 0)],
)
def test_context_only_facts_stay_readable_below_their_version(
    version: str, target: str, key: str, value: Any
) -> None:
    """is_copied_context: true and llm_call_count: 0 move to the step's extra under their own
    name (the layer lists it in ``wrote``, no value stashed), reported as named with a finding;
    export-sft and the totals read them there, and the way up restores the field."""
    from atif_spec.formats.totals import trajectory_totals
    from atif_spec.transforms.sft import examples

    doc = minimal_atif(version)
    step = doc["steps"][0] | {"source": "agent", "message": "m", key: value}
    doc["steps"] = [step, doc["steps"][0] | {"step_id": 2, "source": "agent", "message": "x"}]
    if key == "is_copied_context":
        step["metrics"] = {"prompt_tokens": 7}
    assert len(list(examples(doc))) == 1
    out, report = migrate(doc, to=target)
    moved = out["steps"][0]
    assert key not in moved and moved["extra"][key] == value
    assert out["extra"][STASH_KEY]["layers"] == [
        {"by": f"atif@{version}->atif@{target}", "wrote": [f"/steps/0/extra/{key}"]}
    ]
    assert [(i.pointer, i.to) for i in report.named] == [
        (f"/steps/0/{key}", f"/steps/0/extra/{key}")
    ]
    assert [w.code for w in report.warnings] == ["migrate:context-only-step"]
    assert not report.lossy and report.to_dict()["named"][0]["to"] == f"/steps/0/extra/{key}"
    assert len(list(examples(out))) == 1  # still not a training target
    assert trajectory_totals(out).prompt_tokens is None  # copied context does not count
    assert no_errors(out)
    for deeper in ("v1.0", target):
        low, _ = migrate(out, to=deeper)
        back, _ = migrate(low, to=version)
        assert same_json(back, doc)


def test_a_producers_own_extra_key_is_never_overwritten_or_read_back() -> None:
    doc = minimal_atif("v1.7")
    doc["steps"][0].update(llm_call_count=0, extra={"llm_call_count": "producer's"})
    out, report = migrate(doc, to="v1.6")
    assert out["steps"][0]["extra"]["llm_call_count"] == "producer's"
    assert [i.pointer for i in report.stashed] == ["/steps/0/llm_call_count"]
    assert not report.named
    back, _ = migrate(out, to="v1.7")
    assert same_json(back, doc)
    plain = minimal_atif("v1.6")
    plain["steps"][0]["extra"] = {"llm_call_count": 0}  # a producer's key, no move recorded
    up, _ = migrate(plain, to="v1.7")
    assert "llm_call_count" not in up["steps"][0] and up["steps"][0]["extra"] == {
        "llm_call_count": 0
    }


def test_null_extra_is_restored_as_null() -> None:
    doc = minimal_atif("v1.5")
    doc["steps"][0].update(is_copied_context=True, extra=None)
    doc["steps"].append(doc["steps"][0] | {"step_id": 2, "is_copied_context": None})
    out, report = migrate(doc, to="v1.4")
    assert out["steps"][0]["extra"] == {"is_copied_context": True}
    assert out["steps"][1]["extra"] is None
    assert report.stashed and not report.lossy  # a null value is not data lost
    back, _ = migrate(out, to="v1.5")
    assert same_json(back, doc)
    none, _ = migrate(minimal_atif("v1.1") | {"extra": None}, to="v1.0")
    assert none["agent"]["extra"][STASH_KEY]["created"] == "absent"
    assert same_json(migrate(none, to="v1.1")[0], minimal_atif("v1.1") | {"extra": None})


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


def test_audio_parts_become_text_naming_them_below_v1_8() -> None:
    """A message made only of audio stays a valid, readable message (never ``[]``)."""
    doc = minimal_atif("v1.8")
    audio = {"type": "audio", "source": {"media_type": "audio/wav", "path": "a.wav"}}
    long = {"type": "audio", "source": {"media_type": "audio/mpeg", "path": "b.mp3"}}
    long["source"]["duration_sec"] = 2.5
    doc["steps"][0]["message"] = [audio, {"type": "text", "text": "x"}, long]
    out, report = migrate(doc, to="v1.7")
    assert out["steps"][0]["message"] == [
        {"type": "text", "text": "[audio: a.wav (audio/wav)]"},
        {"type": "text", "text": "x"},
        {"type": "text", "text": "[audio: b.mp3 (audio/mpeg, 2.5 s)]"},
    ]
    assert {i.pointer.rsplit("/", 1)[0] for i in report.stashed} == {
        "/steps/0/message/0",
        "/steps/0/message/2",
    }
    assert [i.pointer for i in report.decided] == ["/steps/0/message/0", "/steps/0/message/2"]
    assert no_errors(out)
    back, _ = migrate(out, to="v1.8")
    assert same_json(back, doc)
    only = minimal_atif("v1.8")
    only["steps"][0]["message"] = [audio]
    out, _ = migrate(only, to="v1.7")
    assert out["steps"][0]["message"] == [{"type": "text", "text": "[audio: a.wav (audio/wav)]"}]
    assert no_errors(out)


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
    assert same_json(back, doc)
    assert back["subagent_trajectories"][1]["schema_version"] == "ATIF-v1.7"
    plain = minimal_atif("v1.8") | {"subagent_trajectories": [minimal_atif("v1.8")]}
    migrate(plain, to="v1.7", fail_on_loss=True)  # a version mark is not data lost


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
    assert same_json(back, doc)


def test_missing_root_session_id_without_trajectory_id_is_a_digest() -> None:
    doc = minimal_atif("v1.7")
    doc["session_id"] = None
    first, _ = migrate(doc, to="v1.6")
    second, _ = migrate(doc, to="v1.6")
    assert first["session_id"] == second["session_id"]  # deterministic
    assert first["session_id"].startswith("sha256-") and len(first["session_id"]) == 23
    back, _ = migrate(first, to="v1.7")
    assert same_json(back, doc)


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
    assert same_json(back, doc)


def test_refs_to_embedded_subagents_sharing_the_parent_session_stay_distinct() -> None:
    """Embedded subagents usually share the parent's session_id; below v1.7 each reference gets
    a session id of its own (``<parent>#<trajectory_id>``), never the parent's."""
    subs = [minimal_atif("v1.7") | {"trajectory_id": t} for t in ("s1", "s2")]
    unique = minimal_atif("v1.7") | {"trajectory_id": "s3", "session_id": "own-session"}
    doc = minimal_atif("v1.7") | {"subagent_trajectories": [*subs, unique]}
    refs = [{"trajectory_id": t} for t in ("s1", "s2", "s3")]
    doc["steps"][0]["observation"] = {"results": [{"subagent_trajectory_ref": refs}]}
    parent = doc["session_id"]
    assert all(s["session_id"] == parent for s in subs)
    out, report = migrate(doc, to="v1.6")
    written = out["steps"][0]["observation"]["results"][0]["subagent_trajectory_ref"]
    assert [r["session_id"] for r in written] == [f"{parent}#s1", f"{parent}#s2", "own-session"]
    assert [i.value for i in report.decided] == [f"{parent}#s1", f"{parent}#s2", "own-session"]
    assert no_errors(out)
    back, _ = migrate(out, to="v1.7")
    assert same_json(back, doc)


def test_session_only_ref_needs_an_explicit_policy_above_v1_6() -> None:
    """A v1.6 reference holding only session_id is refused on the way up unless the caller says
    where the subagent is; nothing is invented silently."""
    doc = minimal_atif("v1.6")
    doc["steps"][0]["observation"] = {
        "results": [{"subagent_trajectory_ref": [{"session_id": "a b/c"}]}]
    }
    assert not no_errors(doc | {"schema_version": "ATIF-v1.7"})
    with pytest.raises(MigrationError) as info:
        migrate(doc, to="v1.8")
    ptr = "/steps/0/observation/results/0/subagent_trajectory_ref/0"
    assert [(e.code, e.pointer) for e in info.value.report.errors] == [
        ("migrate:session-only-ref", ptr)
    ]
    for template, path in (
        ("atif-session://{session_id}", "atif-session://a%20b%2Fc"),
        ("subagents/{session_id}.json", "subagents/a b/c.json"),
    ):
        out, report = migrate(doc, to="v1.8", session_ref_path=template)
        ref = out["steps"][0]["observation"]["results"][0]["subagent_trajectory_ref"][0]
        assert list(ref)[:2] == ["session_id", "trajectory_path"]
        assert ref["trajectory_path"] == path
        assert no_errors(out)
        assert [(i.pointer, i.value) for i in report.decided] == [(f"{ptr}/trajectory_path", path)]
        back, _ = migrate(out, to="v1.6")
        assert same_json(back, doc)


def test_the_policy_leaves_alone_a_reference_the_stash_resolves() -> None:
    """Down without a policy, up with one: a reference whose trajectory_id the stash restores
    gets no trajectory_path; one that holds only a session_id does."""
    doc = minimal_atif("v1.7") | {
        "subagent_trajectories": [minimal_atif("v1.7") | {"trajectory_id": "s1"}]
    }
    doc["steps"][0]["observation"] = {
        "results": [{"subagent_trajectory_ref": [{"trajectory_id": "s1"}]}]
    }
    low, _ = migrate(doc, to="v1.6")
    low["steps"][0]["observation"]["results"].append(
        {"subagent_trajectory_ref": [{"session_id": "legacy"}]}
    )
    up, report = migrate(low, to="v1.7", session_ref_path="{session_id}.json")
    results = up["steps"][0]["observation"]["results"]
    assert results[0]["subagent_trajectory_ref"] == [{"trajectory_id": "s1"}]
    assert results[1]["subagent_trajectory_ref"][0]["trajectory_path"] == "legacy.json"
    assert [i.value for i in report.decided] == ["legacy.json"]
    assert same_json(migrate(up, to="v1.6")[0], low)


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
    assert STASH_KEY.encode() not in dumps(out)
    assert not report.stashed
    pointers = {i.pointer for i in report.dropped}
    assert {
        "/extra",
        "/subagent_trajectories",
        "/steps/2/llm_call_count",
        "/steps/2/tool_calls/0/extra",
        "/steps/2/metrics/prompt_token_ids",
        "/steps/1/message/2/source",
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
    doc["steps"][0]["llm_call_count"] = 1
    doc["extra"] = {STASH_KEY: "mine"}
    with pytest.raises(MigrationError) as info:
        migrate(doc, to="v1.6")
    error = info.value.report.errors[0]
    assert error.code == "migrate:stash-collision"
    assert error.pointer == "/extra/_atif_stash"
    v1 = {STASH_KEY: {"version": 1, "layers": []}}
    with pytest.raises(MigrationError) as info:
        migrate(minimal_atif("v1.7") | {"extra": v1}, to="v1.6")
    assert info.value.report.errors[0].code == "migrate:stash-version"


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


def test_value_in_the_way_of_a_restore_is_stashed_not_lost() -> None:
    doc = minimal_atif("v1.5")
    doc["continued_trajectory_ref"] = "old.json"
    out, _ = migrate(doc, to="v1.4")
    out = out | {"schema_version": "ATIF-v1.4"}
    out["continued_trajectory_ref"] = "new.json"  # an (invalid) edit the way back must not lose
    back, report = migrate(out, to="v1.5")
    assert back["continued_trajectory_ref"] == "old.json"
    assert [i.pointer for i in report.stashed] == ["/continued_trajectory_ref"]
    assert not report.dropped
    again, _ = migrate(back, to="v1.4")
    assert again["continued_trajectory_ref"] == "new.json"
    assert migrate(again, to="v1.5")[0]["continued_trajectory_ref"] == "old.json"


def test_layers_written_by_other_steps_are_left_alone() -> None:
    doc = minimal_atif("v1.7")
    foreign = {"by": "tao@v0.2.0->atif@v1.7", "patch": [{"op": "add", "path": "/x", "value": 1}]}
    doc["extra"] = {STASH_KEY: {"version": 2, "layers": [foreign]}}
    out, _ = migrate(doc, to="v1.8")
    assert same_json(out["extra"], doc["extra"])
    doc["steps"][0]["llm_call_count"] = 3
    low, _ = migrate(doc, to="v1.0")
    layers = low["agent"]["extra"][STASH_KEY]["layers"]
    assert layers[0] == foreign and [layer["by"] for layer in layers[1:]] == [
        "atif@v1.7->atif@v1.6",
        "atif@v1.1->atif@v1.0",
    ]
    assert same_json(migrate(low, to="v1.7")[0], doc)


def test_the_public_api_is_plain_functions() -> None:
    import inspect

    import atif_spec

    for name in ("validate", "migrate", "convert"):
        assert name in atif_spec.__all__ and name in dir(atif_spec)
        assert inspect.isfunction(getattr(atif_spec, name)), name
    out, report = migrate(minimal_atif("v1.7"), to="v1.6")
    assert out["schema_version"] == "ATIF-v1.6" and report.ok


def test_policy_drops_context_only_steps_and_renumbers() -> None:
    """The explicit alternative: such steps are dropped (reported, not invertible)."""
    doc = minimal_atif("v1.7")
    first = doc["steps"][0]
    doc["steps"] = [
        first,
        first | {"step_id": 2, "source": "agent", "message": "dispatch", "llm_call_count": 0},
        first | {"step_id": 3, "source": "agent", "message": "copied", "is_copied_context": True},
        first | {"step_id": 4, "source": "agent", "message": "last", "llm_call_count": 1},
    ]
    doc["final_metrics"] = {"total_steps": 4}
    out, report = migrate(doc, to="v1.4", drop_context_only=True)
    assert [(s["step_id"], s["message"]) for s in out["steps"]] == [
        (1, first["message"]),
        (2, "last"),
    ]
    assert [i.pointer for i in report.dropped] == ["/steps/1", "/steps/1"]
    assert [i.pointer for i in report.decided] == [  # v1.7 -> v1.6, then v1.5 -> v1.4
        "/steps/1/step_id",
        "/steps/2/step_id",
        "/final_metrics/total_steps",
        "/steps/1/step_id",
        "/final_metrics/total_steps",
    ]
    assert out["final_metrics"]["total_steps"] == 2
    assert no_errors(out)
    assert not report.named
    with pytest.raises(MigrationError):
        migrate(doc, to="v1.4", drop_context_only=True, fail_on_loss=True)


def test_migrate_rewrites_schema_url() -> None:
    """DECISIONS.md 6.19: a root `$schema` names the target version's URL after migration."""
    from atif_spec.transforms.migrations import migrate as run
    from atif_spec.validation.pipeline import validate

    doc = json.loads(Path("conformance/atif/v1.0/valid/schema-url.json").read_text())
    up, _ = run(doc, "v1.8")
    assert up["$schema"] == "https://atif-spec.org/schemas/atif/v1.8/trajectory.schema.json"
    assert validate(up).findings == []
    down, _ = run(up, "v1.0")
    assert same_json(down, doc)


@pytest.mark.parametrize("target", ["tao@v0.2.0", "trajectory-sdk@v0.4", "step-substep@v1.0"])
def test_conversions_stash_the_schema_url_and_restore_it(target: str) -> None:
    """DECISIONS.md 6.19: a format without `$schema` keeps it in its stash; the way back restores
    it. The run log has `$schema`: it names the run log's own schema (step-substep SSL-28)."""
    import atif_spec

    doc = json.loads(Path("conformance/atif/v1.7/valid/schema-url.json").read_text())
    converted = atif_spec.convert(doc, to=target)
    out = converted[0] if isinstance(converted, tuple) else converted
    if target == "step-substep@v1.0":
        assert (
            out["$schema"] == "https://atif-spec.org/schemas/step-substep/v1.0/run-log.schema.json"
        )
    else:
        assert "$schema" not in out
    restored = atif_spec.convert(out, to="atif@v1.7")
    back = restored[0] if isinstance(restored, tuple) else restored
    assert same_json(back, doc)


def test_tao_targets_go_to_the_tao_version_chain() -> None:
    """``migrate`` takes TAO records to a ``tao@`` target (spec/tao/DECISIONS.md D38), with the
    same refusals as ATIF (an unknown version, ``fail_on_loss``)."""
    suite = ROOT / "conformance" / "tao"
    doc = json.loads((suite / "v0.9.0/valid/environment-pins.json").read_text(encoding="utf-8"))
    out, report = migrate(doc, to="tao@v0.7.0")
    assert (report.from_, report.to, out["schema_version"]) == ("tao@v0.9.0", "tao@v0.7.0", "0.7.0")
    assert "/environment/interpreter" in {i.pointer for i in report.stashed}
    with pytest.raises(MigrationError) as refused:
        migrate(doc, to="tao@v0.7.0", fail_on_loss=True)
    assert refused.value.report.errors
    with pytest.raises(MigrationError) as unknown:
        migrate(dict(doc, schema_version="0.8.0"), to="tao@v0.7.0")
    assert [f.code for f in unknown.value.report.errors] == ["input:unknown-schema-version"]
