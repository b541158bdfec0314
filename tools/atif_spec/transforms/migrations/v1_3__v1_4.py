"""ATIF v1.3 <-> v1.4.

Changes: v1.4 adds ``Metrics.prompt_token_ids``. ``down``: it goes to the stash;
``up``: nothing to change (the stash restores it).
"""

from __future__ import annotations

from atif_spec.transforms.migrations.base import metrics_field_down, version_step

LOWER, UPPER = "v1.3", "v1.4"
STEP = version_step(LOWER, UPPER, None, metrics_field_down("prompt_token_ids"))
