"""ATIF v1.7 <-> v1.8.

Changes: v1.8 adds audio content parts (``type: "audio"`` with an ``AudioSource``). Embedded
subagents may declare any version from v1.7 to their parent's (DECISIONS D-1).

- ``down``: audio parts are taken out of their list (the list stays, possibly empty) and stashed:
  parts of ``Step.message`` in the step's ``extra``, parts of ``ObservationResult.content`` in the
  result's ``extra``. Embedded subagents that declare v1.8 are migrated to v1.7 with their parent;
  each one's stash records its old ``schema_version`` so that ``up`` can bring it back.
- ``up``: restores audio parts, and migrates back up exactly the subagents that ``down`` brought
  down (the others stay v1.7, which a v1.8 parent allows).
"""

from __future__ import annotations

from atif_spec.formats.atif import spelling
from atif_spec.jsonvalues import dicts
from atif_spec.migrations.base import Doc, StepContext, results, steps, subagents
from atif_spec.stash import top_layer

LOWER, UPPER = "v1.7", "v1.8"
REASON = "v1.7 has no audio content parts"


def up(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.7 -> v1.8."""
    for ptr, step in steps(doc, base):
        ctx.restore(step, ptr)
        for k, result in results(step):
            ctx.restore(result, f"{ptr}/observation/results/{k}")
    for ptr, sub in subagents(doc, base):
        top = top_layer(sub)
        if top is not None and top.get("by") == ctx.inverse and ctx.restore(sub, ptr):
            up(sub, ctx, ptr)


def down(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.8 -> v1.7."""
    for ptr, step in steps(doc, base):
        audio = _audio(step.get("message"))
        if audio:
            with ctx.owner(step, ptr) as edit:
                for j in reversed(audio):
                    edit.remove(("message", j), REASON)
        for k, result in results(step):
            audio = _audio(result.get("content"))
            if audio:
                with ctx.owner(result, f"{ptr}/observation/results/{k}") as edit:
                    for j in reversed(audio):
                        edit.remove(("content", j), REASON)
    for ptr, sub in subagents(doc, base):
        if sub.get("schema_version") == spelling(UPPER):
            down(sub, ctx, ptr)
            with ctx.owner(sub, ptr) as edit:
                edit.replace(
                    ("schema_version",),
                    spelling(LOWER),
                    "embedded subagent migrated with its parent; its version is stashed",
                    None,
                    loss=False,
                )


def _audio(parts: object) -> list[int]:
    return [j for j, p in dicts(parts) if p.get("type") == "audio"]
