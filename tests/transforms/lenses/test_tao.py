"""TAO trace records ↔ ATIF v1.7: fixtures, a realistic session, tokens, stash, properties."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from atif_spec import validate
from atif_spec.cli import main
from atif_spec.formats.tao import content_hash
from atif_spec.formats.tao import detect as tao_detect
from atif_spec.jsonio.jsonequal import difference, same_json
from atif_spec.transforms.lenses import ConversionError, convert
from atif_spec.transforms.lenses.tao import INTO_ATIF, INTO_TAO, anthropic_usage, prompt_key
from atif_spec.transforms.stash import STASH_KEY
from tests.support import ROOT
from tests.support.documents import dispatch_only
from tests.support.strategies import (
    VERSIONS,
    free_objects,
    nonempty,
    put,
    shuffled,
    text,
    timestamps,
)
from tests.support.strategies import steps as atif_steps
from tests.support.strategies import trajectories as atif_trajectories

CONFORMANCE = ROOT / "conformance"
SESSION = CONFORMANCE / "tao" / "v0.2.0" / "valid" / "coding-session.json"


def _cases(fmt: str) -> list[Path]:
    """Every valid and warning fixture of a format (documents that validate)."""
    found = []
    for manifest in sorted((CONFORMANCE / fmt).glob("*/manifest.json")):
        for case in json.loads(manifest.read_text())["cases"]:
            path = manifest.parent / case["path"]
            if case["category"] in ("valid", "warning") and not dispatch_only(path):
                found.append(path)
    return found


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def errors(doc: Any) -> list[dict[str, Any]]:
    return [f.to_dict() for f in validate(doc, check_files=False).errors]


def round_trip(doc: dict[str, Any], there: str, back: str) -> dict[str, Any]:
    """Convert there and back; assert validity, an untouched input and the identity."""
    original = orjson.dumps(doc)
    # v1.6 session-only references need an explicit policy on the way up to v1.7
    out, report = convert(doc, to=there, session_ref_path="atif-session://{session_id}")
    assert orjson.dumps(doc) == original, "the input was modified"
    assert not errors(out), report.to_dict()
    returned, _ = convert(out, to=back)
    assert not errors(returned)
    assert difference(doc, returned) is None  # RFC.md §4.6
    return out


def _id(path: Path) -> str:
    return str(path.relative_to(CONFORMANCE))


# --- fixtures -------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", _cases("tao"), ids=_id)
def test_tao_fixture_round_trips_through_atif(path: Path) -> None:
    """Every version: a record after 0.2.0 goes down the TAO version chain before the lens and
    back up after the way back (spec/tao/DECISIONS.md D38)."""
    doc = _load(path)
    out = round_trip(doc, "atif@v1.7", f"tao@{tao_detect(doc)}")
    assert out["schema_version"] == "ATIF-v1.7"


@pytest.mark.parametrize("path", _cases("atif"), ids=_id)
def test_atif_fixture_round_trips_through_tao(path: Path) -> None:
    doc = _load(path)
    version = doc["schema_version"].removeprefix("ATIF-")
    out = round_trip(doc, "tao@v0.2.0", f"atif@{version}")
    assert out["schema_version"] == "0.2.0"


# --- the realistic coding session -----------------------------------------------------------------


@pytest.fixture(scope="module")
def session() -> tuple[dict[str, Any], dict[str, Any], Any]:
    doc = _load(SESSION)
    out, report = convert(doc, to="atif@v1.7")
    return doc, out, report


def _owns(layer: dict[str, Any], pointer: str) -> bool:
    """True when the layer lists the member at ``pointer``, or a member below it, as written
    under a documented name."""
    return any(p == pointer or p.startswith(pointer + "/") for p in layer.get("wrote", []))


def _layer(doc: dict[str, Any], holder: str = "extra") -> dict[str, Any]:
    """The single layer of the stash in ``doc[holder]`` (the root ``extra`` of ATIF, the
    ``metadata`` of TAO), of the lens into that format."""
    layers = doc[holder][STASH_KEY]["layers"]
    assert len(layers) == 1
    assert layers[0]["by"] == (INTO_ATIF if holder == "extra" else INTO_TAO)
    layer: dict[str, Any] = layers[0]
    return layer


def _stash(out: dict[str, Any], below: str = "") -> list[dict[str, Any]]:
    """The operations of the root layer's patch below the TAO pointer ``below`` (``test``
    operations left out): ``op``, ``pointer`` (relative to ``below``) and ``value``."""
    extra = out.get("extra")
    if not isinstance(extra, dict) or STASH_KEY not in extra:
        return []
    found = []
    for op in _layer(out).get("patch", []):
        path = op["path"]
        if op["op"] != "test" and (path == below or path.startswith(below + "/")):
            found.append({"op": op["op"], "pointer": path[len(below) :], "value": op.get("value")})
    return found


def _removed(out: dict[str, Any], below: str = "") -> dict[str, Any]:
    """What the TAO record has below ``below`` that the way back does not rebuild."""
    return {e["pointer"]: e["value"] for e in _stash(out, below) if e["op"] == "add"}


def _replaced(out: dict[str, Any], below: str = "") -> dict[str, Any]:
    """What the way back rebuilds otherwise below ``below``: the record's values."""
    return {e["pointer"]: e["value"] for e in _stash(out, below) if e["op"] == "replace"}


def test_session_system_prompts_become_system_steps(session: Any) -> None:
    doc, out, _ = session
    sources = [s["source"] for s in out["steps"]]
    # the prompt comes before the user message the first call answers
    assert sources == ["system", "user"] + ["agent"] * 7
    assert out["steps"][0]["message"] == doc["system_prompts"]["eb26305a5e9adbb5"]
    sub = out["subagent_trajectories"][0]
    assert sub["steps"][0] == {
        "step_id": 1,
        "source": "system",
        "message": doc["system_prompts"]["b8f73e50c5f5241d"],
    }
    assert [s["step_id"] for s in out["steps"]] == list(range(1, 10))


def test_a_prompt_no_step_names_becomes_the_first_step() -> None:
    """The usual Claude Code record: system_prompts has the session's prompt, no step names it."""
    doc = _record({}, None)
    del doc["steps"]
    doc["system_prompts"] = {prompt_key("You are a coding agent."): "You are a coding agent."}
    doc["steps"] = [
        {"step_index": 0, "role": "user", "content": "hi", "system_prompt_hash": None},
        {"step_index": 1, "role": "agent", "content": "ok", "system_prompt_hash": None},
    ]
    out = round_trip(doc, "atif@v1.7", "tao@v0.2.0")
    assert [s["source"] for s in out["steps"]] == ["system", "user", "agent"]
    assert out["steps"][0]["message"] == "You are a coding agent."
    # nothing stashed for the prompt: it is the first step
    assert not [e for e in _stash(out) if e["pointer"].startswith("/system_prompts")]


def test_a_referenced_prompt_goes_before_the_user_steps_its_call_answers() -> None:
    doc = _record({}, None)
    doc["system_prompts"] = {"a": "first", "b": "second"}
    doc["steps"] = [
        {"step_index": 0, "role": "user", "content": "u1"},
        {"step_index": 1, "role": "agent", "content": "a1", "system_prompt_hash": "a"},
        {"step_index": 2, "role": "user", "content": "u2"},
        {"step_index": 3, "role": "agent", "content": "a2", "system_prompt_hash": "b"},
    ]
    out = round_trip(doc, "atif@v1.7", "tao@v0.2.0")
    assert [s["message"] for s in out["steps"]] == ["first", "u1", "a1", "second", "u2", "a2"]


def test_session_subagent_is_embedded_and_referenced(session: Any) -> None:
    _, out, _ = session
    (sub,) = out["subagent_trajectories"]
    assert sub["trajectory_id"] == "agent-5c0e9d21"
    assert sub["schema_version"] == "ATIF-v1.7"
    assert [s["source"] for s in sub["steps"]] == ["system", "agent", "agent", "agent"]
    launcher = out["steps"][3]
    assert launcher["tool_calls"][0]["function_name"] == "Task"
    result = launcher["observation"]["results"][0]
    assert result["subagent_trajectory_ref"] == [{"trajectory_id": "agent-5c0e9d21"}]
    # TAO-only step fields are named keys of the step's extra: the role of the sub-agent
    assert sub["steps"][1]["extra"]["tao_agent_role"] == "explore"
    assert "/agent_role" not in _removed(out, "/steps/2")
    # listed in the root's layer, pointers from the root; the subagent has no stash
    assert _owns(_layer(out), "/subagent_trajectories/0/steps/1/extra/tao_agent_role")
    assert _owns(_layer(out), "/subagent_trajectories/0/steps/1/extra/tao_tools_available")
    assert "extra" not in sub or STASH_KEY not in sub["extra"]


def test_session_warm_up_call_is_kept_as_an_agent_step(session: Any) -> None:
    _, out, report = session
    warm = out["steps"][2]
    assert warm["source"] == "agent"
    assert warm["message"] == ""
    assert warm["metrics"] == {
        "prompt_tokens": 11877,
        "completion_tokens": 1,
        "extra": {"cache_creation_input_tokens": 11873},
    }
    assert "/content" not in _replaced(
        out, "/steps/1"
    )  # ATIF → TAO writes an empty agent message as null
    # the warm-up stays visible as such: a named key of the step's extra
    assert warm["extra"]["tao_call_type"] == "warmup"
    assert "/steps/2/message" in [i.pointer for i in report.decided]


def test_session_tool_errors_and_tool_metadata_are_named_where_they_belong(
    session: Any,
) -> None:
    _, out, report = session
    result = out["steps"][4]["observation"]["results"][0]
    assert set(result) == {"source_call_id", "content", "extra"}
    assert result["extra"]["tao_error"] == "exit_code:1"
    assert result["extra"]["tao_output_summary"] == result["content"]
    assert _removed(out, "/steps/6/observations/0") == {}
    call = out["steps"][4]["tool_calls"][0]
    assert call["extra"]["tao_duration_ms"] == 2310
    assert out["steps"][6]["extra"]["tao_snippets"][0]["source_step"] == 8  # the Edit step
    named = {i.pointer: i for i in report.named}
    # TAO pointers: the parser's order puts the sub-agent's three steps before the Task step
    assert named["/steps/6/observations/0/error"].to == (
        "/steps/4/observation/results/0/extra/tao_error"
    )
    assert named["/steps/8/snippets"].to == "/steps/6/extra/tao_snippets"


def test_session_outcome_and_provenance_are_named_keys_of_the_root(session: Any) -> None:
    doc, out, _ = session
    extra = out["extra"]
    assert extra["tao_outcome"]["reward"] == 0.9
    assert extra["tao_outcome"]["terminal_state"] == "goal_reached"
    for key in ("task", "environment", "security", "attribution", "metadata"):
        assert extra[f"tao_{key}"] == doc[key]
    assert "/content_hash" not in _removed(out)  # its own hash: recomputed (D34)
    assert extra["tao_style"] == "hashed"
    assert _owns(_layer(out), "/extra/tao_style")
    assert out["trajectory_id"] == doc["trace_id"]
    assert out["session_id"] == doc["session_id"]


def test_a_producers_own_named_key_is_never_read_back() -> None:
    """An ATIF producer's own ``extra.tao_outcome`` is not a TAO outcome: without a moved entry
    of TAO → ATIF it is stashed whole, and the round trip gives it back."""
    doc = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "a", "version": "1"},
        "steps": [
            {
                "step_id": 1,
                "source": "agent",
                "message": "m",
                "extra": {"tao_call_type": "warmup"},
            }
        ],
        "extra": {"tao_outcome": {"success": True}, "tao_style": "filled"},
    }
    out = round_trip(doc, "tao@v0.2.0", "atif@v1.7")
    assert "outcome" not in out
    assert "content_hash" not in out  # nor is its tao_style a style
    assert out["steps"][0]["call_type"] == "main"


def test_session_final_metrics_are_recomputed(session: Any) -> None:
    doc, out, _ = session
    final = out["final_metrics"]
    assert final["total_steps"] == len(out["steps"])
    every = out["steps"] + out["subagent_trajectories"][0]["steps"]
    assert final["total_prompt_tokens"] == sum(
        s["metrics"]["prompt_tokens"] for s in every if "metrics" in s
    )
    assert final["extra"] == {
        "tao_total_duration_s": 132.0,
        "tao_cache_hit_rate": 0.83,
        "tao_estimated_cost_usd": 0.0712,
    }
    assert _removed(out, "/metrics") == {}
    assert _replaced(out, "/metrics") == {}  # TAO's totals equal what ATIF → TAO recomputes
    assert doc["metrics"]["total_steps"] == 11


def test_session_passes_atif_validate_and_comes_back(session: Any, tmp_path: Path) -> None:
    doc, out, _ = session
    path = tmp_path / "session.atif.json"
    path.write_text(json.dumps(out), encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert "0 error(s)" in result.output
    back, report = convert(out, to="tao@v0.2.0")
    assert same_json(back, doc)
    assert not report.stashed and not report.decided and not report.dropped
    assert not errors(back)


def test_session_converts_with_the_cli(tmp_path: Path) -> None:
    atif = tmp_path / "session.atif.json"
    tao = tmp_path / "session.tao.json"
    result = CliRunner().invoke(
        main, ["convert", str(SESSION), "--to", "atif@v1.7", "-o", str(atif)]
    )
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["convert", str(atif), "--to", "tao@v0.2.0", "-o", str(tao)])
    assert result.exit_code == 0, result.output
    assert json.loads(tao.read_text()) == _load(SESSION)


# --- token accounting -----------------------------------------------------------------------------


def _record(usage: dict[str, Any], model: str | None, name: str = "agent-x") -> dict[str, Any]:
    step: dict[str, Any] = {"step_index": 0, "role": "agent", "content": "ok"}
    if model is not None:
        step["model"] = model
    step["token_usage"] = usage
    return {
        "schema_version": "0.2.0",
        "trace_id": "t-1",
        "session_id": "s-1",
        "agent": {"name": name, "version": "1"},
        "steps": [step],
    }


ANTHROPIC_USAGE = {
    "input_tokens": 9,
    "output_tokens": 164,
    "cache_read_tokens": 11873,
    "cache_write_tokens": 310,
}


@pytest.mark.parametrize(
    ("model", "name", "expected"),
    [
        (
            "anthropic/claude-sonnet-4-20250514",
            "agent-x",
            {
                "prompt_tokens": 12192,
                "completion_tokens": 164,
                "cached_tokens": 11873,
                "extra": {"cache_creation_input_tokens": 310},
            },
        ),
        (
            None,
            "claude-code",
            {
                "prompt_tokens": 12192,
                "completion_tokens": 164,
                "cached_tokens": 11873,
                "extra": {"cache_creation_input_tokens": 310},
            },
        ),
        (
            "openai/gpt-4o",
            "codex-cli",
            {
                "prompt_tokens": 9,
                "completion_tokens": 164,
                "cached_tokens": 11873,
                "extra": {"cache_creation_input_tokens": 310},
            },
        ),
    ],
    ids=["anthropic-model", "claude-agent", "openai"],
)
def test_token_usage_is_converted_not_copied(
    model: str | None, name: str, expected: dict[str, Any]
) -> None:
    doc = _record(dict(ANTHROPIC_USAGE), model, name)
    out, _ = convert(doc, to="atif@v1.7")
    assert out["steps"][0]["metrics"] == expected
    back, _ = convert(out, to="tao@v0.2.0")
    assert same_json(back, doc)


def test_anthropic_prompt_tokens_include_cached_tokens() -> None:
    """The upstream exporter's bug: cached_tokens above prompt_tokens (ATIF301) never happens."""
    doc = _record({"input_tokens": 3, "cache_read_tokens": 5000}, "anthropic/claude-opus-4")
    out, _ = convert(doc, to="atif@v1.7")
    metrics = out["steps"][0]["metrics"]
    assert metrics == {"prompt_tokens": 5003, "cached_tokens": 5000}
    assert not validate(out, check_files=False).findings


def test_prefix_reuse_tokens_go_to_a_named_metrics_key() -> None:
    doc = _record({"input_tokens": 1, "prefix_reuse_tokens": 7}, "anthropic/claude-opus-4")
    out, _ = convert(doc, to="atif@v1.7")
    metrics = out["steps"][0]["metrics"]
    assert metrics["prompt_tokens"] == 1
    assert metrics["extra"]["tao_prefix_reuse_tokens"] == 7
    assert _removed(out, "/steps/0/token_usage") == {}
    assert convert(out, to="tao@v0.2.0")[0] == doc


def test_atif_metrics_become_tao_usage() -> None:
    doc = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "claude-code", "version": "1"},
        "steps": [
            {
                "step_id": 1,
                "source": "agent",
                "message": "m",
                "metrics": {
                    "prompt_tokens": 1000,
                    "completion_tokens": 20,
                    "cached_tokens": 900,
                    "extra": {"cache_creation_input_tokens": 60},
                },
            }
        ],
    }
    out, _ = convert(doc, to="tao@v0.2.0")
    assert out["steps"][0]["token_usage"] == {
        "input_tokens": 40,
        "output_tokens": 20,
        "cache_read_tokens": 900,
        "cache_write_tokens": 60,
    }
    other = copy.deepcopy(doc)
    other["agent"] = {"name": "codex", "version": "1", "model_name": "openai/gpt-5"}
    out, _ = convert(other, to="tao@v0.2.0")
    assert out["steps"][0]["token_usage"]["input_tokens"] == 1000


def test_usage_convention_inference() -> None:
    assert anthropic_usage("anthropic/claude-3-5-haiku", None, "x")
    assert anthropic_usage(None, "claude-sonnet-4", "x")
    assert anthropic_usage(None, None, "claude-code")
    assert not anthropic_usage("openai/gpt-4o", None, "claude-code")
    assert not anthropic_usage(None, None, "hermes-agent")


# --- policies, stash placement and the report -----------------------------------------------------


def test_missing_required_values_are_synthesized_and_reported() -> None:
    doc = {"trace_id": "t", "session_id": "s", "agent": {"name": "a", "version": None}}
    out, report = convert(doc, to="atif@v1.7")
    assert out["agent"]["version"] == "unknown"
    assert out["steps"] == [{"step_id": 1, "source": "system", "message": ""}]
    decided = {i.pointer: i.value for i in report.decided}
    assert decided == {"/agent/version": "unknown", "/steps/0": out["steps"][0]}
    with pytest.raises(ConversionError) as caught:
        convert(doc, to="atif@v1.7", fail_on_decision=True)
    assert caught.value.report.errors[0].code == "convert:needs-decision"
    assert convert(out, to="tao@v0.2.0")[0] == doc


def test_atif_without_ids_gets_a_deterministic_trace_id() -> None:
    doc = {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "a", "version": "1"},
        "steps": [{"step_id": 1, "source": "user", "message": "hi"}],
    }
    first, report = convert(doc, to="tao@v0.2.0")
    second, _ = convert(doc, to="tao@v0.2.0")
    assert first["trace_id"] == second["trace_id"]
    assert first["session_id"] == first["trace_id"]
    assert {i.pointer for i in report.decided} == {"/trace_id", "/session_id"}
    assert not errors(first)
    assert convert(first, to="atif@v1.7")[0] == doc


def test_atif_only_fields_go_to_named_keys_of_the_tao_metadata() -> None:
    """Notes, an agent's ``extra`` and ``llm_call_count`` have no TAO field: they go to named
    keys of ``metadata`` (a partial ATIF trajectory and step), not to the stash; key order is
    not data (RFC.md §4.6), so a producer's own order costs nothing."""
    doc = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "a", "version": "1", "extra": {"k": 1}},
        "steps": [
            {
                "step_id": 1,
                "source": "agent",
                "message": "m",
                "observation": {"results": [{"content": "orphan"}]},
                "llm_call_count": 2,
            }
        ],
        "notes": "n",
    }
    out, report = convert(doc, to="tao@v0.2.0")
    metadata = out["metadata"]
    assert metadata["atif_trajectory"] == {"agent": {"extra": {"k": 1}}, "notes": "n"}
    assert metadata["atif_step_fields"] == {"0": {"llm_call_count": 2}}
    layer = _layer(out, "metadata")
    assert _owns(layer, "/metadata/atif_step_fields/0/llm_call_count")
    assert _owns(layer, "/metadata/atif_trajectory/notes")
    assert _owns(layer, "/metadata/atif_trajectory/agent/extra")
    # the unlinked result's call id, which ATIF → TAO → ATIF writes as null
    assert [(op["op"], op["path"]) for op in layer["patch"]] == [
        ("test", "/steps/0/observation/results/0/source_call_id"),
        ("remove", "/steps/0/observation/results/0/source_call_id"),
    ]
    assert out["steps"][0]["observations"] == [
        {"source_call_id": "", "content": "orphan", "error": "unlinked_response"}
    ]
    assert {i.pointer for i in report.named} == {
        "/notes",
        "/agent/extra",
        "/steps/0/llm_call_count",
    }
    assert not errors(out)
    assert convert(out, to="atif@v1.7")[0] == doc
    # in another key order: the same stash
    moved = {k: doc[k] for k in ("schema_version", "session_id", "agent", "notes", "steps")}
    again, _ = convert(moved, to="tao@v0.2.0")
    assert again["metadata"][STASH_KEY] == metadata[STASH_KEY]
    assert same_json(convert(again, to="atif@v1.7")[0], moved)


def test_system_step_fields_go_to_a_named_key_of_the_tao_metadata() -> None:
    """A system step becomes a prompt; its timestamp, a context injection's observation and
    its ``extra`` go to ``metadata.atif_system_steps`` under the prompt's key."""
    doc = _load(CONFORMANCE / "atif" / "v1.7" / "valid" / "context-management-known-values.json")
    out = round_trip(doc, "tao@v0.2.0", "atif@v1.7")
    system = out["metadata"]["atif_system_steps"]
    injected = doc["steps"][2]
    assert injected["source"] == "system"
    key = prompt_key(injected["message"])
    assert out["system_prompts"][key] == injected["message"]
    assert system[key] == {
        "timestamp": injected["timestamp"],
        "observation": injected["observation"],
        "extra": injected["extra"],
    }
    layer = _layer(out, "metadata")
    assert _owns(layer, f"/metadata/atif_system_steps/{key}")
    assert not [op for op in layer.get("patch", []) if op["path"].startswith("/steps")]


def test_step_extra_and_token_ids_go_to_the_step_fields_of_the_tao_metadata() -> None:
    """A step's own ``extra`` and its metrics' token ids and log probabilities (what a trainer
    reads) go to ``metadata.atif_step_fields`` as a partial ATIF step; the named keys that TAO
    → ATIF wrote in an ``extra`` go back to their TAO members instead."""
    doc = _load(CONFORMANCE / "atif" / "v1.7" / "valid" / "rich.json")
    out = round_trip(doc, "tao@v0.2.0", "atif@v1.7")
    fields = out["metadata"]["atif_step_fields"]
    agent = doc["steps"][2]
    index = next(str(s["step_index"]) for s in out["steps"] if s.get("content") == agent["message"])
    metrics = agent["metrics"]
    assert fields[index]["extra"] == agent["extra"]
    own = {k: v for k, v in metrics["extra"].items() if k != "cache_creation_input_tokens"}
    assert own == {"reasoning_tokens": 3}
    assert fields[index]["metrics"] == {
        **{k: metrics[k] for k in ("prompt_token_ids", "completion_token_ids", "logprobs")},
        "extra": own,
    }
    # the totals rich.json states without its verifier sub-agent (its notes say so)
    stated = out["metadata"]["atif_trajectory"]["final_metrics"]
    assert stated["total_prompt_tokens"] == doc["final_metrics"]["total_prompt_tokens"]
    assert "total_steps" not in stated  # the number of main steps, as TAO → ATIF computes it
    assert out["metadata"]["atif_trajectory"]["notes"] == doc["notes"]
    record = _load(SESSION)
    converted, _ = convert(record, to="atif@v1.7")
    back, _ = convert(converted, to="tao@v0.2.0")
    assert "atif_step_fields" not in back.get("metadata", {})  # tao_ keys are not ATIF's own


def test_content_parts_go_to_the_step_fields_of_the_tao_metadata() -> None:
    """TAO content is text: a message's or a result's content parts (images) go to
    ``metadata.atif_step_fields`` as a partial ATIF step, results aligned with TAO's
    observations; they are read back only while the TAO text is still theirs."""
    doc = _load(CONFORMANCE / "atif" / "v1.7" / "valid" / "multimodal.json")
    out = round_trip(doc, "tao@v0.2.0", "atif@v1.7")
    fields = out["metadata"]["atif_step_fields"]
    user, looked = doc["steps"][1], doc["steps"][3]
    assert fields["0"]["message"] == user["message"]
    parts = looked["observation"]["results"][0]["content"]
    assert fields["2"]["observation"] == {"results": [{"content": parts}]}
    assert "patch" not in _layer(out, "metadata")
    edited = copy.deepcopy(out)
    edited["steps"][0]["content"] = "another text"
    back, _ = convert(edited, to="atif@v1.7")
    assert back["steps"][1]["message"] == "another text"  # the parts are not someone else's


def test_references_beyond_the_embedded_subagent_go_to_the_step_fields() -> None:
    """TAO's ``subagent_trajectory_ref`` names the one sub-agent whose steps are inlined; a
    result's other references (a file path) go to ``metadata.atif_step_fields`` whole, and the
    way back writes no second reference for the inlined one."""
    doc = _load(CONFORMANCE / "atif" / "v1.7" / "valid" / "ref-id-with-path-not-embedded.json")
    result = doc["steps"][2]["observation"]["results"][0]
    out = round_trip(doc, "tao@v0.2.0", "atif@v1.7")
    (launching,) = [s for s in out["steps"] if s.get("subagent_trajectory_ref")]
    assert launching["subagent_trajectory_ref"] == "explore-1"
    partial = out["metadata"]["atif_step_fields"][str(launching["step_index"])]
    assert partial == {
        "observation": {"results": [{"subagent_trajectory_ref": result["subagent_trajectory_ref"]}]}
    }
    assert "patch" not in _layer(out, "metadata")
    plain = _load(CONFORMANCE / "atif" / "v1.7" / "valid" / "embedded-subagent.json")
    converted, _ = convert(plain, to="tao@v0.2.0")
    assert "atif_step_fields" not in converted["metadata"]  # a plain reference is TAO's own


def test_a_tao_producers_own_trajectory_key_is_never_read_back() -> None:
    record = _record({"input_tokens": 1}, None)
    record["metadata"] = {"atif_trajectory": {"notes": "mine"}, "atif_system_steps": {"x": {}}}
    out = round_trip(record, "atif@v1.7", "tao@v0.2.0")
    assert "notes" not in out
    assert out["extra"]["tao_metadata"] == record["metadata"]


def test_drop_writes_no_stash_and_reports_what_was_dropped() -> None:
    doc = _load(SESSION)
    out, report = convert(doc, to="atif@v1.7", drop=True)
    assert STASH_KEY.encode() not in orjson.dumps(out)
    assert not report.stashed
    assert "/content_hash" in {i.pointer for i in report.dropped}
    assert "/outcome" in {i.pointer for i in report.named}  # carried, not lost
    assert not errors(out)
    convert(doc, to="atif@v1.7", fail_on_loss=True)  # its own hash is recomputed: no loss
    doc["content_hash"] = "0" * 64  # a hash that is not its own is only in the stash
    with pytest.raises(ConversionError) as caught:
        convert(doc, to="atif@v1.7", fail_on_loss=True)
    assert caught.value.report.errors[0].code == "convert:would-lose-data"


def test_observation_on_the_wrong_step_is_unlinked_in_atif() -> None:
    doc = _load(CONFORMANCE / "tao" / "v0.2.0" / "valid" / "runtime-episode.json")
    out, _ = convert(doc, to="atif@v1.7")
    results = out["steps"][2]["observation"]["results"]
    assert results[1]["source_call_id"] is None
    # "unlinked_response" is what comes back
    assert "/error" not in _removed(out, "/steps/1/observations/1")
    # the call it answers (on another step) is a named key of the result, read back
    assert results[1]["extra"]["tao_source_call_id"] == "tc_0_9"
    assert _stash(out, "/steps/1/observations/1") == []
    back, _ = convert(out, to="tao@v0.2.0")
    assert same_json(back, doc)


def test_interleaved_subagent_steps_become_embedded_subagents() -> None:
    """A sub-agent step between main steps (a chronological record, not the parser's order) is
    split out all the same; the stash restores the record's order exactly."""
    doc = _record({}, None)
    doc["steps"] = [
        {"step_index": 0, "role": "agent", "content": "launch", "call_type": "main"},
        {
            "step_index": 1,
            "role": "agent",
            "content": "sub",
            "call_type": "subagent",
            "parent_step": 0,
        },
        {"step_index": 2, "role": "agent", "content": "main again", "call_type": "main"},
    ]
    out = round_trip(doc, "atif@v1.7", "tao@v0.2.0")
    assert [s["message"] for s in out["steps"]] == ["launch", "main again"]
    (sub,) = out["subagent_trajectories"]
    assert [s["message"] for s in sub["steps"]] == ["sub"]
    ref = out["steps"][0]["observation"]["results"][0]["subagent_trajectory_ref"]
    assert ref == [{"trajectory_id": sub["trajectory_id"]}]
    # the named step indexes give the record's order back: no whole step in the stash, and
    # the id decided for the sub-agent (the record has none) is not written back (D27)
    assert [e["pointer"] for e in _stash(out) if e["pointer"].count("/") == 2] == []
    assert [e for e in _stash(out, "/steps/0") if "subagent_trajectory_ref" in e["pointer"]] == []


def test_interleaved_fixture_keeps_no_step_in_the_stash() -> None:
    doc = _load(CONFORMANCE / "tao" / "v0.2.0" / "valid" / "interleaved-subagents.json")
    out = round_trip(doc, "atif@v1.7", "tao@v0.2.0")
    assert [e for e in _stash(out) if e["pointer"].count("/") == 2] == []


def test_interleaved_nested_subagents_nest_in_atif() -> None:
    """Chronological order with a sub-agent of a sub-agent: both levels are embedded."""
    doc = _record({}, None)
    doc["steps"] = [
        {"step_index": 0, "role": "agent", "content": "main", "call_type": "main"},
        {
            "step_index": 1,
            "role": "agent",
            "content": "a",
            "call_type": "subagent",
            "parent_step": 0,
            "subagent_trajectory_ref": "inner",
        },
        {
            "step_index": 2,
            "role": "agent",
            "content": "b",
            "call_type": "subagent",
            "parent_step": 1,
        },
        {"step_index": 3, "role": "agent", "content": "main 2", "call_type": "main"},
        {
            "step_index": 4,
            "role": "agent",
            "content": "a2",
            "call_type": "subagent",
            "parent_step": 0,
        },
    ]
    out = round_trip(doc, "atif@v1.7", "tao@v0.2.0")
    assert [s["message"] for s in out["steps"]] == ["main", "main 2"]
    (outer,) = out["subagent_trajectories"]
    assert [s["message"] for s in outer["steps"]] == ["a", "a2"]
    (inner,) = outer["subagent_trajectories"]
    assert inner["trajectory_id"] == "inner"
    assert [s["message"] for s in inner["steps"]] == ["b"]


def test_parser_order_needs_no_stash_for_the_order() -> None:
    """In the parser's order (sub-agent steps just before the launching step, parent_step
    pointing forward) the sub-agent is embedded and ATIF -> TAO writes that order itself."""
    doc = _record({}, None)
    doc["steps"] = [
        {"step_index": 0, "role": "user", "content": "go"},
        {
            "step_index": 1,
            "role": "agent",
            "content": "s1",
            "call_type": "subagent",
            "parent_step": 3,
        },
        {
            "step_index": 2,
            "role": "agent",
            "content": "s2",
            "call_type": "subagent",
            "parent_step": 3,
        },
        {
            "step_index": 3,
            "role": "agent",
            "content": "launch",
            "call_type": "main",
            "subagent_trajectory_ref": "agent-1",
        },
    ]
    out = round_trip(doc, "atif@v1.7", "tao@v0.2.0")
    (sub,) = out["subagent_trajectories"]
    assert sub["trajectory_id"] == "agent-1"
    assert [s["message"] for s in sub["steps"]] == ["s1", "s2"]
    back, _ = convert(out, to="tao@v0.2.0")
    assert [s["content"] for s in back["steps"]] == ["go", "s1", "s2", "launch"]
    assert [s.get("parent_step") for s in back["steps"]] == [None, 3, 3, None]


def test_nested_subagents_nest_in_atif() -> None:
    """The parser's order, nested: the inner sub-agent's step comes before the sub-agent step
    that launched it, which comes before the main step that launched the outer one."""
    doc = _record({}, None)
    doc["steps"] = [
        {
            "step_index": 0,
            "role": "agent",
            "content": "b",
            "call_type": "subagent",
            "parent_step": 1,
        },
        {
            "step_index": 1,
            "role": "agent",
            "content": "a",
            "call_type": "subagent",
            "parent_step": 2,
        },
        {"step_index": 2, "role": "agent", "content": "root", "subagent_trajectory_ref": "s1"},
    ]
    out = round_trip(doc, "atif@v1.7", "tao@v0.2.0")
    assert [s["message"] for s in out["steps"]] == ["root"]
    (sub,) = out["subagent_trajectories"]
    assert sub["trajectory_id"] == "s1"
    assert [s["message"] for s in sub["steps"]] == ["a"]
    (inner,) = sub["subagent_trajectories"]
    assert inner["trajectory_id"] == "subagent@step-1"
    assert inner["steps"][0]["message"] == "b"


def test_tao_system_role_step_stays_a_step() -> None:
    doc = _record({}, None)
    doc["system_prompts"] = {prompt_key("p"): "p"}
    doc["steps"] = [
        {"step_index": 0, "role": "system", "content": "a system message"},
        {"step_index": 1, "role": "agent", "content": "x", "system_prompt_hash": prompt_key("p")},
    ]
    out = round_trip(doc, "atif@v1.7", "tao@v0.2.0")
    assert [s["source"] for s in out["steps"]] == ["system", "system", "agent"]
    # the named index tells the way back it was a TAO step, not a prompt (D29)
    assert out["steps"][1]["extra"]["tao_step_index"] == 0
    assert [e for e in _stash(out) if e["pointer"].endswith("/system_prompt_hash")] == []
    assert [e for e in _stash(out) if e["pointer"].count("/") == 2] == []


def test_a_prompt_key_of_another_producer_is_named_on_its_system_step() -> None:
    doc = _load(CONFORMANCE / "tao" / "v0.2.0" / "valid" / "runtime-episode.json")
    out = round_trip(doc, "atif@v1.7", "tao@v0.2.0")
    (key,) = doc["system_prompts"]
    assert key != prompt_key(doc["system_prompts"][key])
    assert out["steps"][0]["extra"]["tao_system_prompt_hash"] == key  # D28
    assert _stash(out, "/system_prompts") == []
    assert [e for e in _stash(out) if e["pointer"].endswith("/system_prompt_hash")] == []


def test_atif_to_tao_leaves_out_what_the_parser_does_not_write() -> None:
    """D26: no "unknown" version, null content of an empty agent message, no empty steps,
    no totals over no count."""
    atif = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "a", "version": "unknown"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "hi"},
            {"step_id": 2, "source": "agent", "message": ""},
        ],
        "final_metrics": {"total_steps": 2},
    }
    tao = round_trip(atif, "tao@v0.2.0", "atif@v1.7")
    assert "version" not in tao["agent"]
    assert tao["steps"][1]["content"] is None
    assert tao["metrics"] == {"total_steps": 2}
    doc = _load(CONFORMANCE / "tao" / "v0.2.0" / "valid" / "minimal.json")
    out = round_trip(doc, "atif@v1.7", "tao@v0.2.0")
    assert out["agent"]["version"] == "unknown"
    assert _stash(out) == []


def test_invalid_source_is_refused() -> None:
    doc = {"trace_id": "t", "session_id": "s", "agent": {"name": "a"}, "steps": [{"role": "x"}]}
    with pytest.raises(ConversionError) as caught:
        convert(doc, to="atif@v1.7")
    (error,) = caught.value.report.errors
    assert error.code == "convert:invalid-source"
    assert "schema:" in error.message  # the first schema finding, where it is
    assert error.pointer.startswith("/steps/0")


def test_v0_1_0_records_come_back_as_v0_1_0() -> None:
    doc = _load(CONFORMANCE / "tao" / "v0.1.0" / "valid" / "devtime-session.json")
    out, report = convert(doc, to="atif@v1.7")
    assert report.from_ == "tao@v0.1.0"
    back, _ = convert(out, to="tao@v0.2.0")
    assert back["schema_version"] == "0.1.0"
    assert same_json(back, doc)


# --- properties -----------------------------------------------------------------------------------

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SMALL = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])

counts = st.integers(min_value=-5, max_value=2**40) | st.integers(0, 100).map(float)
ids = st.text(alphabet="abcdefghijk0123456789_-", min_size=1, max_size=6)
MODELS = ["anthropic/claude-sonnet-4-20250514", "openai/gpt-4o", "claude-3-opus", "local-model"]
UNKNOWN_KEYS = ["x_note", "extra", "tier"]


@st.composite
def tao_steps(
    draw: Any, index: int, earlier: list[int], prompts: list[str], roles: list[str]
) -> dict[str, Any]:
    step: dict[str, Any] = {"step_index": index, "role": draw(st.sampled_from(roles))}
    put(draw, step, "content", text)
    put(draw, step, "reasoning_content", text)
    put(draw, step, "model", st.sampled_from(MODELS))
    if prompts:
        put(draw, step, "system_prompt_hash", st.sampled_from(prompts))
    put(draw, step, "agent_role", st.sampled_from(["main", "explore", "plan"]))
    if earlier and draw(st.booleans()):
        step["parent_step"] = draw(st.sampled_from(earlier))
        step["call_type"] = draw(st.sampled_from(["subagent", "subagent", "main"]))
    else:
        put(draw, step, "call_type", st.sampled_from(["main", "warmup", "subagent"]))
    put(draw, step, "subagent_trajectory_ref", ids)
    put(draw, step, "tools_available", st.lists(text, max_size=2), nullable=False)
    calls = []
    for k in range(draw(st.integers(0, 2))):
        call: dict[str, Any] = {"tool_call_id": f"c{index}_{k}", "tool_name": draw(text)}
        put(draw, call, "input", free_objects, nullable=False)
        put(draw, call, "duration_ms", counts)
        calls.append(shuffled(draw, call))
    if calls or draw(st.booleans()):
        step["tool_calls"] = calls
    observations = []
    for _ in range(draw(st.integers(0, 2))):
        linked = calls and draw(st.booleans())
        obs: dict[str, Any] = {
            "source_call_id": draw(st.sampled_from([c["tool_call_id"] for c in calls]))
            if linked
            else draw(ids)
        }
        put(draw, obs, "content", text)
        put(draw, obs, "output_summary", text)
        if linked:
            put(draw, obs, "error", st.sampled_from(["tool_error", "exit_code:1", "no_result"]))
        else:
            obs["error"] = "unlinked_response"
        observations.append(shuffled(draw, obs))
    put(draw, step, "observations", st.just(observations), nullable=False)
    if draw(st.booleans()):
        step["snippets"] = [{"file_path": draw(text), "start_line": draw(counts | st.none())}]
    if draw(st.booleans()):
        usage: dict[str, Any] = {}
        for key in (
            "input_tokens",
            "output_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "prefix_reuse_tokens",
        ):
            put(draw, usage, key, counts, nullable=False)
        step["token_usage"] = shuffled(draw, usage)
    put(draw, step, "timestamp", timestamps | st.just("ISO8601"))
    if draw(st.integers(0, 5)) == 0:
        step[draw(st.sampled_from(UNKNOWN_KEYS))] = draw(free_objects)
    return shuffled(draw, step) if draw(st.integers(0, 4)) == 0 else step


@st.composite
def tao_records(draw: Any, version: str = "v0.2.0") -> dict[str, Any]:
    """A TAO record that passes its version's schema and the error-level rules."""
    doc: dict[str, Any] = {}
    if version == "v0.1.0":
        doc["schema_version"] = draw(st.sampled_from(["0.1.0", "0.1.1"]))
    else:
        put(draw, doc, "schema_version", st.just("0.2.0"), nullable=False)
    doc["trace_id"] = draw(text)
    doc["session_id"] = draw(text)
    put(draw, doc, "timestamp_start", timestamps)
    if version == "v0.2.0":
        put(draw, doc, "execution_context", st.sampled_from(["devtime", "runtime"]))
    if draw(st.booleans()):
        doc["task"] = {"description": draw(text | st.none()), "repository": "o/r"}
    agent: dict[str, Any] = {"name": draw(st.sampled_from(["claude-code", "codex-cli", "x"]))}
    put(draw, agent, "version", text)
    put(draw, agent, "model", st.sampled_from(MODELS))
    doc["agent"] = shuffled(draw, agent)
    prompts = draw(st.dictionaries(ids, text, max_size=3))
    if prompts or draw(st.booleans()):
        doc["system_prompts"] = prompts
    put(draw, doc, "tool_definitions", st.lists(free_objects, max_size=2), nullable=False)
    roles = draw(st.sampled_from([["agent"], ["user", "agent"], ["system", "user", "agent"]]))
    steps: list[dict[str, Any]] = []
    index = draw(st.integers(0, 3))
    for _ in range(draw(st.integers(0, 6))):
        earlier = [s["step_index"] for s in steps]
        steps.append(draw(tao_steps(index, earlier, list(prompts), roles)))
        index += draw(st.sampled_from([1, 1, 1, 2, 0, -1]))
    if steps or draw(st.booleans()):
        doc["steps"] = steps
    if draw(st.booleans()):
        outcome: dict[str, Any] = {"success": draw(st.booleans() | st.none())}
        if version == "v0.2.0":
            put(draw, outcome, "reward", st.floats(-1, 1) | st.none())
            put(draw, outcome, "terminal_state", st.sampled_from(["goal_reached", "error"]))
        doc["outcome"] = outcome
    if draw(st.booleans()):
        metrics: dict[str, Any] = {}
        for key in ("total_steps", "total_input_tokens", "total_output_tokens"):
            put(draw, metrics, key, st.integers(0, 50), nullable=False)
        put(draw, metrics, "estimated_cost_usd", st.floats(0, 10))
        doc["metrics"] = metrics
    put(draw, doc, "metadata", free_objects, nullable=False)
    if draw(st.integers(0, 3)) == 0:
        doc["x_custom"] = draw(free_objects)
    doc = shuffled(draw, doc) if draw(st.integers(0, 4)) == 0 else doc
    if draw(st.booleans()):
        doc["content_hash"] = content_hash(doc, version)
    return doc


@pytest.mark.parametrize("version", ["v0.1.0", "v0.2.0"])
@SETTINGS
@given(data=st.data())
def test_tao_round_trip_is_identity_and_atif_is_valid(version: str, data: st.DataObject) -> None:
    doc = data.draw(tao_records(version))
    assert not errors(doc)
    round_trip(doc, "atif@v1.7", "tao@v0.2.0")


@pytest.mark.parametrize("version", VERSIONS)
@SMALL
@given(data=st.data())
def test_atif_round_trip_is_identity_and_tao_is_valid(version: str, data: st.DataObject) -> None:
    doc = data.draw(atif_trajectories(version))
    assert not errors(doc)
    round_trip(doc, "tao@v0.2.0", f"atif@{version}")


def _sub(tid: str, agent: dict[str, Any], *steps: Any, **more: Any) -> dict[str, Any]:
    """An embedded subagent whose steps are numbered from 1."""
    numbered = [{"step_id": i, **step} for i, step in enumerate(steps, 1)]
    sub = {"schema_version": "ATIF-v1.7", "trajectory_id": tid, "agent": agent}
    return {**sub, "steps": numbered, **more}


def _launch(tid: str, source: str = "user") -> dict[str, Any]:
    ref = {"subagent_trajectory_ref": [{"trajectory_id": tid}]}
    return {"source": source, "message": "", "observation": {"results": [ref]}}


# The same id at two depths: one named agent stands for both, and the stash must not edit it in
# place for one of them (here it adds the shallower one's `extra: null`).
REUSED_ID = {
    "schema_version": "ATIF-v1.7",
    "agent": {"name": "x", "version": "1"},
    "steps": [{"step_id": 1, **_launch("a")}],
    "subagent_trajectories": [
        _sub(
            "a",
            {"name": "z", "version": "1", "extra": None},
            _launch("a", "agent"),
            subagent_trajectories=[
                _sub("a", {"name": "z", "version": "1"}, {"source": "agent", "message": "deep"})
            ],
        )
    ],
}
# A subagent no step launches, before one whose agent is named: the stash turns the first
# subagent rebuilt (the launched one) into the unlaunched one, editing its agent.
UNLAUNCHED_FIRST = {
    "schema_version": "ATIF-v1.7",
    "agent": {"name": "x", "version": "1"},
    "steps": [{"step_id": 1, **_launch("b")}],
    "subagent_trajectories": [
        _sub("a", {"name": "x", "version": "1"}, {"source": "user", "message": ""}),
        _sub(
            "b",
            {"name": "z", "version": "1"},
            {"source": "user", "message": "", "observation": {"results": [{}]}},
        ),
    ],
}


@SETTINGS
@given(doc=atif_trajectories("v1.7"))
@example(doc=REUSED_ID)
@example(doc=UNLAUNCHED_FIRST)
def test_atif_v1_7_round_trip_property(doc: dict[str, Any]) -> None:
    round_trip(doc, "tao@v0.2.0", "atif@v1.7")


SUB_IDS = ("a", "b")


def _extra(draw: Any, obj: dict[str, Any]) -> None:
    """``obj["extra"]`` absent, null, empty or set."""
    choice = draw(st.sampled_from(("absent", "null", "empty", "value")))
    if choice == "null":
        obj["extra"] = None
    elif choice == "empty":
        obj["extra"] = {}
    elif choice == "value":
        obj["extra"] = draw(free_objects)


@st.composite
def reused_id_trajectories(
    draw: Any, depth: int = 3, root_agent: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A v1.7 trajectory whose embedded subagents (down to ``depth``) take their ids from
    :data:`SUB_IDS`, so that one id recurs at several depths (the root's too), each with the
    root's agent (its ``extra`` null, absent or empty) or one of its own."""
    doc: dict[str, Any] = {"schema_version": "ATIF-v1.7"}
    put(draw, doc, "session_id", st.sampled_from(["s", ""]))
    if root_agent is not None:
        doc["trajectory_id"] = "placeholder"  # the caller's id
    else:
        put(draw, doc, "trajectory_id", st.sampled_from(SUB_IDS) | nonempty)
    if root_agent is not None and draw(st.booleans()):
        agent = {k: v for k, v in root_agent.items() if k not in ("tool_definitions", "extra")}
        choice = draw(st.sampled_from(("same", "absent", "null", "empty")))
        if choice == "same" and "extra" in root_agent:
            agent["extra"] = root_agent["extra"]
        elif choice in ("null", "empty"):
            agent["extra"] = None if choice == "null" else {}
    else:
        agent = {"name": draw(st.sampled_from("xy")), "version": draw(st.sampled_from("12"))}
        put(draw, agent, "model_name", st.sampled_from(["m", "n"]))
        put(draw, agent, "tool_definitions", st.lists(free_objects, max_size=1))
        _extra(draw, agent)
    doc["agent"] = shuffled(draw, agent)
    subs = []
    if depth > 0 and draw(st.integers(0, 2)) > 0:
        for tid in draw(st.lists(st.sampled_from(SUB_IDS), min_size=1, max_size=2, unique=True)):
            sub = draw(reused_id_trajectories(depth - 1, root_agent or agent))
            sub["trajectory_id"] = tid
            subs.append(sub)
    ids = [s["trajectory_id"] for s in subs]
    count = draw(st.integers(1, 3))
    doc["steps"] = [draw(atif_steps("v1.7", i, ids)) for i in range(1, count + 1)]
    _extra(draw, doc)
    if subs:
        doc["subagent_trajectories"] = subs
    else:
        put(draw, doc, "subagent_trajectories", st.just([]))
    return shuffled(draw, doc)


@SETTINGS
@given(doc=reused_id_trajectories())
def test_atif_round_trip_with_subagent_ids_reused_across_depths(doc: dict[str, Any]) -> None:
    assert not errors(doc)
    round_trip(doc, "tao@v0.2.0", "atif@v1.7")


@SMALL
@given(doc=tao_records())
def test_drop_outputs_are_valid_without_stash(doc: dict[str, Any]) -> None:
    out, report = convert(doc, to="atif@v1.7", drop=True)
    assert not errors(out)
    assert STASH_KEY.encode() not in orjson.dumps(out)
    assert not report.stashed


@SMALL
@given(doc=atif_trajectories("v1.7"), nonce=nonempty)
def test_atif_drop_outputs_are_valid(doc: dict[str, Any], nonce: str) -> None:
    out, _ = convert(doc, to="tao@v0.2.0", drop=True)
    assert not errors(out)
    assert "metadata" not in out or STASH_KEY not in out["metadata"]


def test_one_api_call_logged_as_several_steps_counts_once() -> None:
    """The Claude Code parser writes one step per content block, each with the response's usage:
    adjacent agent steps with the same model and equal usage are one call, counted once."""
    from atif_spec.formats.totals import trajectory_totals

    usage = {"input_tokens": 10, "output_tokens": 40, "cache_read_tokens": 500}
    doc = _record({}, None)
    doc["steps"] = [
        {"step_index": 0, "role": "user", "content": "go"},
        {"step_index": 1, "role": "agent", "reasoning_content": "think", "token_usage": usage},
        {"step_index": 2, "role": "agent", "content": "answer", "token_usage": dict(usage)},
        {
            "step_index": 3,
            "role": "agent",
            "content": "next call",
            "token_usage": usage | {"output_tokens": 7},
        },
    ]
    out = round_trip(doc, "atif@v1.7", "tao@v0.2.0")
    assert ["metrics" in s for s in out["steps"]] == [False, True, False, True]
    totals = trajectory_totals(out)
    assert totals.completion_tokens == 47
    codes = {f.code for f in validate(out, check_files=False).findings}
    assert "ATIF306" not in codes


# --- ATIF → TAO named keys of the record's metadata ----------------------------------------------


def _costly() -> dict[str, Any]:
    """An ATIF trajectory whose agent steps have a cost (TAO has no field for it)."""
    return {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "a", "version": "1"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "go"},
            {
                "step_id": 2,
                "source": "agent",
                "message": "m",
                "metrics": {"prompt_tokens": 5, "cost_usd": 0.25},
            },
            {
                "step_id": 3,
                "source": "agent",
                "message": "n",
                "metrics": {"prompt_tokens": 7, "completion_tokens": 1, "cost_usd": 0.5},
            },
        ],
    }


def test_step_costs_go_to_a_named_key_of_the_tao_metadata() -> None:
    doc = _costly()
    out = round_trip(doc, "tao@v0.2.0", "atif@v1.7")
    assert out["metadata"]["atif_step_cost_usd"] == {"1": 0.25, "2": 0.5}
    layer = _layer(out, "metadata")
    assert _owns(layer, "/metadata/atif_step_cost_usd/1")
    assert _owns(layer, "/metadata/atif_step_cost_usd/2")
    assert not [op for op in layer.get("patch", []) if "cost_usd" in op["path"]]
    # the derived trace_id is recomputed on the way back: nothing stashed for it
    assert not [op for op in layer.get("patch", []) if op["path"] == "/trajectory_id"]
    back, _ = convert(out, to="atif@v1.7")
    assert back["steps"][1]["metrics"]["cost_usd"] == 0.25
    assert "trajectory_id" not in back


def test_a_tao_producers_own_cost_key_is_never_read_back() -> None:
    """A TAO record's own ``metadata.atif_step_cost_usd`` (no declaration of ATIF → TAO) stays
    in the record's metadata and never becomes step costs; an ATIF cost added later collides
    with it: it is kept in the stash, and converting back gives it back."""
    record = _record({"input_tokens": 1}, None)
    record["metadata"] = {"atif_step_cost_usd": {"0": 9.0}}
    out = round_trip(record, "atif@v1.7", "tao@v0.2.0")
    assert "cost_usd" not in out["steps"][0]["metrics"]
    assert out["extra"]["tao_metadata"] == {"atif_step_cost_usd": {"0": 9.0}}
    edited = copy.deepcopy(out)
    edited["steps"][0]["metrics"]["cost_usd"] = 0.5
    tao, report = convert(edited, to="tao@v0.2.0")
    assert tao["metadata"]["atif_step_cost_usd"] == {"0": 9.0}  # the producer's value
    assert "/steps/0/metrics/cost_usd" in {i.pointer for i in report.stashed}
    again, _ = convert(tao, to="atif@v1.7")
    assert again["steps"][0]["metrics"]["cost_usd"] == 0.5


def test_a_step_numbered_otherwise_keeps_its_index_under_a_named_key() -> None:
    """``parent_step`` names TAO step indexes: a record numbered from 1 keeps each index under
    ``extra.tao_step_index`` (declared, not stashed); one numbered from 0 writes none."""
    doc = _load(CONFORMANCE / "tao" / "v0.2.0" / "valid" / "outcome-error.json")
    out = round_trip(doc, "atif@v1.7", "tao@v0.2.0")
    indexes = [s.get("extra", {}).get("tao_step_index") for s in out["steps"]]
    assert indexes == [s["step_index"] for s in doc["steps"]] == [1, 2, 3]
    layer = _layer(out)
    assert _owns(layer, "/steps/0/extra/tao_step_index")
    assert not [op for op in layer.get("patch", []) if op["path"].endswith("/step_index")]
    session = _load(SESSION)
    assert session["steps"][0]["step_index"] == 0
    converted, _ = convert(session, to="atif@v1.7")
    assert "tao_step_index" not in orjson.dumps(converted).decode()


def test_a_subagents_own_agent_goes_to_a_named_key_of_the_tao_metadata() -> None:
    doc = _load(CONFORMANCE / "atif" / "v1.7" / "valid" / "embedded-subagent.json")
    sub = doc["subagent_trajectories"][0]
    assert sub["agent"]["name"] != doc["agent"]["name"]
    out = round_trip(doc, "tao@v0.2.0", "atif@v1.7")
    assert out["metadata"]["atif_subagent_agents"] == {sub["trajectory_id"]: sub["agent"]}
    layer = _layer(out, "metadata")
    assert _owns(layer, f"/metadata/atif_subagent_agents/{sub['trajectory_id']}")
    assert not [
        op for op in layer.get("patch", []) if op["path"].startswith("/subagent_trajectories")
    ]


def test_context_only_steps_stay_readable_in_the_tao_metadata() -> None:
    """``is_copied_context`` and ``llm_call_count`` decide training: TAO has no field for them,
    so they go to the named key ``metadata.atif_step_fields``, by TAO ``step_index``."""
    doc = _costly()
    doc["steps"][1]["is_copied_context"] = True
    doc["steps"][2] = {  # in ATIF's field order; no metrics with llm_call_count 0
        "step_id": 3,
        "source": "agent",
        "reasoning_effort": "high",
        "message": "n",
        "llm_call_count": 0,
    }
    out = round_trip(doc, "tao@v0.2.0", "atif@v1.7")
    assert out["metadata"]["atif_step_fields"] == {
        "1": {"is_copied_context": True},
        "2": {"reasoning_effort": "high", "llm_call_count": 0},
    }
    layer = _layer(out, "metadata")
    assert _owns(layer, "/metadata/atif_step_fields/2/llm_call_count")
    assert not [op for op in layer.get("patch", []) if op["path"].startswith("/steps")]


def test_named_metadata_keys_are_reported_per_member() -> None:
    _, report = convert(_costly(), to="tao@v0.2.0")
    named = {i.pointer: i.to for i in report.named}
    assert named == {
        "/steps/1/metrics/cost_usd": "/metadata/atif_step_cost_usd/1",
        "/steps/2/metrics/cost_usd": "/metadata/atif_step_cost_usd/2",
    }


def test_a_declared_metadata_key_that_was_edited_away_is_not_read() -> None:
    out, _ = convert(_costly(), to="tao@v0.2.0")
    del out["metadata"]["atif_step_cost_usd"]  # edited after the conversion
    back, _ = convert(out, to="atif@v1.7")
    assert "cost_usd" not in back["steps"][1]["metrics"]
    assert not errors(back)


def test_a_writers_own_style_costs_only_what_it_leaves_out() -> None:
    """A runtime harness that leaves `agent_role` out and writes `call_type` first, on every one
    of 200 steps: the patch removes the `agent_role` the way back writes; the key order is not
    data (RFC.md §4.6) and costs nothing."""
    record = _load(CONFORMANCE / "tao" / "v0.2.0" / "valid" / "runtime-episode.json")
    agent = next(s for s in record["steps"] if s["role"] == "agent")
    steps = [record["steps"][0]]
    for index in range(1, 201):
        step = {**copy.deepcopy(agent), "step_index": index}
        step.pop("agent_role", None)
        steps.append({"call_type": step.pop("call_type"), **step})
    record = {**record, "steps": steps}
    record.pop("metrics", None)
    out = round_trip(record, "atif@v1.7", "tao@v0.2.0")
    ops = {(e["op"], re.sub(r"/\d+/", "/*/", e["pointer"])) for e in _stash(out)}
    assert ops == {("remove", "/steps/*/agent_role")}


OPENTRACES = sorted((CONFORMANCE / "tao" / "v0.2.0" / "valid").glob("opentraces-*.json"))
"""Records written by opentraces 0.2.1 itself (`TraceRecord.to_jsonl_line()`, DECISIONS D32)."""


@pytest.mark.parametrize("path", OPENTRACES, ids=lambda p: p.stem)
def test_a_record_opentraces_wrote_costs_one_layer(path: Path) -> None:
    """Every field spelled out with its default, the hash computed: TAO → ATIF says so once
    (the named key `tao_style`) and its layer needs no patch for the defaults."""
    record = _load(path)
    assert all(len(step) == 16 for step in record["steps"])  # the model's every Step field
    out = round_trip(record, "atif@v1.7", "tao@v0.2.0")
    assert out["extra"]["tao_style"] == "filled"
    layer = _layer(out)
    assert "/extra/tao_style" in layer["wrote"]
    assert "patch" not in layer


def test_the_filled_style_is_the_records_own_form() -> None:
    """Only a record in the form opentraces writes (what `fill` makes of it) is read thin and
    written back filled (D32, D33); a hand-written record that leaves defaults out, or a filled
    one with a field left out, is `hashed` when its hash is its own (D34). Decided once, from
    the record."""
    sparse = _load(SESSION)
    out, _ = convert(sparse, "atif@v1.7")
    assert out["extra"]["tao_style"] == "hashed"
    record = _load(OPENTRACES[0])
    del record["steps"][1]["snippets"]
    record["content_hash"] = content_hash(record, "v0.2.0")
    out = round_trip(record, "atif@v1.7", "tao@v0.2.0")
    assert out["extra"]["tao_style"] == "hashed"
    assert "tao_snippets" not in out["steps"][1].get("extra", {})


def test_an_edited_filled_record_is_hashed_as_written() -> None:
    """ATIF made from a filled record, edited, then converted back: the record is filled, its
    hash covers what it now says (TAO401 holds), and the edit TAO has a named key for is
    there, and read back into ATIF."""
    atif, _ = convert(_load(OPENTRACES[-1]), "atif@v1.7")
    atif["steps"][1].setdefault("extra", {})["reviewer_note"] = "checked"
    atif["steps"][2]["message"] = "An edited answer."
    record, report = convert(atif, "tao@v0.2.0")
    assert record["content_hash"] == content_hash(record, "v0.2.0")
    assert not errors(record)
    assert "An edited answer." in [s["content"] for s in record["steps"]]
    fields = record["metadata"]["atif_step_fields"]
    assert [f["extra"] for f in fields.values()] == [{"reviewer_note": "checked"}]
    assert report.dropped == []
    again, _ = convert(record, "atif@v1.7")
    assert again["steps"][1]["extra"]["reviewer_note"] == "checked"


def _nulls_and_empties(value: Any, ptr: str = "") -> list[str]:
    """Pointers of the ``null`` values, empty lists and empty objects below ``value``."""
    if value is None or value == [] or value == {}:
        return [ptr]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _nulls_and_empties(v, f"{ptr}/{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _nulls_and_empties(v, f"{ptr}/{i}")]
    return []


@pytest.mark.parametrize("path", OPENTRACES, ids=lambda p: p.stem)
def test_a_filled_record_is_read_thin(path: Path) -> None:
    """The ATIF of a record opentraces wrote holds none of its spelled-out defaults (DECISIONS
    D33): no null, no empty list or object outside what ATIF itself requires, and the filled
    style gives every one of them back."""
    record = _load(path)
    out = round_trip(record, "atif@v1.7", "tao@v0.2.0")
    left = [p for p in _nulls_and_empties(out) if not p.endswith("/tool_definitions")]
    assert left == [], left  # agent.tool_definitions: [] is the record's own (empty) list
    assert _nulls_and_empties(record)  # the record has them: `null`s on every step
    thin = len(orjson.dumps(out))
    from atif_spec.formats.tao import unfill

    sparse, _ = unfill(record, "v0.2.0")
    assert len(orjson.dumps(sparse)) < len(orjson.dumps(record))
    assert thin < len(orjson.dumps(record))


def test_the_filled_style_numbers_steps_from_one_as_opentraces_does() -> None:
    """opentraces numbers a record's steps from 1 (`enumerate(steps, 1)`) and gives every step
    a `call_type`; the filled style does too, so no step of its records needs its `step_index`
    or `call_type` named (DECISIONS D33), the sub-agent steps the parser puts before their
    launching step included."""
    for path in OPENTRACES:
        out, _ = convert(_load(path), "atif@v1.7")
        assert b"tao_step_index" not in orjson.dumps(out), path.name
        assert b"tao_call_type" not in orjson.dumps(out), path.name  # user steps' "main" too
    atif, _ = convert(_load(OPENTRACES[0]), "atif@v1.7")
    del atif["extra"][STASH_KEY]  # an ATIF document from elsewhere: the default style, from 0
    record, _ = convert(atif, "tao@v0.2.0")
    assert [s["step_index"] for s in record["steps"]] == list(range(len(record["steps"])))


def test_a_sparse_record_with_its_own_hash_is_hashed_on_the_way_back() -> None:
    """A hand-written record that leaves its defaults out but carries its correct hash gets the
    named key `tao_style: "hashed"` instead of the 64 hex digits in the stash (DECISIONS D34);
    an edited ATIF document goes back with the hash of what it now says; without the layer
    there is no hash (D26)."""
    record = _load(CONFORMANCE / "tao" / "v0.2.0" / "valid" / "minimal-with-hash.json")
    assert record["content_hash"] == content_hash(record, "v0.2.0")
    out = round_trip(record, "atif@v1.7", "tao@v0.2.0")
    assert out["extra"]["tao_style"] == "hashed"
    assert record["content_hash"].encode() not in orjson.dumps(out)
    out["agent"]["name"] = "another-agent"
    edited, _ = convert(out, "tao@v0.2.0")
    assert edited["agent"]["name"] == "another-agent"
    assert edited["content_hash"] == content_hash(edited, "v0.2.0") != record["content_hash"]
    del out["extra"][STASH_KEY]
    plain, _ = convert(out, "tao@v0.2.0")
    assert "content_hash" not in plain


def test_the_hash_covers_what_the_stash_puts_back() -> None:
    """A record whose writer leaves `agent_role` out, with its own hash: its ATIF, edited, goes
    back with the hash of the record as written, after the stash took the `agent_role` out
    that the way back writes (TAO401 holds)."""
    record = _record({}, None)
    record["content_hash"] = content_hash(record, "v0.2.0")
    atif, _ = convert(record, "atif@v1.7")
    assert "/steps/0/agent_role" in [e["pointer"] for e in _stash(atif)]
    atif["agent"]["name"] = "another-agent"
    back, _ = convert(atif, "tao@v0.2.0")
    assert "agent_role" not in back["steps"][0]
    assert back["content_hash"] == content_hash(back, "v0.2.0") != record["content_hash"]
    assert not errors(back)


def test_a_wrong_hash_is_kept_not_recomputed() -> None:
    """A record whose hash is not its own keeps it in the stash: the hashed style would change
    it."""
    record = _load(CONFORMANCE / "tao" / "v0.2.0" / "valid" / "minimal-with-hash.json")
    record["content_hash"] = "0" * 64  # TAO401: an error, yet the record converts
    out, _ = convert(record, "atif@v1.7")
    back, _ = convert(out, "tao@v0.2.0")
    assert same_json(back, record)
    assert "tao_style" not in out["extra"]
    assert [e["pointer"] for e in _stash(out)] == ["/content_hash"]


def test_an_older_records_version_is_a_named_key() -> None:
    """A TAO 0.1.x record keeps its version under `tao_schema_version` (DECISIONS D35), not in
    the stash; a 0.2.0 record, whose version ATIF → TAO writes anyway, gets no such key."""
    for name, version in (("minimal.json", "0.1.0"), ("schema-version-0-1-1.json", "0.1.1")):
        record = _load(CONFORMANCE / "tao" / "v0.1.0" / "valid" / name)
        assert record["schema_version"] == version
        out, _ = convert(record, "atif@v1.7")
        assert out["extra"]["tao_schema_version"] == version
        assert not any(e["pointer"] == "/schema_version" for e in _stash(out))
        back, _ = convert(out, "tao@v0.2.0")
        assert same_json(back, record)
    out, _ = convert(_load(SESSION), "atif@v1.7")
    assert "tao_schema_version" not in out["extra"]


def test_a_step_that_launches_two_subagents_is_the_parent_of_both() -> None:
    """The steps of both subagents come inline before the launching step, each naming it."""
    launch = {
        "step_id": 1,
        "source": "agent",
        "message": "go",
        "observation": {
            "results": [
                {"subagent_trajectory_ref": [{"trajectory_id": "a"}]},
                {"subagent_trajectory_ref": [{"trajectory_id": "b"}]},
            ]
        },
    }
    agent = {"name": "x", "version": "1"}
    doc = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": agent,
        "steps": [launch],
        "subagent_trajectories": [
            _sub("a", agent, {"source": "agent", "message": "in a"}),
            _sub("b", agent, {"source": "agent", "message": "in b"}),
        ],
    }
    tao = round_trip(doc, "tao@v0.2.0", "atif@v1.7")
    assert [(s["content"], s.get("parent_step")) for s in tao["steps"]] == [
        ("in a", 2),
        ("in b", 2),
        ("go", None),
    ]
