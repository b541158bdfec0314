"""The conservation checker's correspondences (``tests/support/correspondences.py``) stay narrow: for each
row, a leaf it accepts leaks again once its counterpart is deleted from the output (or from the
way back, for a default), or once the value breaks the row's rule."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import atif_spec
from atif_spec.formats.tao import content_hash as tao_content_hash
from atif_spec.transforms.changes import ChangeReport
from tests.support import ROOT
from tests.support.conservation import check
from tests.support.correspondences import (
    ATIF_AGENT,
    ATIF_EMPTY,
    ATIF_NO_TEXT,
    ATIF_NULL_CONTENT,
    ATIF_PLACEHOLDER,
    ATIF_PROMPT,
    ATIF_STEP_ID,
    ATIF_SYSTEM,
    ATIF_TOOL_TYPE,
    ATIF_TOTALS,
    ATIF_UNLINKED,
    PLACEHOLDER,
    RULES,
    RUN_NULLS,
    RUN_ROLE,
    RUN_STEP_ID,
    RUN_STEP_INDEX,
    RUN_SUB_ID,
    RUN_SUB_INDEX,
    RUN_SUB_NULLS,
    RUN_SUB_SOURCE,
    RUN_SUB_TYPE,
    SDK_NULLS,
    TAO_AGENT,
    TAO_CALL_TYPE,
    TAO_CONTENT_HASH,
    TAO_FILLED_DEFAULT,
    TAO_HASH,
    TAO_INDEX,
    TAO_INDEX_FILLED,
    TAO_INPUT,
    TAO_NO_TEXT,
    TAO_PARENT,
    TAO_ROLE,
    TAO_TOTALS,
    TAO_UNLINKED,
    Rule,
)

SUITE = ROOT / "conformance"


def _leaked(rule: Rule, source: Any, output: Any, back: Any = None) -> set[str]:
    return {p for p, _ in check(source, output, ChangeReport(), (rule,), back).leaked}


def _steps(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"steps": list(steps)}


AGENT_CALLS = {"source": "agent", "message": "", "tool_calls": [{"tool_call_id": "c"}]}
USAGE = {"input_tokens": 9, "cache_read_tokens": 11873, "cache_write_tokens": 310}
LINKED = {"tool_calls": [{"tool_call_id": "a"}], "observations": [{"source_call_id": "a"}]}
UNLINKED = {"tool_calls": [{"tool_call_id": "a"}], "observations": [{"source_call_id": "b"}]}
HASHED = {"schema_version": "0.2.0", "trace_id": "t", "session_id": "s", "agent": {"name": "a"}}
HASH = tao_content_hash(HASHED, "v0.2.0")
# Each case: the rule, the pointer it must accept, (source, output, back), then planted leaks:
# variants of (source, output, back) in which the same pointer must leak.
CASES: list[tuple[Rule, str, tuple[Any, Any, Any], list[tuple[Any, Any, Any]]]] = [
    (
        ATIF_STEP_ID,
        "/steps/1/step_id",
        (_steps({"step_id": 1}, {"step_id": 2}), {}, None),
        [(_steps({"step_id": 1}, {"step_id": 7}), {}, None)],  # not its position
    ),
    (
        ATIF_STEP_ID,
        "/subagent_trajectories/0/steps/0/step_id",
        ({"subagent_trajectories": [_steps({"step_id": 1})]}, {}, None),
        [({"subagent_trajectories": [_steps({"step_id": True})]}, {}, None)],
    ),
    (
        ATIF_AGENT,
        "/steps/0/source",
        (_steps({"source": "agent"}), {"m": [{"role": "assistant"}]}, None),
        [(_steps({"source": "agent"}), {"m": [{"role": "user"}]}, None)],  # rename deleted
    ),
    (
        ATIF_SYSTEM,
        "/steps/0/source",
        (_steps({"source": "system", "message": "Be brief."}), {"p": {"h": "Be brief."}}, None),
        [(_steps({"source": "system", "message": "Be brief."}), {"p": {}}, None)],
    ),
    (
        ATIF_PROMPT,
        "/steps/0/metrics/prompt_tokens",
        (
            _steps(
                {
                    "metrics": {
                        "prompt_tokens": 12192,
                        "cached_tokens": 11873,
                        "extra": {"cache_creation_input_tokens": 310},
                    }
                }
            ),
            {"token_usage": USAGE},
            None,
        ),
        [
            (
                _steps(
                    {
                        "metrics": {
                            "prompt_tokens": 12192,
                            "cached_tokens": 11873,
                            "extra": {"cache_creation_input_tokens": 310},
                        }
                    }
                ),
                {"token_usage": {**USAGE, "input_tokens": 8}},  # a count that does not add up
                None,
            )
        ],
    ),
    (
        ATIF_TOTALS,
        "/final_metrics/total_prompt_tokens",
        (
            {
                "steps": [{"metrics": {"prompt_tokens": 10}}, {"metrics": {"prompt_tokens": 5}}],
                "final_metrics": {"total_prompt_tokens": 15},
            },
            {"t": [10, 5]},
            None,
        ),
        [
            (
                {
                    "steps": [
                        {"metrics": {"prompt_tokens": 10}},
                        {"metrics": {"prompt_tokens": 5}, "is_copied_context": True},
                    ],
                    "final_metrics": {"total_prompt_tokens": 15},  # counts copied context
                },
                {"t": [10, 5]},
                None,
            )
        ],
    ),
    (
        ATIF_TOTALS,
        "/final_metrics/total_steps",
        ({"steps": [{}, {}, {}], "final_metrics": {"total_steps": 3}}, {}, None),
        [({"steps": [{}, {}], "final_metrics": {"total_steps": 3}}, {}, None)],
    ),
    (
        ATIF_UNLINKED,
        "/steps/0/observation/results/0/source_call_id",
        (
            _steps({"observation": {"results": [{"source_call_id": None}]}}),
            {},
            _steps({"observation": {"results": [{"source_call_id": None}]}}),
        ),
        [
            (
                _steps({"observation": {"results": [{"source_call_id": None}]}}),
                {},
                _steps({"observation": {"results": [{}]}}),  # the way back lost it
            )
        ],
    ),
    (
        ATIF_TOOL_TYPE,
        "/agent/tool_definitions/0/type",
        (
            {"agent": {"tool_definitions": [{"type": "function"}]}},
            {},
            {"agent": {"tool_definitions": [{"type": "function"}]}},
        ),
        [
            (
                {"agent": {"tool_definitions": [{"type": "function"}]}},
                {},
                {"agent": {"tool_definitions": [{}]}},
            ),
            (
                {"agent": {"tool_definitions": [{"type": "custom"}]}},
                {},
                {"agent": {"tool_definitions": [{"type": "custom"}]}},
            ),
        ],
    ),
    (
        ATIF_EMPTY,
        "/steps/0/message",
        (_steps(AGENT_CALLS), {}, _steps(AGENT_CALLS)),
        [
            (_steps(AGENT_CALLS), {}, _steps({**AGENT_CALLS, "message": None})),
            (
                _steps({**AGENT_CALLS, "tool_calls": []}),
                {},
                _steps({**AGENT_CALLS, "tool_calls": []}),
            ),
        ],
    ),
    (
        TAO_INDEX,
        "/steps/1/step_index",
        (_steps({"step_index": 0}, {"step_index": 1}), {}, None),
        [(_steps({"step_index": 0}, {"step_index": 4}), {}, None)],
    ),
    (
        TAO_AGENT,
        "/steps/0/role",
        (_steps({"role": "agent"}), {"m": ["assistant"]}, None),
        [(_steps({"role": "agent"}), {"m": ["user"]}, None)],
    ),
    (
        TAO_CALL_TYPE,
        "/steps/0/call_type",
        (_steps({"role": "agent", "call_type": "main"}), {}, _steps({"call_type": "main"})),
        [
            (_steps({"role": "agent", "call_type": "main"}), {}, _steps({})),
            (_steps({"role": "system", "call_type": "main"}), {}, _steps({"call_type": "main"})),
        ],
    ),
    (  # D33: the filled style writes it on a user step too
        TAO_CALL_TYPE,
        "/steps/0/call_type",
        (_steps({"role": "user", "call_type": "main"}), {}, _steps({"call_type": "main"})),
        [(_steps({"role": "user", "call_type": "main"}), {}, _steps({}))],  # the default style
    ),
    (
        TAO_CALL_TYPE,
        "/steps/0/call_type",
        (
            _steps({"role": "agent", "call_type": "subagent", "parent_step": 3}),
            {},
            _steps({"call_type": "subagent"}),
        ),
        [
            (
                _steps({"role": "agent", "call_type": "subagent"}),
                {},
                _steps({"call_type": "subagent"}),
            )
        ],
    ),
    (
        TAO_ROLE,
        "/steps/0/agent_role",
        (_steps({"role": "agent", "agent_role": "main"}), {}, _steps({"agent_role": "main"})),
        [
            (_steps({"role": "agent", "agent_role": "main"}), {}, _steps({"agent_role": "x"})),
            (
                _steps({"role": "agent", "agent_role": "main", "parent_step": 0}),
                {},
                _steps({"agent_role": "main"}),
            ),
        ],
    ),
    (
        TAO_HASH,
        "/steps/0/system_prompt_hash",
        (
            {"system_prompts": {"h1": "Prompt."}, "steps": [{"system_prompt_hash": "h1"}]},
            {"steps": [{"message": "Prompt."}]},
            None,
        ),
        [
            (
                {"system_prompts": {"h1": "Prompt."}, "steps": [{"system_prompt_hash": "h1"}]},
                {"steps": []},  # the system step deleted
                None,
            )
        ],
    ),
    (
        TAO_PARENT,
        "/steps/0/parent_step",
        (
            _steps({"step_index": 0, "parent_step": 1}, {"step_index": 1}),
            {},
            _steps({"parent_step": 1}),
        ),
        [
            (
                _steps({"step_index": 0, "parent_step": 9}, {"step_index": 1}),
                {},
                _steps({"parent_step": 9}),
            ),
            (_steps({"step_index": 0, "parent_step": 1}, {"step_index": 1}), {}, _steps({})),
        ],
    ),
    (
        TAO_INPUT,
        "/steps/0/token_usage/input_tokens",
        (_steps({"token_usage": USAGE}), {"metrics": {"prompt_tokens": 12192}}, None),
        [(_steps({"token_usage": USAGE}), {"metrics": {"prompt_tokens": 12193}}, None)],
    ),
    (
        TAO_TOTALS,
        "/metrics/total_input_tokens",
        (
            {
                "steps": [
                    {"token_usage": {"input_tokens": 4}},
                    {"token_usage": {"input_tokens": 6}},
                ],
                "metrics": {"total_input_tokens": 10},
            },
            {"x": [4, 6]},
            None,
        ),
        [
            (
                {
                    "steps": [
                        {"token_usage": {"input_tokens": 4}},
                        {"token_usage": {"input_tokens": 6}},
                    ],
                    "metrics": {"total_input_tokens": 11},
                },
                {"x": [4, 6]},
                None,
            )
        ],
    ),
    (
        TAO_UNLINKED,
        "/steps/0/observations/0/error",
        (
            _steps(
                {
                    **UNLINKED,
                    "observations": [{"source_call_id": "b", "error": "unlinked_response"}],
                }
            ),
            {},
            _steps({"observations": [{"error": "unlinked_response"}]}),
        ),
        [
            (
                _steps(
                    {
                        **LINKED,
                        "observations": [{"source_call_id": "a", "error": "unlinked_response"}],
                    }
                ),
                {},
                _steps({"observations": [{"error": "unlinked_response"}]}),
            ),
            (
                _steps(
                    {
                        **UNLINKED,
                        "observations": [{"source_call_id": "b", "error": "unlinked_response"}],
                    }
                ),
                {},
                _steps({"observations": [{}]}),
            ),
        ],
    ),
    (
        RUN_STEP_ID,
        "/steps/1/step_id",
        (_steps({"step_id": "S1"}, {"step_id": "S2"}), {}, None),
        [(_steps({"step_id": "S1"}, {"step_id": "S9"}), {}, None)],
    ),
    (
        RUN_STEP_INDEX,
        "/steps/1/step_index",
        (_steps({"step_index": 1}, {"step_index": 2}), {}, None),
        [(_steps({"step_index": 1}, {"step_index": 3}), {}, None)],
    ),
    (
        RUN_SUB_ID,
        "/steps/1/substeps/1/substep_id",
        (_steps({}, {"substeps": [{}, {"substep_id": "S2.2"}]}), {}, None),
        [(_steps({}, {"substeps": [{}, {"substep_id": "S2.5"}]}), {}, None)],
    ),
    (
        RUN_SUB_INDEX,
        "/steps/0/substeps/1/substep_index",
        (_steps({"substeps": [{}, {"substep_index": 2}]}), {}, None),
        [(_steps({"substeps": [{}, {"substep_index": 1}]}), {}, None)],
    ),
    (
        RUN_ROLE,
        "/steps/0/message_role",
        (_steps({"message_role": "assistant"}), {"s": ["agent"]}, None),
        [(_steps({"message_role": "assistant"}), {"s": ["user"]}, None)],
    ),
    (
        RUN_SUB_NULLS,
        "/steps/0/substeps/0/legacy_event_id",
        (
            _steps({"substeps": [{"legacy_event_id": None}]}),
            {},
            _steps({"substeps": [{"legacy_event_id": None}]}),
        ),
        [
            (
                _steps({"substeps": [{"legacy_event_id": None}]}),
                {},
                _steps({"substeps": [{"legacy_event_id": "e1"}]}),
            ),
        ],
    ),
    (
        SDK_NULLS,
        "/error",
        ({"error": None}, {}, {"error": None}),
        [
            ({"error": None}, {}, {"error": "boom"}),  # the way back does not write null
            ({"error": "x"}, {}, {"error": "x"}),  # not the default
        ],
    ),
    (
        RUN_NULLS,
        "/steps/0/summary",
        (_steps({"summary": None}), {}, _steps({"summary": None})),
        [
            (_steps({"summary": None}), {}, _steps({"summary": "Tool activity"})),
            (_steps({"summary": "x"}), {}, _steps({"summary": "x"})),  # not the default
        ],
    ),
    (
        RUN_NULLS,
        "/steps/0/started_at",
        (_steps({"started_at": None}), {}, _steps({"started_at": None})),
        [
            (_steps({"started_at": None}), {}, _steps({"started_at": "2026-01-01T00:00:00Z"})),
            (_steps({"started_at": "x"}), {}, _steps({"started_at": "x"})),  # not the default
        ],
    ),
    (
        ATIF_PLACEHOLDER,
        "/steps/0/source",
        (_steps(dict(PLACEHOLDER)), {}, _steps(dict(PLACEHOLDER))),
        [
            (_steps(dict(PLACEHOLDER)), {}, _steps()),  # the way back lost it
            (_steps(dict(PLACEHOLDER), dict(PLACEHOLDER)), {}, _steps(dict(PLACEHOLDER))),
            (_steps({**PLACEHOLDER, "message": "x"}), {}, _steps({**PLACEHOLDER, "message": "x"})),
        ],
    ),
    (
        ATIF_NO_TEXT,
        "/steps/0/message",
        (_steps({"message": ""}), {}, _steps({"message": ""})),
        [
            (_steps({"message": ""}), {}, _steps({"message": None})),
            (_steps({"message": "x"}), {}, _steps({"message": "x"})),  # not the empty text
        ],
    ),
    (
        ATIF_NULL_CONTENT,
        "/steps/0/message",
        (
            _steps({"source": "agent", "message": ""}),
            {},
            _steps({"source": "agent", "message": ""}),
        ),
        [
            (_steps({"source": "agent", "message": ""}), {}, _steps({"message": None})),
            (_steps({"source": "user", "message": ""}), {}, _steps({"message": ""})),  # not agent
        ],
    ),
    (
        TAO_CONTENT_HASH,
        "/content_hash",
        ({**HASHED, "content_hash": HASH}, {}, {"content_hash": HASH}),
        [
            ({**HASHED, "content_hash": "0" * 64}, {}, {"content_hash": "0" * 64}),  # not its hash
            ({**HASHED, "content_hash": HASH}, {}, {"content_hash": None}),  # not written back
        ],
    ),
    (
        TAO_INDEX_FILLED,
        "/steps/1/step_index",
        (_steps({"step_index": 1}, {"step_index": 2}), {}, _steps({}, {"step_index": 2})),
        [
            (_steps({"step_index": 1}, {"step_index": 2}), {}, _steps({}, {})),  # not back
            (_steps({"step_index": 0}, {"step_index": 1}), {}, _steps({}, {"step_index": 1})),
        ],
    ),
    (
        TAO_FILLED_DEFAULT,
        "/steps/0/observations/0/error",
        (
            _steps({"observations": [{"source_call_id": "a", "error": None}]}),
            {},
            _steps({"observations": [{"error": None}]}),
        ),
        [
            (  # the way back does not write it
                _steps({"observations": [{"source_call_id": "a", "error": None}]}),
                {},
                _steps({"observations": [{}]}),
            ),
            (  # not the default
                _steps({"observations": [{"source_call_id": "a", "error": "tool_error"}]}),
                {},
                _steps({"observations": [{"error": "tool_error"}]}),
            ),
        ],
    ),
    (
        TAO_FILLED_DEFAULT,
        "/security/scanned",
        ({"security": {"scanned": False}}, {}, {"security": {"scanned": False}}),
        [
            ({"security": {"scanned": 0}}, {}, {"security": {"scanned": 0}}),  # 0 is not false
            ({"security": {"scanned": False}}, {}, {"security": {"scanned": True}}),
        ],
    ),
    (
        TAO_NO_TEXT,
        "/steps/0/content",
        (_steps({"content": ""}), {}, _steps({"content": ""})),
        [
            (_steps({"content": ""}), {}, _steps({"content": None})),
            (_steps({"content": "x"}), {}, _steps({"content": "x"})),  # not the empty text
        ],
    ),
    (
        RUN_SUB_TYPE,
        "/steps/0/substeps/0/type",
        (
            _steps({"substeps": [{"type": "tool_error", "payload": {"exit_code": 1}}]}),
            {},
            _steps({"substeps": [{"type": "tool_error"}]}),
        ),
        [
            (
                _steps({"substeps": [{"type": "tool_error", "payload": {"exit_code": 0}}]}),
                {},
                _steps({"substeps": [{"type": "tool_error"}]}),
            ),
            (
                _steps({"substeps": [{"type": "tool_error", "payload": {"exit_code": 1}}]}),
                {},
                _steps({"substeps": [{"type": "tool_output"}]}),
            ),
        ],
    ),
    (
        RUN_SUB_SOURCE,
        "/steps/0/substeps/0/source",
        (
            _steps({"substeps": [{"type": "tool_call", "source": "provider"}]}),
            {},
            _steps({"substeps": [{"source": "provider"}]}),
        ),
        [
            (
                _steps({"substeps": [{"type": "tool_output", "source": "provider"}]}),
                {},
                _steps({"substeps": [{"source": "provider"}]}),
            ),
            (
                _steps({"substeps": [{"type": "tool_call", "source": "provider"}]}),
                {},
                _steps({"substeps": [{}]}),
            ),
        ],
    ),
]


@pytest.mark.parametrize(
    ("rule", "ptr", "ok", "planted"),
    CASES,
    ids=[f"{c[0].name}:{c[1]}" for c in CASES],
)
def test_each_correspondence_accepts_its_case_and_catches_a_planted_leak(
    rule: Rule,
    ptr: str,
    ok: tuple[Any, Any, Any],
    planted: list[tuple[Any, Any, Any]],
) -> None:
    source, output, back = ok
    assert ptr in _leaked(Rule("none", rule.pattern, lambda c, m, v: False), source, output, back)
    assert ptr not in _leaked(rule, source, output, back)
    for source, output, back in planted:
        assert ptr in _leaked(rule, source, output, back), (source, output, back)


def test_every_rule_of_the_table_has_a_case() -> None:
    tested = {c[0].name for c in CASES}
    assert {r.name for rules in RULES.values() for r in rules} <= tested


def test_a_real_lens_output_with_a_value_deleted_still_leaks() -> None:
    """TAO -> ATIF on a fixture: every leaf accounted for; delete the system steps (the prompts
    the hashes stand for) and one step's converted prompt_tokens, and those TAO leaves leak."""
    doc = json.loads((SUITE / "tao/v0.2.0/valid/coding-session.json").read_text(encoding="utf-8"))
    usage = doc["steps"][5]["token_usage"]
    usage["input_tokens"] = 9999  # a count no other leaf of the output holds
    prompt = 9999 + usage.get("cache_read_tokens", 0) + usage.get("cache_write_tokens", 0)
    out, report = atif_spec.convert(doc, to="atif@v1.7")
    back, _ = atif_spec.convert(out, to="tao@v0.2.0")
    rules = RULES[("tao", "atif")]
    assert [p for p, _ in check(doc, out, report, rules, back).leaked] == []
    cut = copy.deepcopy(out)
    cut["steps"] = [s for s in cut["steps"] if s["source"] != "system"]
    found = [
        s["metrics"] for s in cut["steps"] if s.get("metrics", {}).get("prompt_tokens") == prompt
    ]
    assert len(found) == 1
    del found[0]["prompt_tokens"]
    leaked = {p for p, _ in check(doc, cut, report, rules, back).leaked}
    assert "/steps/5/token_usage/input_tokens" in leaked
    assert "/steps/5/system_prompt_hash" in leaked
