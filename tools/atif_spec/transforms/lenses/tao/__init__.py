"""opentraces TAO trace records ↔ ATIF v1.7 (the mapping is ``spec/tao/MAPPING.md``).

Two steps of the one driver (:mod:`atif_spec.transforms.driver`): :func:`to_atif` and
:func:`to_tao` are the mappings, each the other's backward. Each fills every field the other
format has a place for and puts TAO's and ATIF's other meaning under documented named keys;
the driver stashes the rest (RFC.md §4.5). The plain copies and the named keys are rows in
:mod:`.rows`, which both mappings run and MAPPING.md renders. How a record was written (filled
by opentraces, or hashed) is decided once from the record (:func:`.to_atif.record_style`) and
written as the named key ``tao_style``, which :func:`to_tao` reads back.
"""

from __future__ import annotations

from atif_spec.transforms.driver import Step
from atif_spec.transforms.lenses.tao.common import (
    ATIF,
    INTO_ATIF,
    INTO_TAO,
    TAO,
    prompt_key,
)
from atif_spec.transforms.lenses.tao.to_atif import to_atif
from atif_spec.transforms.lenses.tao.to_tao import rehash, to_tao
from atif_spec.transforms.lenses.tao.tokens import anthropic_usage

LENSES = [Step(TAO, ATIF, to_atif, to_tao), Step(ATIF, TAO, to_tao, to_atif, rehash)]

__all__ = ["INTO_ATIF", "INTO_TAO", "LENSES", "anthropic_usage", "prompt_key", "to_atif", "to_tao"]
