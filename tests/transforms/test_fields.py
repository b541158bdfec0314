"""Field tables that run (atif_spec.transforms.fields)."""

from __future__ import annotations

from atif_spec.transforms.driver import Context
from atif_spec.transforms.fields import ABSENT, Field, FreeForm, Named, get

STEP = "a@v1->b@v1"


def test_field_copies_both_ways_and_a_lift_only_when_its_condition_holds() -> None:
    field = Field("task/id", "trajectory_id")
    out: dict[str, object] = {}
    field.forward({"task": {"id": "t1"}}, out)
    assert out == {"trajectory_id": "t1"}
    back: dict[str, object] = {}
    field.backward(out, back)
    assert back == {"task": {"id": "t1"}}
    lift = Field("extra/model", "model_name", when=lambda v: isinstance(v, str))
    made: dict[str, object] = {}
    lift.forward({"extra": {"model": 3}}, made)
    assert made == {}
    assert get({"a": 1}, "a/b") is ABSENT


def test_named_keys_are_written_reported_and_read_back_only_where_written() -> None:
    rows = (Named("notes", "notes"), Named("agent/extra", "agent_extra"))
    ctx = Context(STEP, "convert")
    extra = FreeForm({"own": 1, "notes": "producer's"}, "/extra", ctx)
    extra.put_all({"notes": "n", "agent": {"extra": {"x": 1}}}, rows, "", "/extra")
    out: dict[str, object] = {}
    extra.place(out)
    assert out == {"extra": {"own": 1, "notes": "producer's", "agent_extra": {"x": 1}}}
    assert ctx.wrote == ["/extra/agent_extra"]  # the producer's own `notes` is not overwritten

    back = Context(STEP, "convert", reads=frozenset(ctx.wrote))
    given = out["extra"]
    taken = FreeForm(given, "/extra", back)
    rebuilt: dict[str, object] = {}
    taken.take_all(rebuilt, rows)
    taken.place(rebuilt)
    assert rebuilt == {"agent": {"extra": {"x": 1}}, "extra": {"own": 1, "notes": "producer's"}}
    assert given == {"own": 1, "notes": "producer's", "agent_extra": {"x": 1}}  # not modified


def test_a_free_form_object_left_unchanged_is_shared_and_an_emptied_one_is_left_out() -> None:
    given = {"k": 1}
    out: dict[str, object] = {}
    FreeForm(given, "/extra", Context(STEP, "convert")).place(out)
    assert out["extra"] is given
    ctx = Context(STEP, "convert", reads=frozenset({"/extra/k"}))
    emptied = FreeForm(given, "/extra", ctx)
    assert emptied.take({}, "k", "k")
    placed: dict[str, object] = {}
    emptied.place(placed)
    assert placed == {}


def test_a_mapping_that_writes_no_named_keys_still_writes_conventional_members() -> None:
    ctx = Context(STEP, "convert")
    extra = FreeForm(None, "/extra", ctx, writes=False)
    assert not extra.put("named", 1, "/x", "/extra")
    assert extra.put("model", "m", None, "/extra")
    assert ctx.wrote == []
    row = Named("notes", "notes", owner="/steps/*", note="n").row("step")
    assert (row.kind, row.key, row.target) == (
        "named",
        "/steps/*/extra/notes",
        "step `extra.notes`",
    )


def test_a_producers_holder_that_is_no_object_is_never_replaced() -> None:
    extra = FreeForm("a string", "/extra", Context(STEP, "convert"))
    assert not extra.put("notes", "n", "/notes", "/extra")
    out: dict[str, object] = {}
    extra.place(out)
    assert out == {}  # the string travels in the stash's patch, not overwritten by a named key


def test_a_gathered_key_reports_each_member_and_gives_back_only_what_was_written() -> None:
    ctx = Context(STEP, "convert")
    metadata = FreeForm({"own": 1, "taken": "producer's"}, "/metadata", ctx)
    parts = [
        ("/steps/0/cost", "costs", "/0"),
        ("/steps/0/x", "taken", "/0"),
        ("/steps/2/cost", "costs", "/2"),
    ]
    metadata.put_gathered([("costs", {"0": 1.5, "2": 2.5}), ("taken", {"0": 1})], parts, "/m")
    out: dict[str, object] = {}
    metadata.place(out, "metadata")
    assert out["metadata"] == {"own": 1, "taken": "producer's", "costs": {"0": 1.5, "2": 2.5}}
    assert ctx.wrote == ["/m/costs/0", "/m/costs/2"]  # not the producer's own `taken`

    back = FreeForm(
        out["metadata"],
        "/metadata",
        Context(STEP, "convert", reads=frozenset({"/metadata/costs/2", "/metadata/list/1"})),
    )
    assert back.take_gathered("taken") is ABSENT
    assert back.take_gathered("costs") == {"2": 2.5}  # "/metadata/costs/0" is not listed as written
    assert back.keys == {"own": 1, "taken": "producer's"}
    listed = FreeForm({"list": [1, 2]}, "/metadata", back.ctx)
    assert listed.take_gathered("list") == [{}, 2]
    assert FreeForm(None, "/metadata", ctx, writes=False).take_gathered("list") is ABSENT
    silent = FreeForm(None, "/metadata", ctx, writes=False)
    silent.put_gathered([("costs", {})], [], "/metadata")
    assert silent.keys == {}


def test_put_all_writes_only_what_a_rows_condition_accepts() -> None:
    rows = (Named("reward", "reward", when=lambda v: v is not None), Named("idx", "idx"))
    ctx = Context(STEP, "convert")
    extra = FreeForm(None, "/extra", ctx)
    extra.put_all({"reward": None, "idx": None}, rows, "", "/extra")
    assert ctx.wrote == ["/extra/idx"]  # a row without a condition writes a present null


def test_rows_render_dotted_paths_a_root_holder_and_the_other_direction() -> None:
    row = Named("agent/name", "agent_name", holder="telemetry/data").row("")
    assert (row.source, row.target) == ("`agent.name`", "`telemetry.data.agent_name`")
    field = Field("task/id", "trajectory_id", note="forward")
    assert (field.row().source, field.row().note) == ("`task.id`", "forward")
    back = field.row(back=True, note="the other way")
    assert (back.source, back.target, back.note) == (
        "`trajectory_id`",
        "`task.id`",
        "the other way",
    )
