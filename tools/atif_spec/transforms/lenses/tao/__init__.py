"""opentraces TAO trace records ↔ ATIF v1.7 (``spec/tao/MAPPING.md``): two steps of the one
driver, whose mappings :func:`to_atif` and :func:`to_tao` run the rows of :mod:`.rows`."""

from __future__ import annotations

from atif_spec.transforms.driver import Step
from atif_spec.transforms.lenses.tao.common import ATIF, INTO_ATIF, INTO_TAO, TAO, prompt_key
from atif_spec.transforms.lenses.tao.to_atif import to_atif
from atif_spec.transforms.lenses.tao.to_tao import rehash, to_tao
from atif_spec.transforms.lenses.tao.tokens import anthropic_usage

LENSES = [
    Step(TAO, ATIF, to_atif, to_tao, rebuilds=True),
    Step(ATIF, TAO, to_tao, to_atif, rehash, rebuilds=True),
]

__all__ = ["INTO_ATIF", "INTO_TAO", "LENSES", "anthropic_usage", "prompt_key", "to_atif", "to_tao"]
