"""The header's totals, explained: the document's own ``final_metrics`` beside the totals computed
by RFC.md §2.4 and, when they differ, why, in words.

The computed totals include every subagent and leave out copied-context steps; a producer's
``final_metrics`` may count its own steps only, or count copied context too. Each total that
differs is matched against those readings; one that matches none is said to be unexplained.
"""

from __future__ import annotations

import math
from typing import Any

from atif_spec.formats.totals import TOKEN_METRICS, Totals, is_copied_context, step_totals
from atif_spec.jsonio.jsonvalues import dict_member, list_member, objects

ROWS = (
    ("steps", "total_steps", "steps"),
    ("prompt tokens", "total_prompt_tokens", "prompt_tokens"),
    ("completion tokens", "total_completion_tokens", "completion_tokens"),
    ("cached tokens", "total_cached_tokens", "cached_tokens"),
    ("cost (USD)", "total_cost_usd", "cost_usd"),
)
"""(label, the ``final_metrics`` field, the :class:`Totals` attribute) of each row."""

READINGS = {
    "own": "this trajectory's own steps only, without its {subagents}",
    "own+copied": "this trajectory's own steps including its {copied}",
    "all+copied": "every step including this trajectory's {copied}",
    "own-copied": "this trajectory's own steps without its {copied}",
}
"""What a ``final_metrics`` total counts when it matches a reading other than the computed one."""


def explain(atif: dict[str, Any], totals: Totals, *, followed: bool) -> dict[str, Any] | None:
    """The document's ``final_metrics`` beside ``totals`` (computed, RFC.md §2.4): one row per
    total the document writes, whether any differs, and the reasons in words; None without
    ``final_metrics``. ``followed``: subagent files were looked for (``--follow-refs``)."""
    final = dict_member(atif, "final_metrics")
    if final is None:
        return None
    steps = list_member(atif, "steps")
    own = step_totals(steps)
    with_copied = step_totals([_uncopied(s) for s in objects(steps)])
    readings = _readings(totals, own, with_copied)
    rows: list[dict[str, Any]] = []
    matched: dict[str, list[str]] = {}
    for label, name, attr in ROWS:
        written, computed = final.get(name), getattr(totals, attr)
        same = _same(written, computed, attr)
        rows.append(
            {"label": label, "field": name, "written": written, "computed": computed, "same": same}
        )
        if written is None or same:
            continue
        reading = next((k for k, v in readings[attr].items() if _same(written, v, attr)), None)
        matched.setdefault(reading or "none", []).append(label)
    return {
        "rows": rows,
        "differs": bool(matched),
        "reasons": _reasons(matched, totals, own, followed),
    }


def _uncopied(step: dict[str, Any]) -> dict[str, Any]:
    """The step as if it were not copied context (its metrics then count)."""
    if not is_copied_context(step):
        return step
    out = {k: v for k, v in step.items() if k != "is_copied_context"}
    extra = dict_member(step, "extra")
    if extra is not None:
        out["extra"] = {k: v for k, v in extra.items() if k != "is_copied_context"}
    return out


def _readings(totals: Totals, own: Totals, with_copied: Totals) -> dict[str, dict[str, Any]]:
    """Per attribute: the value of each reading other than the computed one."""
    out: dict[str, dict[str, Any]] = {
        "steps": {"own": own.steps, "own-copied": own.steps - own.copied_context_steps}
    }
    for attr in (*TOKEN_METRICS, "cost_usd"):
        copied = _minus(getattr(with_copied, attr), getattr(own, attr))
        out[attr] = {
            "own": getattr(own, attr),
            "own+copied": getattr(with_copied, attr),
            "all+copied": _plus(getattr(totals, attr), copied),
        }
    return out


def _reasons(
    matched: dict[str, list[str]], totals: Totals, own: Totals, followed: bool
) -> list[str]:
    subagents = _plural(totals.subagents, "subagent")
    copied = _plural(own.copied_context_steps, "copied-context step")
    words = {"subagents": subagents, "copied": copied}
    out = []
    for reading, labels in matched.items():
        which = ", ".join(labels)
        if reading == "none":
            out.append(
                f"{which}: final_metrics matches neither the computed totals nor this "
                "trajectory's own steps (with or without copied context): one of the two is wrong"
            )
        else:
            out.append(f"{which}: final_metrics counts {READINGS[reading].format(**words)}")
    if matched and totals.subagents:
        out.append(f"the computed totals include {subagents} (RFC.md §2.4 rule 5)")
    if matched and own.copied_context_steps:
        out.append(
            f"the computed totals leave out {copied}: "
            "their usage was recorded where they first happened (RFC.md §2.4 rule 2)"
        )
    if matched and totals.unresolved_refs:
        why = "could not be followed" if followed else "not read (atif view --follow-refs)"
        out.append(
            f"{_plural(totals.unresolved_refs, 'subagent file')} {why}: "
            "their usage is not in the computed totals"
        )
    return out


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _same(written: Any, computed: Any, attr: str) -> bool:
    if not _number(written) or not _number(computed):
        return bool(written is None and computed is None)
    if attr == "cost_usd":
        return math.isclose(float(written), float(computed), rel_tol=1e-6)
    return bool(written == computed)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _minus(a: Any, b: Any) -> Any:
    return a - (b or 0) if a is not None else None


def _plus(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return a if b is None else b
    return a + b


__all__ = ["explain"]
