"""The suite as data: where it is found, and exported for implementations in any language."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from atif_spec.cli.conformance import conformance
from atif_spec.conformance import suite
from tests.support import ROOT

SUITE = ROOT / "conformance"


def test_a_checkout_uses_its_own_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert suite.default_suite() == Path("conformance")


def test_elsewhere_the_installed_suite_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: outside a checkout, `atif conformance run` and `atif rules CODE` found no suite."""
    monkeypatch.chdir(tmp_path)
    found = suite.default_suite()
    assert found is not None and found.is_absolute()
    assert len(suite.load_suite(found)) == len(suite.load_suite(SUITE))


def test_suite_files_are_the_suite_proper() -> None:
    names = {p.relative_to(SUITE).as_posix() for p in suite.suite_files(SUITE)}
    assert "PROTOCOL.md" in names
    assert {c.document.relative_to(SUITE).as_posix() for c in suite.load_suite(SUITE)} <= names
    assert "migrations/v1.8__v1.7/before.json" in names
    tops = {name.split("/")[0] for name in names}
    assert not tops & {"adapters", "native", "known-differences", "INTEROP.md", "interop.json"}


@pytest.mark.parametrize("name", ["suite", "suite.tar.gz"])
def test_export_writes_every_file(tmp_path: Path, name: str) -> None:
    out = tmp_path / name
    result = CliRunner().invoke(conformance, ["export", str(out), "--suite", str(SUITE)])
    assert result.exit_code == 0, result.output
    expected = {p.relative_to(SUITE).as_posix() for p in suite.suite_files(SUITE)}
    if name.endswith(".tar.gz"):
        with tarfile.open(out) as archive:
            got = {m.name.removeprefix("conformance/") for m in archive.getmembers()}
    else:
        got = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
        assert len(suite.load_suite(out)) == len(suite.load_suite(SUITE))
    assert got == expected
    assert f"wrote {len(expected)} files" in result.output
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no staging folder left


def test_export_never_writes_over_something(tmp_path: Path) -> None:
    out = tmp_path / "taken"
    out.mkdir()
    (out / "mine.txt").write_text("keep", encoding="utf-8")
    result = CliRunner().invoke(conformance, ["export", str(out), "--suite", str(SUITE)])
    assert result.exit_code == 2
    assert "exists" in result.output
    assert [p.name for p in out.iterdir()] == ["mine.txt"]
