"""ATIF v1.3 <-> v1.4.

Changes: v1.4 adds ``Metrics.prompt_token_ids``.

- ``down``: ``prompt_token_ids`` goes to the stash.
- ``up``: nothing to change (the stash restores it).
"""

from __future__ import annotations

from atif_spec.transforms.driver import Context
from atif_spec.transforms.migrations.base import Doc, steps, version_step, without

LOWER, UPPER = "v1.3", "v1.4"
FIELD = "prompt_token_ids"


def down(doc: Doc, ctx: Context, base: str) -> Doc:
    """v1.4 -> v1.3."""

    def step(obj: Doc, ptr: str) -> Doc:
        metrics = obj.get("metrics")
        if isinstance(metrics, dict) and FIELD in metrics:
            return {**obj, "metrics": without(metrics, FIELD)}
        return obj

    return steps(doc, base, step)


STEP = version_step(LOWER, UPPER, None, down)
