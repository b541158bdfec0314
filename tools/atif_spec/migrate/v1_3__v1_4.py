"""ATIF v1.3 <-> v1.4.

Changes: v1.4 adds ``Metrics.prompt_token_ids``.

- ``down``: ``prompt_token_ids`` is stashed in the same metrics object's ``extra``.
- ``up``: restores it.
"""

from __future__ import annotations

from atif_spec.migrate.base import Doc, StepContext, steps

LOWER, UPPER = "v1.3", "v1.4"
FIELD = "prompt_token_ids"


def up(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.3 -> v1.4."""
    for ptr, step in steps(doc, base):
        if isinstance(step.get("metrics"), dict):
            ctx.restore(step["metrics"], ptr + "/metrics")


def down(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.4 -> v1.3."""
    for ptr, step in steps(doc, base):
        metrics = step.get("metrics")
        if isinstance(metrics, dict) and FIELD in metrics:
            with ctx.owner(metrics, ptr + "/metrics") as edit:
                edit.remove((FIELD,), f"v1.3 has no Metrics.{FIELD}")
