"""The step/substep run log: provider messages as steps (``S<n>``), tool activity as substeps.

Modules: :mod:`.model` (enums, ids, times), :mod:`.legacy` (provider streams and legacy turn
events to run logs), :mod:`.render` (timelines), :mod:`.store` (the logging API over SQLite or
PostgreSQL), :mod:`.exchange` (store to run-log JSON and back), :mod:`.api` (what the CLI
calls).
"""

from __future__ import annotations

VERSION = "v1.0"
FORMAT_NAME = "step-substep"

__all__ = ["FORMAT_NAME", "VERSION"]
