"""Custom failure messages live beside the schemas, keyed by schema location."""

from __future__ import annotations

import glob
import json

import pytest

from atif_spec.schemas.catalog import node_at
from atif_spec.validation.schema_messages import MESSAGES


@pytest.mark.parametrize("location", sorted(MESSAGES))
def test_every_message_names_an_existing_schema_node(location: str) -> None:
    assert isinstance(node_at(location), dict)


def _keywords(node: object) -> set[str]:
    if isinstance(node, dict):
        return set(node).union(*(_keywords(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_keywords(v) for v in node))
    return set()


@pytest.mark.parametrize("path", sorted(glob.glob("spec/**/*.schema.json", recursive=True)))
def test_published_schemas_carry_no_custom_keywords(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        schema = json.load(f)
    assert not [k for k in _keywords(schema) if k.startswith("x-")]


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("model-name-on-system-step", "this field is only allowed on agent steps"),
        ("image-part-with-text", "a media content part must not carry text"),
        ("text-part-with-source", "a content part of type 'text' must not carry a source"),
        ("metrics-without-llm-call", "this field must be absent when llm_call_count is 0"),
        ("ref-session-id-only", "a subagent reference must set trajectory_id or trajectory_path"),
    ],
)
def test_custom_messages_reach_the_findings(case: str, message: str) -> None:
    from pathlib import Path

    from atif_spec.validation.pipeline import validate

    report = validate(Path(f"conformance/atif/v1.7/invalid/{case}.json"))
    assert [f.message for f in report.findings if f.message.startswith(message)]


def test_a_trailing_line_break_gives_one_pattern_finding() -> None:
    from atif_spec.validation.pipeline import validate

    doc = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "a", "version": "1"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "hi", "timestamp": "2025-10-11T10:30:00Z\n"}
        ],
    }
    found = [(f.code, f.pointer) for f in validate(doc).findings]
    assert found == [("schema:pattern", "/steps/0/timestamp")]
