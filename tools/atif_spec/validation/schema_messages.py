"""Custom messages for schema failures, keyed by schema location (kept out of the schema files).

Published schemas use standard JSON Schema keywords only, so that strict validators (Ajv's strict
mode, SchemaStore) load them. A failure whose keyword sits directly in one of the nodes below is
reported with the node's message instead of the generic one (see
``atif_spec.validation.schema_findings``). Keys are absolute schema locations: ``<$id>#<JSON pointer
to the node>``.
"""

from __future__ import annotations

_BASE = "https://atif-spec.org/schemas/atif"

_AGENT_ONLY = "this field is only allowed on agent steps"
_MEDIA_NO_TEXT = "a media content part must not carry text"
_TEXT_NO_SOURCE = "a content part of type 'text' must not carry a source"
_NO_LLM_CALL = "this field must be absent when llm_call_count is 0"
_RESOLVABLE = (
    "a subagent reference must set trajectory_id or trajectory_path "
    "(session_id alone does not resolve from v1.7)"
)


def _at(version: str, definition: str) -> str:
    return f"{_BASE}/{version}/trajectory.schema.json#/$defs/{definition}"


MESSAGES: dict[str, str] = {
    **{_at(f"v1.{minor}", "OnlyOnAgentSteps"): _AGENT_ONLY for minor in range(9)},
    **{_at(v, "MustBeAbsentForMedia"): _MEDIA_NO_TEXT for v in ("v1.6", "v1.7", "v1.8")},
    **{_at(v, "MustBeAbsentForText"): _TEXT_NO_SOURCE for v in ("v1.6", "v1.7", "v1.8")},
    **{_at(v, "AbsentWithoutLlmCall"): _NO_LLM_CALL for v in ("v1.7", "v1.8")},
    **{_at(v, "ResolvableRef"): _RESOLVABLE for v in ("v1.7", "v1.8")},
}


def message_at(location: str) -> str | None:
    """The custom message of the schema node at ``location``, if it has one."""
    return MESSAGES.get(location)
