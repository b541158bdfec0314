"""ATIF v1.5 <-> v1.6.

Changes: v1.6 lets ``Step.message`` and ``ObservationResult.content`` be a list of content parts
(text and image) instead of a string.

- ``down``: a list is replaced by a string, and the list is stashed in the step's ``extra``
  (ObservationResult has no ``extra`` before v1.7). Policy for the string (reported as
  ``decided``): the ``text`` of the text parts, in order, joined by a newline; image parts
  contribute nothing (they stay in the stash only).
- ``up``: restores the list (unless the string was edited meanwhile).
"""

from __future__ import annotations

from typing import Any

from atif_spec.jsonio.jsonvalues import text_of
from atif_spec.transforms.migrations.base import Doc, StepContext, results, steps

LOWER, UPPER = "v1.5", "v1.6"
POLICY = "text of the text parts joined by newlines (content-part lists need v1.6)"


def up(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.5 -> v1.6."""
    for ptr, step in steps(doc, base):
        ctx.restore(step, ptr)


def down(doc: Doc, ctx: StepContext, base: str = "") -> None:
    """v1.6 -> v1.5."""
    reason = "v1.5 has no content-part lists"
    for ptr, step in steps(doc, base):
        lists: list[tuple[tuple[str | int, ...], list[Any]]] = []
        if isinstance(step.get("message"), list):
            lists.append((("message",), step["message"]))
        for k, result in results(step):
            if isinstance(result.get("content"), list):
                lists.append((("observation", "results", k, "content"), result["content"]))
        if not lists:
            continue
        with ctx.owner(step, ptr) as edit:
            for path, parts in lists:
                edit.replace(path, text_of(parts), reason, POLICY, show=False)
