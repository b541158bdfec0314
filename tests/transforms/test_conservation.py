"""Conservation, checked independently (issue 15, item 3; RFC.md §4.5).

Every input leaf must be carried by the output, covered by a pointer of the report's
``stashed``/``named``/``dropped`` items, or held by the output's stash; ``tests/support/conservation.py``
classifies the leaves without reading the transform's own accounting. Version marks
(``schema_version``, the root ``$schema``) are exempt: the report's ``from`` and ``to`` carry them.

- every adjacent ATIF migration step (up and down), on every valid ATIF fixture and on generated
  documents (``tests/support/strategies.py``), plus the way back, the same JSON value (RFC.md
  §4.6);
- every lens, on every valid fixture of every other format (ATIF: v1.7 and v1.8, the versions
  the lenses read without a migration first), one case per (source format, lens).
  A leaf carried in another spelling is accepted only by a row of the checker's own table of
  correspondences for that pair (``tests/support/correspondences.py``), verified on the input, the output
  and the way back (the output converted back to the source format).
  Lens pairs that leak are ``xfail(strict=True)`` with the leaking places named, so fixing a
  lens turns its case into a failure until the mark is removed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import atif_spec
from atif_spec.jsonio.jsonequal import difference
from atif_spec.transforms.lenses import ConversionError
from tests.support import ROOT
from tests.support.conservation import LENSES, Tally, check, leaks
from tests.support.correspondences import RULES
from tests.support.documents import dispatch_only
from tests.support.strategies import VERSIONS, trajectories

SUITE = ROOT / "conformance"
FORMATS = ("atif", "tao", "trajectory-sdk", "step-substep")


def fixtures(fmt: str, version: str = "*") -> list[Path]:
    """The valid fixtures of a format, less those valid only through the validator's dispatch
    (conftest.DISPATCH_ONLY: the lenses and migrations read what the released schema accepts)."""
    return sorted(p for p in SUITE.glob(f"{fmt}/{version}/valid/*.json") if not dispatch_only(p))


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _neighbours(version: str) -> list[str]:
    i = VERSIONS.index(version)
    return [VERSIONS[j] for j in (i - 1, i + 1) if 0 <= j < len(VERSIONS)]


def _step_conserves(doc: dict[str, Any], to: str) -> Tally:
    # v1.6 -> v1.7 refuses session-only references unless given a policy (RFC.md §4.5.3).
    out, report = atif_spec.migrate(doc, to=to, session_ref_path="{session_id}.json")
    assert report.ok
    tally = check(doc, out, report)
    assert tally.total > 0
    assert not leaks(tally), leaks(tally)[:8]
    back, _ = atif_spec.migrate(out, to=doc["schema_version"].removeprefix("ATIF-"))
    assert difference(doc, back) is None  # RFC.md §4.6
    return tally


@pytest.mark.parametrize("version", VERSIONS)
def test_every_migration_step_conserves_every_fixture_leaf(version: str) -> None:
    paths = fixtures("atif", version)
    assert paths
    for path in paths:
        for to in _neighbours(version):
            _step_conserves(_load(path), to)


@pytest.mark.parametrize("version", VERSIONS)
@settings(
    derandomize=True,
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_every_migration_step_conserves_generated_leaves(version: str, data: st.DataObject) -> None:
    doc = data.draw(trajectories(version))
    for to in _neighbours(version):
        _step_conserves(doc, to)


LEAKING: dict[tuple[str, str], str] = {}
"""(source format, lens) -> the leaking places found (issue 15, item 3)."""
SLOW: set[tuple[str, str]] = set()
"""Pairs whose check takes minutes on the fixtures (not run; see LEAKING)."""


def _pairs() -> list[Any]:
    out = []
    for src in FORMATS:
        for fmt, to in LENSES.items():
            if fmt == src:
                continue
            marks = []
            if (src, fmt) in LEAKING:
                run = (src, fmt) not in SLOW
                marks.append(pytest.mark.xfail(strict=True, run=run, reason=LEAKING[(src, fmt)]))
            out.append(pytest.param(src, to, id=f"{src}->{to}", marks=marks))
    return out


@pytest.mark.parametrize(("src", "to"), _pairs())
def test_every_lens_conserves_every_fixture_leaf(src: str, to: str) -> None:
    found: dict[str, str] = {}
    checked = 0
    for path in fixtures(src, "v1.[78]" if src == "atif" else "*"):
        doc = _load(path)
        try:
            out, report = atif_spec.convert(doc, to=to)
        except ConversionError:
            continue
        checked += 1
        back, _ = atif_spec.convert(out, to=LENSES[src])
        fmt = to.split("@")[0]
        for ptr, _ in leaks(check(doc, out, report, RULES.get((src, fmt), ()), back)):
            found.setdefault(re.sub(r"/\d+(?=/|$)", "/N", ptr), path.name)
    assert checked > 0
    assert not found, sorted(found.items())[:12]


def _lens_targets() -> list[Any]:
    return [pytest.param(to, id=f"atif->{to}") for fmt, to in LENSES.items() if fmt != "atif"]


@pytest.mark.parametrize("to", _lens_targets())
@settings(
    derandomize=True,
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_every_lens_conserves_generated_leaves(to: str, data: st.DataObject) -> None:
    """The lenses out of ATIF on generated v1.7 documents (issue 15, item 3)."""
    doc = data.draw(trajectories("v1.7"))
    try:
        out, report = atif_spec.convert(doc, to=to)
    except ConversionError as exc:
        raise AssertionError(f"a valid v1.7 document was refused: {exc}") from exc
    back, _ = atif_spec.convert(out, to="atif@v1.7")
    # the pair's documented correspondences, as for the fixtures
    tally = check(doc, out, report, RULES.get(("atif", to.split("@")[0]), ()), back)
    assert tally.total > 0
    assert not leaks(tally), leaks(tally)[:8]
    assert difference(doc, back) is None  # RFC.md §4.6
