"""ATIF v1.7 <-> v1.8: v1.8 adds audio content parts; embedded subagents may declare any version
from v1.7 to their parent's (DECISIONS D-1).

- ``down``: each audio part of a message or result becomes, in place, a text part naming it
  (decided), so a message made only of audio stays valid and readable; the part is stashed.
  Embedded subagents that declare v1.8 come down with their parent (the stash keeps their version).
- ``up``: nothing to change (the stash restores the parts and exactly those versions).
"""

from __future__ import annotations

from atif_spec.transforms.driver import Context
from atif_spec.transforms.migrations.base import Doc, contents, each

AUDIO_POLICY = "an audio part becomes a text part naming the recording: [audio: path (type, s)]"


def down(doc: Doc, ctx: Context, base: str) -> Doc:
    """v1.8 -> v1.7 (of the document, and of each embedded subagent that declares v1.8)."""

    def part(obj: Doc, at: str) -> Doc:
        if obj.get("type") != "audio":
            return obj
        text = audio_text(obj)
        ctx.decide(at, AUDIO_POLICY, text)
        return text

    def subagent(sub: Doc, at: str) -> Doc:
        if sub.get("schema_version") != "ATIF-v1.8":
            return sub
        return down({**sub, "schema_version": "ATIF-v1.7"}, ctx, at)

    out = contents(doc, base, lambda owner, ptr, key: each(owner, ptr, key, part))
    return each(out, base, "subagent_trajectories", subagent)


def audio_text(part: Doc) -> Doc:
    """The text part standing for an audio part below v1.8: ``[audio: path (type, s)]``."""
    source = part.get("source")
    source = source if isinstance(source, dict) else {}
    path = source.get("path")
    details = [str(source["media_type"])] if isinstance(source.get("media_type"), str) else []
    duration = source.get("duration_sec")
    if isinstance(duration, int | float) and not isinstance(duration, bool):
        details.append(f"{duration} s")
    name = path if isinstance(path, str) else "recording"
    suffix = f" ({', '.join(details)})" if details else ""
    return {"type": "text", "text": f"[audio: {name}{suffix}]"}
