"""ATIF v1.2 <-> v1.3: v1.3 adds ``Metrics.completion_token_ids`` (stashed on the way down)."""

from atif_spec.transforms.migrations.base import metrics_field_down

down = metrics_field_down("completion_token_ids")
