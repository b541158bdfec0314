"""ATIF v1.3 <-> v1.4: v1.4 adds ``Metrics.prompt_token_ids`` (stashed on the way down)."""

from atif_spec.transforms.migrations.base import metrics_field_down

down = metrics_field_down("prompt_token_ids")
