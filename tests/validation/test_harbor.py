"""Harbor's job layout: trial and job folders, and which of their files are trajectories."""

from __future__ import annotations

import pytest

from atif_spec.validation.harbor import Layout

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
