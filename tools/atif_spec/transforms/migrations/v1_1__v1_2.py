"""ATIF v1.1 <-> v1.2.

Changes: none in structure. v1.2 documents observations on system steps (always accepted by the
schemas, see DECISIONS 6.5) and defines ``prompt_tokens`` as including cached tokens. Only
``schema_version`` is rewritten, in both directions.
"""

from __future__ import annotations

from atif_spec.transforms.migrations.base import version_step

LOWER, UPPER = "v1.1", "v1.2"
STEP = version_step(LOWER, UPPER, None, None)
