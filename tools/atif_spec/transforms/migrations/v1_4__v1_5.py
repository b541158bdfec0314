"""ATIF v1.4 <-> v1.5.

Changes: v1.5 adds ``Agent.tool_definitions``, ``Step.is_copied_context`` and
``Trajectory.continued_trajectory_ref`` (DECISIONS 6.2: the reference code dates all three to v1.5).

- ``down``: each goes to the stash, except ``is_copied_context: true``, which moves to the
  step's ``extra.is_copied_context`` (a named key; warning ``migrate:context-only-step``) so that
  readers of v1.4 still see that the step is context only. With the policy
  ``--drop-context-only-steps`` such steps are dropped before the step instead
  (:func:`atif_spec.transforms.migrations.base.drop_context_only`).
- ``up``: the named ``extra.is_copied_context`` written by ``down`` goes back (the stash
  restores the rest).
"""

from __future__ import annotations

from atif_spec.transforms.driver import Context
from atif_spec.transforms.migrations.base import (
    Doc,
    fact_down,
    fact_up,
    steps,
    version_step,
    without,
)

LOWER, UPPER = "v1.4", "v1.5"
FACT = "is_copied_context"
"""The field whose value may make a step context only (``true``)."""


def up(doc: Doc, ctx: Context, base: str) -> Doc:
    """v1.4 -> v1.5."""
    return fact_up(doc, ctx, FACT)


def down(doc: Doc, ctx: Context, base: str) -> Doc:
    """v1.5 -> v1.4."""
    out = without(doc, "continued_trajectory_ref")
    agent = out.get("agent")
    if isinstance(agent, dict) and "tool_definitions" in agent:
        out["agent"] = without(agent, "tool_definitions")
    return steps(out, base, lambda step, ptr: fact_down(step, ptr, FACT, ctx))


STEP = version_step(LOWER, UPPER, up, down)
