"""ATIF v1.3 <-> v1.4: v1.4 adds ``Metrics.prompt_token_ids`` (stashed on the way down)."""

from __future__ import annotations

from atif_spec.transforms.migrations.base import metrics_field_down, version_step

LOWER, UPPER = "v1.3", "v1.4"
STEP = version_step(LOWER, UPPER, None, metrics_field_down("prompt_token_ids"))
