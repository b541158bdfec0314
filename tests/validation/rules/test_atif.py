"""The ATIF rule set (``atif_spec.validation.rules.atif``): one triggering and one near-miss document per rule,
robustness on garbage, embedded numbering, version gating and registry invariants."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from atif_spec.formats.atif import VERSIONS
from atif_spec.validation.findings import Level
from atif_spec.validation.rules import REGISTRY, Rule, RuleContext, RuleOptions
from atif_spec.validation.rules.engine import run_rules
from tests.support import ROOT

SEEDS = Path("/work/shared/seeds")

Doc = dict[str, Any]
Pairs = list[tuple[str, str]]

# The rules of atif_spec.validation.rules.atif (other modules may add more ATIF rules, e.g. ATIF7xx).
ATIF_RULES = [r for r in REGISTRY if r.check.__module__ == "atif_spec.validation.rules.atif"]
CODES = frozenset(r.code for r in ATIF_RULES)


# --- building documents --------------------------------------------------------------------------


def base(version: str = "v1.7") -> Doc:
    """A schema-valid document of ``version`` on which no ATIF rule fires."""
    return {
        "schema_version": f"ATIF-{version}",
        "session_id": "run-1",
        "agent": {"name": "tester", "version": "1.0"},
        "steps": [
            {
                "step_id": 1,
                "timestamp": "2025-10-11T10:30:00Z",
                "source": "user",
                "message": "hello",
            },
            {
                "step_id": 2,
                "timestamp": "2025-10-11T12:30:02+02:00",
                "source": "agent",
                "message": "calling tools",
                "tool_calls": [
                    {"tool_call_id": "c1", "function_name": "f", "arguments": {}},
                    {"tool_call_id": "c2", "function_name": "g", "arguments": {"x": 1}},
                ],
                "observation": {
                    "results": [
                        {"source_call_id": "c1", "content": "one"},
                        {"source_call_id": "c2", "content": "two"},
                        {"source_call_id": None, "content": "not from a call"},
                    ]
                },
                "metrics": {
                    "prompt_tokens": 100,
                    "completion_tokens": 3,
                    "cached_tokens": 40,
                    "cost_usd": 0.1,
                    "logprobs": [-0.1, -0.2, -0.3],
                },
            },
            {
                "step_id": 3,
                "source": "agent",
                "message": "done",
                # cached == prompt: the edge of ATIF301
                "metrics": {
                    "prompt_tokens": 200,
                    "completion_tokens": 2,
                    "cached_tokens": 200,
                    "cost_usd": 0.2,
                },
            },
        ],
        # 0.1 + 0.2 != 0.3 in floating point: the tolerance of ATIF306 is exercised here
        "final_metrics": {
            "total_prompt_tokens": 300,
            "total_completion_tokens": 5,
            "total_cached_tokens": 240,
            "total_cost_usd": 0.3,
            "total_steps": 3,
        },
    }


def retotal(doc: Doc) -> Doc:
    """Recompute ``final_metrics`` from the steps (so metric edits do not trip ATIF305/306)."""
    sums: dict[str, Any] = {}
    for step in doc["steps"]:
        metrics = step.get("metrics") if isinstance(step, dict) else None
        for key, value in (metrics or {}).items():
            numeric = isinstance(value, int | float) and not isinstance(value, bool)
            if numeric and key in (
                "prompt_tokens",
                "completion_tokens",
                "cached_tokens",
                "cost_usd",
            ):
                sums[key] = sums.get(key, 0) + value
    final: dict[str, Any] = {"total_steps": len(doc["steps"])}
    for key, value in sums.items():
        final[("total_cost_usd" if key == "cost_usd" else f"total_{key}")] = value
    doc["final_metrics"] = final
    return doc


def add_step(doc: Doc, step: Doc) -> Doc:
    """Append a step with the next step_id."""
    doc["steps"].append({"step_id": len(doc["steps"]) + 1, **step})
    return retotal(doc)


def subagent(tid: str, *steps: Doc, **fields: Any) -> Doc:
    """A minimal embedded v1.7 subagent."""
    numbered = [
        {"step_id": n, **s}
        for n, s in enumerate(steps or ({"source": "user", "message": "task"},), 1)
    ]
    return {
        "schema_version": "ATIF-v1.7",
        "trajectory_id": tid,
        "agent": {"name": "sub", "version": "1.0"},
        "steps": numbered,
        **fields,
    }


def image(path: str) -> Doc:
    return {"type": "image", "source": {"media_type": "image/png", "path": path}}


def found(doc: Any, version: str, **kwargs: Any) -> Pairs:
    """``(code, pointer)`` of every finding of this module's rules, in the engine's order."""
    findings = run_rules(doc, "atif", version, **kwargs)
    return [(f.code, f.pointer) for f in findings if f.code in CODES]


@cache
def schema_validator(version: str) -> jsonschema.Draft202012Validator:
    """A validator for one ATIF version, resolving the other versions' schemas offline."""
    schemas = {
        v: json.loads((ROOT / "spec/atif" / v / "trajectory.schema.json").read_text("utf-8"))
        for v in VERSIONS
    }
    registry: Registry[Any] = Registry().with_resources(
        (s["$id"], Resource.from_contents(s, DRAFT202012)) for s in schemas.values()
    )
    return jsonschema.Draft202012Validator(schemas[version], registry=registry)


def schema_errors(doc: Doc, version: str) -> list[str]:
    return [e.json_path for e in schema_validator(version).iter_errors(doc)]


# --- one document per rule that triggers it alone, and near-misses that do not -----------------


def _edit(version: str, change: Callable[[Doc], object], fix_totals: bool = True) -> Doc:
    doc = base(version)
    change(doc)
    return retotal(doc) if fix_totals else doc


def _set(path: str, value: Any) -> Callable[[Doc], None]:
    """An edit that sets ``doc[path]`` (slash-separated keys and indexes) to ``value``."""

    def change(doc: Doc) -> None:
        *parents, last = [int(t) if t.isdigit() else t for t in path.strip("/").split("/")]
        node: Any = doc
        for token in parents:
            node = node[token]
        if value is _DELETE:
            del node[last]
        else:
            node[last] = value

    return change


_DELETE = object()


def _ctx_mgmt(source: str, value: Any) -> Callable[[Doc], object]:
    return lambda d: add_step(
        d, {"source": source, "message": "m", "extra": {"context_management": value}}
    )


TOOL_DEF = {"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}

TRIGGERS: dict[str, tuple[str, Doc, Pairs]] = {
    "101 gap": (
        "v1.0",
        _edit("v1.0", _set("/steps/2/step_id", 4)),
        [("ATIF101", "/steps/2/step_id")],
    ),
    "101 integral float": (
        "v1.0",
        _edit("v1.0", _set("/steps/2/step_id", 4.0)),
        [("ATIF101", "/steps/2/step_id")],
    ),
    "101 swapped": (
        "v1.7",
        _edit("v1.7", lambda d: (_set("/steps/1/step_id", 3)(d), _set("/steps/2/step_id", 2)(d))),
        [("ATIF101", "/steps/1/step_id"), ("ATIF101", "/steps/2/step_id")],
    ),
    "102 absent": ("v1.7", _edit("v1.7", _set("/session_id", _DELETE)), [("ATIF102", "")]),
    "102 null": ("v1.8", _edit("v1.8", _set("/session_id", None)), [("ATIF102", "")]),
    "103": (
        "v1.0",
        _edit("v1.0", _set("/steps/0/timestamp", "2025-10-11T10:30:00.123")),
        [("ATIF103", "/steps/0/timestamp")],
    ),
    "104": (
        "v1.8",
        _edit(
            "v1.8",
            _set("/$schema", "https://atif-spec.org/schemas/atif/v1.7/trajectory.schema.json"),
        ),
        [("ATIF104", "/$schema")],
    ),
    "201": (
        "v1.0",
        _edit("v1.0", _set("/steps/1/observation/results/1/source_call_id", "c9")),
        [("ATIF201", "/steps/1/observation/results/1/source_call_id")],
    ),
    "201 other step's call": (
        "v1.7",
        _edit(
            "v1.7",
            lambda d: add_step(
                d,
                {
                    "source": "agent",
                    "message": "m",
                    "observation": {"results": [{"source_call_id": "c1", "content": "late"}]},
                },
            ),
        ),
        [("ATIF201", "/steps/3/observation/results/0/source_call_id")],
    ),
    "202": (
        "v1.0",
        _edit(
            "v1.0",
            lambda d: (
                _set("/steps/1/tool_calls/1/tool_call_id", "c1")(d),
                _set("/steps/1/observation/results/1/source_call_id", "c1")(d),
            ),
        ),
        [("ATIF202", "/steps/1/tool_calls/1/tool_call_id")],
    ),
    "203": (
        "v1.5",
        _edit("v1.5", _set("/agent/tool_definitions", [TOOL_DEF, {"name": "search"}])),
        [("ATIF203", "/agent/tool_definitions/1")],
    ),
    "203 nameless function": (
        "v1.8",
        _edit("v1.8", _set("/agent/tool_definitions", [{"type": "function", "function": {}}])),
        [("ATIF203", "/agent/tool_definitions/0")],
    ),
    "301": (
        "v1.2",
        _edit("v1.2", _set("/steps/2/metrics/cached_tokens", 201)),
        [("ATIF301", "/steps/2/metrics/cached_tokens")],
    ),
    "302": (
        "v1.4",
        _edit("v1.4", _set("/steps/1/metrics/prompt_token_ids", list(range(99)))),
        [("ATIF302", "/steps/1/metrics/prompt_token_ids")],
    ),
    "303": (
        "v1.3",
        _edit("v1.3", _set("/steps/2/metrics/completion_token_ids", [7])),
        [("ATIF303", "/steps/2/metrics/completion_token_ids")],
    ),
    "304 count": (
        "v1.0",
        _edit("v1.0", _set("/steps/1/metrics/logprobs", [-0.1, -0.2])),
        [("ATIF304", "/steps/1/metrics/logprobs")],
    ),
    "304 alignment": (
        "v1.3",
        _edit(
            "v1.3",
            lambda d: (
                _set("/steps/1/metrics/completion_tokens", _DELETE)(d),
                _set("/steps/1/metrics/completion_token_ids", [1, 2, 3, 4])(d),
            ),
        ),
        [("ATIF304", "/steps/1/metrics/logprobs")],
    ),
    "304 both, one finding": (
        "v1.7",
        _edit(
            "v1.7",
            lambda d: d["steps"][2]["metrics"].update(
                completion_token_ids=[7, 8], logprobs=[-1.0, -1.0, -1.0]
            ),
        ),
        [("ATIF304", "/steps/2/metrics/logprobs")],
    ),
    "305": (
        "v1.0",
        _edit("v1.0", _set("/final_metrics/total_steps", 4), False),
        [("ATIF305", "/final_metrics/total_steps")],
    ),
    "305 blank notes": (
        "v1.7",
        _edit("v1.7", lambda d: d.update(notes="  \n", final_metrics={"total_steps": 2}), False),
        [("ATIF305", "/final_metrics/total_steps")],
    ),
    "306 tokens": (
        "v1.0",
        _edit("v1.0", _set("/final_metrics/total_prompt_tokens", 301), False),
        [("ATIF306", "/final_metrics/total_prompt_tokens")],
    ),
    "306 cost": (
        "v1.0",
        _edit("v1.0", _set("/final_metrics/total_cost_usd", 0.3 * (1 + 3e-6)), False),
        [("ATIF306", "/final_metrics/total_cost_usd")],
    ),
    "306 several": (
        "v1.7",
        _edit(
            "v1.7",
            lambda d: d["final_metrics"].update(total_completion_tokens=0, total_cached_tokens=1),
            False,
        ),
        [
            ("ATIF306", "/final_metrics/total_completion_tokens"),
            ("ATIF306", "/final_metrics/total_cached_tokens"),
        ],
    ),
    "306 neither own nor with subagents": (
        "v1.7",
        _edit(
            "v1.7",
            lambda d: d.update(
                subagent_trajectories=[
                    subagent(
                        "s1", {"source": "agent", "message": "m", "metrics": {"prompt_tokens": 50}}
                    )
                ],
                final_metrics={"total_prompt_tokens": 349},
            ),
            False,
        ),
        [("ATIF306", "/final_metrics/total_prompt_tokens")],
    ),
    "501": (
        "v1.7",
        _edit(
            "v1.7", _set("/subagent_trajectories", [subagent("s1"), subagent("s2"), subagent("s1")])
        ),
        [("ATIF501", "/subagent_trajectories/2/trajectory_id")],
    ),
    "502": (
        "v1.7",
        _edit(
            "v1.7",
            _set(
                "/steps/1/observation/results/2/subagent_trajectory_ref",
                [{"trajectory_id": "s9", "trajectory_path": None}],
            ),
        ),
        [("ATIF502", "/steps/1/observation/results/2/subagent_trajectory_ref/0/trajectory_id")],
    ),
    "502 second ref": (
        "v1.8",
        _edit(
            "v1.8",
            lambda d: (
                _set("/subagent_trajectories", [subagent("s1")])(d),
                _set(
                    "/steps/1/observation/results/2/subagent_trajectory_ref",
                    [{"trajectory_id": "s1"}, {"trajectory_id": "s2"}],
                )(d),
            ),
        ),
        [("ATIF502", "/steps/1/observation/results/2/subagent_trajectory_ref/1/trajectory_id")],
    ),
    "601 empty type": (
        "v1.7",
        _edit("v1.7", _ctx_mgmt("system", {"type": "", "boundary": "replace"})),
        [("ATIF601", "/steps/3/extra/context_management/type")],
    ),
    "601 missing boundary": (
        "v1.8",
        _edit("v1.8", _ctx_mgmt("system", {"type": "pruning"})),
        [("ATIF601", "/steps/3/extra/context_management")],
    ),
    "601 both keys": (
        "v1.7",
        _edit("v1.7", _ctx_mgmt("system", {"type": 1, "boundary": ["replace"]})),
        [
            ("ATIF601", "/steps/3/extra/context_management/type"),
            ("ATIF601", "/steps/3/extra/context_management/boundary"),
        ],
    ),
    "601 not an object": (
        "v1.7",
        _edit("v1.7", _ctx_mgmt("system", "compaction")),
        [("ATIF601", "/steps/3/extra/context_management")],
    ),
    "602": (
        "v1.7",
        _edit("v1.7", _ctx_mgmt("user", {"type": "injection", "boundary": "append"})),
        [("ATIF602", "/steps/3/extra/context_management")],
    ),
}

NEAR_MISSES: dict[str, tuple[str, Doc]] = {
    **{f"base {v}": (v, base(v)) for v in VERSIONS},
    # ATIF101: non-object steps keep their position; non-integer ids belong to the schema
    "101 non-object step": ("v1.0", _edit("v1.0", _set("/steps/0", "not a step"))),
    "101 bool id": ("v1.0", _edit("v1.0", _set("/steps/0/step_id", True))),
    "101 string id": ("v1.0", _edit("v1.0", _set("/steps/2/step_id", "3"))),
    "101 integral float id": ("v1.0", _edit("v1.0", _set("/steps/2/step_id", 3.0))),
    "101 fractional id": ("v1.0", _edit("v1.0", _set("/steps/2/step_id", 2.5))),
    # ATIF102: not a rule before v1.7; blank is still a session id
    "102 v1.6": ("v1.6", _edit("v1.6", _set("/session_id", _DELETE))),
    "102 empty string": ("v1.7", _edit("v1.7", _set("/session_id", ""))),
    # ATIF103
    "103 offset": (
        "v1.0",
        _edit("v1.0", _set("/steps/0/timestamp", "2025-10-11T10:30:00.5-05:30")),
    ),
    "103 malformed": ("v1.0", _edit("v1.0", _set("/steps/0/timestamp", "2025-10-11T10:30:00z"))),
    "103 date only": ("v1.0", _edit("v1.0", _set("/steps/0/timestamp", "2025-10-11"))),
    "103 null": ("v1.0", _edit("v1.0", _set("/steps/0/timestamp", None))),
    # ATIF104: the version's own URL, the any-version URL and other URLs are not checked
    "104 same version": (
        "v1.0",
        _edit(
            "v1.0",
            _set("/$schema", "https://atif-spec.org/schemas/atif/v1.0/trajectory.schema.json"),
        ),
    ),
    "104 any version": (
        "v1.8",
        _edit(
            "v1.8", _set("/$schema", "https://atif-spec.org/schemas/atif/trajectory.schema.json")
        ),
    ),
    "104 local file": ("v1.7", _edit("v1.7", _set("/$schema", "./schemas/atif.json"))),
    # ATIF201
    "201 malformed tool_calls": (
        "v1.0",
        _edit("v1.0", _set("/steps/1/tool_calls", "c1,c2")),
    ),
    "201 non-string id": (
        "v1.0",
        _edit("v1.0", _set("/steps/1/observation/results/0/source_call_id", 1)),
    ),
    # ATIF202: the same id in two different steps is fine
    "202 across steps": (
        "v1.0",
        _edit(
            "v1.0",
            _set(
                "/steps/2/tool_calls",
                [{"tool_call_id": "c1", "function_name": "f", "arguments": {}}],
            ),
        ),
    ),
    # ATIF203
    "203 extra keys": (
        "v1.5",
        _edit(
            "v1.5",
            _set(
                "/agent/tool_definitions", [{**TOOL_DEF, "strict": True, "function": {"name": ""}}]
            ),
        ),
    ),
    "203 v1.4": ("v1.4", _edit("v1.4", _set("/agent/tool_definitions", [{"name": "search"}]))),
    "203 non-object": ("v1.5", _edit("v1.5", _set("/agent/tool_definitions", ["search"]))),
    # ATIF301
    "301 v1.1": ("v1.1", _edit("v1.1", _set("/steps/2/metrics/cached_tokens", 201))),
    "301 bool": ("v1.2", _edit("v1.2", _set("/steps/2/metrics/prompt_tokens", True), False)),
    # ATIF302 / 303
    "302 equal": (
        "v1.4",
        _edit("v1.4", _set("/steps/1/metrics/prompt_token_ids", list(range(100)))),
    ),
    "302 v1.3": ("v1.3", _edit("v1.3", _set("/steps/1/metrics/prompt_token_ids", list(range(99))))),
    "303 equal": ("v1.3", _edit("v1.3", _set("/steps/2/metrics/completion_token_ids", [7, 8]))),
    "303 no count": (
        "v1.3",
        _edit(
            "v1.3",
            lambda d: d["steps"][2]["metrics"].update(
                completion_tokens=None, completion_token_ids=[7]
            ),
        ),
    ),
    # ATIF304: alignment with completion_token_ids only from v1.3
    "304 v1.2 alignment": (
        "v1.2",
        _edit(
            "v1.2",
            lambda d: (
                _set("/steps/1/metrics/completion_tokens", _DELETE)(d),
                _set("/steps/1/metrics/completion_token_ids", [1, 2, 3, 4])(d),
            ),
        ),
    ),
    "304 equal": (
        "v1.3",
        _edit("v1.3", _set("/steps/1/metrics/completion_token_ids", [1, 2, 3])),
    ),
    # ATIF305
    "305 explained": (
        "v1.0",
        _edit(
            "v1.0",
            lambda d: d.update(notes="one step was dropped", final_metrics={"total_steps": 4}),
            False,
        ),
    ),
    "305 bool": (
        "v1.0",
        _edit("v1.0", lambda d: d.update(final_metrics={"total_steps": True}), False),
    ),
    # ATIF306
    "306 within tolerance": (
        "v1.0",
        _edit("v1.0", _set("/final_metrics/total_cost_usd", 0.3 * (1 + 5e-7)), False),
    ),
    "306 explained": (
        "v1.0",
        _edit(
            "v1.0",
            lambda d: d.update(
                notes="totals from the provider bill", final_metrics={"total_prompt_tokens": 1}
            ),
            False,
        ),
    ),
    "306 nothing to sum": (
        "v1.0",
        _edit(
            "v1.0",
            lambda d: d.update(
                steps=d["steps"][:1], final_metrics={"total_cost_usd": 4.2, "total_steps": 1}
            ),
            False,
        ),
    ),
    "306 mistyped step value": (
        "v1.0",
        _edit("v1.0", _set("/steps/1/metrics/prompt_tokens", "100"), False),
    ),
    "306 with subagents": (
        "v1.7",
        _edit(
            "v1.7",
            lambda d: d.update(
                subagent_trajectories=[
                    subagent(
                        "s1",
                        {
                            "source": "agent",
                            "message": "m",
                            "metrics": {"prompt_tokens": 50, "cost_usd": 0.05},
                        },
                        subagent_trajectories=[
                            subagent(
                                "s1a",
                                {
                                    "source": "agent",
                                    "message": "m",
                                    "metrics": {"prompt_tokens": 7, "cost_usd": 0.007},
                                },
                            )
                        ],
                    ),
                ],
                final_metrics={"total_prompt_tokens": 357, "total_cost_usd": 0.357},
            ),
            False,
        ),
    ),
    # ATIF501: ids may repeat across nesting levels
    "501 across levels": (
        "v1.7",
        _edit(
            "v1.7",
            _set(
                "/subagent_trajectories",
                [subagent("s1", subagent_trajectories=[subagent("s2")]), subagent("s2")],
            ),
        ),
    ),
    # ATIF502: a path makes it a file ref; a matching embedded id resolves it
    "502 file ref": (
        "v1.7",
        _edit(
            "v1.7",
            _set(
                "/steps/1/observation/results/2/subagent_trajectory_ref",
                [{"trajectory_id": "s9", "trajectory_path": "s9.json"}],
            ),
        ),
    ),
    "502 resolved": (
        "v1.7",
        _edit(
            "v1.7",
            lambda d: (
                _set("/subagent_trajectories", [subagent("s9")])(d),
                _set(
                    "/steps/1/observation/results/2/subagent_trajectory_ref",
                    [{"trajectory_id": "s9"}],
                )(d),
            ),
        ),
    ),
    "502 v1.6": (
        "v1.6",
        _edit(
            "v1.6",
            _set("/steps/1/observation/results/2/subagent_trajectory_ref", [{"session_id": "x"}]),
        ),
    ),
    # ATIF601 / 602
    "601 valid": (
        "v1.7",
        _edit("v1.7", _ctx_mgmt("system", {"type": "compaction", "boundary": "replace"})),
    ),
    "601 null": ("v1.7", _edit("v1.7", _ctx_mgmt("system", None))),
    # D-18: both lists are extensible by producers; any name is accepted
    "601 extension values": (
        "v1.8",
        _edit("v1.8", _ctx_mgmt("system", {"type": "summary", "boundary": "rolling-window"})),
    ),
    "601 v1.6": ("v1.6", _edit("v1.6", _ctx_mgmt("system", {"type": "summary"}))),
    "602 no source": (
        "v1.7",
        _edit(
            "v1.7",
            lambda d: (
                _ctx_mgmt("system", {"type": "pruning", "boundary": "truncate"})(d),
                d["steps"][3].pop("source"),
            ),
        ),
    ),
}

# Near misses that are deliberately schema-invalid (they probe what the rule leaves to the schema).
SCHEMA_INVALID_NEAR_MISSES = {
    "101 non-object step",
    "101 bool id",
    "101 string id",
    "101 fractional id",
    "102 v1.6",
    "103 malformed",
    "103 date only",
    "201 malformed tool_calls",
    "201 non-string id",
    "203 v1.4",
    "203 non-object",
    "301 bool",
    "302 v1.3",
    "304 v1.2 alignment",
    "305 bool",
    "306 mistyped step value",
    "602 no source",
}


@pytest.mark.parametrize("case", sorted(TRIGGERS))
def test_rule_triggers_alone(case: str) -> None:
    version, doc, expected = TRIGGERS[case]
    assert found(doc, version) == expected
    assert schema_errors(doc, version) == []


@pytest.mark.parametrize("case", sorted(NEAR_MISSES))
def test_near_miss_does_not_trigger(case: str) -> None:
    version, doc = NEAR_MISSES[case]
    assert found(doc, version) == []
    assert (schema_errors(doc, version) != []) == (case in SCHEMA_INVALID_NEAR_MISSES)


def test_every_rule_has_a_triggering_document() -> None:
    triggered = {code for _, _, pairs in TRIGGERS.values() for code, _ in pairs}
    file_rules = {r.code for r in ATIF_RULES if r.needs_file}
    assert triggered | file_rules == {r.code for r in ATIF_RULES}


def test_messages_say_what_was_expected() -> None:
    version, doc, _ = TRIGGERS["101 gap"]
    (finding,) = [f for f in run_rules(doc, "atif", version) if f.code in CODES]
    assert "3" in finding.message and "4" in finding.message
    assert finding.level is Level.ERROR and finding.name == "non-sequential-step-id"
    version, doc, _ = TRIGGERS["304 both, one finding"]
    (finding,) = [f for f in run_rules(doc, "atif", version) if f.code in CODES]
    assert "completion_tokens" in finding.message and "completion_token_ids" in finding.message


# --- media files ---------------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``tmp_path/run/`` holds the trajectory and ``images/a.png``; ``tmp_path/outside.png``."""
    run = tmp_path / "run"
    (run / "images").mkdir(parents=True)
    (run / "images" / "a.png").write_bytes(b"png")
    (tmp_path / "outside.png").write_bytes(b"png")
    return run


def media_doc(path: str, version: str = "v1.6", where: str = "message") -> Doc:
    doc = base(version)
    if where == "message":
        doc["steps"][0]["message"] = [{"type": "text", "text": "see"}, image(path)]
    else:
        doc["steps"][1]["observation"]["results"][0]["content"] = [image(path)]
    return doc


MESSAGE_PATH = "/steps/0/message/1/source/path"
RESULT_PATH = "/steps/1/observation/results/0/content/0/source/path"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("images/a.png", []),
        ("images/../images/a.png", []),
        ("./images/a.png", []),
        ("https://example.com/a.png", []),
        ("s3://bucket/missing.png", []),
        ("file:///nowhere/missing.png", []),
        ("images/b.png", [("ATIF401", MESSAGE_PATH)]),
        ("images/a.png\x00", [("ATIF401", MESSAGE_PATH)]),
        ("../outside.png", [("ATIF402", MESSAGE_PATH)]),
        ("../missing.png", [("ATIF402", MESSAGE_PATH)]),
        ("images/../../outside.png", [("ATIF402", MESSAGE_PATH)]),
    ],
)
def test_media_relative_paths(tree: Path, raw: str, expected: Pairs) -> None:
    assert found(media_doc(raw), "v1.6", path=tree / "trajectory.json") == expected


def test_media_absolute_paths(tree: Path) -> None:
    trajectory = tree / "trajectory.json"
    inside, missing = str(tree / "images" / "a.png"), str(tree / "images" / "z.png")
    outside = str(tree.parent / "outside.png")
    assert found(media_doc(inside), "v1.7", path=trajectory) == []
    assert found(media_doc(missing), "v1.7", path=trajectory) == [("ATIF401", MESSAGE_PATH)]
    assert found(media_doc(outside), "v1.7", path=trajectory) == [("ATIF402", MESSAGE_PATH)]


def test_media_symlinks(tree: Path) -> None:
    trajectory = tree / "trajectory.json"
    (tree / "images" / "escape.png").symlink_to(tree.parent / "outside.png")
    (tree / "images" / "inner.png").symlink_to(tree / "images" / "a.png")
    (tree / "images" / "dangling.png").symlink_to(tree / "images" / "gone.png")
    assert found(media_doc("images/escape.png"), "v1.6", path=trajectory) == [
        ("ATIF402", MESSAGE_PATH)
    ]
    assert found(media_doc("images/inner.png"), "v1.6", path=trajectory) == []
    assert found(media_doc("images/dangling.png"), "v1.6", path=trajectory) == [
        ("ATIF401", MESSAGE_PATH)
    ]


def test_media_tree_reached_through_a_symlinked_folder(tmp_path: Path, tree: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(tree)
    assert found(media_doc("images/a.png"), "v1.6", path=alias / "trajectory.json") == []
    assert (
        found(media_doc(str(tree / "images" / "a.png")), "v1.6", path=alias / "trajectory.json")
        == []
    )


def test_media_in_observation_content(tree: Path) -> None:
    doc = media_doc("images/b.png", where="result")
    assert found(doc, "v1.8", path=tree / "trajectory.json") == [("ATIF401", RESULT_PATH)]


def test_media_allow_outside(tree: Path) -> None:
    opts = RuleOptions(allow_outside=True)
    trajectory = tree / "trajectory.json"
    assert found(media_doc("../outside.png"), "v1.6", path=trajectory, options=opts) == []
    assert found(media_doc("../missing.png"), "v1.6", path=trajectory, options=opts) == [
        ("ATIF401", MESSAGE_PATH)
    ]


def test_media_rules_need_a_file_and_v1_6(tree: Path) -> None:
    assert found(media_doc("images/b.png"), "v1.6") == []
    off = RuleOptions(check_files=False)
    assert found(media_doc("images/b.png"), "v1.6", path=tree / "t.json", options=off) == []
    assert found(media_doc("images/b.png"), "v1.5", path=tree / "t.json") == []


def test_media_in_embedded_subagent(tree: Path) -> None:
    doc = base("v1.7")
    doc["subagent_trajectories"] = [
        subagent("s1", {"source": "user", "message": [image("images/b.png")]})
    ]
    assert found(doc, "v1.7", path=tree / "trajectory.json") == [
        ("ATIF401", "/subagent_trajectories/0/steps/0/message/0/source/path")
    ]


# --- embedded subagents and version gating -------------------------------------------------------


def test_embedded_subagent_numbering() -> None:
    doc = base("v1.7")
    bad = subagent("s1", {"source": "user", "message": "a"}, {"source": "user", "message": "b"})
    bad["steps"][1]["step_id"] = 3
    deeper = copy.deepcopy(bad)
    deeper["trajectory_id"] = "s2a"
    doc["subagent_trajectories"] = [bad, subagent("s2", subagent_trajectories=[deeper])]
    assert schema_errors(doc, "v1.7") == []
    assert found(doc, "v1.7") == [
        ("ATIF101", "/subagent_trajectories/0/steps/1/step_id"),
        ("ATIF101", "/subagent_trajectories/1/subagent_trajectories/0/steps/1/step_id"),
    ]


def test_embedded_subagent_without_session_id_is_exempt() -> None:
    doc = base("v1.7")
    doc["subagent_trajectories"] = [subagent("s1")]
    assert "session_id" not in doc["subagent_trajectories"][0]
    assert found(doc, "v1.7") == []
    del doc["session_id"]
    assert found(doc, "v1.7") == [("ATIF102", "")]


def test_version_gating_of_completion_token_ids() -> None:
    _, doc, expected = TRIGGERS["303"]
    assert found(doc, "v1.3") == expected
    doc["schema_version"] = "ATIF-v1.2"
    assert found(doc, "v1.2") == []


def test_rfc_example_yields_d3_and_d4() -> None:
    seeds = sorted(SEEDS.glob("004_*.txt"))
    if not seeds:
        pytest.skip("RFC seed text not available")
    text = seeds[0].read_text(encoding="utf-8")
    start = text.index("{", text.index("IV. Example ATIF Trajectory Log"))
    doc, _ = json.JSONDecoder().raw_decode(text, start)
    assert doc["schema_version"] == "ATIF-v1.5"
    assert found(doc, "v1.5") == [
        ("ATIF303", "/steps/2/metrics/completion_token_ids"),
        ("ATIF304", "/steps/2/metrics/logprobs"),
    ]


# --- robustness ----------------------------------------------------------------------------------


def call_every_rule(node: Any, version: str, *, is_root: bool = True) -> None:
    """Run every ATIF rule's check directly (version gating ignored), with a file path."""
    path = Path("/nonexistent-atif-spec-dir/trajectory.json")
    for opts in (RuleOptions(), RuleOptions(allow_outside=True)):
        ctx = RuleContext(node, "/x", version, is_root, path, opts)
        for r in ATIF_RULES:
            for ptr, message in r.check(ctx):
                assert isinstance(ptr, str) and ptr.startswith("/x")
                assert isinstance(message, str) and message


KEYS = sorted(
    {
        "schema_version",
        "session_id",
        "trajectory_id",
        "agent",
        "steps",
        "notes",
        "final_metrics",
        "extra",
        "subagent_trajectories",
        "tool_definitions",
        "type",
        "function",
        "name",
        "step_id",
        "timestamp",
        "source",
        "message",
        "tool_calls",
        "tool_call_id",
        "observation",
        "results",
        "source_call_id",
        "content",
        "subagent_trajectory_ref",
        "trajectory_path",
        "metrics",
        "prompt_tokens",
        "completion_tokens",
        "cached_tokens",
        "cost_usd",
        "prompt_token_ids",
        "completion_token_ids",
        "logprobs",
        "total_steps",
        "total_prompt_tokens",
        "total_completion_tokens",
        "total_cached_tokens",
        "total_cost_usd",
        "context_management",
        "boundary",
        "path",
    }
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**300, max_value=10**400)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(
        [
            "system",
            "agent",
            "function",
            "c1",
            "compaction",
            "replace",
            "../x",
            "/etc/passwd",
            "a\x00b",
            "2025-10-11T10:30:00",
            "s1",
        ]
    )
    | st.text(max_size=8)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), inner, max_size=6)
    ),
    max_leaves=40,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(node=JSON, version=st.sampled_from(VERSIONS), is_root=st.booleans())
def test_rules_never_raise_on_random_json(node: Any, version: str, is_root: bool) -> None:
    call_every_rule(node, version, is_root=is_root)


def rich_document() -> Doc:
    """A document that exercises every rule's paths (media, subagents, refs, context management)."""
    doc = base("v1.8")
    doc["notes"] = ""
    doc["agent"]["tool_definitions"] = [TOOL_DEF, {"name": "x"}]
    doc["steps"][0]["message"] = [{"type": "text", "text": "t"}, image("images/a.png")]
    metrics = doc["steps"][1]["metrics"]
    metrics.update(prompt_token_ids=[1, 2], completion_token_ids=[1, 2, 3])
    results = doc["steps"][1]["observation"]["results"]
    results[0]["content"] = [image("../a.png")]
    results[2]["subagent_trajectory_ref"] = [{"trajectory_id": "s1"}, {"trajectory_id": "zz"}]
    doc["steps"][2]["extra"] = {"context_management": {"type": "pruning", "boundary": "x"}}
    doc["subagent_trajectories"] = [subagent("s1"), subagent("s1")]
    return doc


def leaf_paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every member path of a JSON value (containers and scalars alike)."""
    if isinstance(value, dict):
        for key, member in value.items():
            yield (*prefix, key)
            yield from leaf_paths(member, (*prefix, key))
    elif isinstance(value, list):
        for index, member in enumerate(value):
            yield (*prefix, index)
            yield from leaf_paths(member, (*prefix, index))


WRONG = [None, True, 0, -1, 1.5, float("inf"), 10**400, "", "x", [], [None], {}, {"a": [1]}]


def replaced(doc: Doc, path: tuple[Any, ...], value: Any) -> Doc:
    out = copy.deepcopy(doc)
    node: Any = out
    for token in path[:-1]:
        node = node[token]
    node[path[-1]] = value
    return out


def test_rules_never_raise_when_any_field_has_a_wrong_type() -> None:
    doc = rich_document()
    paths = list(leaf_paths(doc))
    assert len(paths) > 100
    for path in paths:
        for value in WRONG:
            call_every_rule(replaced(doc, path, value), "v1.8")


def test_rules_never_raise_when_every_field_has_a_wrong_type() -> None:
    doc = rich_document()
    for value in WRONG:
        mangled = copy.deepcopy(doc)
        # replace the deepest members first so that every container is visited
        for path in sorted(leaf_paths(doc), key=len, reverse=True):
            node: Any = mangled
            try:
                for token in path[:-1]:
                    node = node[token]
                node[path[-1]] = value
            except (KeyError, IndexError, TypeError):
                continue
        call_every_rule(mangled, "v1.8")
    for garbage in WRONG:
        call_every_rule(garbage, "v1.8")


def with_unrelated_type_errors(doc: Doc) -> Doc:
    out = copy.deepcopy(doc)
    out["agent"]["version"] = 12
    out["agent"]["model_name"] = ["not", "a", "string"]
    out["steps"][0]["message"] = {"not": "a message"}
    out["steps"][0]["source"] = "user"
    return out


@pytest.mark.parametrize("case", sorted(TRIGGERS))
def test_findings_ignore_unrelated_type_errors(case: str) -> None:
    version, doc, expected = TRIGGERS[case]
    broken = with_unrelated_type_errors(doc)
    assert schema_errors(broken, version) != []
    assert found(broken, version) == expected


def test_file_findings_ignore_unrelated_type_errors(tree: Path) -> None:
    doc = media_doc("images/b.png", where="result")
    doc["steps"][0]["message"] = [image("../outside.png")]
    trajectory = tree / "trajectory.json"
    expected = [("ATIF402", "/steps/0/message/0/source/path"), ("ATIF401", RESULT_PATH)]
    assert sorted(found(doc, "v1.6", path=trajectory)) == sorted(expected)
    broken = with_unrelated_type_errors(doc)
    broken["steps"][0]["message"] = doc["steps"][0]["message"]
    assert sorted(found(broken, "v1.6", path=trajectory)) == sorted(expected)


# --- the registry --------------------------------------------------------------------------------

EXPECTED = {
    "ATIF101": ("non-sequential-step-id", Level.ERROR, "v1.0"),
    "ATIF102": ("missing-root-session-id", Level.WARNING, "v1.7"),
    "ATIF103": ("timestamp-without-offset", Level.WARNING, "v1.0"),
    "ATIF104": ("schema-url-names-other-version", Level.WARNING, "v1.0"),
    "ATIF201": ("unknown-source-call-id", Level.ERROR, "v1.0"),
    "ATIF202": ("duplicate-tool-call-id", Level.WARNING, "v1.0"),
    "ATIF203": ("tool-definition-not-function-shape", Level.WARNING, "v1.5"),
    "ATIF301": ("cached-tokens-exceed-prompt-tokens", Level.WARNING, "v1.2"),
    "ATIF302": ("prompt-token-ids-length-mismatch", Level.WARNING, "v1.4"),
    "ATIF303": ("completion-token-ids-length-mismatch", Level.WARNING, "v1.3"),
    "ATIF304": ("logprobs-length-mismatch", Level.WARNING, "v1.0"),
    "ATIF305": ("total-steps-mismatch", Level.WARNING, "v1.0"),
    "ATIF306": ("final-metrics-total-mismatch", Level.WARNING, "v1.0"),
    "ATIF401": ("missing-media-file", Level.ERROR, "v1.6"),
    "ATIF402": ("media-path-outside-tree", Level.WARNING, "v1.6"),
    "ATIF501": ("duplicate-subagent-trajectory-id", Level.ERROR, "v1.7"),
    "ATIF502": ("unresolved-embedded-ref", Level.WARNING, "v1.7"),
    "ATIF601": ("malformed-context-management", Level.WARNING, "v1.7"),
    "ATIF602": ("context-management-outside-system-step", Level.WARNING, "v1.7"),
}


def test_atif_rules_are_exactly_the_published_table() -> None:
    table = {r.code: (r.name, r.level, r.versions[0]) for r in ATIF_RULES}
    assert table == EXPECTED
    for r in ATIF_RULES:
        assert r.versions == VERSIONS[VERSIONS.index(r.versions[0]) :], r.code
        assert r.needs_file == r.code.startswith("ATIF4")


def test_registry_codes_unique_and_sorted() -> None:
    codes = [r.code for r in REGISTRY]
    assert len(codes) == len(set(codes))
    assert codes == sorted(codes)


def test_registry_names_kebab_case_and_unique() -> None:
    # unique within a format (other formats may name the same violation the same way)
    keys = [(r.format, r.name) for r in REGISTRY]
    assert len(keys) == len(set(keys))
    for r in REGISTRY:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", r.name), r.name


@pytest.mark.parametrize("r", ATIF_RULES, ids=lambda r: r.code)
def test_rule_record_is_complete(r: Rule) -> None:
    headings = ["What it checks:", "Why:", "Example:", "Valid instead:", "Spec:"]
    starts = [line.strip() for line in r.doc.splitlines()]
    positions = []
    for heading in headings:
        hits = [n for n, line in enumerate(starts) if line.startswith(heading)]
        assert len(hits) == 1, f"{r.code}: heading {heading!r}"
        positions.append(hits[0])
    assert positions == sorted(positions), r.code
    assert r.versions and set(r.versions) <= set(VERSIONS)
    assert r.format == "atif"
    assert r.section.startswith("RFC §") and "RFC.md §" in r.section and "ref " not in r.section
    assert r.summary and "\n" not in r.summary and r.summary.endswith(".")


def test_rules_do_not_descend_into_subagents() -> None:
    # every rule but ATIF306 sees only its node: a broken subagent is reported once, by the engine
    doc = base("v1.7")
    sub = copy.deepcopy(TRIGGERS["101 gap"][1])
    sub["trajectory_id"] = "s1"
    sub["schema_version"] = "ATIF-v1.7"
    doc["subagent_trajectories"] = [sub]
    assert found(doc, "v1.7") == [("ATIF101", "/subagent_trajectories/0/steps/2/step_id")]
