"""Harbor's job layout: trial and job folders, and which of their files are trajectories."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from atif_spec.validation.harbor import Layout, read_trial, trial_facts
from tests.support.harbor import harbor_job

JOB = [
    "config.json",
    "result.json",
    "lock.json",
    "job.log",
    "t1/config.json",
    "t1/result.json",
    "t1/agent/trajectory.json",
    "t1/agent/trajectory.cont-1.json",
    "t1/agent/trajectory.summarization-1-summary.json",
    "t1/agent/sessions/projects/-app/0f.jsonl",
    "t1/agent/sessions/settings.json",
    "t1/verifier/reward.json",
    "t1/artifacts/manifest.json",
    "t1/artifacts/app/trajectory.json",
    "t2/config.json",
    "t2/trial.log",
    "t2/steps/build/agent/trajectory.json",
    "t2/steps/build/verifier/reward.json",
    "t2/steps/build/agent/other.json",
    "t2/user-agent/trajectory.json",
]
FOLDERS = ["t1", "t1/agent", "t1/verifier", "t1/artifacts", "t2", "t2/steps", "t2/steps/build"]


def test_trials_and_jobs_are_found_by_their_folders() -> None:
    layout = Layout(JOB, FOLDERS)
    assert layout.trials == {"t1", "t2"}
    assert layout.jobs == {""}


@pytest.mark.parametrize(
    ("path", "place"),
    [
        ("t1/agent/trajectory.json", True),
        ("t1/agent/trajectory.cont-1.json", True),
        ("t1/agent/trajectory.summarization-1-summary.json", True),
        ("t2/steps/build/agent/trajectory.json", True),
        ("t2/user-agent/trajectory.json", True),
        ("config.json", False),
        ("result.json", False),
        ("t1/config.json", False),
        ("t1/result.json", False),
        ("t1/verifier/reward.json", False),
        ("t1/artifacts/manifest.json", False),
        ("t1/artifacts/app/trajectory.json", False),  # a collected file, not the agent's log
        ("t1/agent/sessions/projects/-app/0f.jsonl", False),  # the same run, natively
        ("t1/agent/sessions/settings.json", False),
        ("t2/steps/build/verifier/reward.json", False),
        ("t2/steps/build/agent/other.json", False),
    ],
)
def test_a_file_s_place_decides(path: str, place: bool) -> None:
    assert Layout(JOB, FOLDERS).place(path) is place


def test_a_config_json_outside_harbor_folders_is_read() -> None:
    """A project with a config.json and an agent/ folder of its own is no trial."""
    files = ["config.json", "runs/config.json", "runs/a.json", "agent/trajectory.json"]
    layout = Layout(files, ["runs", "agent"])
    assert not layout
    assert [layout.place(f) for f in files] == [None, None, None, None]
    assert Layout([*files, "result.json"], ["runs", "agent"]).trials == {""}


def test_a_trial_folder_walked_itself_is_one() -> None:
    files = ["config.json", "result.json", "agent/trajectory.json"]
    layout = Layout(files, ["agent", "verifier", "artifacts"])
    assert layout.trials == {""}
    assert [layout.place(f) for f in files] == [False, False, True]


def test_jobs_below_the_folder_walked() -> None:
    names = ("config.json", "t/config.json", "t/result.json")
    files = [f"jobs/{j}/{f}" for j in ("a", "b") for f in names]
    files.append("jobs/a/t/agent/trajectory.json")
    dirs = ["jobs", "jobs/a", "jobs/b", "jobs/a/t", "jobs/b/t", "jobs/a/t/agent", "jobs/b/t/agent"]
    layout = Layout(files, dirs)
    assert layout.jobs == {"jobs/a", "jobs/b"}
    assert layout.place("jobs/a/config.json") is False
    assert layout.place("jobs/a/t/agent/trajectory.json") is True


def test_a_job_before_its_first_trial_is_known_by_its_log() -> None:
    layout = Layout(["config.json", "job.log", "lock.json"], [])
    assert layout.jobs == {""}
    assert layout.place("lock.json") is False


@pytest.mark.parametrize(
    ("path", "trial"),
    [
        ("t1/agent/trajectory.json", "t1"),
        ("t1/agent/trajectory.cont-1.json", "t1"),
        ("t2/steps/build/agent/trajectory.json", "t2"),
        ("t2/user-agent/trajectory.json", "t2"),
        ("t1/result.json", None),
        ("t1/artifacts/app/trajectory.json", None),
        ("t1/agent/sessions/projects/-app/0f.jsonl", None),
        ("elsewhere/trajectory.json", None),
    ],
)
def test_a_trajectory_belongs_to_its_trial(path: str, trial: str | None) -> None:
    assert Layout(JOB, FOLDERS).trial_of(path) == trial


def test_a_trial_folder_walked_itself_is_its_own_trial() -> None:
    layout = Layout(["config.json", "result.json", "agent/trajectory.json"], ["agent"])
    assert layout.trial_of("agent/trajectory.json") == ""


RESULT: dict[str, Any] = {
    "trial_name": "hello__A1",
    "task_name": "hello",
    "agent_info": {
        "name": "terminus-2",
        "version": "2.0.0",
        "model_info": {"name": "gpt-5", "provider": "openai"},
    },
    "agent_result": {
        "n_input_tokens": 10,
        "n_cache_tokens": 4,
        "n_output_tokens": 3,
        "cost_usd": 0.5,
    },
    "verifier_result": {"rewards": {"reward": 0.5}},
    "exception_info": None,
}


@pytest.mark.parametrize(
    ("change", "reward", "outcome"),
    [
        ({}, 0.5, "partial"),
        ({"verifier_result": {"rewards": {"reward": 1}}}, 1, "passed"),
        ({"verifier_result": {"rewards": {"reward": 0.0}}}, 0.0, "failed"),
        ({"verifier_result": {"rewards": {"accuracy": 0.25, "note": "x"}}}, 0.25, "partial"),
        ({"verifier_result": None}, None, "no reward"),
        ({"verifier_result": {"rewards": {"reward": True}}}, None, "no reward"),
        ({"exception_info": {"exception_type": "E", "exception_message": "m"}}, 0.5, "error"),
    ],
)
def test_trial_facts_reward_and_outcome(
    change: dict[str, Any], reward: float | None, outcome: str
) -> None:
    facts = trial_facts("folder", {**RESULT, **change}, None)
    assert (facts["reward"], facts["outcome"]) == (reward, outcome)


def test_trial_facts_agent_model_tokens_and_exception() -> None:
    exception = {"exception_type": "AgentTimeoutError", "exception_message": "timed out"}
    facts = trial_facts("folder", {**RESULT, "exception_info": exception}, None)
    assert facts["name"] == "hello__A1" and facts["task"] == "hello"
    assert facts["agent"] == "terminus-2 2.0.0" and facts["model"] == "gpt-5"
    assert (facts["input_tokens"], facts["cache_tokens"], facts["output_tokens"]) == (10, 4, 3)
    assert facts["cost_usd"] == 0.5
    assert facts["exception"] == {"type": "AgentTimeoutError", "message": "timed out"}


def test_the_configured_model_when_agent_info_has_none() -> None:
    agent = {"name": "terminus-2", "version": "2.0.0"}
    config = {"agent": {"name": "terminus-2", "model_name": "openai/gpt-5"}}
    facts = trial_facts("f", {**RESULT, "agent_info": agent, "config": config}, None)
    assert facts["model"] == "openai/gpt-5"
    assert trial_facts("f", {**RESULT, "agent_info": agent}, None)["model"] is None


@pytest.mark.parametrize(
    ("content", "problem"),
    [(None, "no result.json"), (b"[1]", "result.json is not a JSON object"), (b"{", "cannot read")],
)
def test_read_trial_without_a_usable_result(
    tmp_path: Path, content: bytes | None, problem: str
) -> None:
    if content is not None:
        (tmp_path / "result.json").write_bytes(content)
    facts = read_trial(tmp_path)
    assert facts["outcome"] == "no result" and facts["problem"].startswith(problem)
    assert facts["name"] == tmp_path.name and facts["reward"] is None


def test_read_trial_of_a_harbor_job(tmp_path: Path) -> None:
    job = harbor_job(tmp_path)
    facts = read_trial(job.root / "hello-world__Ee0Rr1t")
    assert facts["outcome"] == "error" and facts["exception"]["type"] == "AgentTimeoutError"
    assert read_trial(job.root / "hello-world__Kq9Lm2x")["outcome"] == "failed"
