"""ATIF v1.2 <-> v1.3.

Changes: v1.3 adds ``Metrics.completion_token_ids``.

- ``down``: ``completion_token_ids`` is stashed in the same metrics object's ``extra``.
- ``up``: restores it.
"""

from __future__ import annotations

from atif_spec.transforms.migrations.base import Doc, StepContext, metrics

LOWER, UPPER = "v1.2", "v1.3"
FIELD = "completion_token_ids"


def up(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.2 -> v1.3."""
    for ptr, obj in metrics(doc, base):
        ctx.restore(obj, ptr)


def down(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.3 -> v1.2."""
    for ptr, obj in metrics(doc, base):
        ctx.remove_member(obj, ptr, FIELD, f"v1.2 has no Metrics.{FIELD}")
