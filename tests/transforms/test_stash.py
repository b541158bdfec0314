"""The version-2 stash: reading and writing it, and its JSON Patch (RFC.md §4.5)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from atif_spec.jsonio.jsonequal import same_json
from atif_spec.transforms import stash
from atif_spec.transforms.stash import STASH_KEY, StashError, apply, attach, detach, diff
from tests.support.strategies import json_values

documents = st.dictionaries(st.text(max_size=4), json_values, max_size=5)


@given(json_values, json_values)
def test_a_patch_turns_the_rebuilt_value_into_the_source(source: Any, rebuilt: Any) -> None:
    before = copy.deepcopy(rebuilt)
    patch = diff(source, rebuilt)
    result, conflicts = apply(rebuilt, patch)
    assert conflicts == []
    assert same_json(result, source)
    assert same_json(rebuilt, before), "apply must not modify its input"
    assert diff(source, rebuilt, rebuilt_whole=True) == patch  # compared in C first: the same


@pytest.mark.parametrize("whole", [False, True])
def test_values_equal_to_python_but_not_in_json_differ(whole: bool) -> None:
    source = {"a": [True, 1, -0.0, {"b": 1}], "c": "same"}
    rebuilt = {"a": [1, 1.0, 0.0, {"b": 1.0}], "c": "same"}
    replaced = [
        op["path"] for op in diff(source, rebuilt, rebuilt_whole=whole) if op["op"] != "test"
    ]
    assert replaced == ["/a/0", "/a/1", "/a/2", "/a/3/b"]


def test_a_rebuilt_whole_equal_document_is_not_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    walked: list[str] = []
    walk = stash._diff_dict
    monkeypatch.setattr(
        stash,
        "_diff_dict",
        lambda s, r, path, *rest: walked.append(path) or walk(s, r, path, *rest),
    )
    source = {"steps": [{"id": n, "extra": {"k": [n, 2.5]}} for n in range(20)]}
    rebuilt = copy.deepcopy(source)
    assert diff(source, rebuilt, rebuilt_whole=True) == []
    assert walked == []
    rebuilt["steps"][3]["extra"]["k"][1] = 2.0
    assert [op["path"] for op in diff(source, rebuilt, rebuilt_whole=True)] == [
        "/steps/3/extra/k/1"
    ] * 2
    assert walked == ["", "/steps/3", "/steps/3/extra"]


@given(json_values)
def test_equal_values_need_no_patch(value: Any) -> None:
    assert diff(value, copy.deepcopy(value)) == []


def test_kinds_and_key_order() -> None:
    assert diff({"a": 1, "b": 2}, {"b": 2, "a": 1}) == []
    assert diff(1, True) == [
        {"op": "test", "path": "", "value": True},
        {"op": "replace", "path": "", "value": 1},
    ]
    assert diff([1.0], [1]) != []
    assert diff(2**70, 2**70) == []


@pytest.mark.parametrize(
    ("source", "rebuilt"),
    [
        ([{"a": True}], [{"a": 1}]),
        ({"x": [1]}, {"x": [1.0]}),
        ([[-0.0]], [[0.0]]),
        ([{"n": 2**70}], [{"n": float(2**70)}]),
    ],
)
def test_containers_python_calls_equal_are_apart_by_their_leaves_kinds(
    source: Any, rebuilt: Any
) -> None:
    assert source == rebuilt  # Python's == mixes them up; the patch must not
    patch = diff(source, rebuilt)
    assert [op["op"] for op in patch] == ["test", "replace"]
    assert same_json(apply(rebuilt, patch)[0], source)
    assert diff([{"n": 2**70, "s": [1, "x"]}], [{"s": [1, "x"], "n": 2**70}]) == []


def test_keys_with_a_slash_or_a_tilde_are_escaped_in_paths() -> None:
    source = {"a/b": {"c~d": 1, "e": 1}, "f": {"~": [1]}}
    rebuilt = {"a/b": {"c~d": 2, "e": 1}, "f": {"~": [2]}}
    assert [op["path"] for op in diff(source, rebuilt)][::2] == ["/a~1b/c~0d", "/f/~0/0"]
    assert apply(rebuilt, diff(source, rebuilt))[0] == source


def test_every_remove_and_replace_is_guarded_by_a_test() -> None:
    patch = diff({"a": [1, 2, 3], "c": "x"}, {"a": [1, 3], "b": None, "c": "y"})
    assert patch == [
        {"op": "test", "path": "/b", "value": None},
        {"op": "remove", "path": "/b"},
        {"op": "add", "path": "/a/1", "value": 2},
        {"op": "test", "path": "/c", "value": "y"},
        {"op": "replace", "path": "/c", "value": "x"},
    ]


def test_an_edited_value_is_a_conflict_and_kept() -> None:
    patch = diff({"a": 1}, {"a": 2, "b": 3})
    result, conflicts = apply({"a": 5, "b": 4}, patch)
    assert result == {"a": 5, "b": 4}
    assert [c.op["op"] for c in conflicts] == ["remove", "replace"]


def test_a_missing_place_is_a_conflict() -> None:
    result, conflicts = apply({}, [{"op": "add", "path": "/x/y", "value": 1}])
    assert result == {}
    assert conflicts[0].why == "its place is gone"


def test_apply_copies_only_the_changed_path() -> None:
    shared = {"big": list(range(10))}
    doc = {"keep": shared, "edit": {"n": 1}}
    result, _ = apply(doc, [{"op": "replace", "path": "/edit/n", "value": 2}])
    assert result["keep"] is shared
    assert doc["edit"] == {"n": 1}


def test_a_patch_that_enters_a_container_twice_keeps_both_changes() -> None:
    doc: dict[str, Any] = {"a": {"n": [1]}, "b": {}}
    ops = [
        {"op": "add", "path": "/a/x", "value": 1},
        {"op": "add", "path": "/b/y", "value": {}},
        {"op": "add", "path": "/b/y/z", "value": 2},
        {"op": "add", "path": "/a/n/-", "value": 3},
    ]
    result, conflicts = apply(doc, ops)
    assert conflicts == []
    assert result == {"a": {"n": [1, 3], "x": 1}, "b": {"y": {"z": 2}}}
    assert doc == {"a": {"n": [1]}, "b": {}}
    assert ops[1]["value"] == {}, "a value the patch holds is not modified either"


@given(documents, st.sampled_from([("extra",), ("agent", "extra")]))
def test_attach_then_detach_gives_the_document_back(doc: dict[str, Any], place: Any) -> None:
    if place == ("agent", "extra"):
        doc = {**doc, "agent": {"name": "a"}}
    if isinstance(doc.get("extra"), dict):
        doc["extra"].pop(STASH_KEY, None)
    elif "extra" in doc and doc["extra"] is not None:
        return
    layers = [{"by": "a@v1->b@v1", "patch": [{"op": "add", "path": "/x", "value": 1}]}]
    attached = attach(doc, place, layers)
    back, found = detach(attached, place)
    assert found == layers
    assert same_json(back, doc)


def test_a_version_1_stash_is_refused() -> None:
    with pytest.raises(StashError) as caught:
        detach({"extra": {STASH_KEY: {"version": 1, "layers": []}}}, ("extra",))
    assert caught.value.what == "stash-version"


def test_a_producers_own_stash_key_is_never_overwritten() -> None:
    with pytest.raises(StashError):
        attach({"extra": {STASH_KEY: "mine"}}, ("extra",), [{"by": "x"}])
    with pytest.raises(StashError):
        detach({"extra": {STASH_KEY: "mine"}}, ("extra",))


def test_a_pair_of_containers_found_equal_is_compared_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Snapshots of a trajectory-sdk file repeat one message object on each side: comparing the
    pair once keeps the diff of a lens's output linear in the conversation, not in the file."""
    texts: list[Any] = []
    canonical = stash.canonical_json
    monkeypatch.setattr(stash, "canonical_json", lambda v: texts.append(v) or canonical(v))
    # equal members, not shared: each pair of values is compared
    mine, theirs = ({f"k{i}": f"value {i}" for i in range(50)} for _ in range(2))
    source = {"steps": [[mine, n] for n in range(10)]}
    rebuilt = {"steps": [[theirs, -1 - n] for n in range(10)]}
    assert [op["path"] for op in diff(source, rebuilt, rebuilt_whole=True)][1::2] == [
        f"/steps/{n}/1" for n in range(10)
    ]
    assert texts == [mine, theirs]  # once, not once per snapshot


def _otlp(attributes: Any = None) -> dict[str, Any]:
    span: dict[str, Any] = {"traceId": "1" * 32, "spanId": "2" * 16, "name": "root"}
    if attributes is not None:
        span["attributes"] = attributes
    child = {"traceId": "1" * 32, "spanId": "3" * 16, "parentSpanId": "2" * 16, "name": "c"}
    return {"resourceSpans": [{"scopeSpans": [{"spans": [child, span]}]}]}


@pytest.mark.parametrize("attributes", [None, [], [{"key": "a", "value": {"intValue": "1"}}]])
def test_otel_holder_round_trip(attributes: Any) -> None:
    doc = _otlp(attributes)
    layers = [{"by": "atif@v1.8->otel@v1.41.0", "patch": [{"op": "add", "path": "/x", "value": 1}]}]
    held = attach(doc, stash.holder("otel@v1.41.0"), layers)
    root = held["resourceSpans"][0]["scopeSpans"][0]["spans"][1]
    assert root["attributes"][-1]["key"] == "atif.stash"
    assert doc == _otlp(attributes)  # not modified
    back, found = detach(held, stash.holder("otel@v1.41.0"))
    assert found == layers
    assert same_json(back, doc)


def test_otel_holder_refuses_a_producers_own_attribute() -> None:
    own = [{"key": "atif.stash", "value": {"stringValue": "mine"}}]
    with pytest.raises(StashError):
        attach(_otlp(own), stash.holder("otel"), [{"by": "x", "wrote": ["/a"]}])
    with pytest.raises(StashError):
        detach(_otlp(own), stash.holder("otel"))
