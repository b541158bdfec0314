"""Step/substep run log v1.0 ↔ ATIF v1.7 (``spec/step-substep/MAPPING.md``).

A run-log step is one provider message; it becomes one ATIF step (``assistant`` → ``agent``,
``user`` and ``system`` kept). Its ``tool_call`` substeps become the step's ``tool_calls`` and its
``tool_output``/``tool_error`` substeps its ``observation.results``, linked by the call id; the
run's id and provider become ``session_id`` and ``agent.name``. The way back interleaves each
call's results after it, numbers the substeps and labels synthetic steps. Both directions are
plain mappings run by :mod:`atif_spec.transforms.driver`; sources must match their schema.

**Named keys** (MAPPING.md's *named* rows): what the other side has no field for but a reader
needs goes under a documented key of the nearest ``extra`` unless the producer's own ``extra``
has that key, reported with ``ctx.name``; a mapping reads one back only where ``ctx.read`` says.

**Lifts** (MAPPING.md §2.1) are field mappings both ways, applied whenever their condition holds
and never recorded: an agent step's ``extra.model`` (a string) and ``extra.metrics`` (a valid
``Metrics``) are its ``model_name`` and ``metrics``; the run's ``extra.model``,
``extra.agent_version`` (a string) and ``extra.final_metrics`` (a valid ``FinalMetrics`` whose
totals agree with the steps', rule ATIF306) are ``agent.model_name``, ``agent.version`` and
``final_metrics``. A field already set is kept; an ``extra`` emptied by taking keys out is left
out. The way back writes the same keys under the same conditions (``agent.version`` not
``"unknown"``) where the ``extra`` does not have them yet.

Modules: :mod:`.common` (the steps' targets, the named keys, the lift conditions and the
``extra`` being built), :mod:`.to_atif` and :mod:`.to_ssl` (the mappings).
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

__all__ = [
    "LENSES",
    "NO_MESSAGE_SUMMARY",
    "TO_ATIF",
    "TO_SSL",
    "adopted_call_ids",
    "interleave",
    "to_atif",
    "to_ssl",
]


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
    Step(SSL, ATIF, _checked(SSL, to_atif), to_ssl),
    Step(ATIF, SSL, _checked(ATIF, to_ssl), to_atif),
]
