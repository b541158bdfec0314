"""ATIF v1.7 <-> v1.8.

Changes: v1.8 adds audio content parts (``type: "audio"`` with an ``AudioSource``). Embedded
subagents may declare any version from v1.7 to their parent's (DECISIONS D-1).

- ``down``: each audio part of ``Step.message`` and ``ObservationResult.content`` is replaced,
  in place, by a text part that names it (``[audio: <path> (<media_type>, <duration_sec> s)]``,
  decided), so a message or result made only of audio stays a valid, readable message; the audio
  part goes to the stash. Embedded subagents that declare v1.8 are migrated to v1.7 with their
  parent (the stash keeps their old ``schema_version``).
- ``up``: nothing to change (the stash restores the audio parts and the versions of exactly the
  subagents ``down`` brought down; the others stay v1.7, which a v1.8 parent allows).
"""

from __future__ import annotations

from atif_spec.formats.atif import spelling
from atif_spec.transforms.driver import Context
from atif_spec.transforms.migrations.base import Doc, contents, each, version_step

LOWER, UPPER = "v1.7", "v1.8"
AUDIO_POLICY = "an audio part becomes a text part naming the recording: [audio: path (type, s)]"


def down(doc: Doc, ctx: Context, base: str) -> Doc:
    """v1.8 -> v1.7 (of the document, and of each embedded subagent that declares v1.8)."""

    def described(owner: Doc, ptr: str, key: str) -> Doc:
        def part(obj: Doc, j: int) -> Doc:
            if obj.get("type") != "audio":
                return obj
            text = audio_text(obj)
            ctx.decide(f"{ptr}/{key}/{j}", AUDIO_POLICY, text)
            return text

        parts = each(owner.get(key), part)
        return owner if parts is owner.get(key) else {**owner, key: parts}

    def subagent(sub: Doc, i: int) -> Doc:
        if sub.get("schema_version") != spelling(UPPER):
            return sub
        return down(
            {**sub, "schema_version": spelling(LOWER)}, ctx, f"{base}/subagent_trajectories/{i}"
        )

    out = contents(doc, base, described)
    if "subagent_trajectories" in out:
        out["subagent_trajectories"] = each(out["subagent_trajectories"], subagent)
    return out


def audio_text(part: Doc) -> Doc:
    """The text part standing for an audio part below v1.8."""
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


STEP = version_step(LOWER, UPPER, None, down)
