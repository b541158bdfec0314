"""Deterministic synthetic trajectories for the benchmarks (no randomness, no clock)."""

from __future__ import annotations

from typing import Any


def agent_step(step_id: int, i: int, output_lines: int) -> dict[str, Any]:
    """An agent step with two tool calls and their observations."""
    calls = [
        {
            "tool_call_id": f"call_{step_id}_{k}",
            "function_name": "bash",
            "arguments": {
                "command": f"grep -rn 'symbol_{i}_{k}' src/ | head -n {k + 5}",
                "timeout": 30,
            },
        }
        for k in range(2)
    ]
    return {
        "step_id": step_id,
        "timestamp": f"2026-01-01T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}.123Z",
        "source": "agent",
        "model_name": "claude-sonnet-4",
        "message": f"Step {i}: let me search the code for the failing symbol. " + "x" * 150,
        "reasoning_content": "The test fails because the function returns None. " * 12,
        "tool_calls": calls,
        "observation": {
            "results": [
                {
                    "source_call_id": c["tool_call_id"],
                    "content": f"src/mod_{i}.py:12: value = compute()\n" * output_lines,
                }
                for c in calls
            ]
        },
        "metrics": {
            "prompt_tokens": 12_000 + i,
            "completion_tokens": 150,
            "cached_tokens": 11_000,
            "cost_usd": 0.0125,
        },
    }


def trajectory(agent_steps: int, output_lines: int = 50, version: str = "v1.7") -> dict[str, Any]:
    """A valid trajectory: a system and a user step, then ``agent_steps`` agent steps."""
    steps: list[dict[str, Any]] = [
        {
            "step_id": 1,
            "timestamp": "2026-01-01T00:00:00Z",
            "source": "system",
            "message": "You are a coding agent. " * 20,
        },
        {
            "step_id": 2,
            "timestamp": "2026-01-01T00:00:01Z",
            "source": "user",
            "message": "Fix the failing test.",
        },
    ]
    for i in range(agent_steps):
        steps.append(agent_step(len(steps) + 1, i, output_lines))
    metrics = [s["metrics"] for s in steps if "metrics" in s]
    return {
        "schema_version": f"ATIF-{version}",
        "session_id": "bench-session",
        "agent": {"name": "terminus-2", "version": "2.0.0", "model_name": "claude-sonnet-4"},
        "steps": steps,
        "final_metrics": {
            "total_prompt_tokens": sum(m["prompt_tokens"] for m in metrics),
            "total_completion_tokens": sum(m["completion_tokens"] for m in metrics),
            "total_cached_tokens": sum(m["cached_tokens"] for m in metrics),
            "total_cost_usd": round(sum(m["cost_usd"] for m in metrics), 6),
            "total_steps": len(steps),
        },
    }
