"""ATIF v1.4 <-> v1.5: v1.5 adds ``Agent.tool_definitions``, ``Step.is_copied_context`` and
``Trajectory.continued_trajectory_ref`` (DECISIONS 6.2). ``down`` stashes them, except that
``is_copied_context: true`` becomes the step's named ``extra.is_copied_context`` (v1.4 readers
still see a context-only step, :func:`.base.fact_down`); ``up`` reads that key back.
"""

from __future__ import annotations

from atif_spec.transforms.driver import Context
from atif_spec.transforms.migrations.base import Doc, each, fact_down, fact_up

FACT = "is_copied_context"
"""The field whose value may make a step context only (``true``)."""


def down(doc: Doc, ctx: Context, base: str) -> Doc:
    """v1.5 -> v1.4."""
    doc.pop("continued_trajectory_ref", None)
    agent = doc.get("agent")
    if isinstance(agent, dict) and "tool_definitions" in agent:
        doc["agent"] = {k: v for k, v in agent.items() if k != "tool_definitions"}
    return each(doc, base, "steps", lambda step, ptr: fact_down(step, ptr, FACT, ctx))


up = fact_up(FACT)
