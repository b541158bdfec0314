"""ATIF v1.3 <-> v1.4.

Changes: v1.4 adds ``Metrics.prompt_token_ids``.

- ``down``: ``prompt_token_ids`` is stashed in the same metrics object's ``extra``.
- ``up``: restores it.
"""

from __future__ import annotations

from atif_spec.transforms.migrations.base import Doc, StepContext, metrics

LOWER, UPPER = "v1.3", "v1.4"
FIELD = "prompt_token_ids"


def up(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.3 -> v1.4."""
    for ptr, obj in metrics(doc, base):
        ctx.restore(obj, ptr)


def down(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.4 -> v1.3."""
    for ptr, obj in metrics(doc, base):
        ctx.remove_member(obj, ptr, FIELD, f"v1.3 has no Metrics.{FIELD}")
