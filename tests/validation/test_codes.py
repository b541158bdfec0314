"""The codes outside the rule registry (``validation.codes``): every transform code the sources
can produce is listed, and nothing listed is produced by none."""

from __future__ import annotations

import re

from atif_spec.validation.codes import TRANSFORM_CODES
from tests.support import ROOT

TRANSFORMS = ROOT / "tools" / "atif_spec" / "transforms"
PRODUCED = (
    # Context.refuse / Context.warn, lenses.refuse(report, ...), the trajectory-sdk names' refuse
    re.compile(r'\b(?:refuse|warn)\(\s*(?:report,\s*)?"([a-z0-9-]+)"'),
    # findings built with their prefix (the change report's refusals, the output size checks)
    re.compile(r'Finding\(\s*f?"(?:migrate|convert|\{kind\}|\{self\.kind\}):([a-z0-9-]+)"'),
    # the rows of the change report's refusal table (ChangeReport.refusals: code, items, switch)
    re.compile(r'^\s*\("([a-z0-9-]+)", self\.\w+, fail_on_\w+,', re.MULTILINE),
    # a refusal named by a constant (v1_6__v1_7.REFUSAL), the stash's errors (StashError.what)
    re.compile(r'^REFUSAL = "([a-z0-9-]+)"', re.MULTILINE),
    re.compile(r'"(stash-[a-z-]+)"'),
)


def test_every_transform_code_in_the_sources_is_listed() -> None:
    used = {
        match
        for path in TRANSFORMS.rglob("*.py")
        for pattern in PRODUCED
        for match in pattern.findall(path.read_text("utf-8"))
    }
    listed = {c.name for c in TRANSFORM_CODES}
    assert used - listed == set(), "add them to _TRANSFORM in atif_spec/validation/codes.py"
    assert listed - used == set(), "listed but produced nowhere"


def test_transform_codes_carry_the_prefix_of_the_command() -> None:
    codes = {c.code for c in TRANSFORM_CODES}
    assert {"migrate:would-lose-data", "convert:would-lose-data"} <= codes
    assert "migrate:session-only-ref" in codes and "convert:session-only-ref" not in codes
    assert "convert:no-conversion" in codes and "migrate:no-conversion" not in codes
    assert all(c.code == f"{c.code.partition(':')[0]}:{c.name}" for c in TRANSFORM_CODES)
