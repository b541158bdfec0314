"""ATIF v1.7 <-> v1.8.

Changes: v1.8 adds audio content parts (``type: "audio"`` with an ``AudioSource``). Embedded
subagents may declare any version from v1.7 to their parent's (DECISIONS D-1).

- ``down``: each audio part is replaced, in place, by a text part that names it
  (``[audio: <path> (<media_type>, <duration_sec> s)]``, decided), so a message or result made only
  of audio stays a valid, readable message; the audio part is stashed: parts of ``Step.message``
  in the step's ``extra``, parts of ``ObservationResult.content`` in the result's ``extra``.
  Embedded subagents that declare v1.8 are migrated to v1.7 with their parent; each one's stash
  records its old ``schema_version`` so that ``up`` can bring it back.
- ``up``: restores audio parts, and migrates back up exactly the subagents that ``down`` brought
  down (the others stay v1.7, which a v1.8 parent allows).
"""

from __future__ import annotations

from atif_spec.formats.atif import spelling
from atif_spec.jsonio.jsonvalues import dicts
from atif_spec.transforms.migrations.base import Doc, StepContext, results, steps, subagents
from atif_spec.transforms.stash_v1 import top_layer

LOWER, UPPER = "v1.7", "v1.8"
REASON = "v1.7 has no audio content parts"
AUDIO_POLICY = "an audio part becomes a text part naming the recording: [audio: path (type, s)]"


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
        _describe(step, "message", ptr, ctx)
        for k, result in results(step):
            _describe(result, "content", f"{ptr}/observation/results/{k}", ctx)
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


def _describe(owner: Doc, key: str, ptr: str, ctx: StepContext) -> None:
    """Replace the audio parts of ``owner[key]`` by text parts naming them."""
    audio = [(j, p) for j, p in dicts(owner.get(key)) if p.get("type") == "audio"]
    if audio:
        with ctx.owner(owner, ptr) as edit:
            for j, part in audio:
                edit.replace((key, j), audio_text(part), REASON, AUDIO_POLICY)


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
