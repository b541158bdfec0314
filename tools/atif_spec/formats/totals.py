"""The one definition of a trajectory's token and cost totals (RFC.md §2.4).

Every place that adds up usage uses these functions: rule ATIF306, the lenses that write or read
totals, ``atif stats`` and ``atif view``. The definition:

- A step's ``metrics`` count once. A step with ``is_copied_context: true`` does not count: its
  usage was recorded where it first happened (the earlier trajectory it was copied from).
- A step with ``llm_call_count: 0`` made no inference; it has no metrics to count (the schema
  forbids them from v1.7); if a producer wrote some anyway, they are not counted.
- A step whose ``llm_call_count`` is above 1 aggregates several calls: its metrics count as they
  are (once). One call logged as several steps is a producer's duty to record once: the metrics go
  on one of those steps only (the lenses do so when they split a call).
- A trajectory's totals are its own steps' plus every subagent's totals, recursively: embedded
  ``subagent_trajectories`` always, file-referenced ones (``subagent_trajectory_ref`` with a
  ``trajectory_path``) when the caller can read them (``resolve``).
- Continuation files (``continued_trajectory_ref``) are separate documents: each counts its own
  new steps; the run's totals are the sum over its files.

A total is ``None`` when no counted step reports that metric; token counts are integers (an
integral float such as ``100.0`` counts as 100), costs are added with :func:`math.fsum`; values of
any other type are skipped and counted in :attr:`Totals.mistyped`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from atif_spec.jsonio.jsonvalues import dict_member, list_member, objects

TOKEN_METRICS = ("prompt_tokens", "completion_tokens", "cached_tokens")
"""The per-step token metrics, each summed into ``final_metrics.total_<name>``."""

Resolver = Callable[[Mapping[str, Any], Mapping[str, Any]], Mapping[str, Any] | None]
"""Reads the document a ``subagent_trajectory_ref`` names (None: not available); called with the
reference and the document file that holds it (the root document, or one ``resolve`` returned),
so that a relative path resolves against that file's folder (RFC.md §2.2)."""


@dataclass(slots=True)
class Totals:
    """Usage added up over counted steps (see the module docstring for what counts)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None
    steps: int = 0
    """Every step, counted or not."""
    copied_context_steps: int = 0
    zero_call_steps: int = 0
    """Steps with ``llm_call_count: 0``."""
    subagents: int = 0
    """Subagent trajectories included (embedded, and file-referenced that were resolved)."""
    unresolved_refs: int = 0
    """File-referenced subagents whose usage is not included (not resolved)."""
    mistyped: list[str] = field(default_factory=list)
    """Metric names with a value that is not a number (skipped)."""

    def add(self, other: Totals) -> None:
        """Add ``other`` into these totals."""
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if f.name == "mistyped":
                mine.extend(theirs)
            elif theirs is not None:
                setattr(self, f.name, theirs if mine is None else _plus(mine, theirs, f.name))

    def as_final_metrics(self) -> dict[str, Any]:
        """The ``final_metrics`` totals these make (only the totals that are set)."""
        out: dict[str, Any] = {}
        for name in TOKEN_METRICS:
            value = getattr(self, name)
            if value is not None:
                out[f"total_{name}"] = value
        if self.cost_usd is not None:
            out["total_cost_usd"] = self.cost_usd
        return out


def _plus(a: Any, b: Any, name: str) -> Any:
    return _fsum([a, b]) if name == "cost_usd" else a + b


def _fsum(values: list[float]) -> float:
    """An exact float sum; infinity when it overflows (never raises)."""
    try:
        return math.fsum(values)
    except OverflowError:
        return math.inf


def _count(value: Any) -> int | None:
    """A token count: an int, or an integral float; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _cost(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer beyond a float's range is no cost
        return None
    return number if math.isfinite(number) else None


TRAINING_FACTS = ("is_copied_context", "llm_call_count")
"""Step fields that make a step context only. Below the version that has the field, a migration
keeps a value that says so (``true``, ``0``) under the same name in the step's ``extra``
(RFC.md §4.5.3); the readers here honour it there when the field itself is absent."""


def context_only_fact(key: str, value: Any) -> bool:
    """True when ``value`` of the field ``key`` makes a step context only (``true``; ``0``)."""
    if key == "is_copied_context":
        return value is True
    return key == "llm_call_count" and _count(value) == 0 and not isinstance(value, bool)


def _fact(step: Mapping[str, Any], key: str) -> bool:
    if key in step:
        return context_only_fact(key, step[key])
    extra = step.get("extra")
    # None and dict first: the check against the abstract class is slow, and runs on every step
    return (
        extra is not None
        and isinstance(extra, (dict, Mapping))
        and context_only_fact(key, extra.get(key))
    )


def is_copied_context(step: Mapping[str, Any]) -> bool:
    """``is_copied_context: true``, or below v1.5 ``extra.is_copied_context: true``."""
    return _fact(step, "is_copied_context")


def zero_calls(step: Mapping[str, Any]) -> bool:
    """``llm_call_count: 0``, or below v1.7 ``extra.llm_call_count: 0``."""
    return _fact(step, "llm_call_count")


def counts(step: Mapping[str, Any]) -> bool:
    """True when this step's metrics count towards the totals."""
    return not is_copied_context(step) and not zero_calls(step)


_SUMMED = (*TOKEN_METRICS, "cost_usd")
"""The step metrics :func:`step_totals` adds up."""


def step_totals(steps: Any) -> Totals:
    """The totals of a list of steps (one trajectory's own steps, no subagents)."""
    totals = Totals()
    counted: list[dict[str, Any]] = []  # the metrics of the steps that count
    for step in objects(steps):
        totals.steps += 1
        copied, zero = _fact(step, "is_copied_context"), _fact(step, "llm_call_count")
        totals.copied_context_steps += copied
        totals.zero_call_steps += zero
        metrics = step.get("metrics")
        if isinstance(metrics, dict) and not copied and not zero:  # counts(step)
            counted.append(metrics)
    for name in _SUMMED:  # a mistyped value is noted, not added
        read = _cost if name == "cost_usd" else _count
        values: list[Any] = [read(v) for m in counted if (v := m.get(name)) is not None]
        found = [value for value in values if value is not None] if None in values else values
        totals.mistyped += [name] * (len(values) - len(found))
        if found:
            setattr(totals, name, _fsum(found) if name == "cost_usd" else sum(found))
    return totals


def trajectory_totals(doc: Mapping[str, Any], resolve: Resolver | None = None) -> Totals:
    """The totals of a trajectory: its own steps plus every subagent's, recursively.

    ``resolve`` reads file-referenced subagents; without it they are counted in
    :attr:`Totals.unresolved_refs` and left out. Each subagent document is counted once, however
    many references name it (by identity of the mapping ``resolve`` returns).
    """
    totals = Totals()
    seen: set[int] = set()
    # (trajectory, the document file holding it): embedded subagents live in their parent's file
    pending: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = [(doc, doc)]
    while pending:  # iterative: deep subagent nesting cannot exhaust the stack
        node, holder = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node is not doc:
            totals.subagents += 1
        steps = list_member(node, "steps")
        totals.add(step_totals(steps))
        pending.extend((sub, holder) for sub in objects(node.get("subagent_trajectories")))
        for ref in _file_refs(steps):
            filed = resolve(ref, holder) if resolve is not None else None
            if filed is None:
                totals.unresolved_refs += 1
            else:
                pending.append((filed, filed))
    return totals


def _file_refs(steps: list[Any]) -> Iterator[Mapping[str, Any]]:
    """The ``subagent_trajectory_ref`` objects of observation results that name a file."""
    for step in objects(steps):
        for result in objects(list_member(dict_member(step, "observation"), "results")):
            if "subagent_trajectory_ref" not in result:  # most results: no walk below
                continue
            for ref in _refs(result["subagent_trajectory_ref"]):
                if isinstance(ref.get("trajectory_path"), str):
                    yield ref


def _refs(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
    else:
        yield from objects(value)
