"""The conversion planner: lenses composed through ATIF, with migrations before and after."""

from __future__ import annotations

import json
from typing import Any

import pytest

import atif_spec
from atif_spec.transforms import lenses as convert_module
from atif_spec.transforms import migrations, tao_versions
from atif_spec.transforms.driver import Context, Step
from atif_spec.transforms.lenses import ConversionError, convert
from tests.support import ROOT
from tests.support.documents import minimal_atif

TAO_DOC = json.loads(
    next((ROOT / "conformance" / "tao" / "v0.2.0" / "valid").glob("*.json")).read_text()
)


@pytest.fixture
def fake_lenses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Replace the registry with two recording lenses between TAO and ATIF v1.7."""
    seen: list[str] = []

    def tao_to_atif(doc: dict[str, Any], ctx: Context) -> dict[str, Any]:
        seen.append(f"tao->atif {doc.get('schema_version')}")
        return minimal_atif("v1.7")

    def atif_to_tao(doc: dict[str, Any], ctx: Context) -> dict[str, Any]:
        seen.append(f"atif->tao {doc['schema_version']}")
        return TAO_DOC

    step = Step("tao@v0.2.0", "atif@v1.7", tao_to_atif, atif_to_tao)
    lenses = (step, step.inverse)
    monkeypatch.setattr(convert_module, "all_lenses", lambda: lenses)
    return seen


def test_into_atif_then_migrated_to_the_requested_version(fake_lenses: list[str]) -> None:
    out, report = convert(TAO_DOC, "atif@v1.8")
    assert out["schema_version"] == "ATIF-v1.8"
    assert (report.from_, report.to) == ("tao@v0.2.0", "atif@v1.8")
    assert fake_lenses == ["tao->atif 0.2.0", "atif->tao ATIF-v1.7"]  # forward, then backward


def test_out_of_atif_after_migrating_to_the_lens_version(fake_lenses: list[str]) -> None:
    out, report = convert(minimal_atif("v1.3"), "tao@v0.2.0")
    assert out is TAO_DOC
    assert fake_lenses == ["atif->tao ATIF-v1.7", "tao->atif 0.2.0"]
    assert report.decided == []


def test_between_atif_versions_is_a_migration() -> None:
    doc = minimal_atif("v1.7")
    doc["steps"][0]["llm_call_count"] = 1
    out, report = atif_spec.convert(doc, to="v1.6")
    assert out["schema_version"] == "ATIF-v1.6"
    assert [i.pointer for i in report.stashed] == ["/steps/0/llm_call_count"]


def test_refusals_are_reported(fake_lenses: list[str]) -> None:
    with pytest.raises(ConversionError) as bad_target:
        convert(minimal_atif("v1.7"), "tao@v9.9")
    assert bad_target.value.report.errors[0].code == "convert:bad-target"
    with pytest.raises(ConversionError) as unknown:
        convert({"hello": 1}, "atif@v1.7")
    assert unknown.value.report.errors[0].code == "input:unknown-format"
    with pytest.raises(ConversionError) as loss:
        doc = minimal_atif("v1.7")
        doc["steps"][0]["llm_call_count"] = 1
        convert(doc, "atif@v1.6", fail_on_loss=True)
    assert loss.value.report.errors[0].code.endswith("would-lose-data")


# --- TAO versions in conversions (spec/tao/DECISIONS.md D38) --------------------------------------

TAO_SUITE = ROOT / "conformance" / "tao"


def test_tao_converts_between_its_versions() -> None:
    doc = json.loads((TAO_SUITE / "v0.6.0/valid/devtime-patches.json").read_text(encoding="utf-8"))
    old, report = convert(doc, "tao@v0.1.0")
    assert (report.from_, report.to, old["schema_version"]) == ("tao@v0.6.0", "tao@v0.1.0", "0.1.0")
    assert convert(old, "tao@v0.6.0")[0] == doc


def test_a_tao_record_of_any_version_goes_through_atif_and_back() -> None:
    """A 0.9.0 record goes down to the lens's 0.2.0 before it, and back up after the way back;
    a bare ``tao`` target is the newest version."""
    path = TAO_SUITE / "v0.9.0/valid/opentraces-task-subagent.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    atif, _ = convert(doc, "atif@v1.8")
    assert atif["schema_version"] == "ATIF-v1.8"
    back, report = convert(atif, "tao")
    assert report.to == "tao@v0.9.0"
    assert back == doc


def test_every_lens_rebuilds_and_every_version_step_shares() -> None:
    """The residue's diff compares a lens's rebuilt containers in C first; a version step's way
    back shares what it keeps, so the diff skips shared members instead (whichever API runs it)."""
    assert all(lens.rebuilds for lens in convert_module.all_lenses())
    version_steps = [*tao_versions.UP, *tao_versions.DOWN, *migrations.plan("v1.0", "v1.8")]
    assert version_steps and not any(step.rebuilds for step in version_steps)
