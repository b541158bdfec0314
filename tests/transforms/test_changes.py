"""The change report's count of mapped leaves (atif_spec.transforms.changes)."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

import atif_spec
from atif_spec.transforms.changes import mapped_leaves
from atif_spec.transforms.lenses import ConversionError
from atif_spec.transforms.stash import STASH_KEY
from tests.support import ROOT


@pytest.mark.parametrize(
    ("doc", "leaves"),
    [
        ({}, 1),
        (3, 1),
        ({"a": [], "b": [1, {}, None, True, 2.5, "x"]}, 7),
        ({"a": {STASH_KEY: {"big": list(range(9))}}}, 0),
        ({"a": {STASH_KEY: 1, "b": [1, 2]}, "c": {"d": {"e": 1}}}, 3),
    ],
)
def test_leaves_are_scalars_and_empty_containers_outside_stashes(doc: Any, leaves: int) -> None:
    assert mapped_leaves(doc) == leaves


def test_named_members_listed_in_wrote_are_not_mapped() -> None:
    layer = {"by": "atif@v1.7->atif@v1.6", "wrote": ["/steps/0/extra/llm_call_count"]}
    doc = {
        "steps": [{"step_id": 1, "extra": {"llm_call_count": 0, "mine": [1, 2]}}],
        "extra": {STASH_KEY: {"version": 2, "layers": [layer]}},
    }
    assert mapped_leaves(doc) == 3


def test_mapped_leaves_walks_shared_containers_once_with_the_same_count() -> None:
    class Counted(dict[str, Any]):
        walks = 0

        def items(self) -> Any:
            Counted.walks += 1
            return super().items()

    shared = Counted({"role": "user", "content": "hi", "metadata": {"k": [1, 2]}})
    doc: dict[str, Any] = {"steps": [{"messages": [shared] * n} for n in range(1, 4)]}
    assert mapped_leaves(doc) == 6 * 4  # counted at each of its 6 places
    assert Counted.walks <= 1  # walked once
    root = ROOT / "conformance" / "atif" / "v1.7" / "valid"
    checked = 0
    for path in sorted(root.glob("*.json"))[:12]:
        source = json.loads(path.read_text(encoding="utf-8"))
        for target in ("trajectory-sdk@v0.4", "tao@v0.2.0", "step-substep@v1.0"):
            try:
                out, _ = atif_spec.convert(source, to=target)
            except ConversionError:
                continue
            flat = orjson.loads(orjson.dumps(out))  # the same tree, nothing shared
            assert mapped_leaves(out, target) == mapped_leaves(flat, target), (path.name, target)
            checked += 1
    assert checked > 20


def test_the_mapped_count_is_taken_when_first_read_and_the_document_let_go() -> None:
    doc = json.loads((ROOT / "conformance/atif/v1.8/valid/minimal.json").read_text())
    out, report = atif_spec.migrate(doc, to="v1.6")
    assert report.mapped is None and report.written is out  # nothing counted yet
    counts = report.counts
    assert counts is not None and counts["mapped"] == mapped_leaves(out, "atif@v1.6") > 0
    assert report.written is None and report.to_dict()["counts"] == counts
