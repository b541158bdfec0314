"""The named keys ATIF downgrades write (RFC.md §4.5.5), for the mapping registry."""

from __future__ import annotations

from atif_spec.transforms.fields import Named
from atif_spec.transforms.mapping import Table

MAPPING_TABLES = (
    Table(
        id="atif-downgrade-named",
        steps=("atif@v1.5->atif@v1.4", "atif@v1.7->atif@v1.6"),
        columns=("Step field (newer version)", "Below that version"),
        rows=(
            Named(
                "is_copied_context",
                "is_copied_context",
                "/steps/*",
                label="`is_copied_context: true` (v1.5 and later)",
                note="Below v1.5; warning `migrate:context-only-step`. `false` and `null` are "
                "stashed.",
            ).row("the step's"),
            Named(
                "llm_call_count",
                "llm_call_count",
                "/steps/*",
                label="`llm_call_count: 0` (v1.7 and later)",
                note="Below v1.7; warning `migrate:context-only-step`. Other values are stashed.",
            ).row("the step's"),
        ),
    ),
)
