"""The gate over the released schemas (``spectools.specgate``, ``atif spec check``) as it stands:
every schema the catalog marks released is locked, and an edit to one of them or to one of its
bundles, made on a copy of the tree, is refused with a message that says to make a new version.
(Synthetic catalogs: ``tests/spectools/test_specdiff.py``.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from atif_spec.cli.spec import spec
from atif_spec.schemas.catalog import SchemaEntry, load_catalog
from atif_spec.spectools import specgate
from tests.support import ROOT

RELEASED = [e for e in load_catalog() if e.status == "released"]
NEW_VERSION = "a released version never changes: make the change in a new version"

FIRST_RELEASE = {
    *(f"atif/v1.{n}/trajectory.schema.json" for n in range(9)),
    *(f"tao/{v}/trace-record.schema.json" for v in ("v0.1.0", "v0.2.0", "v0.3.0")),
    *(f"tao/{v}/trace-record.schema.json" for v in ("v0.6.0", "v0.7.0", "v0.9.0")),
    "trajectory-sdk/v0.4/trajectory.schema.json",
    "step-substep/v1.0/run-log.schema.json",
    "step-substep/v1.0/legacy-turn-event.schema.json",
    "atif-spec/v1/validation-report.schema.json",
    "atif-spec/v1/conformance-manifest.schema.json",
    "atif-spec/v1/conformance-request.schema.json",
    "atif-spec/v1/conformance-response.schema.json",
    "atif-spec/v1/conformance-report.schema.json",
}
"""What issue 33 released first. A release is never withdrawn, so this set only grows."""


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A copy of ``spec/`` and ``generated/bundles/``, lock included."""
    top = tmp_path_factory.mktemp("released")
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "spec", top / "spec", ignore=ignore)
    shutil.copytree(ROOT / "generated" / "bundles", top / "bundles", ignore=ignore)
    return top / "spec", top / "bundles"


def test_the_first_release_is_released_and_locked() -> None:
    assert {e.path for e in RELEASED} >= FIRST_RELEASE
    lock = specgate.read_lock(specgate.spec_root())
    assert set(lock) == {p for e in RELEASED for p in specgate.locked_paths(e)}


def _edited(path: Path) -> bytes:
    """Edit a schema file's root description in place; returns its bytes before."""
    kept = path.read_bytes()
    assert kept.count(b'"description": "') >= 1
    path.write_bytes(kept.replace(b'"description": "', b'"description": "Edited. ', 1))
    return kept


@pytest.mark.parametrize("entry", RELEASED, ids=lambda e: e.path)
def test_an_edit_to_a_released_schema_or_its_bundle_is_refused(
    tree: tuple[Path, Path], entry: SchemaEntry
) -> None:
    root, bundles = tree
    assert specgate.check_released(root=root, bundles=bundles) == []
    kept = _edited(root / entry.path)
    try:
        problems = specgate.check_released(root=root, bundles=bundles)
    finally:
        (root / entry.path).write_bytes(kept)
    assert problems == [f"{entry.path}: released schema changed ({NEW_VERSION})"]
    for kind in specgate.BUNDLE_KINDS:
        bundle = bundles / kind / entry.path
        kept = _edited(bundle)
        try:
            problems = specgate.check_released(root=root, bundles=bundles)
        finally:
            bundle.write_bytes(kept)
        assert len(problems) == 1
        assert problems[0].startswith(f"bundles/{kind}/{entry.path}: the bundle of a released")
        assert "make a schema change in a new version" in problems[0]


def test_ci_refuses_an_edit_with_the_new_version_message(
    tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``atif spec check`` (``nox -s spec-check``, run by CI) over a tree where a released
    schema was edited: exit 1, and the line says to make a new version."""
    root, bundles = tree
    monkeypatch.setattr(specgate, "spec_root", lambda: root)
    monkeypatch.setattr(specgate, "bundles_root", lambda: bundles)
    assert CliRunner().invoke(spec, ["check"]).exit_code == 0
    path = root / "atif" / "v1.7" / "trajectory.schema.json"
    kept = _edited(path)
    try:
        result = CliRunner().invoke(spec, ["check"])
    finally:
        path.write_bytes(kept)
    assert result.exit_code == 1
    assert (
        f"spec-check: atif/v1.7/trajectory.schema.json: released schema changed ({NEW_VERSION})"
        in result.output
    )
