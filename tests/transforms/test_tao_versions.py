"""The TAO version chain (atif_spec.transforms.tao_versions): every step through the one driver,
exact round trips, valid outputs with a right ``content_hash``, and ``outcome.patch`` migrated as
the wheel's ``migrations.migrate_record`` migrates it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from atif_spec.formats import tao
from atif_spec.jsonio.jsonequal import same_json
from atif_spec.schemas.catalog import load_catalog
from atif_spec.schemas.compiled import rs_validator
from atif_spec.transforms import driver, tao_versions
from atif_spec.transforms.changes import ChangeReport
from atif_spec.validation.findings import Level
from atif_spec.validation.rules.engine import run_rules
from tests.support import ROOT

SUITE = ROOT / "conformance" / "tao"
VALID = sorted(SUITE.glob("*/valid/*.json"))
MODELS = ROOT / "tests" / "support" / "opentraces_models"
LEGACY = SUITE / "v0.3.0" / "valid" / "outcome-patch.json"


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _migrate(doc: Any, source: str, target: str, report: ChangeReport | None = None) -> Any:
    report = report if report is not None else ChangeReport()
    return tao_versions.run(doc, source, target, report, driver.Options(), "migrate")


def test_the_steps_are_the_adjacent_pairs_both_ways() -> None:
    names = [s.name for s in tao_versions.plan("v0.1.0", "v0.9.0")]
    assert names == [
        "tao@v0.1.0->tao@v0.2.0",
        "tao@v0.2.0->tao@v0.3.0",
        "tao@v0.3.0->tao@v0.6.0",
        "tao@v0.6.0->tao@v0.7.0",
        "tao@v0.7.0->tao@v0.9.0",
    ]
    down = tao_versions.plan("v0.9.0", "v0.1.0")
    assert [s.name for s in down] == [s.inverse.name for s in reversed(tao_versions.UP)]
    assert tao_versions.plan("v0.6.0", "v0.6.0") == []


@pytest.mark.parametrize("path", VALID, ids=[str(p.relative_to(SUITE)) for p in VALID])
def test_every_valid_record_goes_to_every_version_and_back(path: Path) -> None:
    """The result is a valid record of the target (schema, no rule error: its content_hash is
    right) detected as that version; the way back gives the source exactly."""
    doc = _load(path)
    source = tao.detect(doc)
    assert source in tao.VERSIONS
    for target in tao.VERSIONS:
        out = _migrate(doc, source, target)
        assert tao.detect(out) == target
        assert rs_validator(load_catalog().find(f"tao@{target}").id).is_valid(out)
        assert [f for f in run_rules(out, "tao", target) if f.level is Level.ERROR] == []
        assert same_json(_migrate(out, target, source), doc), target


def test_a_record_opentraces_wrote_goes_down_and_up_without_a_stash() -> None:
    """A filled record (every field written) stays filled: the way up writes the fields the
    way down took out when they held their defaults (opentraces 0.4.13 writes no patches, no
    context tree, no pins), so nothing needs the stash."""
    doc = _load(SUITE / "v0.9.0" / "valid" / "opentraces-bash-one-call.json")
    down = _migrate(doc, "v0.9.0", "v0.3.0")
    assert "_atif_stash" not in down["metadata"]
    assert list(down) == list(tao.schema("v0.3.0")["properties"])
    assert down["content_hash"] == tao.content_hash(down, "v0.3.0")
    assert _migrate(down, "v0.3.0", "v0.9.0") == doc


def test_what_the_target_cannot_hold_is_stashed_and_comes_back() -> None:
    doc = _load(SUITE / "v0.9.0" / "valid" / "environment-pins.json")
    report = ChangeReport()
    down = _migrate(doc, "v0.9.0", "v0.3.0", report)
    assert "interpreter" not in down["environment"] and "patches" not in down
    stashed = {item.pointer for item in report.stashed}
    assert {"/environment/interpreter", "/patches", "/context_tree_summary"} <= stashed
    assert down["content_hash"] == tao.content_hash(down, "v0.3.0")  # the stash included
    assert _migrate(down, "v0.3.0", "v0.9.0") == doc


@pytest.mark.parametrize("target", ["v0.6.0", "v0.7.0", "v0.9.0"])
def test_outcome_patch_is_migrated_as_migrate_record_does(target: str) -> None:
    """outcome, patches and metadata.legacy agree with opentraces-schema 0.9.0's
    migrate_record on the same record (recorded from the wheel); the way down gives the 0.3.0
    record back, outcome.patch included, without a stash."""
    wheel = _load(MODELS / "v0.9.0.json")["migrate_record"]
    assert wheel["input"] == str(LEGACY.relative_to(ROOT))
    doc = _load(LEGACY)
    out = _migrate(doc, "v0.3.0", target)
    for key in ("outcome", "patches"):
        assert out[key] == wheel["output"][key], key
    assert out["metadata"]["legacy"] == wheel["output"]["metadata"]["legacy"]
    assert "_atif_stash" not in out["metadata"]
    assert _migrate(out, target, "v0.3.0") == doc


def test_reconstructed_patches_follow_the_wheel_on_odd_diffs() -> None:
    """Deleted files take the pre-image path, tabs and a/ b/ prefixes are cut, text before the
    first header and text that is no diff give nothing."""
    diff = (
        "noise\n--- a/old.py\t2026-01-01\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
        "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+y\n"
    )
    assert [p["file_path"] for p in tao_versions.reconstruct_patches(diff)] == ["old.py", "new.py"]
    assert tao_versions.reconstruct_patches("just text") == []
    assert tao_versions.reconstruct_patches("  \n") == []


def test_a_wrong_hash_is_corrected_and_kept_in_the_stash() -> None:
    doc = dict(_load(SUITE / "v0.2.0" / "valid" / "minimal-with-hash.json"), content_hash="0" * 64)
    up = _migrate(doc, "v0.2.0", "v0.3.0")
    assert up["content_hash"] == tao.content_hash(up, "v0.3.0")
    assert _migrate(up, "v0.3.0", "v0.2.0") == doc


def test_a_record_without_a_version_gets_the_targets() -> None:
    doc = _load(SUITE / "v0.2.0" / "valid" / "no-schema-version.json")
    up = _migrate(doc, "v0.2.0", "v0.9.0")
    assert next(iter(up.items())) == ("schema_version", "0.9.0")
    assert _migrate(up, "v0.9.0", "v0.2.0") == doc


@pytest.mark.parametrize(
    ("doc", "to", "code"),
    [
        ({"schema_version": "0.8.0", "trace_id": "t", "session_id": "s", "agent": {}}, "tao@v0.9.0",
         "input:unknown-schema-version"),
        ({"schema_version": "ATIF-v1.7", "session_id": "s"}, "tao@v0.9.0", "input:unknown-format"),
        ([], "tao@v0.9.0", "input:unknown-format"),
    ],
    ids=["unpublished-version", "atif", "not-an-object"],
)  # fmt: skip
def test_migrate_refuses_with_one_reason(doc: Any, to: str, code: str) -> None:
    report = ChangeReport()
    assert tao_versions.migrate(doc, to, report, driver.Options()) is None
    assert [f.code for f in report.errors] == [code]


def test_migrate_names_the_source_version() -> None:
    report = ChangeReport()
    doc = _load(SUITE / "v0.1.0" / "valid" / "minimal.json")
    out = tao_versions.migrate(doc, "tao@v0.7.0", report, driver.Options())
    assert out is not None and out["schema_version"] == "0.7.0"
    assert (report.from_, report.errors) == ("tao@v0.1.0", [])


def test_migrate_takes_only_a_published_target() -> None:
    doc = {"trace_id": "t", "session_id": "s", "agent": {"name": "a"}}
    with pytest.raises(ValueError, match="not a TAO version"):
        tao_versions.migrate(doc, "tao@v0.8.0", ChangeReport(), driver.Options())


def test_the_version_table_lists_what_each_step_takes_out_from_the_schemas() -> None:
    rows = {row.source: row for row in tao_versions.MAPPING_TABLES[0].rows}
    assert "Added in v0.3.0" in rows["`lifecycle`"].note
    assert "Added in v0.9.0" in rows["`environment.interpreter`"].note
    assert rows["`outcome.patch`"].target == "`patches[]`, `metadata.legacy.patch`"
    assert "`attribution.version`" in rows  # removed in 0.2.0
    assert "`git_links[].branch`" not in rows  # below git_links, which is listed
