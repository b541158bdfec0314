"""Every (object, field, version) cell of the reference sheet's presence tables, checked.

The table below is transcribed from ``shared/reference/atif-versions.md`` §3 (the "Since"
columns and presence matrices), independently of the schemas: a field is accepted by the
versions that have it and rejected (as an unknown key) by those that do not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from atif_spec.schemas.catalog import load_catalog
from atif_spec.schemas.compiled import rs_validator
from tests.support.documents import ATIF_VERSIONS, minimal_atif

Placer = Callable[[dict[str, Any], str, Any], None]


def _at_root(doc: dict[str, Any], field: str, value: Any) -> None:
    doc[field] = value


def _at_agent(doc: dict[str, Any], field: str, value: Any) -> None:
    doc["agent"][field] = value


def _at_step(doc: dict[str, Any], field: str, value: Any) -> None:
    doc["steps"][0][field] = value


def _at_tool_call(doc: dict[str, Any], field: str, value: Any) -> None:
    call = {"tool_call_id": "call_1", "function_name": "bash", "arguments": {}}
    call[field] = value
    doc["steps"][0]["tool_calls"] = [call]


def _at_result(doc: dict[str, Any], field: str, value: Any) -> None:
    doc["steps"][0]["observation"] = {"results": [{field: value}]}


def _at_metrics(doc: dict[str, Any], field: str, value: Any) -> None:
    doc["steps"][0]["metrics"] = {field: value}


def _at_final(doc: dict[str, Any], field: str, value: Any) -> None:
    doc["final_metrics"] = {field: value}


def _at_ref(doc: dict[str, Any], field: str, value: Any) -> None:
    ref = {"session_id": "sub-1", "trajectory_path": "trajectory.sub-1.json"}
    ref[field] = value
    doc["steps"][0]["observation"] = {"results": [{"subagent_trajectory_ref": [ref]}]}


def _at_audio(doc: dict[str, Any], field: str, value: Any) -> None:
    source = {"media_type": "audio/wav", "path": "audio/a.wav"}
    source[field] = value
    doc["steps"][0]["message"] = [{"type": "audio", "source": source}]


# (object, field, first version, placer, value) — the sheet's "Since" per field.
CELLS: list[tuple[str, str, str, Placer, Any]] = [
    ("Trajectory", "notes", "v1.0", _at_root, "a note"),
    ("Trajectory", "final_metrics", "v1.0", _at_root, {}),
    ("Trajectory", "extra", "v1.1", _at_root, {"k": 1}),
    ("Trajectory", "continued_trajectory_ref", "v1.5", _at_root, "trajectory.cont-1.json"),
    ("Trajectory", "trajectory_id", "v1.7", _at_root, "main"),
    ("Trajectory", "subagent_trajectories", "v1.7", _at_root, []),
    ("Agent", "model_name", "v1.0", _at_agent, "gpt-5"),
    ("Agent", "extra", "v1.0", _at_agent, {}),
    ("Agent", "tool_definitions", "v1.5", _at_agent, []),
    ("Step", "timestamp", "v1.0", _at_step, "2025-10-11T10:30:00Z"),
    ("Step", "model_name", "v1.0", _at_step, "gpt-5"),
    ("Step", "reasoning_effort", "v1.0", _at_step, "low"),
    ("Step", "reasoning_content", "v1.0", _at_step, "because"),
    ("Step", "tool_calls", "v1.0", _at_step, []),
    ("Step", "observation", "v1.0", _at_step, {"results": []}),
    ("Step", "metrics", "v1.0", _at_step, {}),
    ("Step", "extra", "v1.0", _at_step, {}),
    ("Step", "is_copied_context", "v1.5", _at_step, True),
    ("Step", "llm_call_count", "v1.7", _at_step, 1),
    (
        "Step",
        "message (ContentPart[])",
        "v1.6",
        lambda d, f, v: _at_step(d, "message", v),
        [{"type": "text", "text": "hi"}],
    ),
    ("ToolCall", "extra", "v1.7", _at_tool_call, {"timeout_sec": 30}),
    ("ObservationResult", "source_call_id", "v1.0", lambda d, f, v: _at_result(d, f, None), None),
    ("ObservationResult", "content", "v1.0", _at_result, "output"),
    (
        "ObservationResult",
        "content (ContentPart[])",
        "v1.6",
        lambda d, f, v: _at_result(d, "content", v),
        [{"type": "image", "source": {"media_type": "image/png", "path": "images/a.png"}}],
    ),
    ("ObservationResult", "subagent_trajectory_ref", "v1.0", _at_result, []),
    ("ObservationResult", "extra", "v1.7", _at_result, {"score": 0.5}),
    ("Metrics", "prompt_tokens", "v1.0", _at_metrics, 10),
    ("Metrics", "completion_tokens", "v1.0", _at_metrics, 10),
    ("Metrics", "cached_tokens", "v1.0", _at_metrics, 0),
    ("Metrics", "cost_usd", "v1.0", _at_metrics, 0.01),
    ("Metrics", "logprobs", "v1.0", _at_metrics, [-0.1]),
    ("Metrics", "extra", "v1.0", _at_metrics, {}),
    ("Metrics", "completion_token_ids", "v1.3", _at_metrics, [1, 2]),
    ("Metrics", "prompt_token_ids", "v1.4", _at_metrics, [1, 2]),
    ("FinalMetrics", "total_prompt_tokens", "v1.0", _at_final, 1),
    ("FinalMetrics", "total_completion_tokens", "v1.0", _at_final, 1),
    ("FinalMetrics", "total_cached_tokens", "v1.0", _at_final, 0),
    ("FinalMetrics", "total_cost_usd", "v1.0", _at_final, 0.5),
    ("FinalMetrics", "total_steps", "v1.0", _at_final, 1),
    ("FinalMetrics", "extra", "v1.0", _at_final, {}),
    ("SubagentTrajectoryRef", "extra", "v1.0", _at_ref, {"summary": "ok"}),
    ("SubagentTrajectoryRef", "trajectory_id", "v1.7", _at_ref, "sub-1"),
    (
        "AudioSource",
        "object (audio ContentPart)",
        "v1.8",
        lambda d, f, v: _at_audio(d, "path", "audio/a.wav"),
        None,
    ),
    ("AudioSource", "duration_sec", "v1.8", _at_audio, 1.5),
]


def _valid(version: str, doc: dict[str, Any]) -> bool:
    entry = load_catalog().find(f"atif@{version}")
    return bool(rs_validator(entry.id).is_valid(doc))


@pytest.mark.parametrize("version", ATIF_VERSIONS)
@pytest.mark.parametrize(
    ("obj", "field", "since", "place", "value"), CELLS, ids=[f"{c[0]}.{c[1]}" for c in CELLS]
)
def test_field_present_exactly_from_its_version(
    version: str, obj: str, field: str, since: str, place: Placer, value: Any
) -> None:
    doc = minimal_atif(version)
    place(doc, field, value)
    expected = ATIF_VERSIONS.index(version) >= ATIF_VERSIONS.index(since)
    assert _valid(version, doc) is expected, (
        f"{obj}.{field} in {version}: expected accepted={expected}"
    )


@pytest.mark.parametrize("version", ATIF_VERSIONS)
def test_root_session_id_required_until_v1_6(version: str) -> None:
    doc = minimal_atif(version)
    del doc["session_id"]
    assert _valid(version, doc) is (version >= "v1.7")


@pytest.mark.parametrize("version", ATIF_VERSIONS)
def test_ref_session_id_required_until_v1_6(version: str) -> None:
    doc = minimal_atif(version)
    ref = {"trajectory_path": "trajectory.sub-1.json"}
    doc["steps"][0]["observation"] = {"results": [{"subagent_trajectory_ref": [ref]}]}
    assert _valid(version, doc) is (version >= "v1.7")


@pytest.mark.parametrize("version", ATIF_VERSIONS)
@pytest.mark.parametrize("field", ["schema_version", "agent", "steps"])
def test_always_required(version: str, field: str) -> None:
    doc = minimal_atif(version)
    del doc[field]
    assert not _valid(version, doc)


def _with_tool_call(version: str) -> tuple[dict[str, Any], dict[str, Any]]:
    doc = minimal_atif(version)
    doc["steps"][0]["tool_calls"] = [
        {"tool_call_id": "c", "function_name": "bash", "arguments": {}}
    ]
    return doc, doc["steps"][0]["tool_calls"][0]


REQUIRED: list[tuple[str, Callable[[str], tuple[dict[str, Any], dict[str, Any]]], list[str]]] = [
    ("Agent", lambda v: (d := minimal_atif(v), d["agent"]), ["name", "version"]),
    ("Step", lambda v: (d := minimal_atif(v), d["steps"][0]), ["step_id", "source", "message"]),
    ("ToolCall", _with_tool_call, ["tool_call_id", "function_name", "arguments"]),
]


@pytest.mark.parametrize("version", ATIF_VERSIONS)
@pytest.mark.parametrize(("obj", "build", "required"), REQUIRED, ids=[r[0] for r in REQUIRED])
def test_object_required_fields(
    version: str,
    obj: str,
    build: Callable[[str], tuple[dict[str, Any], dict[str, Any]]],
    required: list[str],
) -> None:
    for field in required:
        doc, target = build(version)
        assert _valid(version, doc)
        del target[field]
        assert not _valid(version, doc), f"{obj} without {field} accepted in {version}"
