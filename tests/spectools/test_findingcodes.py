"""The recorded finding codes (``spec/finding-codes.json``, ``spectools.findingcodes``): a
released code never disappears and never changes its name, level, format or meaning.

New codes may be added: register the rule (or list the code in ``atif_spec.validation.codes``),
then run ``python -m atif_spec.spectools.docgen`` (``nox -s generate``), which records it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from atif_spec.schemas.catalog import Catalog, load_catalog
from atif_spec.spectools import docgen, findingcodes
from tests.support import ROOT

RECORDED = json.loads((ROOT / findingcodes.PATH).read_text("utf-8"))["codes"]
HOW = (
    "a released finding code never disappears and never changes its name, level, format or "
    "meaning (RFC.md §4.2): give a new meaning a new code. New codes are added by "
    "`python -m atif_spec.spectools.docgen`."
)


@pytest.mark.parametrize(
    "old", [e for e in RECORDED if e["status"] == "released"], ids=lambda e: e["code"]
)
def test_a_released_code_keeps_its_name_level_format_and_meaning(old: dict[str, Any]) -> None:
    now = {e["code"]: e for e in findingcodes.current()}
    assert old["code"] in now, HOW
    assert {k: now[old["code"]][k] for k in findingcodes.FROZEN} == {
        k: old[k] for k in findingcodes.FROZEN
    }, HOW


def test_the_list_records_every_code_the_sources_define() -> None:
    assert docgen.finding_codes(check=True, root=ROOT) == [], (
        "run `python -m atif_spec.spectools.docgen` to record new codes"
    )
    codes = [e["code"] for e in RECORDED]
    assert len(codes) == len(set(codes))
    assert {"ATIF101", "input:invalid-utf8", "schema:required", "convert:no-conversion"} <= set(
        codes
    )


def test_what_is_released_follows_the_catalog() -> None:
    status = {e["code"]: e["status"] for e in RECORDED}
    assert status["ATIF101"] == status["TAO101"] == status["input:too-large"] == "released"
    assert status["schema:required"] == "released"
    assert status["ATOF101"] == "draft"  # ATOF 0.1 is a draft
    assert status["migrate:would-lose-data"] == "released"  # with the change report (1.0.0)


def _released(catalog: Catalog, targets: set[str]) -> Catalog:
    entries = tuple(
        dataclasses.replace(e, status="released") if e.target in targets else e for e in catalog
    )
    return Catalog(catalog.base_url, catalog.formats, entries)


def test_a_code_is_released_with_every_version_it_applies_to() -> None:
    later = findingcodes.current(_released(load_catalog(), {"atof@v0.1"}))
    assert {e["status"] for e in later if e["format"] == "atof"} == {"released"}


def test_update_adds_codes_and_refuses_to_change_or_drop_a_released_one() -> None:
    recorded = findingcodes.current()
    now = [dict(e) for e in recorded if e["code"] != "input:invalid-json"]
    atif101 = next(e for e in now if e["code"] == "ATIF101")
    atif101["level"] = "warning"
    atof101 = next(e for e in now if e["code"] == "ATOF101")
    atof101["meaning"] = "something else"  # a draft code may change
    now.append({**atif101, "code": "ATIF999", "level": "error", "status": "draft"})
    entries, problems = findingcodes.update(recorded, now)
    assert [p.partition(":")[0] for p in problems] == ["ATIF101", "input"]
    assert "changed its level (was 'error', now 'warning')" in problems[0]
    assert "disappeared" in problems[1]
    assert entries[-1]["code"] == "ATIF999"
    # A code released once stays released, whatever the catalog says later.
    draft = [{**e, "status": "draft"} for e in recorded]
    entries, problems = findingcodes.update(recorded, draft)
    assert problems == [] and entries == recorded


def test_docgen_refuses_a_changed_released_code_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / findingcodes.PATH
    path.parent.mkdir()
    edited = [{**e, "level": "warning"} if e["code"] == "ATIF101" else e for e in RECORDED]
    text = findingcodes.render(edited)
    path.write_bytes(text)
    for check in (True, False):
        problems = docgen.finding_codes(check=check, root=tmp_path)
        assert len(problems) == 1 and "ATIF101: a released finding code changed" in problems[0]
        assert path.read_bytes() == text
    # A new code is only recorded, never refused.
    path.write_bytes(findingcodes.render([e for e in RECORDED if e["status"] == "draft"]))
    assert docgen.finding_codes(check=True, root=tmp_path) != []
    assert docgen.finding_codes(check=False, root=tmp_path) == []
    assert path.read_bytes() == (ROOT / findingcodes.PATH).read_bytes()
