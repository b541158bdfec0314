"""ATIF v1.5 <-> v1.6: v1.6 lets ``Step.message`` and ``ObservationResult.content`` be a list of
content parts (text and image). ``down``: a list becomes the text of its text parts (decided;
images contribute nothing) and is stashed; ``up``: the stash restores it (unless the text was
edited).
"""

from __future__ import annotations

from atif_spec.jsonio.jsonvalues import text_of
from atif_spec.transforms.driver import Context
from atif_spec.transforms.migrations.base import Doc, contents

POLICY = "text of the text parts joined by newlines (content-part lists need v1.6)"


def down(doc: Doc, ctx: Context, base: str) -> Doc:
    """v1.6 -> v1.5."""

    def as_text(owner: Doc, ptr: str, key: str) -> Doc:
        parts = owner.get(key)
        if not isinstance(parts, list):
            return owner
        text = text_of(parts)
        ctx.decide(f"{ptr}/{key}", POLICY, text, show=False)
        return {**owner, key: text}

    return contents(doc, base, as_text)
