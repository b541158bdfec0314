"""Screen schemas: a fast way to learn that most of a document needs no rule at all.

A format's *screen* is a narrowed copy of a version's schema: it accepts only documents that
the real schema accepts **and** whose steps hold none of the things that some rules look for
(for ATIF: media content parts, token-id or logprob arrays, subagent references, context
management markers, timestamps without an offset). jsonschema-rs checks those conditions in
the same pass that validates the document, at almost no extra cost, and a document the
screen accepts is *vouched* for: the per-step rules then only check what no schema can say
(ids, sums, cross-references), which is what keeps full validation near parse speed.

A screen only ever narrows (a subschema is replaced by a stricter one, or constrained with
``allOf``), so ``screen accepts ⇒ schema accepts``; ``tests/validation/rules/test_screen.py`` checks
that, and that every rule finds the same with and without a vouch.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jsonschema_rs

from atif_spec.schemas.catalog import schema_by_id
from atif_spec.schemas.compiled import refuse_retrieval, rs_registry

if TYPE_CHECKING:
    import jsonschema_rs

# Ends in ``Z`` or ``±hh:mm``: what ATIF103's quick test treats as "has an offset".
_OFFSET_AT_END = "(Z|[+-][0-9]{2}:[0-9]{2})$"


def _narrow(schema: dict[str, Any], path: tuple[str, ...], stricter: dict[str, Any]) -> None:
    """Constrain the subschema at ``path`` (if the version has it) with ``stricter`` too."""
    parent: Any = schema
    for key in path[:-1]:
        parent = parent.get(key) if isinstance(parent, dict) else None
    if isinstance(parent, dict) and path[-1] in parent:
        parent[path[-1]] = {"allOf": [parent[path[-1]], stricter]}


def atif_screen(schema: dict[str, Any]) -> dict[str, Any]:
    """The screen of one ATIF version's schema (see the module docstring).

    Each narrowing names the rules that find nothing once it holds.
    """
    out = copy.deepcopy(schema)
    step = ("$defs", "Step", "properties")
    _narrow(out, (*step, "message"), {"type": "string"})  # ATIF401, ATIF402
    _narrow(out, (*step, "timestamp"), {"pattern": _OFFSET_AT_END})  # ATIF103
    _narrow(
        out,
        (*step, "extra"),
        {"properties": {"context_management": {"type": "null"}}},  # ATIF601, ATIF602
    )
    metrics = ("$defs", "Metrics", "properties")
    for array in ("prompt_token_ids", "completion_token_ids", "logprobs"):
        _narrow(out, (*metrics, array), {"type": "null"})  # ATIF302, ATIF303, ATIF304
    result = ("$defs", "ObservationResult", "properties")
    _narrow(out, (*result, "content"), {"type": ["string", "null"]})  # ATIF401, ATIF402
    _narrow(out, (*result, "subagent_trajectory_ref"), {"type": "null"})  # ATIF502
    return out


SCREENS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {"atif": atif_screen}
"""Format name → the function that narrows one of its schemas into a screen."""


def screen_id(schema_id: str) -> str:
    """The ``$id`` given to the screen of the schema ``schema_id`` (never published)."""
    return schema_id.removesuffix(".json") + ".screen.json"


@functools.cache
def screen_validator(fmt: str, schema_id: str) -> jsonschema_rs.Validator | None:
    """The compiled screen of one schema, or None when the format has no screen."""
    narrow = SCREENS.get(fmt)
    if narrow is None:
        return None

    screen = narrow(schema_by_id(schema_id))
    screen["$id"] = screen_id(schema_id)
    return jsonschema_rs.validator_for(screen, registry=rs_registry(), retriever=refuse_retrieval)
