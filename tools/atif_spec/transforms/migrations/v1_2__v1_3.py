"""ATIF v1.2 <-> v1.3: v1.3 adds ``Metrics.completion_token_ids`` (stashed on the way down)."""

from __future__ import annotations

from atif_spec.transforms.migrations.base import metrics_field_down, version_step

LOWER, UPPER = "v1.2", "v1.3"
STEP = version_step(LOWER, UPPER, None, metrics_field_down("completion_token_ids"))
