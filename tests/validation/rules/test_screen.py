"""The screen schemas and the vouched pass of the ATIF rules (``atif_spec.validation.rules.screen``).

Two promises are checked here: a screen only narrows its schema (what it accepts, the schema
accepts), and a vouch never changes a finding (every rule reports exactly the same on a
document the screen accepted whether or not it takes the quick pass). Documents come from the
conformance suite, from the general strategies and from a strategy of screen-plain documents
with rule violations planted where the quick pass has to catch them.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atif_spec.schemas.catalog import load_catalog
from atif_spec.schemas.compiled import rs_validator
from atif_spec.validation.findings import Finding
from atif_spec.validation.pipeline import validate_document
from atif_spec.validation.rules.atif import quick_clean
from atif_spec.validation.rules.engine import run_rules
from atif_spec.validation.rules.screen import screen_id, screen_validator
from tests.support import ROOT
from tests.support.documents import ATIF_VERSIONS
from tests.support.strategies import trajectories
from tests.support.strategies_screen import planted


def _declared(path: Path) -> tuple[str, Any] | None:
    """``(version, document)`` of a fixture that declares a known ATIF version."""
    try:
        doc = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError:
        return None
    version = doc.get("schema_version") if isinstance(doc, dict) else None
    version = version.removeprefix("ATIF-") if isinstance(version, str) else None
    return (version, doc) if version in ATIF_VERSIONS else None


# Fixtures of input-level cases (not JSON, no or an unknown version) never reach the rules.
FIXTURES = [p for p in sorted((ROOT / "conformance" / "atif").glob("*/*/*.json")) if _declared(p)]


def _screen(version: str) -> Any:
    return screen_validator("atif", load_catalog().find(f"atif@{version}").id)


def _schema(version: str) -> Any:
    return rs_validator(load_catalog().find(f"atif@{version}").id)


def _both_ways(doc: Any, version: str) -> tuple[bool, list[Finding]]:
    """Whether the screen vouches for ``doc``; asserts that the vouch changes nothing."""
    vouched = _screen(version).is_valid(doc)
    exact = run_rules(doc, "atif", version)
    if vouched:
        assert _schema(version).is_valid(doc), "the screen accepted what the schema rejects"
        assert run_rules(doc, "atif", version, vouched=True) == exact
    return vouched, exact


def test_every_format_without_a_screen_gets_none() -> None:
    entry = load_catalog().find("tao@v0.2.0")
    assert screen_validator("tao", entry.id) is None


def test_screen_ids_are_not_published_ids() -> None:
    ids = {e.id for e in load_catalog()}
    for version in ATIF_VERSIONS:
        sid = screen_id(load_catalog().find(f"atif@{version}").id)
        assert sid.endswith(".screen.json") and sid not in ids


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(ROOT / "conformance")))
def test_fixtures_find_the_same_with_and_without_a_vouch(path: Path) -> None:
    version, doc = _declared(path) or ("", None)
    _both_ways(doc, version)


def test_the_suite_exercises_the_quick_pass() -> None:
    vouched = 0
    for path in FIXTURES:
        version, doc = _declared(path) or ("", None)
        vouched += _screen(version).is_valid(doc)
    assert vouched >= 100, (vouched, len(FIXTURES))


def test_the_suite_exercises_the_clean_shortcut() -> None:
    """Enough fixtures are cleared by ``quick_clean`` that the tests above check its verdicts,
    and every one it clears has no rule finding when the rules run one by one."""
    cleared = 0
    for path in FIXTURES:
        version, doc = _declared(path) or ("", None)
        if _screen(version).is_valid(doc) and quick_clean(doc):
            cleared += 1
            assert run_rules(doc, "atif", version) == [], path
    assert cleared >= 50, (cleared, len(FIXTURES))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ATIF_VERSIONS).flatmap(lambda v: st.tuples(st.just(v), trajectories(v))))
def test_general_documents_find_the_same(case: tuple[str, dict[str, Any]]) -> None:
    version, doc = case
    _both_ways(doc, version)


# --- screen-plain documents with planted violations ----------------------------------------------


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(planted())
def test_planted_violations_are_found_on_vouched_documents(
    case: tuple[str, dict[str, Any], list[str]],
) -> None:
    version, doc, _ = case
    vouched, findings = _both_ways(doc, version)
    assert vouched, "a plain document should pass the screen"
    if findings:
        assert not quick_clean(doc), "the shortcut cleared a document with findings"


def test_a_planted_violation_of_each_kind_is_reported() -> None:
    doc: dict[str, Any] = {
        "schema_version": "ATIF-v1.8",
        "session_id": "s",
        "agent": {"name": "a", "version": "1"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "go"},
            {
                "step_id": 3,
                "source": "agent",
                "message": "m",
                "tool_calls": [
                    {"tool_call_id": "a", "function_name": "f", "arguments": {}},
                    {"tool_call_id": "a", "function_name": "f", "arguments": {}},
                    {"tool_call_id": "b", "function_name": "f", "arguments": {}},
                ],
                "observation": {"results": [{"source_call_id": "z", "content": "x"}]},
                "metrics": {"prompt_tokens": 5, "cached_tokens": 9},
            },
        ],
        "final_metrics": {"total_prompt_tokens": 6},
    }
    vouched, findings = _both_ways(doc, "v1.8")
    assert vouched
    assert {f.code for f in findings} == {"ATIF101", "ATIF201", "ATIF202", "ATIF301", "ATIF306"}
    assert validate_document(doc).findings == findings


# --- what each narrowing keeps out ---------------------------------------------------------------


def _plain_v18() -> dict[str, Any]:
    return {
        "schema_version": "ATIF-v1.8",
        "session_id": "s",
        "agent": {"name": "a", "version": "1"},
        "steps": [
            {
                "step_id": 1,
                "timestamp": "2025-10-11T10:30:00Z",
                "source": "agent",
                "message": "m",
                "tool_calls": [{"tool_call_id": "c", "function_name": "f", "arguments": {}}],
                "observation": {"results": [{"source_call_id": "c", "content": "out"}]},
                "metrics": {"prompt_tokens": 3, "completion_tokens": 1},
                "extra": {"k": 1},
            }
        ],
    }


NARROWINGS = {
    "ATIF103": ("timestamp", "2025-10-11T10:30:00"),
    "ATIF401": ("message", [{"type": "text", "text": "hi"}]),
    "ATIF302": ("metrics", {"prompt_tokens": 3, "prompt_token_ids": [1, 2, 3]}),
    "ATIF303": ("metrics", {"completion_tokens": 1, "completion_token_ids": [1]}),
    "ATIF304": ("metrics", {"completion_tokens": 1, "logprobs": [-0.5]}),
    "ATIF502": (
        "observation",
        {"results": [{"subagent_trajectory_ref": [{"trajectory_id": "x"}]}]},
    ),
    "ATIF601": ("extra", {"context_management": {"type": "compaction", "boundary": "replace"}}),
    "content": ("observation", {"results": [{"content": [{"type": "text", "text": "t"}]}]}),
}


def test_the_plain_document_passes_the_screen() -> None:
    assert _screen("v1.8").is_valid(_plain_v18())


@pytest.mark.parametrize("name", sorted(NARROWINGS))
def test_each_narrowing_turns_a_valid_document_away(name: str) -> None:
    field, value = NARROWINGS[name]
    doc = _plain_v18()
    doc["steps"][0][field] = copy.deepcopy(value)
    assert _schema("v1.8").is_valid(doc)
    assert not _screen("v1.8").is_valid(doc)
    vouched, findings = _both_ways(doc, "v1.8")
    assert not vouched
    if name == "ATIF103":
        assert [f.code for f in findings] == ["ATIF103"]


@pytest.mark.parametrize("off", [0, 1])
def test_integers_of_2_to_the_64_and_more_keep_their_digits(off: int) -> None:
    """Counts beyond 64 bits (as the reader hands them on, Python ints) are compared exactly on
    the quick path: an off-by-one total or cached count is still found, an exact one is not."""
    big = 2**70 + 1
    doc: dict[str, Any] = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "a", "version": "1"},
        "steps": [
            {
                "step_id": 1,
                "source": "agent",
                "message": "m",
                "metrics": {"prompt_tokens": big, "cached_tokens": big - 1 + 2 * off},
            }
        ],
        "final_metrics": {"total_prompt_tokens": big + off},
    }
    vouched, findings = _both_ways(doc, "v1.7")
    assert vouched
    assert quick_clean(doc) is (off == 0)
    assert {f.code for f in findings} == (set() if off == 0 else {"ATIF301", "ATIF306"})


@pytest.mark.parametrize(
    ("total_cost", "clean"),
    [(0.3, True), (0.3 * (1 + 1e-7), True), (0.31, False), (3, False), (0.0, False)],
)
def test_cost_totals_on_the_quick_path(total_cost: float, clean: bool) -> None:
    """Token totals that match leave the cost total to decide: within a relative 1e-6 of the
    steps' sum it is clean, otherwise ATIF306 is reported (the quick path says "not sure")."""
    doc: dict[str, Any] = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "a", "version": "1"},
        "steps": [
            {
                "step_id": i,
                "source": "agent",
                "message": "m",
                "metrics": {"prompt_tokens": 10, "cost_usd": 0.1},
            }
            for i in (1, 2, 3)
        ],
        "final_metrics": {"total_prompt_tokens": 30, "total_cost_usd": total_cost},
    }
    vouched, findings = _both_ways(doc, "v1.7")
    assert vouched
    assert quick_clean(doc) is clean
    assert [f.code for f in findings] == ([] if clean else ["ATIF306"])
