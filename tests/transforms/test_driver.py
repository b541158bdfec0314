"""The one driver: a step's residue is its patch; the inverse restores exactly (RFC.md §4.5)."""

from __future__ import annotations

import contextlib
import gc
import sys
from typing import Any

import orjson
import pytest

import atif_spec
from atif_spec.transforms import driver
from atif_spec.transforms.changes import ChangeReport
from atif_spec.transforms.driver import Context, Options, Refused, Step, run
from atif_spec.transforms.stash import STASH_KEY
from tests.support import ROOT
from tests.support.documents import minimal_atif

Doc = dict[str, Any]


def _down(doc: Doc, ctx: Context) -> Doc:
    """A toy ``b`` → ``a``: ``n`` is lost, ``flag: true`` goes under a named key."""
    out = {k: v for k, v in doc.items() if k not in ("n", "flag")}
    out["schema"] = "a"
    if doc.get("flag") is True:
        out["extra"] = {**out.get("extra", {}), "flag": True}
        ctx.name("/flag", "/extra/flag", "a has no flag")
    if "id" not in out:
        out["id"] = "made"
        ctx.decide("/id", "a requires an id", "made")
    return out


def _up(doc: Doc, ctx: Context) -> Doc:
    out = {k: v for k, v in doc.items() if k != "a_only"}
    out["schema"] = "b"
    extra = out.get("extra")
    if ctx.read("/extra/flag") and isinstance(extra, dict):
        rest = {k: v for k, v in extra.items() if k != "flag"}
        out["flag"] = extra["flag"]
        if rest:
            out["extra"] = rest
        else:
            del out["extra"]
    return out


DOWN = Step("step-substep@v1.0", "atif@v1.8", _down, _up)


def test_a_round_trip_gives_the_source_back_and_reports_once() -> None:
    source = {"schema": "b", "n": 7, "flag": True}
    report = ChangeReport()
    out = run(DOWN, source, report, Options(), "convert")
    layer = out["extra"][STASH_KEY]["layers"][0]
    assert layer["by"] == "step-substep@v1.0->atif@v1.8"
    assert layer["wrote"] == ["/extra/flag"]
    assert [i.pointer for i in report.stashed] == ["/id", "/n"]
    assert [i.to for i in report.named] == ["/extra/flag"]
    back_report = ChangeReport()
    back = run(DOWN.inverse, out, back_report, Options(), "convert")
    assert back == source
    assert back_report.stashed == back_report.dropped == []


def test_a_producers_own_key_at_a_named_place_is_not_read_back() -> None:
    native = {"schema": "a", "id": "x", "extra": {"flag": True}}
    out = run(DOWN.inverse, native, ChangeReport(), Options(), "convert")
    assert "flag" not in out
    assert run(DOWN, out, ChangeReport(), Options(), "convert") == native


def test_an_edit_after_the_conversion_is_kept_in_a_new_layer() -> None:
    """Restoring, what the way back cannot give back (an edit since the conversion) is stashed
    as after any step, so converting once more gives the edited document back."""
    out = run(DOWN, {"schema": "b", "n": 7}, ChangeReport(), Options(), "convert")
    out["a_only"] = "edited"
    report = ChangeReport()
    back = run(DOWN.inverse, out, report, Options(), "convert")
    assert back["n"] == 7 and "a_only" not in back
    assert [i.pointer for i in report.stashed] == ["/a_only"] and not report.dropped
    assert back["extra"][STASH_KEY]["layers"] == [
        {
            "by": "atif@v1.8->step-substep@v1.0",
            "patch": [{"op": "add", "path": "/a_only", "value": "edited"}],
        }
    ]
    assert run(DOWN, back, ChangeReport(), Options(), "convert") == out


def test_drop_writes_no_stash() -> None:
    report = ChangeReport()
    out = run(DOWN, {"schema": "b", "n": 7}, report, Options(drop=True), "convert")
    assert "extra" not in out
    assert [i.pointer for i in report.dropped] == ["/id", "/n"]


def test_a_refusal_carries_its_finding() -> None:
    def refuse(doc: Doc, ctx: Context) -> Doc:
        raise ctx.refuse("nope", "/x", "no")

    with pytest.raises(Refused) as caught:
        run(
            Step("step-substep@v1.0", "atif@v1.8", refuse, _up),
            {},
            ChangeReport(),
            Options(),
            "migrate",
        )
    assert caught.value.finding.code == "migrate:nope"


def test_finish_sees_what_the_mapping_made_and_the_document_written() -> None:
    """A digest of the written document (TAO's ``content_hash``) is made by ``finish``, after the
    stash is attached: it covers the stash too."""
    seen: list[tuple[Doc, Doc]] = []

    def finish(made: Doc, written: Doc) -> Doc:
        seen.append((made, written))
        return {**written, "digest": len(str(sorted(written)))}

    step = Step(DOWN.source, DOWN.target, _down, _up, finish)
    out = run(step, {"schema": "b", "n": 7}, ChangeReport(), Options(), "convert")
    ((made, written),) = seen
    assert STASH_KEY not in made.get("extra", {})
    assert STASH_KEY in written["extra"]
    assert out == {**written, "digest": len(str(sorted(written)))}


def _tao_chain(depth: int) -> Doc:
    """A TAO record whose agent steps each launch the next as a subagent, ``depth`` deep."""
    steps: list[Doc] = [{"step_index": 0, "role": "user", "content": "go"}]
    for i in range(1, depth + 1):
        call = {"tool_call_id": f"t{i}", "tool_name": "Task", "input": {"description": "d"}}
        steps.append(
            {
                "step_index": i,
                "role": "agent",
                "content": f"level {i}",
                "call_type": "main" if i == 1 else "subagent",
                **({"parent_step": i - 1} if i > 1 else {}),
                "tool_calls": [call],
                "observations": [{"source_call_id": f"t{i}", "content": "ok"}],
            }
        )
    record = {"schema_version": "0.2.0", "trace_id": "7b9d1f3a-5c7e-4a2b-9d4f-6e8a0c2e4b6d"}
    return {**record, "session_id": "s", "agent": {"name": "a"}, "steps": steps}


def _atif_chain(depth: int) -> Doc:
    """An ATIF v1.8 document whose embedded subagent embeds the next, ``depth`` deep."""
    doc = minimal_atif("v1.8")
    for n in range(depth):
        doc = {**minimal_atif("v1.8"), "trajectory_id": f"t{n}", "subagent_trajectories": [doc]}
    return doc


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: atif_spec.convert(_tao_chain(sys.getrecursionlimit()), to="atif@v1.7"), "Conv"),
        (lambda: atif_spec.migrate(_atif_chain(sys.getrecursionlimit()), to="v1.7"), "Migr"),
    ],
    ids=["convert-tao-subagents", "migrate-atif-subagents"],
)
def test_a_document_nested_too_deep_is_refused_with_a_finding(call: Any, error: str) -> None:
    with pytest.raises((atif_spec.ConversionError, atif_spec.MigrationError)) as caught:
        call()
    assert type(caught.value).__name__.startswith(error)
    assert [f.code for f in caught.value.report.errors] == ["input:too-deep"]


def test_a_nested_document_within_the_limit_converts() -> None:
    out, report = atif_spec.convert(_tao_chain(20), to="atif@v1.7")
    assert report.errors == [] and "subagent_trajectories" in out


@pytest.mark.parametrize("to", ["tao@v0.2.0", "v1.6"])
def test_steps_run_with_the_cyclic_collector_paused_and_it_is_restored(
    monkeypatch: pytest.MonkeyPatch, to: str
) -> None:
    """Steps allocate many small objects and no cycles: a running collector would re-scan the
    freshly parsed document again and again (migrate and convert pause it alike)."""
    seen: list[bool] = []
    real = driver.run

    def spy(*args: Any) -> Doc:
        seen.append(gc.isenabled())
        return real(*args)

    monkeypatch.setattr(driver, "run", spy)
    call = atif_spec.convert if "@" in to else atif_spec.migrate
    for running in (True, False):
        (gc.enable if running else gc.disable)()
        try:
            call(minimal_atif("v1.7"), to=to)
            assert gc.isenabled() is running
        finally:
            gc.enable()
    assert seen and not any(seen)


def test_steps_leave_no_reference_cycle_behind() -> None:
    """What the paused collector relies on: every object a conversion or migration makes is
    freed by reference counting (a cycle would wait for the collector, holding what it reaches)."""
    folders = ("atif/v1.7", "tao/v0.2.0", "step-substep/v1.0")
    docs = [
        orjson.loads(path.read_bytes())
        for folder in folders
        for path in sorted((ROOT / "conformance" / folder / "valid").glob("*.json"))
    ]
    targets = ("atif@v1.7", "v1.0", "tao@v0.2.0", "step-substep@v1.0", "trajectory-sdk@v0.4")
    left: list[tuple[int, str, int]] = []
    for rounds in range(2):  # the first round also imports and fills caches
        for n, doc in enumerate(docs):
            for to in targets:
                gc.collect(0)  # what a conversion makes is young until a collection
                with driver.gc_paused():
                    with contextlib.suppress(atif_spec.ConversionError):
                        atif_spec.convert(doc, to=to)
                    found = gc.collect(0)
                if rounds and found:
                    left.append((n, to, found))
    assert len(docs) > 50 and left == []
