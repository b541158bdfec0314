"""Our validator produces exactly the expected findings of every conformance case.

Expected findings were written from the spec; this test is the check that the implementation
agrees with them (a multiset of ``(code, pointer)``; messages are never compared).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from atif_spec.validation.pipeline import Options, validate_raw
from atif_spec.validation.reader import whole_file
from tests.support import ROOT

MANIFESTS = sorted((ROOT / "conformance").glob("*/*/manifest.json"))
CASES = [(m, case) for m in MANIFESTS for case in json.loads(m.read_text())["cases"]]


@pytest.mark.parametrize(("manifest", "case"), CASES, ids=[c["id"] for _, c in CASES])
def test_case_has_exactly_the_expected_findings(manifest: Path, case: dict[str, Any]) -> None:
    path = manifest.parent / case["path"]
    options = Options(as_target=case.get("target"), **case.get("options", {}))
    report = validate_raw(whole_file(path), options)  # a .jsonl stream is one document
    got = Counter((f.code, f.pointer) for f in report.findings)
    expected = Counter((e["code"], e["pointer"]) for e in case.get("expected", []))
    assert got == expected
    assert report.valid is (case["category"] != "invalid")


def test_every_format_version_has_cases() -> None:
    assert len(CASES) > 500
    assert {m.parent.parent.name for m in MANIFESTS} >= {"atif"}
