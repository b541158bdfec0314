"""User code typed against the generated models; tests/bindings/test_models_base.py runs mypy --strict on it."""

from __future__ import annotations

from typing import reveal_type

from atif_spec.bindings import models_io
from atif_spec.models.atif import v1_7, v1_8


def build() -> v1_8.Trajectory:
    step = v1_8.Step(step_id=1, source="user", message="hello", llm_call_count=0)
    metrics = v1_8.Metrics(prompt_tokens=10, completion_tokens=2, cost_usd=0.5)
    agent_step = v1_8.Step(step_id=2, source="agent", message="hi", metrics=metrics)
    agent = v1_8.Agent(name="terminus-2", version="1.0")
    return v1_8.Trajectory(schema_version="ATIF-v1.8", agent=agent, steps=[step, agent_step])


def total_tokens(doc: v1_8.Trajectory) -> int:
    total: int = 0
    for step in doc.steps:
        if step.metrics is not None and step.metrics.prompt_tokens is not None:
            total += step.metrics.prompt_tokens
    return total


def next_step_id(doc: v1_8.Trajectory) -> int:
    return max(step.step_id for step in doc.steps) + 1


def subagent_versions(doc: v1_8.Trajectory) -> list[str]:
    versions: list[str] = []
    for sub in doc.subagent_trajectories or []:
        if isinstance(sub, v1_7.Trajectory):
            versions.append(sub.schema_version)
        else:
            versions.append(sub.schema_version + " " + sub.trajectory_id)
    return versions


doc = build()
reveal_type(doc.steps[0].step_id)
reveal_type(doc.final_metrics.total_steps if doc.final_metrics else None)
print(total_tokens(doc), next_step_id(doc), subagent_versions(doc), models_io.dump(doc))
