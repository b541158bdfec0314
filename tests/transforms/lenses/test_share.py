"""Readability of conversions: how much of each lens's output is stash (RFC.md §4.5), or
free-form members that no mapping table documents and the source did not hold.

Issue 15's target is at most 10 % per lens (:data:`TARGET`); the ceilings below are the shares
measured when they were last lowered: a lens that stashes more than it did fails here. Lower a
ceiling whenever a lens writes more into native fields (`nox -s bench` prints the table).
"""

from __future__ import annotations

import pytest

from atif_spec.transforms.lenses.share import Share, format_table, lens_table, share
from atif_spec.transforms.stash import STASH_KEY
from tests.support import ROOT

CEILINGS = {  # percent of output bytes, summed over the source format's valid fixtures
    # Session 5 of issue 15: `named` declarations (RFC.md §4.5.2 item 7) instead of a `moved`
    # entry per named key, key names for them, per-step costs, subagents and step fields as
    # named keys, and the measure now also counts undocumented free-form members. Before it
    # (stash only): atif->step-substep 9.4, atif->tao 28.3, atif->trajectory-sdk 15.0,
    # step-substep->atif 55.8, tao->atif 43.7, trajectory-sdk->atif 37.1.
    # The fixture embedded-subagent-ids-reused-own-agents (three nested subagents, each with
    # its own agent) raised the sums it is part of: step-substep 3.87 -> 3.98, tao 18.08 ->
    # 18.16, trajectory-sdk 5.44 -> 5.80, measured before session 6's compact layers below.
    # Session 6: layers leave out the default holder and empty entries, and `named: ["*"]`
    # declares every named key of the step at once (RFC.md §4.5.2 items 3 and 7). The lenses
    # rebuild what native producers write: trajectory-sdk DECISIONS D25, step-substep SSL-28,
    # TAO D26-D30.
    # Session 7: `placed` entries (a member's key position without its value) and pattern
    # `added` / `placed` entries (one entry for a writer's default or key order at every step),
    # RFC.md §4.5.2 item 4. Before them: 2.4, 8.6, 5.5, 6.8, 16.9, 4.9 (in this order).
    # Session 8: three TAO records written by opentraces 0.2.1 itself (valid-opentraces-*)
    # joined the fixtures. They stashed 28-35 % each (a `removed` entry per null field) until
    # the layer's `style: "filled"` (TAO DECISIONS D32) made each one layer of 100 bytes. The
    # 24 hand-written TAO fixtures alone are still at 11.9 %; all 27 are at 9.8 %.
    # Session 9: a fourth opentraces record (a sub-agent, valid-opentraces-task-subagent).
    # Filled records are read thin (D33): their ATIF is 28-42 % smaller for the same one-layer
    # stash, which raised tao->atif to 10.0 %; `style: "hashed"` (D34) for a sparse record
    # carrying its own hash then took it to 9.5 % (the 24 hand-written ones: 11.3 %).
    # Issue 30 retired the target: stash version 2 lists the pointer of every named key a lens
    # wrote (`wrote`) where `named: ["*"]` declared them, and keeps no key order.
    "atif@v1.7->step-substep@v1.0": 2.6,
    "atif@v1.7->tao@v0.2.0": 6.2,  # D31: named keys of TAO metadata
    "atif@v1.7->trajectory-sdk@v0.4": 5.0,
    "step-substep@v1.0->atif@v1.7": 30.6,  # mostly `wrote`: 146 of the 431 bytes of minimal.json
    "tao@v0.2.0->atif@v1.7": 9.6,
    # TAO 0.1.x records go through the same lens (a row of its own since session 9): 25.9 %
    # until their version became a named key (TAO D35) and a 0.1.x record's own hash could be
    # recomputed (D34, hashed as 0.1.0 hashes it). See ABOVE_TARGET.
    "tao@v0.1.0->atif@v1.7": 18.3,
    "trajectory-sdk@v0.4->atif@v1.7": 4.9,
}


TARGET = 10.0
"""Issue 15: stash and undocumented free-form bytes per lens, percent of output bytes."""

ABOVE_TARGET = {
    "tao@v0.1.0->atif@v1.7": "eleven hand-written records of 0.4 to 2 KB: the fixed cost of a "
    "layer (about 100 bytes: signature, `named`) is 9 % of them before any entry; the rest is "
    "mostly one pattern entry per record whose writer leaves `agent_role` out",
    "step-substep@v1.0->atif@v1.7": "six small run logs (0.4 to 5 KB): most of the layer is its "
    "`wrote` list (stash version 2), one pointer per named key; call-ids-on-outputs-only.json's "
    "patch puts back substeps the way back interleaves otherwise",
}
"""Rows allowed above :data:`TARGET`, each with the reason."""


@pytest.fixture(scope="module")
def table() -> dict[str, Share]:
    return lens_table(ROOT / "conformance")


def test_every_lens_is_measured(table: dict[str, Share]) -> None:
    assert set(table) == set(CEILINGS)
    above = {lens for lens, ceiling in CEILINGS.items() if ceiling > TARGET}
    assert above == set(ABOVE_TARGET), CEILINGS


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
