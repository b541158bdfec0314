"""ATIF v1.2 <-> v1.3.

Changes: v1.3 adds ``Metrics.completion_token_ids``.

- ``down``: ``completion_token_ids`` goes to the stash.
- ``up``: nothing to change (the stash restores it).
"""

from __future__ import annotations

from atif_spec.transforms.driver import Context
from atif_spec.transforms.migrations.base import Doc, steps, version_step, without

LOWER, UPPER = "v1.2", "v1.3"
FIELD = "completion_token_ids"


def down(doc: Doc, ctx: Context, base: str) -> Doc:
    """v1.3 -> v1.2."""

    def step(obj: Doc, ptr: str) -> Doc:
        metrics = obj.get("metrics")
        if isinstance(metrics, dict) and FIELD in metrics:
            return {**obj, "metrics": without(metrics, FIELD)}
        return obj

    return steps(doc, base, step)


STEP = version_step(LOWER, UPPER, None, down)
