"""The change report's count of mapped leaves (atif_spec.transforms.changes)."""

from __future__ import annotations

from typing import Any

import pytest

from atif_spec.transforms.changes import mapped_leaves
from atif_spec.transforms.stash import STASH_KEY


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
