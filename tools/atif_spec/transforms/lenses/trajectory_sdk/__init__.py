"""ATIF v1.7 ↔ trajectory-sdk v0.4 (``spec/trajectory-sdk/MAPPING.md``): one driver step each way.

ATIF → SDK flattens the trajectory into a transcript with :func:`atif_spec.transforms.sft.timeline`
(the same training-target and context-boundary rules as ``atif export-sft``) and cuts it into
cumulative snapshots the way the SDK's 0.4 builder does, restarting after a ``replace``
boundary. SDK → ATIF rebuilds the transcript from the snapshots and turns it back into steps,
tool calls and observation results. Both are plain mappings of :mod:`atif_spec.transforms.driver`,
which keeps what a side cannot hold in the stash (SDK files: ``telemetry.data``).

Named keys (MAPPING.md): a mapping writes each one whose place is free, unless its input was
converted by the inverse step (the driver lets it read named keys back): then it rebuilds the
native document, in its writer's style, and writes none (DECISIONS D23, D25).

Snapshots repeat every earlier message, so an SDK file grows quadratically with the length of
the conversation. The mappings share one message object between all snapshots (memory, the
driver's diff and :func:`content_hash` stay linear in the conversation) and :func:`json_chunks`
writes a document piece by piece, encoding each message once.

Modules: :mod:`.table` (the field rows: plain copies and named keys), :mod:`.common` (the
steps' targets, usage ↔ metrics), :mod:`.snapshots` (cutting, reading back, hashing and writing
snapshots), :mod:`.to_sdk` and :mod:`.to_atif` (the mappings).
"""

from __future__ import annotations

from atif_spec.transforms.driver import Step
from atif_spec.transforms.lenses.trajectory_sdk.common import ATIF, SDK
from atif_spec.transforms.lenses.trajectory_sdk.snapshots import content_hash, cut, json_chunks
from atif_spec.transforms.lenses.trajectory_sdk.table import EMBEDDED
from atif_spec.transforms.lenses.trajectory_sdk.to_atif import to_atif
from atif_spec.transforms.lenses.trajectory_sdk.to_sdk import to_sdk

__all__ = ["LENSES", "STEP", "SUBAGENTS", "TO_ATIF", "TO_SDK", "content_hash", "cut", "json_chunks"]

STEP = Step(ATIF, SDK, to_sdk, to_atif)
TO_SDK, TO_ATIF = STEP.name, STEP.inverse.name
LENSES = [STEP, STEP.inverse]
SUBAGENTS = EMBEDDED.pointer
"""Where ATIF→SDK puts the embedded subagents of a trajectory."""
