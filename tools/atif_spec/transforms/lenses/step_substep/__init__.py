"""Step/substep run log v1.0 ↔ ATIF v1.7 (``spec/step-substep/MAPPING.md``): a run-log step is
an ATIF step, its ``tool_call`` substeps the step's ``tool_calls`` and its results the step's
``observation.results``; the way back interleaves each call's results after it (MAPPING.md §6).
Both directions are plain mappings run by :mod:`atif_spec.transforms.driver` (sources must match
their schema). :mod:`.common` holds the named keys both read and write (``ctx.name`` and
``ctx.read``) and the lift conditions (MAPPING.md §2.1), :mod:`.to_atif` and :mod:`.to_ssl` the
mappings.
"""

from __future__ import annotations

from atif_spec.schemas.compiled import document_validator
from atif_spec.transforms.driver import Context, Mapping, Step
from atif_spec.transforms.lenses.step_substep.common import (
    ATIF,
    NO_MESSAGE_SUMMARY,
    SSL,
    TO_ATIF,
    TO_SSL,
    Doc,
)
from atif_spec.transforms.lenses.step_substep.to_atif import adopted_call_ids, to_atif
from atif_spec.transforms.lenses.step_substep.to_ssl import interleave, to_ssl
from atif_spec.validation.schema_findings import findings_of

__all__ = ["LENSES", "NO_MESSAGE_SUMMARY", "TO_ATIF", "TO_SSL", "adopted_call_ids", "interleave"]


def _checked(source: str, mapping: Mapping) -> Mapping:
    """``mapping``, refusing a source that does not match its schema (``convert:invalid-source``
    followed by the schema findings)."""

    def run(doc: Doc, ctx: Context) -> Doc:
        validator = document_validator(source)
        if not validator.is_valid(doc):
            message = f"the source is not a valid {source} document"
            raise ctx.refuse("invalid-source", "", message, findings_of(validator, doc))
        return mapping(doc, ctx)

    return run


LENSES = [
    Step(SSL, ATIF, _checked(SSL, to_atif), to_ssl, rebuilds=True),
    Step(ATIF, SSL, _checked(ATIF, to_ssl), to_atif, rebuilds=True),
]
