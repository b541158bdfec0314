"""ATIF v1.1 <-> v1.2: no change in structure (v1.2 documents observations on system steps, which
the schemas always accept, DECISIONS 6.5, and counts cached tokens in ``prompt_tokens``)."""

from __future__ import annotations

from atif_spec.transforms.migrations.base import version_step

LOWER, UPPER = "v1.1", "v1.2"
STEP = version_step(LOWER, UPPER, None, None)
