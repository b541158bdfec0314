"""ATIF v1.0 <-> v1.1.

Changes: v1.1 adds the trajectory-level ``extra`` object.

- ``down``: a root ``extra`` goes to the stash. v1.0 has no ``extra`` on the trajectory, so a
  v1.0 document keeps its stash in ``agent.extra`` (``agent`` is required; the driver moves the
  stash between the two holders, :data:`atif_spec.transforms.stash.HOLDERS`).
- ``up``: nothing to change (the stash restores the root ``extra``).
"""

from __future__ import annotations

from atif_spec.transforms.driver import Context
from atif_spec.transforms.migrations.base import Doc, version_step, without

LOWER, UPPER = "v1.0", "v1.1"


def down(doc: Doc, ctx: Context, base: str) -> Doc:
    """v1.1 -> v1.0."""
    return without(doc, "extra")


STEP = version_step(LOWER, UPPER, None, down)
