"""The planner: composes the adjacent version steps into a path between any two versions."""

from __future__ import annotations

import itertools
from types import ModuleType

from atif_spec.formats.atif import VERSIONS
from atif_spec.transforms.driver import Step
from atif_spec.transforms.migrations import (
    v1_0__v1_1,
    v1_1__v1_2,
    v1_2__v1_3,
    v1_3__v1_4,
    v1_4__v1_5,
    v1_5__v1_6,
    v1_6__v1_7,
    v1_7__v1_8,
)

STEPS: tuple[ModuleType, ...] = (
    v1_0__v1_1,
    v1_1__v1_2,
    v1_2__v1_3,
    v1_3__v1_4,
    v1_4__v1_5,
    v1_5__v1_6,
    v1_6__v1_7,
    v1_7__v1_8,
)
"""One module per adjacent pair, oldest first; each has ``LOWER``, ``UPPER`` and ``STEP`` (up)."""

CONTEXT_ONLY = {m.STEP.inverse.name: m.FACT for m in (v1_4__v1_5, v1_6__v1_7)}
"""The steps down that take out a field which may make a step context only, and that field
(``--drop-context-only-steps`` drops such steps before the step)."""


_UP = tuple(m.STEP for m in STEPS)
_DOWN = tuple(m.STEP.inverse for m in STEPS)
"""The steps up and down, oldest first (``_DOWN[i]`` from ``STEPS[i].UPPER`` to ``.LOWER``)."""


def plan(source: str, target: str) -> list[Step]:
    """The steps from ``source`` to ``target`` (``vX.Y``), in order; empty when they are equal."""
    i, j = VERSIONS.index(source), VERSIONS.index(target)
    if i <= j:
        return list(_UP[i:j])
    return list(reversed(_DOWN[j:i]))


def _check() -> None:
    pairs = [(m.LOWER, m.UPPER) for m in STEPS]
    assert pairs == list(itertools.pairwise(VERSIONS)), pairs


_check()
