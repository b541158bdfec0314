"""Property tests: vA -> vB -> vA gives back the same JSON value (RFC.md §4.6), a document that
needs no change keeps its bytes, and every migrated document is valid."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atif_spec import validate
from atif_spec.jsonio.jsonequal import difference
from atif_spec.jsonio.jsontext import dumps
from atif_spec.transforms.migrations import migrate as migrate_with_options
from atif_spec.transforms.stash import STASH_KEY
from tests.support.strategies import VERSIONS, trajectories

PAIRS = [(a, b) for a, b in itertools.permutations(VERSIONS, 2)]
SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


POLICY = "atif-session://{session_id}"
"""The policy for v1.6 session-only references going up (refused without one)."""


def migrate(doc: Any, **options: Any) -> tuple[dict[str, Any], Any]:
    return migrate_with_options(doc, session_ref_path=POLICY, **options)


def errors(doc: dict[str, Any]) -> list[Any]:
    return validate(doc, check_files=False).errors


@pytest.mark.parametrize(("source", "target"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
@SETTINGS
@given(data=st.data())
def test_round_trip_is_identity_and_outputs_are_valid(
    source: str, target: str, data: st.DataObject
) -> None:
    doc = data.draw(trajectories(source))
    original = dumps(doc)
    assert not errors(doc)
    out, report = migrate(doc, to=target)
    assert dumps(doc) == original, "the input was modified"
    assert out["schema_version"] == f"ATIF-{target}"
    assert not errors(out), report.to_dict()
    back, _ = migrate(out, to=source)
    assert not errors(back)
    assert difference(doc, back) is None


@pytest.mark.parametrize("version", VERSIONS)
@SETTINGS
@given(data=st.data())
def test_chain_through_every_version_is_identity(version: str, data: st.DataObject) -> None:
    """Going one step at a time to v1.0 and then to v1.8 and back gives the original too."""
    doc = data.draw(trajectories(version))
    i = VERSIONS.index(version)
    path = [*reversed(VERSIONS[:i]), *VERSIONS[1:], *reversed(VERSIONS[i:-1])]
    current = doc
    for v in path:
        current, _ = migrate(current, to=v)
        assert not errors(current)
    assert difference(doc, current) is None


@pytest.mark.parametrize(("source", "target"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
@SETTINGS
@given(data=st.data())
def test_a_document_that_needs_no_change_keeps_its_bytes(
    source: str, target: str, data: st.DataObject
) -> None:
    """RFC.md §4.6: a migration of a document without a stash whose report lists nothing
    stashed, dropped, decided or named changes only ``schema_version``, in place, byte for byte
    (and one that lists something changes more)."""
    doc = data.draw(trajectories(source))
    assert STASH_KEY.encode() not in dumps(doc)  # the strategies draw no stash
    out, report = migrate(doc, to=target)
    quiet = not (report.stashed or report.dropped or report.decided or report.named)
    assert (dumps(out) == dumps({**doc, "schema_version": f"ATIF-{target}"})) == quiet


@pytest.mark.parametrize(("source", "target"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
@SETTINGS
@given(data=st.data())
def test_drop_output_is_valid_and_has_no_stash(
    source: str, target: str, data: st.DataObject
) -> None:
    doc = data.draw(trajectories(source))
    out, report = migrate(doc, to=target, drop=True)
    assert not errors(out)
    assert STASH_KEY.encode() not in dumps(out)
    assert not report.stashed
