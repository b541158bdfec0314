"""``named`` declarations of a stash layer (RFC.md §4.5.2 item 7)."""

from __future__ import annotations

from typing import Any

from atif_spec.transforms.changes import mapped_leaves
from atif_spec.transforms.lenses.residual import Holder, put_named, take_named
from atif_spec.transforms.stash_v1 import STASH_KEY, NamedKeys
from tests.support import ROOT

DOC: dict[str, Any] = {
    "steps": [
        {"extra": {"exit_code": 0, "mine": 1}},
        {"extra": {"exit_code": 2}},
        {"message": "no extra"},
    ]
}


def test_of_generalizes_array_indexes_and_keeps_only_matching_foreign_places() -> None:
    named = NamedKeys.of(
        [("steps", 0, "extra", "exit_code"), ("steps", 3, "extra", "exit_code")],
        foreign=[("steps", 1, "extra", "exit_code"), ("steps", 1, "extra", "other")],
    )
    assert named is not None
    assert named.patterns == ("/steps/*/extra/exit_code",)
    assert named.foreign == frozenset({"/steps/1/extra/exit_code"})
    assert NamedKeys.of([]) is None


def test_owns_and_places_leave_out_foreign_members_and_other_keys() -> None:
    named = NamedKeys(("/steps/*/extra/exit_code",), frozenset({"/steps/1/extra/exit_code"}))
    assert named.owns("/steps/0/extra/exit_code")
    assert named.owns(("steps", 7, "extra", "exit_code"))
    assert not named.owns("/steps/1/extra/exit_code")  # foreign
    assert not named.owns("/steps/0/extra/mine")
    assert not named.owns("/steps/x/extra/exit_code")  # not an array index
    assert named.places(DOC) == [("steps", 0, "extra", "exit_code")]


def test_a_key_with_a_slash_round_trips_through_the_pointer_escapes() -> None:
    named = NamedKeys.of([("extra", "a/b~c")])
    assert named is not None
    assert named.patterns == ("/extra/a~1b~0c",)
    assert named.places({"extra": {"a/b~c": 1}}) == [("extra", "a/b~c")]


def test_layer_members_round_trip_and_merge() -> None:
    named = NamedKeys(("/extra/a",), frozenset({"/extra/a"}))
    layer = {"by": "x@1->y@2", "entries": [], **named.to_layer()}
    assert layer["named"] == ["/extra/a"] and layer["foreign"] == ["/extra/a"]
    assert NamedKeys.from_layer(layer) == named
    assert NamedKeys.from_layer({"named": "not a list"}) is None
    assert NamedKeys.from_layer({"named": []}) is None
    merged = named.merge(NamedKeys(("/extra/b",)))
    assert merged.patterns == ("/extra/a", "/extra/b") and merged.foreign == named.foreign


def test_put_then_take_gives_the_declaration_back_and_leaves_no_members() -> None:
    holder = Holder(("extra",))
    doc: dict[str, Any] = {"steps": [{"extra": {"exit_code": 3}}]}
    named = NamedKeys(("/steps/*/extra/exit_code",))
    put_named(doc, holder, "a@v1->b@v2", named, pushed=False)
    layer = doc["extra"][STASH_KEY]["layers"][-1]
    assert layer == {  # written without the default holder and the empty entries
        "by": "a@v1->b@v2",
        "named": ["/steps/*/extra/exit_code"],
        "created": "absent",
    }
    rest, taken = take_named(doc, holder, "a@v1->b@v2")
    assert taken == named
    assert "named" not in rest["extra"][STASH_KEY]["layers"][-1]
    assert "named" in doc["extra"][STASH_KEY]["layers"][-1]  # the input is not modified
    assert take_named(doc, holder, "other@v1->b@v2") == (doc, None)


def test_mapped_leaves_leave_out_declared_members() -> None:
    doc: dict[str, Any] = {"steps": [{"extra": {"exit_code": 3, "k": 1}}]}
    before = mapped_leaves(doc)
    put_named(
        doc,
        Holder(("extra",)),
        "a@v1->b@v2",
        NamedKeys(("/steps/*/extra/exit_code",)),
        pushed=False,
    )
    # the stash adds no mapped leaf, and the declared member no longer counts as mapped
    assert mapped_leaves(doc) == before - 1


def test_key_names_stand_for_every_place_the_registry_gives_them() -> None:
    step = "step-substep@v1.0->atif@v1.7"
    places = {
        "/steps/*/extra/legacy_turn_id",
        "/steps/*/tool_calls/*/extra/legacy_turn_id",
        "/steps/*/observation/results/*/extra/legacy_turn_id",
    }
    full = NamedKeys(tuple(sorted({*places, "/steps/*/extra/outcome"})))
    layer = {"by": step, "holder": "/extra", "entries": [], **full.to_layer(step)}
    assert layer["named"] == ["legacy_turn_id", "outcome"]
    assert NamedKeys.from_layer(layer) == full
    # a name is written only where the declaration holds all of its places
    part = NamedKeys(("/steps/*/extra/legacy_turn_id",))
    assert part.to_layer(step)["named"] == ["/steps/*/extra/legacy_turn_id"]
    assert part.to_layer()["named"] == ["/steps/*/extra/legacy_turn_id"]
    # a name the registry does not know for the step makes the declaration unreadable
    unknown = {"by": step, "holder": "/extra", "entries": [], "named": ["no_such_key"]}
    assert NamedKeys.from_layer(unknown) is None


def test_mapped_leaves_walks_shared_containers_once_with_the_same_count() -> None:
    import json

    import orjson

    import atif_spec
    from atif_spec.transforms.lenses import ConversionError

    class Counted(dict[str, Any]):
        walks = 0

        def items(self) -> Any:
            Counted.walks += 1
            return super().items()

    shared = Counted({"role": "user", "content": "hi", "metadata": {"k": [1, 2]}})
    doc: dict[str, Any] = {"steps": [{"messages": [shared] * n} for n in range(1, 4)]}
    assert mapped_leaves(doc) == 6 * 4  # counted at each of its 6 places
    assert Counted.walks == 1  # walked once
    root = ROOT / "conformance" / "atif" / "v1.7" / "valid"
    checked = 0
    for path in sorted(root.glob("*.json"))[:12]:
        source = json.loads(path.read_text(encoding="utf-8"))
        for target in ("trajectory-sdk@v0.4", "tao@v0.2.0", "step-substep@v1.0"):
            try:
                out, _ = atif_spec.convert(source, to=target)
            except ConversionError:
                continue
            flat = orjson.loads(orjson.dumps(out))  # the same tree, nothing shared
            assert mapped_leaves(out, target) == mapped_leaves(flat, target), (path.name, target)
            checked += 1
    assert checked > 20


def _declared(layer: dict[str, Any]) -> NamedKeys:
    declared = NamedKeys.from_layer({"by": "step-substep@v1.0->atif@v1.7", **layer})
    assert declared is not None
    return declared


def test_star_stands_for_every_named_key_of_the_step_when_it_is_shorter() -> None:
    step = "step-substep@v1.0->atif@v1.7"
    doc: dict[str, Any] = {
        "steps": [{"extra": {"outcome": "completed", "completed_at": "2026-01-01T00:00:00Z"}}]
    }
    written = NamedKeys(("/steps/*/extra/completed_at", "/steps/*/extra/outcome"))
    members = written.to_layer(step, doc)
    assert members == {"named": ["*"]}
    declared = _declared(members)
    assert declared.places(doc) == written.places(doc)
    # without the owner, the writer cannot list foreign members: it spells the keys out
    assert written.to_layer(step)["named"] == ["completed_at", "outcome"]


def test_star_lists_every_producer_member_it_matches_as_foreign() -> None:
    step = "step-substep@v1.0->atif@v1.7"
    doc: dict[str, Any] = {
        "steps": [
            {"extra": {"outcome": "completed", "completed_at": "2026-01-01T00:00:00Z"}},
            {"extra": {"legacy_turn_id": "producer's", "outcome": "producer's"}},
        ]
    }
    written = NamedKeys(
        ("/steps/*/extra/completed_at", "/steps/*/extra/outcome"),
        frozenset({"/steps/1/extra/outcome"}),
    )
    members = written.to_layer(step, doc)
    declared = _declared(members)
    # whichever spelling is shorter, the declaration owns exactly what the step wrote
    assert declared.places(doc) == written.places(doc)
    assert not declared.owns("/steps/1/extra/legacy_turn_id")
    assert not declared.owns("/steps/1/extra/outcome")
    star = NamedKeys(written.patterns, written.foreign | {"/steps/1/extra/legacy_turn_id"})
    assert _declared({"named": ["*"], "foreign": sorted(star.foreign)}).places(doc) == (
        written.places(doc)
    )


def test_a_layer_written_out_in_full_is_read_like_its_compact_form() -> None:
    from atif_spec.transforms.stash_v1 import compact_layer, pop

    entry = {"op": "removed", "pointer": "/gone", "position": 0, "value": 1}
    full = {"by": "a@v1->b@v2", "holder": "/extra", "entries": [entry], "created": "absent"}
    assert compact_layer(full) == {"by": "a@v1->b@v2", "entries": [entry], "created": "absent"}
    for layer in (full, compact_layer(full)):
        doc: dict[str, Any] = {"kept": 2, "extra": {STASH_KEY: {"version": 1, "layers": [layer]}}}
        changes = pop(doc, "a@v1->b@v2")
        assert [c.op for c in changes] == ["removed"]
        assert doc == {"gone": 1, "kept": 2}
