"""ATIF v1.7 ↔ trajectory-sdk v0.4 (``spec/trajectory-sdk/MAPPING.md``): one driver step each way.
ATIF → SDK cuts the transcript of :func:`atif_spec.transforms.sft.timeline` (as ``atif
export-sft`` reads it) into cumulative snapshots; SDK → ATIF reads the transcript back out."""

from __future__ import annotations

from atif_spec.transforms.driver import Step
from atif_spec.transforms.lenses.trajectory_sdk.snapshots import content_hash, cut, json_chunks
from atif_spec.transforms.lenses.trajectory_sdk.table import ATIF, EMBEDDED, SDK
from atif_spec.transforms.lenses.trajectory_sdk.to_atif import to_atif
from atif_spec.transforms.lenses.trajectory_sdk.to_sdk import to_sdk

__all__ = ["LENSES", "STEP", "SUBAGENTS", "TO_ATIF", "TO_SDK", "content_hash", "cut", "json_chunks"]

STEP = Step(ATIF, SDK, to_sdk, to_atif, rebuilds=True)
TO_SDK, TO_ATIF = STEP.name, STEP.inverse.name
LENSES = [STEP, STEP.inverse]
SUBAGENTS = EMBEDDED.pointer
"""Where ATIF→SDK puts the embedded subagents of a trajectory."""
