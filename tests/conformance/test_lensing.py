"""Producers' documents through the lenses and back (``atif_spec.conformance.lensing``), and the
``lens:`` items, Warnings and Lenses columns the interop report makes of them."""

from __future__ import annotations

import json
from typing import Any

import pytest

import atif_spec
from atif_spec.conformance import lensing
from atif_spec.conformance.interop import _from_lens, produced, render_markdown
from atif_spec.conformance.lensing import LENSES, RoundTrip, round_trips
from atif_spec.conformance.producing import Produced
from tests.support import ROOT

SUITE = ROOT / "conformance"


def _doc(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SUITE / name).read_text(encoding="utf-8"))
    return loaded


@pytest.mark.parametrize(
    "name", ["atif/v1.7/valid/rich.json", "atif/v1.7/valid/embedded-subagent.json"]
)
def test_valid_documents_pass_every_lens(name: str) -> None:
    results = round_trips([_doc(name)])
    assert [r.target for r in results] == [t for t in LENSES if not t.startswith("atif@")]
    assert {r.outcome for r in results} == {"passed"}, results


def test_a_run_log_goes_through_the_other_formats_and_back_to_itself() -> None:
    doc = _doc("step-substep/v1.0/valid/outcomes-and-sources.json")
    results = round_trips([doc])
    assert [r.target for r in results] == ["atif@v1.7", "tao@v0.2.0", "trajectory-sdk@v0.4"]
    assert {r.outcome for r in results} == {"passed"}, results


def test_a_lens_that_loses_a_field_fails_with_the_pointer(monkeypatch: pytest.MonkeyPatch) -> None:
    real = atif_spec.convert

    def lossy(doc: Any, to: str, **kw: Any) -> Any:
        out, report = real(doc, to=to, **kw)
        if to.startswith("atif@"):
            out = {**out, "notes": "changed on the way back"}
        return out, report

    monkeypatch.setattr(lensing.atif_spec, "convert", lossy)
    doc, other = _doc("atif/v1.7/valid/minimal.json"), _doc("atif/v1.7/valid/rich.json")
    result = round_trips([other, doc])[0]
    assert result.outcome == "failed"
    assert result.detail is not None and result.detail.startswith("document 0: /notes")


def test_a_refusal_is_not_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(doc: Any, to: str, **kw: Any) -> Any:
        raise ValueError("tao is written as tao@v0.2.0 only")

    monkeypatch.setattr(lensing.atif_spec, "convert", refuse)
    got = lensing.round_trip(_doc("atif/v1.7/valid/minimal.json"), "tao@v0.2.0")
    assert got == RoundTrip("tao@v0.2.0", "refused", "tao is written as tao@v0.2.0 only")


def _coming_back(monkeypatch: pytest.MonkeyPatch, change: Any) -> None:
    """Make every conversion back to ATIF return ``change(document)``."""
    real = atif_spec.convert

    def changed(doc: Any, to: str, **kw: Any) -> Any:
        out, report = real(doc, to=to, **kw)
        return (change(out) if to.startswith("atif@") else out), report

    monkeypatch.setattr(lensing.atif_spec, "convert", changed)


def _reversed_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _reversed_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reversed_keys(v) for v in value]
    return value


def test_a_round_trip_that_only_reorders_keys_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """RFC.md §4.6: key order is not data, so another implementation's lens may write any."""
    _coming_back(monkeypatch, _reversed_keys)
    doc = _doc("atif/v1.7/valid/rich.json")
    assert list(_reversed_keys(doc)) != list(doc)
    assert lensing.round_trip(doc, "tao@v0.2.0") == RoundTrip("tao@v0.2.0", "passed")


def test_a_round_trip_that_turns_an_integer_into_a_float_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doc = _doc("atif/v1.7/valid/rich.json")
    step = next(i for i, s in enumerate(doc["steps"]) if isinstance(s.get("step_id"), int))

    def floated(back: Any) -> Any:
        steps = [dict(s) for s in back["steps"]]
        steps[step]["step_id"] = float(steps[step]["step_id"])
        return {**back, "steps": steps}

    _coming_back(monkeypatch, floated)
    got = lensing.round_trip(doc, "tao@v0.2.0")
    assert got.outcome == "failed"
    assert got.detail == f"/steps/{step}/step_id: {doc['steps'][step]['step_id']} became " + (
        f"{float(doc['steps'][step]['step_id'])}"
    )


def test_lens_items_and_the_lenses_column() -> None:
    made = Produced("maker", "demo", "demo/x.log", "valid", documents=[{}])
    made.warnings = ["ATIF301 at /steps/1/metrics/cached_tokens", "ATIF301 at /steps/2/metrics"]
    made.lenses = [
        RoundTrip("tao@v0.2.0", "passed"),
        RoundTrip("trajectory-sdk@v0.4", "refused", "not written"),
        RoundTrip("step-substep@v1.0", "failed", "/notes: dropped"),
    ]
    items = [_from_lens(made, r) for r in made.lenses]
    assert [(i["id"], i["outcome"], i["kind"]) for i in items] == [
        ("lens:demo/x.log>tao@v0.2.0", "passed", "lens"),
        ("lens:demo/x.log>trajectory-sdk@v0.4", "skipped", "lens"),
        ("lens:demo/x.log>step-substep@v1.0", "failed", "lens"),
    ]
    rows = produced([made], items)
    assert rows[0]["lenses"] == {
        "tao@v0.2.0": "passed",
        "trajectory-sdk@v0.4": "refused",
        "step-substep@v1.0": "failed",
    }
    data = {
        "peers": {},
        "listed": [],
        "matrix": [],
        "groups": [],
        "produced": rows,
        "cross_checks": [],
        "written": {"documents": 0, "sources": 0, "refused": 0, "invalid": []},
        "problems": [],
    }
    assert rows[0]["warnings"] == {"ATIF301": 2}
    assert "| ATIF301 (2) | 1/3 (step-substep@v1.0 failed) |" in render_markdown(data)
