"""ATIF v1.4 <-> v1.5.

Changes: v1.5 adds ``Agent.tool_definitions``, ``Step.is_copied_context`` and
``Trajectory.continued_trajectory_ref`` (DECISIONS 6.2: the reference code dates all three to v1.5).

- ``down``: each is stashed in its own object's ``extra`` (agent, step, trajectory), except
  ``is_copied_context: true``, which moves to the step's ``extra.is_copied_context`` (named, the
  stash records the move; warning ``migrate:context-only-step``) so that readers of v1.4 still
  see that the step is context only. With the policy ``drop_context_only``
  (``--drop-context-only-steps``) such steps are dropped instead and ``step_id`` renumbered
  (reported; not invertible).
- ``up``: restores them.
"""

from __future__ import annotations

from atif_spec.transforms.migrations.base import Doc, StepContext, steps

LOWER, UPPER = "v1.4", "v1.5"


def up(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.4 -> v1.5."""
    ctx.restore(doc, base)
    if isinstance(doc.get("agent"), dict):
        ctx.restore(doc["agent"], base + "/agent")
    for ptr, step in steps(doc, base):
        ctx.restore(step, ptr)


def down(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.5 -> v1.4."""
    ctx.remove_member(doc, base, "continued_trajectory_ref", "v1.4 has no continued_trajectory_ref")
    agent = doc.get("agent")
    if isinstance(agent, dict):
        ctx.remove_member(
            agent, base + "/agent", "tool_definitions", "v1.4 has no Agent.tool_definitions"
        )
    ctx.drop_context_only_steps(doc, base, "is_copied_context")
    for ptr, step in steps(doc, base):
        reason = "v1.4 has no Step.is_copied_context"
        ctx.remove_training_fact(step, ptr, "is_copied_context", reason)
