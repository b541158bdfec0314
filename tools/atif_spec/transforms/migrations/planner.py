"""The planner: composes the adjacent version steps into a path between any two versions."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from atif_spec.formats.atif import VERSIONS
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
from atif_spec.transforms.migrations.base import Doc, StepContext

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
"""One module per adjacent pair, oldest first; each has ``LOWER``, ``UPPER``, ``up``, ``down``."""

StepFunction = Callable[[Doc, StepContext, str], None]


@dataclass(frozen=True, slots=True)
class PlannedStep:
    """One step of a plan: move a document from ``source`` to ``target`` with ``run``."""

    source: str
    target: str
    run: StepFunction


def plan(source: str, target: str) -> list[PlannedStep]:
    """The steps from ``source`` to ``target`` (``vX.Y``), in order; empty when they are equal."""
    i, j = VERSIONS.index(source), VERSIONS.index(target)
    if i <= j:
        return [PlannedStep(m.LOWER, m.UPPER, m.up) for m in STEPS[i:j]]
    return [PlannedStep(m.UPPER, m.LOWER, m.down) for m in reversed(STEPS[j:i])]


def _check() -> None:
    pairs = [(m.LOWER, m.UPPER) for m in STEPS]
    assert pairs == list(itertools.pairwise(VERSIONS)), pairs


_check()
