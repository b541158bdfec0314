"""The lenses from the sibling formats on generated documents (issue 15, item 3).

``tests/transforms/test_conservation.py`` checks every lens on the valid fixtures and the lenses out of ATIF
on generated ATIF documents. Here the lenses out of the sibling formats meet generated
documents, drawn as their producers write them (``tests/support/strategies_tao.py``,
``tests/support/strategies_sdk.py``, ``tests/support/strategies_runlog.py``). For each lens into ATIF v1.7, and
for each composed lens between two sibling formats (through ATIF):

(a) the output passes the target's schema and its error-level rules;
(b) the way back (the output converted to the source format) gives the source back, the same
    JSON value (RFC.md §4.6);
(c) conservation: ``tests/support/conservation.py``'s independent check, with the correspondences of
    ``tests/support/correspondences.py`` for the pair and the way back, exactly as
    ``test_conservation.py`` applies it to the fixtures.

Every drawn document is first asserted valid (no error-level finding of the project's
validator). Runs are derandomized (the same examples every run). A property that failed is a lens
bug: its minimal document is pinned at the end of this module as an ``xfail(strict=True)`` case
naming the defect, so fixing the lens turns it into a failure until the mark is removed; a
fixed one stays as a regression case. A composed lens may draw restricted documents to keep
clear of a pinned bug (``RESTRICTED``; none is today).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import atif_spec
from atif_spec.jsonio.jsonequal import difference
from tests.support.conservation import LENSES, check, leaks
from tests.support.correspondences import RULES
from tests.support.strategies_runlog import run_logs
from tests.support.strategies_sdk import sdk_trajectories
from tests.support.strategies_tao import tao_records

Strategy = Callable[[], st.SearchStrategy[dict[str, Any]]]
GENERATORS: dict[str, Strategy] = {
    "tao": tao_records,
    "trajectory-sdk": sdk_trajectories,
    "step-substep": run_logs,
}
ATIF = "atif@v1.7"
SETTINGS = settings(
    derandomize=True,
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _serialize(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False)


def _errors(doc: Any, target: str | None = None) -> list[str]:
    report = atif_spec.validate(doc, as_target=target, check_files=False)
    return [f"{f.code} {f.pointer}: {f.message}" for f in report.errors]


def assert_lens_properties(fmt: str, doc: dict[str, Any]) -> None:
    """(a), (b) and (c) of the module for ``doc`` of format ``fmt``."""
    assert _errors(doc, LENSES[fmt]) == []
    before = _serialize(doc)
    out, report = atif_spec.convert(doc, to=ATIF)
    assert _serialize(doc) == before, "the lens changed its input"
    assert _errors(out, ATIF) == []
    back, _ = atif_spec.convert(out, to=LENSES[fmt])
    assert difference(doc, back) is None  # RFC.md §4.6
    tally = check(doc, out, report, RULES.get((fmt, "atif"), ()), back)
    assert tally.total > 0
    assert not leaks(tally), leaks(tally)[:8]


@pytest.mark.parametrize("fmt", sorted(GENERATORS))
@SETTINGS
@given(data=st.data())
def test_generated_documents_are_valid(fmt: str, data: st.DataObject) -> None:
    doc = data.draw(GENERATORS[fmt]())
    assert _errors(doc, LENSES[fmt]) == []


RESTRICTED: dict[tuple[str, str], Strategy] = {}


def assert_sibling_lens_properties(src: str, dst: str, doc: dict[str, Any]) -> None:
    """(a), (b) and (c) of the module for the composed lens ``src`` → ``dst`` (through ATIF)."""
    assert _errors(doc, LENSES[src]) == []
    out, report = atif_spec.convert(doc, to=LENSES[dst])
    assert _errors(out, LENSES[dst]) == []
    back, _ = atif_spec.convert(out, to=LENSES[src])
    assert difference(doc, back) is None  # RFC.md §4.6
    tally = check(doc, out, report, RULES.get((src, dst), ()), back)
    assert tally.total > 0
    assert not leaks(tally), leaks(tally)[:8]


def _sibling_pairs() -> list[Any]:
    return [
        pytest.param(src, dst, id=f"{src}->{LENSES[dst]}")
        for src in sorted(GENERATORS)
        for dst in sorted(GENERATORS)
        if src != dst
    ]


@pytest.mark.parametrize(("src", "dst"), _sibling_pairs())
@settings(SETTINGS, max_examples=20)
@given(data=st.data())
def test_lens_between_siblings_validates_round_trips_and_conserves(
    src: str, dst: str, data: st.DataObject
) -> None:
    """The composed lenses between the sibling formats on generated documents."""
    strategy = RESTRICTED.get((src, dst), GENERATORS[src])
    assert_sibling_lens_properties(src, dst, data.draw(strategy()))


@pytest.mark.parametrize("fmt", sorted(GENERATORS))
@SETTINGS
@given(data=st.data())
def test_lens_into_atif_validates_round_trips_and_conserves(fmt: str, data: st.DataObject) -> None:
    assert_lens_properties(fmt, data.draw(GENERATORS[fmt]()))


# --- pinned cases: minimal documents the properties found (lens bugs to fix) -------------------

PINNED: list[Any] = [
    pytest.param(  # fixed: an index restored only by ATIF -> TAO's own order is now named
        "tao",
        {
            "trace_id": "e",
            "session_id": "9",
            "agent": {"name": "c"},
            "steps": [
                {"step_index": 1, "role": "user"},
                {"step_index": 2, "role": "agent"},
                {"step_index": 3, "role": "agent"},
                {"step_index": 4, "role": "user", "parent_step": 3, "call_type": "subagent"},
                {"step_index": 5, "role": "agent", "parent_step": 3, "call_type": "subagent"},
                {"step_index": 6, "role": "agent"},
                {"step_index": 14, "role": "agent"},
                {"step_index": 16, "role": "agent", "parent_step": 3, "call_type": "subagent"},
            ],
        },
        id="tao-interleaved-subagent-main-index-after-gap",
    ),
    pytest.param(
        "step-substep",
        {
            "run_id": "r",
            "provider": "c",
            "steps": [
                {
                    "step_id": "S1",
                    "step_index": 1,
                    "provider": "c",
                    "message_role": "assistant",
                    "message_text": "hi",
                    "started_at": None,
                    "outcome": "completed",
                    "substeps": [],
                }
            ],
        },
        id="run-log-null-started-at",
    ),
]


@pytest.mark.parametrize(("fmt", "doc"), PINNED)
def test_pinned_minimal_documents(fmt: str, doc: dict[str, Any]) -> None:
    assert_lens_properties(fmt, doc)


def test_pinned_tao_through_a_run_log_round_trip() -> None:
    """Once a lens bug: tao -> step-substep@v1.0 -> tao was not the identity for an agent step
    with a model, tool calls and a token_usage (every Claude Code tool_use step); it came back
    with a leftover _atif_stash under the root metadata (the run-log lens's lifts of step
    extra.model/extra.metrics recorded the second key's place after the first was gone; the
    step's tools_available gives the ATIF step an extra of its own)."""
    doc = {
        "trace_id": "t",
        "session_id": "s",
        "agent": {"name": "c"},
        "steps": [
            {
                "step_index": 0,
                "role": "agent",
                "model": "m",
                "tools_available": ["Grep"],
                "tool_calls": [{"tool_call_id": "a", "tool_name": "Grep"}],
                "token_usage": {"input_tokens": 5, "output_tokens": 3},
            }
        ],
    }
    assert_sibling_lens_properties("tao", "step-substep", doc)


def test_pinned_tao_empty_content_through_a_run_log() -> None:
    """A TAO step's empty content is ATIF's empty message, a null message_text in the run log
    (step-substep MAPPING §5, SSL-27) and "" again on the way back: the correspondence
    tests/support/correspondences.py's TAO_NO_TEXT restates (found by the TAO strategy through the
    composed lens once its tool_step_models switch was gone)."""
    doc = {
        "trace_id": "t",
        "session_id": "s",
        "agent": {"name": "c"},
        "steps": [{"step_index": 0, "role": "user", "content": ""}],
    }
    out, _ = atif_spec.convert(doc, to=LENSES["step-substep"])
    assert out["steps"][0]["message_text"] is None
    assert_sibling_lens_properties("tao", "step-substep", doc)


def test_pinned_tao_to_sdk_index_after_a_trailing_subagent() -> None:
    """A sub-agent step after the main steps (fixed: an index that is not the step's position
    in the record goes under ``extra.tao_step_index``, as in the case above)."""
    steps: list[dict[str, Any]] = [{"step_index": 1, "role": "user"}]
    steps += [{"step_index": i, "role": "agent"} for i in range(2, 7)]
    steps += [{"step_index": 7, "role": "user"}, {"step_index": 8, "role": "user"}]
    steps.append({"step_index": 11, "role": "agent", "parent_step": 6, "call_type": "subagent"})
    doc = {"trace_id": "t", "session_id": "s", "agent": {"name": "claude-code"}, "steps": steps}
    assert_sibling_lens_properties("tao", "trajectory-sdk", doc)


def test_pinned_run_log_empty_text_through_sdk() -> None:
    """Once a leak: a step with an empty message_text and a tool call becomes an assistant
    message with content null (trajectory-sdk MAPPING §4.1) and the way back writes '' again;
    the run-log -> ATIF lens writes message "" and stashes the '' it would otherwise read back
    as null (SSL-27), so the composed lens reports it as stashed."""
    doc = {
        "run_id": "r",
        "provider": "g",
        "steps": [
            {
                "step_id": "S1",
                "step_index": 1,
                "provider": "g",
                "message_role": "assistant",
                "message_text": "",
                "started_at": "2026-02-26T10:04:22Z",
                "outcome": "completed",
                "summary": "Pre-message tool activity",
                "substeps": [
                    {
                        "substep_id": "S1.1",
                        "substep_index": 1,
                        "type": "tool_call",
                        "source": "provider",
                        "call_id": "c1",
                        "payload": {"tool_name": "Grep"},
                        "timestamp": "2026-02-26T10:04:25Z",
                    }
                ],
            }
        ],
    }
    assert_sibling_lens_properties("step-substep", "trajectory-sdk", doc)


# --- the generators draw what producers write --------------------------------------------------


def _tao_forward_parent(doc: dict[str, Any]) -> bool:
    """A sub-agent step placed before the step that launched it (the parser's order)."""
    steps = doc.get("steps", [])
    at = {s["step_index"]: i for i, s in enumerate(steps)}
    return any(at.get(s.get("parent_step"), -1) > i for i, s in enumerate(steps))


def _tao_shared_usage(doc: dict[str, Any]) -> bool:
    """Adjacent agent steps of one API call: same model, the same non-zero usage."""
    steps = doc.get("steps", [])
    return any(
        a["role"] == b["role"] == "agent"
        and a.get("model") == b.get("model")
        and a.get("token_usage")
        and a.get("token_usage") == b.get("token_usage")
        for a, b in itertools.pairwise(steps)
    )


def _tao_unreferenced_prompts(doc: dict[str, Any]) -> bool:
    steps = doc.get("steps", [])
    return bool(doc.get("system_prompts")) and not any(s.get("system_prompt_hash") for s in steps)


def _tao_referenced_prompts(doc: dict[str, Any]) -> bool:
    return any(s.get("system_prompt_hash") for s in doc.get("steps", []))


def _sdk_messages(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for s in doc["steps"] for m in s["messages"]]


def _sdk_tool_error(doc: dict[str, Any]) -> bool:
    return any((m.get("tool_response") or {}).get("error") for m in _sdk_messages(doc))


def _sdk_prefix_replaced(doc: dict[str, Any]) -> bool:
    """A later snapshot starts with another system message than an earlier one."""
    firsts = [s["messages"][0] for s in doc["steps"] if s["messages"]]
    systems = [m.get("content") for m in firsts if m["role"] == "system"]
    return len(set(map(str, systems))) > 1


def _sdk_cumulative(doc: dict[str, Any]) -> bool:
    steps = doc["steps"]
    return len(steps) > 2 and all(
        b["messages"][: len(a["messages"])] == a["messages"] for a, b in itertools.pairwise(steps)
    )


def _substeps(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [sub for s in doc["steps"] for sub in s["substeps"]]


FEATURES: dict[str, dict[str, Callable[[dict[str, Any]], bool]]] = {
    "tao": {
        "parent_step points forward": _tao_forward_parent,
        "one API call, several steps": _tao_shared_usage,
        "prompts stored, not referenced": _tao_unreferenced_prompts,
        "prompts referenced": _tao_referenced_prompts,
    },
    "trajectory-sdk": {
        "cumulative snapshots": _sdk_cumulative,
        "a tool error": _sdk_tool_error,
        "system prefix replaced": _sdk_prefix_replaced,
    },
    "step-substep": {
        "a runner note": lambda d: any(s["message_role"] == "runner" for s in d["steps"]),
        "call, output, error, retry": lambda d: (
            {"tool_call", "tool_output", "tool_error", "tool_retry"}
            <= {sub["type"] for sub in _substeps(d)}
        ),
        "step usage": lambda d: any("metrics" in s.get("extra", {}) for s in d["steps"]),
        "outcomes": lambda d: {"failed", "completed"} <= {s["outcome"] for s in d["steps"]},
    },
}


@pytest.mark.parametrize("fmt", sorted(FEATURES))
def test_generators_draw_what_producers_write(fmt: str) -> None:
    """Each shape the strategies' docstrings promise is drawn within 200 examples."""
    wanted = FEATURES[fmt]
    seen: set[str] = set()

    @settings(
        derandomize=True,
        max_examples=200,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(GENERATORS[fmt]())
    def draw(doc: dict[str, Any]) -> None:
        seen.update(name for name, feature in wanted.items() if feature(doc))

    draw()
    assert seen == set(wanted)
