"""ATIF v1.8 ↔ OpenTelemetry traces (OTLP/JSON, GenAI semantic conventions v1.41.0):
``spec/otel/MAPPING.md``, RFC.md §7.1, ``spec/otel/DECISIONS.md``.

Two lens records on the one driver: :mod:`.to_otel` (one trace per document: ``invoke_agent``,
``chat``, ``execute_tool`` spans, the tree of :mod:`.tree`, which ``atif view``'s waterfall
draws too; ``--otel-convention openinference`` writes the OpenInference spelling,
:mod:`.openinference`) and :mod:`.to_atif` (any producer's GenAI or OpenInference
spans). What OTel has no attribute for goes to ``atif.*`` attributes (:mod:`.common`); the
rest of a document, either way, to the stash, whose OTLP holder is the root span's
``atif.stash`` attribute (RFC.md §4.5.2). Sources must match their schema.
"""

from __future__ import annotations

from atif_spec.schemas.compiled import document_validator
from atif_spec.transforms.driver import Context, Mapping, Step
from atif_spec.transforms.lenses.otel.common import ATIF, OTEL, Doc
from atif_spec.transforms.lenses.otel.to_atif import to_atif
from atif_spec.transforms.lenses.otel.to_otel import to_otel
from atif_spec.validation.schema_findings import findings_of

__all__ = ["LENSES", "to_atif", "to_otel"]


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
    Step(ATIF, OTEL, _checked(ATIF, to_otel), to_atif, rebuilds=True),
    Step(OTEL, ATIF, _checked(OTEL, to_atif), to_otel, rebuilds=True),
]
