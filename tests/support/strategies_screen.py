"""Trajectories the ATIF screen accepts (plain steps, subagents from v1.7), and the same with
violations planted that the quick pass must hand over to the rules."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tests.support.documents import ATIF_VERSIONS

EMBEDDING = ("v1.7", "v1.8")
ids = st.text(alphabet="abc", min_size=1, max_size=2)


counts = st.integers(0, 50) | st.integers(0, 50).map(float)


OFFSET_STAMPS = ("2025-10-11T10:30:00Z", "2025-10-11T10:30:00.5+02:00", "2025-10-11T10:30-05:30")


@st.composite
def plain_steps(draw: st.DrawFn, position: int) -> dict[str, Any]:
    """An agent step the screen accepts: string message, results naming the step's calls."""
    step: dict[str, Any] = {"step_id": position, "source": "agent", "message": "m"}
    if draw(st.booleans()):
        step["timestamp"] = draw(st.sampled_from((*OFFSET_STAMPS, None)))
    call_ids = draw(st.lists(ids, max_size=4, unique=True))
    shape = draw(st.sampled_from(("list", "absent", "null")))
    if call_ids or shape == "list":
        step["tool_calls"] = [
            {"tool_call_id": i, "function_name": "f", "arguments": {}} for i in call_ids
        ]
    elif shape == "null":
        step["tool_calls"] = None
    if draw(st.booleans()):
        results = [
            {
                "source_call_id": draw(st.sampled_from([*call_ids, None])),
                "content": draw(st.sampled_from(("out", None))),
            }
            for _ in range(draw(st.integers(0, 3)))
        ]
        step["observation"] = {"results": results}
    if draw(st.booleans()):
        metrics: dict[str, Any] = {}
        prompt = draw(counts | st.none())
        if prompt is not None:
            metrics["prompt_tokens"] = prompt
            if draw(st.booleans()):
                metrics["cached_tokens"] = draw(st.integers(0, int(prompt)))
        if draw(st.booleans()):
            metrics["completion_tokens"] = draw(counts)
        if draw(st.booleans()):
            metrics["cost_usd"] = draw(st.floats(0, 1) | st.integers(0, 3))
        step["metrics"] = metrics
    return step


@st.composite
def plain_trajectories(draw: st.DrawFn, version: str, depth: int = 1) -> dict[str, Any]:
    """A trajectory the screen of ``version`` accepts (subagents from v1.7)."""
    doc: dict[str, Any] = {
        "schema_version": f"ATIF-{version}",
        "session_id": "s",
        "agent": {"name": "a", "version": "1"},
        "steps": [draw(plain_steps(p)) for p in range(1, draw(st.integers(1, 5)) + 1)],
    }
    if draw(st.booleans()):
        doc["final_metrics"] = {
            "total_prompt_tokens": draw(st.integers(0, 200)),
            "total_cached_tokens": draw(st.integers(0, 200)),
            "total_cost_usd": draw(st.floats(0, 5)),
            "total_steps": len(doc["steps"]),
        }
    if version in EMBEDDING and depth > 0 and draw(st.booleans()):
        allowed = EMBEDDING[: EMBEDDING.index(version) + 1]
        subs = []
        for k in range(draw(st.integers(1, 2))):
            sub = draw(plain_trajectories(draw(st.sampled_from(allowed)), depth - 1))
            sub["trajectory_id"] = f"sub-{k}"
            subs.append(sub)
        doc["subagent_trajectories"] = subs
    return doc


def _nodes(doc: dict[str, Any]) -> list[dict[str, Any]]:
    out = [doc]
    for sub in doc.get("subagent_trajectories") or ():
        out.extend(_nodes(sub))
    return out


@st.composite
def planted(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[str]]:
    """A plain trajectory with violations the quick pass must hand over to the rules."""
    version = draw(st.sampled_from(ATIF_VERSIONS))
    doc = draw(plain_trajectories(version))
    done: list[str] = []
    for _ in range(draw(st.integers(0, 3))):
        node = draw(st.sampled_from(_nodes(doc)))
        step = draw(st.sampled_from(node["steps"]))
        calls = step.get("tool_calls") or []
        results = (step.get("observation") or {}).get("results") or []
        metrics = step.get("metrics") or {}
        kind = draw(st.sampled_from(("renumber", "cached", "dup", "dangling", "total")))
        if kind == "renumber":
            step["step_id"] = draw(st.integers(1, 8))
        elif kind == "cached" and "prompt_tokens" in metrics:
            metrics["cached_tokens"] = int(metrics["prompt_tokens"]) + draw(st.integers(1, 3))
        elif kind == "dup" and len(calls) >= 2:
            i, j = draw(st.lists(st.integers(0, len(calls) - 1), min_size=2, max_size=2))
            calls[j]["tool_call_id"] = calls[i]["tool_call_id"]
        elif kind == "dangling" and results:
            draw(st.sampled_from(results))["source_call_id"] = "not-a-call"
        elif kind == "total" and "final_metrics" in node:
            node["final_metrics"]["total_prompt_tokens"] = draw(st.integers(0, 300))
        else:
            continue
        done.append(kind)
    return version, doc, done
