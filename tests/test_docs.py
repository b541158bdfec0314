"""Generated documentation regions are up to date with the registry and the schemas."""

from __future__ import annotations

from atif_spec import docgen

from conftest import ROOT


def test_rfc_generated_regions_are_current() -> None:
    text = (ROOT / "RFC.md").read_text(encoding="utf-8")
    assert docgen.render(text) == text, "RFC.md is stale: run `nox -s generate`"


def test_rule_table_lists_every_rule() -> None:
    from atif_spec.rules import REGISTRY

    table = docgen.rule_table()
    for rule in REGISTRY:
        assert f"| `{rule.code}` | `{rule.name}` |" in table


def test_check_mode_detects_drift(tmp_path: object) -> None:
    from pathlib import Path

    stale = Path(str(tmp_path)) / "RFC.md"
    stale.write_text((ROOT / "RFC.md").read_text().replace("| `ATIF101` |", "| `ATIF999` |"))
    assert docgen.main(["--check", str(stale)]) == 1
    assert docgen.main([str(stale)]) == 0
    assert docgen.main(["--check", str(stale)]) == 0
