"""ATIF v1.0 <-> v1.1: v1.1 adds the trajectory's ``extra``, stashed on the way down (a v1.0
stash lives in ``agent.extra``, :data:`atif_spec.transforms.stash.HOLDERS`)."""

from __future__ import annotations

from atif_spec.transforms.migrations.base import version_step, without

LOWER, UPPER = "v1.0", "v1.1"
STEP = version_step(LOWER, UPPER, None, lambda doc, ctx, base: without(doc, "extra"))
