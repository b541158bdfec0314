"""``atif view A B --compare``: two runs side by side, their steps aligned.

The alignment is a sequence diff over each top-level step's *key*: its ``source`` and the
function names of its tool calls, in order. The steps both runs begin and end with are matched
first; :class:`difflib.SequenceMatcher` (without its junk heuristic, and preferring, among
equally long matching blocks, the one nearest the diagonal) aligns the rest. Runs of
equal keys are ``same``; where the diff replaces a run of A's steps by a run of B's, they are
paired in order as ``changed`` and the longer run's rest is unmatched; steps only one run has
are ``only-a`` or ``only-b``, shown against a gap on the other side. Messages, arguments and
metrics do not take part: two runs of the same task align on what each step did, and their
tokens and findings are then compared step by step.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from difflib import Match, SequenceMatcher
from typing import Any

from atif_spec.formats.totals import step_totals
from atif_spec.jsonio.jsonvalues import dict_member, objects

Key = tuple[str, tuple[str, ...]]
Row = tuple[int | None, int | None, str]
"""``(index in A, index in B, tag)``: tag ``same``, ``changed``, ``only-a`` or ``only-b``."""
TAGS = ("same", "changed", "only-a", "only-b")
_STEP = re.compile(r"^/steps/(\d+)(?:/|$)")


class CompareError(ValueError):
    """The inputs cannot be compared (one line, for the command's exit status 2)."""


def step_key(step: Mapping[str, Any]) -> Key:
    """What the alignment compares of a step: its source and its tool calls' names."""
    source = step.get("source")
    names = tuple(
        name if isinstance(name := call.get("function_name"), str) else "?"
        for call in objects(step.get("tool_calls"))
    )
    return (source if isinstance(source, str) else "?", names)


class _Matcher(SequenceMatcher[Key]):
    """:class:`difflib.SequenceMatcher` whose longest matching block, among equally long ones, is
    the one nearest the diagonal of the ranges it searches (the standard one takes the earliest
    in A). Runs of like steps (``agent`` with ``bash``, hundreds of times) hold many equally long
    blocks: the earliest would match a block from the middle of B with the start of A and leave
    the rest of both unmatched. Without junk (``autojunk`` off), so no block is extended after."""

    def __init__(self, a: Sequence[Key], b: Sequence[Key]) -> None:
        self.seqs = (a, b)
        self.where: dict[Key, list[int]] = {}  # key -> its positions in b, ascending
        for j, key in enumerate(b):
            self.where.setdefault(key, []).append(j)
        super().__init__(None, a, b, autojunk=False)

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> Match:
        a, b = self.seqs
        ahi = len(a) if ahi is None else ahi
        bhi = len(b) if bhi is None else bhi
        wide, tall = bhi - blo, ahi - alo
        best, size, off = (alo, blo), 0, 0
        ends: dict[int, int] = {}  # j -> length of the match ending at a[i - 1], b[j]
        for i in range(alo, ahi):
            now: dict[int, int] = {}
            for j in self.where.get(a[i], ()):
                if j < blo:
                    continue
                if j >= bhi:
                    break
                k = now[j] = ends.get(j - 1, 0) + 1
                if k < size:
                    continue
                # How far the block's middle is from the diagonal (scaled by both lengths).
                away = abs((2 * (i - alo) - k + 1) * wide - (2 * (j - blo) - k + 1) * tall)
                if k > size or away < off:
                    best, size, off = (i - k + 1, j - k + 1), k, away
            ends = now
        return Match(best[0], best[1], size)


def align(a: Sequence[Key], b: Sequence[Key]) -> list[Row]:
    """The rows of the side-by-side view: every step of ``a`` and of ``b`` once, in order (the
    steps both begin and end with matched first, then :class:`_Matcher` on the rest)."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    rows: list[Row] = [(k, k, "same") for k in range(head)]
    middle = _Matcher(a[head : len(a) - tail], b[head : len(b) - tail])
    for tag, i1, i2, j1, j2 in middle.get_opcodes():
        i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
        paired = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        if tag == "equal":
            rows += [(i1 + k, j1 + k, "same") for k in range(i2 - i1)]
            continue
        rows += [(i1 + k, j1 + k, "changed") for k in range(paired)]
        rows += [(i, None, "only-a") for i in range(i1 + paired, i2)]
        rows += [(None, j, "only-b") for j in range(j1 + paired, j2)]
    rows += [(len(a) - tail + k, len(b) - tail + k, "same") for k in range(tail)]
    return rows


def _tokens(step: Mapping[str, Any]) -> int | None:
    """Prompt + completion tokens of a step as the totals count them (RFC.md §2.4)."""
    one = step_totals([step])
    if one.prompt_tokens is None and one.completion_tokens is None:
        return None
    return (one.prompt_tokens or 0) + (one.completion_tokens or 0)


def side(entry: Mapping[str, Any]) -> dict[str, Any]:
    """One run: its summary and, per top-level step, what the view shows of it (id, source,
    tools, prompt + completion tokens as counted, the findings whose pointer is in the step)."""
    atif = entry.get("atif") or {}
    steps = list(objects(atif.get("steps")))
    found: list[Counter[str]] = [Counter() for _ in steps]
    for f in entry.get("findings") or []:
        m = _STEP.match(f.get("pointer") or "")
        if m and int(m[1]) < len(steps):
            found[int(m[1])][f.get("level", "error")] += 1
    rows = []
    calls: Counter[str] = Counter()
    for i, step in enumerate(steps):
        source, tools = step_key(step)
        calls.update(tools)
        sid = step.get("step_id")
        rows.append(
            {
                "i": i,
                "id": sid if isinstance(sid, int | str) and not isinstance(sid, bool) else None,
                "source": source,
                "tools": list(tools),
                "tokens": _tokens(step),
                "errors": found[i]["error"],
                "warnings": found[i]["warning"],
            }
        )
    agent = dict_member(atif, "agent") or {}
    totals = entry.get("totals") or {}
    levels = Counter(f.get("level") for f in entry.get("findings") or [])
    return {
        "source": entry.get("source"),
        "agent": " ".join(str(agent[k]) for k in ("name", "version") if agent.get(k) is not None),
        "model": agent.get("model_name"),
        "steps": rows,
        "tool_calls": dict(sorted(calls.items())),
        "prompt_tokens": totals.get("prompt_tokens"),
        "completion_tokens": totals.get("completion_tokens"),
        "cost_usd": totals.get("cost_usd"),
        "errors": levels["error"],
        "warnings": levels["warning"],
    }


def comparison(a: Mapping[str, Any], b: Mapping[str, Any], docs: tuple[int, int]) -> dict[str, Any]:
    """The ``compare`` part of the page's payload for the documents ``a`` and ``b`` (entries of
    the payload's ``docs``, at the positions ``docs``)."""
    for name, entry in (("A", a), ("B", b)):
        if not isinstance(entry.get("atif"), dict):
            raise CompareError(
                f"--compare: {entry.get('source')} ({name}) could not be read as a trajectory"
            )
    sides = [side(a), side(b)]
    keys = [[(s["source"], tuple(s["tools"])) for s in one["steps"]] for one in sides]
    rows = align(keys[0], keys[1])
    tally = Counter(tag for _, _, tag in rows)
    return {
        "docs": list(docs),
        "sides": sides,
        "rows": [list(r) for r in rows],
        "counts": {tag: tally[tag] for tag in TAGS},
    }
