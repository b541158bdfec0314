"""Readability of conversions: how much of each lens's output is stash (RFC.md §4.5), or
free-form members that no mapping table documents and the source did not hold.

Issue 30 retired the old target (at most 10 % per lens): what a reader of the target sees is held
by the conservation tests, and stash version 2 spends bytes on simplicity (a pointer per named key
in `wrote`, no key order, a `test` before each `remove`/`replace`). The ceilings below are the
shares measured when the lenses moved onto it: a lens that stashes more than it did fails here, so
growth is a decision, not an accident (`nox -s bench` prints the table).
"""

from __future__ import annotations

import pytest

from atif_spec.transforms.lenses.share import Share, format_table, lens_table, share
from atif_spec.transforms.stash import STASH_KEY
from tests.support import ROOT

CEILINGS = {  # percent of output bytes, summed over the source format's valid fixtures
    "atif@v1.7->step-substep@v1.0": 2.6,
    "atif@v1.7->tao@v0.2.0": 13.0,
    "atif@v1.7->trajectory-sdk@v0.4": 8.2,
    "step-substep@v1.0->atif@v1.7": 30.7,  # mostly `wrote`: six small run logs of 0.4-5 KB
    "tao@v0.1.0->atif@v1.7": 29.6,  # eleven hand-written records of 0.4-2 KB
    "tao@v0.2.0->atif@v1.7": 19.8,
    "trajectory-sdk@v0.4->atif@v1.7": 15.5,
    # the raw events a trajectory is built from: scope ids, parents, times, flags and provider
    # payloads have no ATIF field, and the lens goes into ATIF only (spec/atof/DECISIONS.md)
    "atof@v0.1->atif@v1.7": 90.0,
    # the stash is the root span's `atif.stash` attribute (JSON text, escaped); 0-25 % per doc
    "atif@v1.8->otel@v1.41.0": 0.5,
    # another producer's trace: the ids and times the rebuild derives differ from every span's,
    # and unread attributes (sampling, finish reasons) have no ATIF field (spec/otel/DECISIONS.md)
    "otel@v1.41.0->atif@v1.8": 95.0,
}


@pytest.fixture(scope="module")
def table() -> dict[str, Share]:
    return lens_table(ROOT / "conformance")


def test_every_lens_is_measured(table: dict[str, Share]) -> None:
    assert set(table) == set(CEILINGS)


@pytest.mark.parametrize("lens", sorted(CEILINGS))
def test_stash_share_does_not_grow(lens: str, table: dict[str, Share]) -> None:
    measured = table[lens]
    assert measured.documents > 0
    assert measured.percent <= CEILINGS[lens], format_table({lens: measured})


def test_share_counts_the_stash_member_bytes() -> None:
    stash = {"version": 1, "layers": []}
    doc = {"a": 1, "extra": {STASH_KEY: stash}}
    measured = share(doc)
    assert measured.total == len('{"a":1,"extra":{"_atif_stash":{"version":1,"layers":[]}}}')
    assert measured.stash == len('"_atif_stash":{"version":1,"layers":[]}')


def test_undocumented_free_form_members_count_and_passed_through_ones_do_not() -> None:
    step = "step-substep@v1.0->atif@v1.7"
    source = {"extra": {"kept": 1}}
    out = {"extra": {"kept": 1, "invented": "xy"}, "steps": [{"extra": {"outcome": "ok"}}]}
    measured = share(out, source, step)
    # `kept` came from the source's free-form object; `outcome` is a named key of the step
    assert measured.unregistered == len('"invented":"xy",')
    assert measured.stash == 0
    assert measured.percent == 100.0 * measured.unregistered / measured.total
    # the same value under a key the source did not use is not passed through
    assert share({"extra": {"other": 1}}, source, step).unregistered == len('"other":1,')


def test_documented_members_include_containers_of_documented_elements() -> None:
    from atif_spec.transforms.mapping import documents

    step = "step-substep@v1.0->atif@v1.7"
    assert documents(step, ("steps", 3, "extra", "outcome"))
    assert documents(step, ("steps", 0, "extra", "run_log_substeps"))
    assert not documents(step, ("steps", 0, "extra", "invented"))
    assert not documents(step, ("steps", 0, "extra", "outcomes"))
