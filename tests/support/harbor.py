"""A Harbor job folder, written the way Harbor 0.26 writes one (``harbor run``: its
``models/trial/paths.py``, ``job.py`` and the Terminus 2 and Claude Code agents).

::

    <job>/config.json  result.json  lock.json  job.log
    <job>/<task>__<id>/config.json  result.json  lock.json  trial.log  [exception.txt]
    <job>/<task>__<id>/agent/trajectory.json  [trajectory.cont-N.json]
                             [trajectory.summarization-N-{summary,questions,answers}.json]
                             [sessions/projects/-app/<uuid>.jsonl  sessions/settings.json]
    <job>/<task>__<id>/verifier/reward.json  reward.txt  test-stdout.txt
    <job>/<task>__<id>/artifacts/manifest.json   (a JSON array)
    <job>/<task>__<id>/steps/<step>/agent|verifier|artifacts/...   (a multi-step trial)

The trajectories are the conformance suite's (a continued trajectory, a trajectory with
summarization subagent files, a minimal one per version), copied where Harbor puts them.
"""

from __future__ import annotations

import json
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support import ROOT
from tests.support.documents import minimal_atif

VALID = ROOT / "conformance/atif/v1.6/valid"
CLAUDE_SESSION = (
    ROOT
    / "conformance/native/claude-code/task-subagent-session"
    / "7c41d2e8-0b9a-4f63-a5d1-2e8f4c9b1a70.jsonl"
)
STARTED = "2026-01-05T10:00:00.000000"
FINISHED = "2026-01-05T10:07:12.000000"


@dataclass
class HarborJob:
    """The job folder, its trajectories and every other file a folder walk would have read
    (``*.json``, ``*.jsonl``) without the layout rule."""

    root: Path
    trajectories: list[Path] = field(default_factory=list)
    others: list[Path] = field(default_factory=list)

    def write(self, path: Path, value: Any, *, document: bool = False) -> Path:
        """Write ``value`` as Harbor does (indented JSON) and file it as a trajectory or not."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value, indent=4))
        (self.trajectories if document else self.others).append(path)
        return path

    def copy(self, source: Path, path: Path, *, document: bool) -> Path:
        """Copy a file into place (a fixture trajectory, a native session)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, path)
        (self.trajectories if document else self.others).append(path)
        return path


def harbor_job(parent: Path, name: str = "2026-01-05__10-00-00") -> HarborJob:
    """A finished job of five trials: Terminus 2 with a continuation, Terminus 2 with
    summarization subagents, Claude Code (its native session beside the trajectory), a
    multi-step trial, and a trial that failed with an exception."""
    job = HarborJob(parent / name)
    job.root.mkdir(parents=True)
    trials = [
        _terminus_continued(job, "hello-world__Ab3dE7f"),
        _terminus_summarized(job, "hello-world__Kq9Lm2x"),
        _claude_code(job, "fix-csv-bom__Zt5Wn8p"),
        _multi_step(job, "build-and-test__Pp1Qr4s"),
        _failed(job, "hello-world__Ee0Rr1t"),
    ]
    job.write(job.root / "config.json", _job_config(name))
    job.write(job.root / "lock.json", {"harbor_version": "0.26.0", "trials": trials})
    job.write(
        job.root / "result.json",
        {
            "id": "0b9c7a52-3f61-4c1e-9d8a-5e2f4b6c8d10",
            "started_at": STARTED,
            "finished_at": FINISHED,
            "n_total_trials": len(trials),
            "stats": {"n_trials": len(trials), "n_errors": 1, "evals": {}},
        },
    )
    (job.root / "job.log").write_text("Starting job\n")
    return job


def _job_config(name: str) -> dict[str, Any]:
    return {
        "job_name": name,
        "jobs_dir": "jobs",
        "n_attempts": 1,
        "orchestrator": {"type": "local", "n_concurrent_trials": 4},
        "agents": [{"name": "terminus-2", "model_name": "anthropic/claude-sonnet-4-5"}],
        "datasets": [{"name": "terminal-bench", "version": "2.0"}],
    }


def _trial(
    job: HarborJob,
    name: str,
    agent: str,
    reward: float | None,
    exception: dict[str, Any] | None = None,
    *,
    steps: bool = False,
) -> Path:
    """The files Harbor writes for every trial, around what the agent wrote; a multi-step
    trial (``steps``) has its agent, verifier and artifacts folders per step instead."""
    trial = job.root / name
    task = name.split("__")[0]
    trial.mkdir(parents=True)
    config = {
        "task": {"path": f"tasks/{task}"},
        "trial_name": name,
        "trials_dir": str(job.root),
        "agent": {"name": agent, "model_name": "anthropic/claude-sonnet-4-5"},
        "environment": {"type": "docker", "delete": True},
        "verifier": {"override_timeout_sec": None},
    }
    job.write(trial / "config.json", config)
    job.write(trial / "lock.json", {"task": {"path": f"tasks/{task}", "digest": "sha256:1f"}})
    rewards = {} if reward is None else {"reward": reward}
    job.write(
        trial / "result.json",
        {  # Harbor's TrialResult (models/trial/result.py)
            "id": str(uuid.uuid5(uuid.NAMESPACE_URL, name)),
            "task_name": task,
            "trial_name": name,
            "trial_uri": trial.as_uri(),
            "task_id": {"path": f"tasks/{task}"},
            "source": "terminal-bench",
            "task_checksum": "1f" * 32,
            "config": config,
            "agent_info": {
                "name": agent,
                "version": "2.0.0",
                "model_info": {"name": "claude-sonnet-4-5", "provider": "anthropic"},
            },
            "agent_result": {
                "n_input_tokens": 6049,
                "n_cache_tokens": 4500,
                "n_output_tokens": 215,
                "cost_usd": 0.0105,
                "rollout_details": None,
                "metadata": None,
            },
            "verifier_result": {"rewards": rewards} if exception is None else None,
            "exception_info": exception,
            "started_at": STARTED,
            "finished_at": FINISHED,
            "environment_setup": {"started_at": STARTED, "finished_at": STARTED},
            "agent_setup": {"started_at": STARTED, "finished_at": STARTED},
            "agent_execution": {"started_at": STARTED, "finished_at": FINISHED},
            "verifier": None if exception else {"started_at": FINISHED, "finished_at": FINISHED},
        },
    )
    (trial / "trial.log").write_text(f"Trial {name} finished\n")
    if steps:
        return trial
    for folder in ("agent", "verifier", "artifacts"):  # TrialPaths.mkdir
        (trial / folder).mkdir()
    if exception is None:
        job.write(trial / "verifier" / "reward.json", rewards)
        (trial / "verifier" / "reward.txt").write_text(f"{reward}\n")
        (trial / "verifier" / "test-stdout.txt").write_text("1 passed\n")
    job.write(
        trial / "artifacts" / "manifest.json",
        [{"service": "main", "source": "/app/hello.txt", "destination": "app/hello.txt"}],
    )
    return trial


def _terminus_continued(job: HarborJob, name: str) -> str:
    trial = _trial(job, name, "terminus-2", 1.0)
    for file in ("trajectory.json", "trajectory.cont-1.json"):
        job.copy(VALID / "continued-trajectory" / file, trial / "agent" / file, document=True)
    (trial / "agent" / "recording.cast").write_text('{"version": 2}\n')
    return name


def _terminus_summarized(job: HarborJob, name: str) -> str:
    trial = _trial(job, name, "terminus-2", 0.0)
    for source in sorted((VALID / "summarization-file-refs").iterdir()):
        job.copy(source, trial / "agent" / source.name, document=True)
    return name


def _claude_code(job: HarborJob, name: str) -> str:
    trial = _trial(job, name, "claude-code", 1.0)
    agent = trial / "agent"
    trajectory = minimal_atif("v1.6")
    trajectory["agent"] = {"name": "claude-code", "version": "2.0.14"}
    job.write(agent / "trajectory.json", trajectory, document=True)
    job.copy(
        CLAUDE_SESSION,
        agent / "sessions" / "projects" / "-app" / CLAUDE_SESSION.name,
        document=False,
    )
    job.write(agent / "sessions" / "settings.json", {"permissions": {"allow": ["Bash"]}})
    (agent / "claude-code.txt").write_text("done\n")
    return name


def _multi_step(job: HarborJob, name: str) -> str:
    trial = _trial(job, name, "terminus-2", 1.0, steps=True)
    for step, version in (("build", "v1.5"), ("test", "v1.6")):
        base = trial / "steps" / step
        job.write(base / "agent" / "trajectory.json", minimal_atif(version), document=True)
        job.write(base / "verifier" / "reward.json", {"reward": 1.0})
        job.write(base / "artifacts" / "manifest.json", [])
    return name


def _failed(job: HarborJob, name: str) -> str:
    exception = {
        "exception_type": "AgentTimeoutError",
        "exception_message": "Agent execution timed out after 900.0 seconds",
        "exception_traceback": "Traceback (most recent call last): ...",
        "occurred_at": FINISHED,
    }
    trial = _trial(job, name, "terminus-2", None, exception)
    (trial / "exception.txt").write_text(exception["exception_traceback"] + "\n")
    job.write(trial / "agent" / "trajectory.json", minimal_atif("v1.6"), document=True)
    return name
