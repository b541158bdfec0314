"""ATIF v1.0 <-> v1.1: v1.1 adds the trajectory's ``extra``, stashed on the way down (a v1.0
stash lives in ``agent.extra``, :data:`atif_spec.transforms.stash.HOLDERS`)."""

from __future__ import annotations

from atif_spec.transforms.driver import Context
from atif_spec.transforms.migrations.base import Doc, without


def down(doc: Doc, ctx: Context, base: str) -> Doc:
    return without(doc, "extra")
