"""ATIF v1.0 <-> v1.1.

Changes: v1.1 adds the trajectory-level ``extra`` object.

- ``down``: a root ``extra`` (with any stash it holds) is stashed. v1.0 has no ``extra`` on the
  trajectory, so the stash of the root lives in ``agent.extra`` (``agent`` is required).
- ``up``: restores it. Nothing else changes.
"""

from __future__ import annotations

from atif_spec.transforms.migrations.base import Doc, StepContext

LOWER, UPPER = "v1.0", "v1.1"
ROOT_HOLDER = ("agent", "extra")
"""Where a v1.0 trajectory's own stash lives: the trajectory has no ``extra`` in v1.0."""


def up(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.0 -> v1.1."""
    if isinstance(doc.get("agent"), dict):
        ctx.restore(doc, base, ROOT_HOLDER)


def down(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.1 -> v1.0."""
    ctx.remove_member(doc, base, "extra", "v1.0 has no trajectory-level extra", ROOT_HOLDER)
