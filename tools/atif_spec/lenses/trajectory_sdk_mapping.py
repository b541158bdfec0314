"""The mapping tables of the trajectory-sdk lenses (:mod:`atif_spec.lenses.mapping`)."""

from __future__ import annotations

from atif_spec.lenses.mapping import Table

MAPPING_TABLES: tuple[Table, ...] = ()
