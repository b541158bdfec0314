"""Generated documentation regions are up to date with the registry and the schemas."""

from __future__ import annotations

from atif_spec.spectools import docgen
from tests.support import ROOT


def test_rfc_generated_regions_are_current() -> None:
    text = (ROOT / "RFC.md").read_text(encoding="utf-8")
    assert docgen.render(text) == text, "RFC.md is stale: run `nox -s generate`"


def test_rule_table_lists_every_rule() -> None:
    from atif_spec.validation.rules import REGISTRY

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


def test_readme_fixture_count_is_current() -> None:
    """README.md states the suite's size as computed (was: a hand-written "~670")."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert docgen.render(text) == text, "README.md is stale: run `nox -s generate`"
    assert "fixtures (" in text and "~670" not in text
    assert "Python 3.11 or newer" in text


def test_rfc_calls_no_existing_command_to_come() -> None:
    """RFC.md §4 listed migrate, convert, render and export-sft as "commands to come"."""
    text = (ROOT / "RFC.md").read_text(encoding="utf-8")
    section = text.split("## 4. Conventions", 1)[1].split("### 4.1", 1)[0]
    assert "to come" not in section


def test_rules_and_format_docs_cite_only_what_the_repository_holds() -> None:
    """Rule sections, rule docs, DECISIONS.md and MAPPING.md cited reference sheets that are
    not in this repository ("ref A5", "reference sheet §2.5", ``shared/reference/...``)."""
    import re

    from atif_spec.validation.rules import REGISTRY

    foreign = re.compile(r"\bref (?:§|[A-G]\d)|reference sheet|shared/reference|\bsheet\b")
    bad = [r.code for r in REGISTRY if foreign.search(r.section) or foreign.search(r.doc)]
    assert bad == []
    docs = sorted((ROOT / "spec").glob("*/DECISIONS.md")) + sorted(
        (ROOT / "spec").glob("*/MAPPING.md")
    )
    assert docs
    bad_docs = [str(p.relative_to(ROOT)) for p in docs if foreign.search(p.read_text("utf-8"))]
    assert bad_docs == []
    # Every section names a document of this repository.
    ours = re.compile(r"RFC\.md §|spec/[a-z-]+/(?:DECISIONS|MAPPING)\.md")
    assert [r.code for r in REGISTRY if not ours.search(r.section)] == []
