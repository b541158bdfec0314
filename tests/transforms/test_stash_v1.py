"""The compact stash entries (RFC.md §4.5.2 item 4): ``placed`` (a member kept with its value,
only its key position restored) and pattern ``added`` entries (one entry for the same value the
way back writes at every place a pattern matches)."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
from hypothesis import given
from hypothesis import strategies as st

from atif_spec.transforms.changes import ChangeReport
from atif_spec.transforms.lenses.residual import diff, same
from atif_spec.transforms.stash_v1 import fingerprint, undo
from tests.support import ROOT

SCHEMA = json.loads((ROOT / "spec" / "atif-spec" / "v1" / "stash.schema.json").read_text())

NAMES = ["a", "b", "c", "d", "e", "f", "g", "x/y", "m~n"]
KEYS = st.sampled_from(NAMES)
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["s", "t"]))


def _objects(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(KEYS, children, max_size=7)


VALUES = st.recursive(
    LEAVES, lambda inner: st.one_of(_objects(inner), st.lists(inner, max_size=3)), max_leaves=12
)


@st.composite
def rebuilt_of(draw: st.DrawFn, source: dict[str, Any]) -> dict[str, Any]:
    """What a way back could rebuild: some members lost, others added, values changed, and the
    members in another order (at every level)."""
    keys = [k for k in source if draw(st.booleans()) or len(source) < 3]
    keys = draw(st.permutations(keys))
    out: dict[str, Any] = {}
    for key in keys:
        value = source[key]
        if isinstance(value, dict) and draw(st.booleans()):
            value = draw(rebuilt_of(value))
        elif draw(st.integers(0, 4)) == 0:
            value = draw(VALUES)
        if isinstance(value, list) and draw(st.booleans()):
            value = draw(rebuilt_list_of(value))
        out[key] = value
    for key in draw(st.lists(KEYS, max_size=2)):
        if key not in out:
            out[key] = draw(VALUES)
    return dict(draw(st.permutations(list(out.items()))))


@st.composite
def rebuilt_list_of(draw: st.DrawFn, source: list[Any]) -> list[Any]:
    """A list whose objects come back rebuilt, some of them with a member the way back writes
    (the same value each time, as a writer's default)."""
    key = draw(KEYS)
    default = draw(LEAVES)
    rank = {k: i for i, k in enumerate(draw(st.permutations(NAMES)))}
    ordered = draw(st.booleans())  # the way back writes every object in its own key order
    out = []
    for item in source:
        if isinstance(item, dict):
            item = draw(rebuilt_of(item))
            if key not in item and draw(st.booleans()):
                item = {**item, key: default}
            if ordered:
                item = dict(sorted(item.items(), key=lambda kv: rank[kv[0]]))
        out.append(item)
    return out


def _undo_all(rebuilt: dict[str, Any], entries: list[dict[str, Any]]) -> dict[str, Any]:
    owner = copy.deepcopy(rebuilt)
    changes = undo(owner, {"by": "atif@v1.7->tao@v0.2.0", "entries": entries})
    assert [c for c in changes if c.conflict is not None] == []
    return owner


@given(data=st.data(), source=_objects(VALUES))
def test_undoing_the_entries_restores_the_key_order_at_every_level(
    data: st.DataObject, source: dict[str, Any]
) -> None:
    rebuilt = data.draw(rebuilt_of(source))
    entries = [r.entry for r in diff(source, rebuilt)]
    assert same(_undo_all(rebuilt, entries), source)
    if entries:
        layer = {"by": "atif@v1.7->tao@v0.2.0", "entries": entries}
        assert jsonschema.Draft202012Validator(SCHEMA).is_valid({"version": 1, "layers": [layer]})


@given(data=st.data(), steps=st.lists(_objects(VALUES), min_size=2, max_size=5))
def test_defaults_written_at_several_places_are_undone_exactly(
    data: st.DataObject, steps: list[dict[str, Any]]
) -> None:
    source = {"steps": steps}
    rebuilt = {"steps": data.draw(rebuilt_list_of(steps))}
    entries = [r.entry for r in diff(source, rebuilt)]
    assert same(_undo_all(rebuilt, entries), source)


STEP = st.fixed_dictionaries({"a": LEAVES}, optional={k: LEAVES for k in NAMES[1:6]})


@given(data=st.data(), steps=st.lists(STEP, min_size=2, max_size=5))
def test_a_writers_key_order_at_every_step_is_undone_exactly(
    data: st.DataObject, steps: list[dict[str, Any]]
) -> None:
    def order(ranked: list[str]) -> dict[str, int]:
        return {k: i for i, k in enumerate(ranked)}

    theirs, ours = (order(data.draw(st.permutations(NAMES))) for _ in range(2))
    source = {"steps": [dict(sorted(s.items(), key=lambda kv: theirs[kv[0]])) for s in steps]}
    rebuilt = {"steps": [dict(sorted(s.items(), key=lambda kv: ours[kv[0]])) for s in steps]}
    entries = [r.entry for r in diff(source, rebuilt)]
    assert same(_undo_all(rebuilt, entries), source)
    assert all(e["op"] == "placed" for e in entries)


def test_a_member_in_another_place_costs_one_value_less_entry() -> None:
    source = {"role": "agent", "content": "long " * 40, "parent_step": 3, "call_type": "subagent"}
    rebuilt = {"role": "agent", "parent_step": 3, "call_type": "subagent", "content": "long " * 40}
    entries = [r.entry for r in diff(source, rebuilt)]
    # the long value keeps its place in the stash only by name; the short ones stay put
    assert entries == [{"op": "placed", "pointer": "/content", "after": "role"}]
    assert same(_undo_all(rebuilt, entries), source)


def test_the_first_member_follows_nothing() -> None:
    source = {"z": 1, "a": 2, "b": 3}
    rebuilt = {"a": 2, "b": 3, "z": 1}
    entries = [r.entry for r in diff(source, rebuilt)]
    assert entries == [{"op": "placed", "pointer": "/z", "after": None}]
    assert same(_undo_all(rebuilt, entries), source)


def test_placed_members_still_get_their_values_back() -> None:
    source = {"a": {"x": 1, "y": 2}, "b": 2, "c": 3}
    rebuilt = {"b": 2, "c": 3, "a": {"y": 2, "x": 9}}
    entries = [r.entry for r in diff(source, rebuilt)]
    assert {e["op"] for e in entries} == {"placed", "replaced"}
    assert same(_undo_all(rebuilt, entries), source)


def test_an_entry_whose_member_is_gone_is_a_conflict_reported_as_a_decision() -> None:
    entry = {"op": "placed", "pointer": "/z", "after": None}
    owner: dict[str, Any] = {"a": 1}
    changes = undo(owner, {"by": "atif@v1.7->tao@v0.2.0", "entries": [entry]})
    assert [(c.op, c.conflict) for c in changes] == [("placed", "the member is gone")]
    edited = {"z": 1, "b": 2}
    changes = undo(edited, {"by": "atif@v1.7->tao@v0.2.0", "entries": [{**entry, "after": "a"}]})
    assert [c.conflict for c in changes] == ["the member it followed is gone"]
    assert list(edited) == ["z", "b"]  # left as it was
    report = ChangeReport(source="x", to="atif@v1.7")
    report.conflicts(changes, "atif@v1.7->tao@v0.2.0", "")
    assert [(i.pointer, i.reason) for i in report.decided] == [
        ("/z", "kept the key order (the member it followed is gone)")
    ]
    assert report.dropped == []


def test_the_schema_wants_after_and_refuses_a_value() -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA)

    def ok(entry: dict[str, Any]) -> bool:
        return validator.is_valid(
            {"version": 1, "layers": [{"by": "atif@v1.7->tao@v0.2.0", "entries": [entry]}]}
        )

    assert ok({"op": "placed", "pointer": "/a", "after": "b"})
    assert ok({"op": "placed", "pointer": "/a", "after": None})
    assert not ok({"op": "placed", "pointer": "/a"})
    assert not ok({"op": "placed", "pointer": "/a", "after": "b", "value": 1})


def test_the_same_default_written_at_every_step_is_one_pattern_entry() -> None:
    source = {"steps": [{"role": "user"}, {"role": "agent"}, {"role": "agent", "x": 1}]}
    rebuilt = {
        "steps": [{"role": "user"}, {"role": "agent", "r": "main"}, {"role": "agent", "r": "main"}]
    }
    entries = [r.entry for r in diff(source, rebuilt)]
    assert entries[-1] == {"op": "added", "pointer": "/steps/*/r", "check": fingerprint("main")}
    assert [e for e in entries if e["op"] == "added"] == entries[-1:]
    assert same(_undo_all(rebuilt, entries), source)


def test_no_pattern_when_it_would_also_take_a_producers_own_value() -> None:
    source = {"steps": [{"r": "main"}, {}, {}]}
    rebuilt = {"steps": [{"r": "main"}, {"r": "main"}, {"r": "main"}]}
    entries = [r.entry for r in diff(source, rebuilt)]
    assert [e["pointer"] for e in entries] == ["/steps/1/r", "/steps/2/r"]
    assert same(_undo_all(rebuilt, entries), source)


def test_a_pattern_takes_only_the_members_with_its_value() -> None:
    owner = {"steps": [{"r": "main"}, {"r": "plan"}, {"r": "main"}], "r": "main"}
    entry = {"op": "added", "pointer": "/steps/*/r", "check": fingerprint("main")}
    changes = undo(owner, {"by": "atif@v1.7->tao@v0.2.0", "entries": [entry]})
    assert owner == {"steps": [{}, {"r": "plan"}, {}], "r": "main"}
    assert [c.conflict for c in changes] == [None]


def test_a_star_that_meets_an_object_is_its_key() -> None:
    owner = {"extra": {"*": {"r": "main"}, "b": {"r": "main"}}}
    entry = {"op": "added", "pointer": "/extra/*/r", "check": fingerprint("main")}
    undo(owner, {"by": "atif@v1.7->tao@v0.2.0", "entries": [entry]})
    assert owner == {"extra": {"*": {}, "b": {"r": "main"}}}


def test_the_same_key_order_at_every_step_is_one_pattern_entry() -> None:
    source = {"steps": [{"a": 1, "c": 3, "b": 2}, {"a": 1, "c": 3, "b": 2, "d": 4}, {"a": 0}]}
    rebuilt = {"steps": [{"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2, "c": 3, "d": 4}, {"a": 0}]}
    entries = [r.entry for r in diff(source, rebuilt)]
    assert len(entries) == 1
    assert entries[0]["op"] == "placed"
    assert entries[0]["pointer"] in ("/steps/*/b", "/steps/*/c")
    assert same(_undo_all(rebuilt, entries), source)


def test_no_placed_pattern_when_it_would_move_a_member_no_entry_names() -> None:
    source = {
        "steps": [{"a": 1, "c": 3, "b": 2}, {"a": 1, "c": 3, "b": 2}, {"a": 1, "b": 2, "c": 3}]
    }
    rebuilt = {
        "steps": [{"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2, "c": 3}]
    }
    entries = [r.entry for r in diff(source, rebuilt)]
    assert [e["pointer"].split("/")[2] for e in entries] == ["0", "1"]
    assert same(_undo_all(rebuilt, entries), source)
