"""Harbor's job folders: where the trajectories are, by their place in the layout.

Harbor (``harbor run``) writes one folder per job and one per trial inside it (its
``models/trial/paths.py`` and ``job.py``)::

    <job>/config.json  result.json  lock.json  job.log
    <job>/<trial>/config.json  result.json  lock.json  trial.log  exception.txt
    <job>/<trial>/agent/trajectory.json                  the agent's ATIF trajectory
    <job>/<trial>/agent/trajectory.cont-1.json           its continuations (linear history)
    <job>/<trial>/agent/trajectory.summarization-1-summary.json   subagents (and -questions,
                                                                   -answers)
    <job>/<trial>/agent/...                              the agent's native logs and settings
    <job>/<trial>/verifier/  reward.json  reward.txt  test-stdout.txt ...
    <job>/<trial>/artifacts/ manifest.json (a JSON array) and collected files
    <job>/<trial>/steps/<step>/agent|verifier|artifacts/ the same, per step of a multi-step trial

A *trial folder* is a folder holding ``config.json``, ``result.json`` or ``trial.log``, and
one of the folders Harbor makes for every trial (``agent``, ``verifier``, ``artifacts``,
``steps``). Inside one, the documents are
the files ``trajectory*.json`` directly in its ``agent/`` (or ``user-agent/``, the simulated
user's) and in each ``steps/<step>/agent/``; every other file is Harbor's or the agent's own (a
Claude Code session under ``agent/sessions/`` is the same run as the trajectory, not a second
one). A *job folder* holds ``config.json`` and a trial folder or ``job.log``; its own files are
Harbor's. The rule is by place, not by name: a ``config.json`` outside these folders is read.
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from atif_spec.jsonio.jsontext import loads
from atif_spec.jsonio.jsonvalues import dict_member

TRIAL_FOLDERS = ("agent", "verifier", "artifacts", "steps")
"""Folders Harbor makes in every trial folder (``TrialPaths.mkdir``; ``steps`` for multi-step)."""
AGENT_FOLDERS = ("agent", "user-agent")
"""Where an agent writes its logs, trajectories included (``/logs/agent``, ``/logs/user-agent``)."""
TRAJECTORY_NAMES = "trajectory*.json"
"""The trajectory, its continuations and its subagents (``trajectory.cont-N.json``,
``trajectory.summarization-N-summary.json``)."""
CONFIG = "config.json"
TRIAL_FILES = ("result.json", "trial.log")
"""One of these beside ``config.json`` (a folder of sources with a ``config.json`` and an
``agent/`` folder is no trial)."""
JOB_LOG = "job.log"
RESULT = "result.json"
MAX_RESULT_BYTES = 16 * 1024 * 1024
"""Largest ``result.json`` read for a trial's facts."""


def _parent(path: str) -> str:
    return path.rpartition("/")[0]


class Layout:
    """The trial and job folders among the files and folders of one walk (relative paths with
    ``/``, ``""`` for the folder walked)."""

    def __init__(self, files: Iterable[str], dirs: Iterable[str]) -> None:
        file_set = set(files)
        dir_set = set(dirs) | {""}
        configs = [_parent(f) for f in file_set if f.rpartition("/")[2] == CONFIG]
        self.trials = frozenset(
            folder
            for folder in configs
            if any(_join(folder, name) in dir_set for name in TRIAL_FOLDERS)
            and any(_join(folder, name) in file_set for name in TRIAL_FILES)
        )
        holding_trials = {_parent(trial) for trial in self.trials if trial}
        self.jobs = frozenset(
            folder
            for folder in configs
            if folder not in self.trials
            and (folder in holding_trials or _join(folder, JOB_LOG) in file_set)
        )

    def __bool__(self) -> bool:
        return bool(self.trials or self.jobs)

    def trial_of(self, path: str) -> str | None:
        """The trial folder a trajectory of a trial belongs to (None for any other path)."""
        parts = path.split("/")
        for depth in range(len(parts) - 1, -1, -1):
            folder = "/".join(parts[:depth])
            if folder in self.trials:
                return folder if is_trajectory(parts[depth:]) else None
        return None

    def place(self, path: str) -> bool | None:
        """True for a trajectory of a trial, False for another file of a trial or job folder
        (Harbor's, or the agent's own), None for a file outside them."""
        parts = path.split("/")
        for depth in range(len(parts) - 1, -1, -1):
            folder = "/".join(parts[:depth])
            if folder in self.trials:
                return is_trajectory(parts[depth:])
        if _parent(path) in self.jobs:
            return False
        return None


def is_trajectory(inside: list[str]) -> bool:
    """Whether a path inside a trial folder (its parts) is a trajectory's place."""
    if len(inside) == 4 and inside[0] == "steps":  # steps/<step>/agent/trajectory*.json
        inside = inside[2:]
    return (
        len(inside) == 2 and inside[0] in AGENT_FOLDERS and fnmatchcase(inside[1], TRAJECTORY_NAMES)
    )


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def read_trial(folder: Path) -> dict[str, Any]:
    """What a trial's ``result.json`` (Harbor's ``TrialResult``) says of it: :func:`trial_facts`,
    with ``problem`` set when the file is missing or not a JSON object (a trial still running,
    or one that crashed before writing it)."""
    path = folder / RESULT
    try:
        if path.stat().st_size > MAX_RESULT_BYTES:
            return trial_facts(folder.name, None, f"{RESULT} is larger than {MAX_RESULT_BYTES}")
        result = loads(path.read_bytes())
    except FileNotFoundError:
        return trial_facts(folder.name, None, f"no {RESULT}")
    except (OSError, ValueError, RecursionError) as exc:
        return trial_facts(folder.name, None, f"cannot read {RESULT}: {exc}")
    if not isinstance(result, dict):
        return trial_facts(folder.name, None, f"{RESULT} is not a JSON object")
    return trial_facts(folder.name, result, None)


def trial_facts(name: str, result: dict[str, Any] | None, problem: str | None) -> dict[str, Any]:
    """A trial's name, task, agent, model (``agent_info.model_info``, else the configured one),
    reward and outcome, exception, and Harbor's own token counts and cost (``agent_result``),
    from its parsed ``result.json`` (JSON values only).

    The reward is ``verifier_result.rewards["reward"]`` (else the first numeric reward); the
    outcome is ``error`` (``exception_info`` set), ``passed`` (reward at least 1), ``partial``
    (above 0), ``failed`` (0 or less), ``no reward`` (no verifier result) or ``no result``."""
    result = result or {}
    agent = dict_member(result, "agent_info") or {}
    model = dict_member(agent, "model_info") or {}
    usage = dict_member(result, "agent_result") or {}
    exception = dict_member(result, "exception_info")
    rewards = dict_member(dict_member(result, "verifier_result"), "rewards") or {}
    reward = _reward(rewards)
    return {
        "name": _text(result.get("trial_name")) or name,
        "task": _text(result.get("task_name")),
        "agent": " ".join(t for t in (_text(agent.get("name")), _text(agent.get("version"))) if t)
        or None,
        "model": _text(model.get("name")) or _configured_model(result),
        "reward": reward,
        "rewards": {k: v for k, v in rewards.items() if _number(v) is not None},
        "outcome": _outcome(result, exception, reward, problem),
        "exception": None
        if exception is None
        else {
            "type": _text(exception.get("exception_type")),
            "message": _text(exception.get("exception_message")),
        },
        "input_tokens": _number(usage.get("n_input_tokens")),
        "cache_tokens": _number(usage.get("n_cache_tokens")),
        "output_tokens": _number(usage.get("n_output_tokens")),
        "cost_usd": _number(usage.get("cost_usd")),
        "started_at": _text(result.get("started_at")),
        "finished_at": _text(result.get("finished_at")),
        "problem": problem,
    }


def _configured_model(result: dict[str, Any]) -> str | None:
    """The model the trial was configured with (``config.agent.model_name``), for a result
    whose ``agent_info`` has no ``model_info``."""
    agent = dict_member(dict_member(result, "config"), "agent")
    return _text(agent.get("model_name")) if agent else None


def _outcome(
    result: dict[str, Any],
    exception: dict[str, Any] | None,
    reward: float | None,
    problem: str | None,
) -> str:
    if problem is not None or not result:
        return "no result"
    if exception is not None:
        return "error"
    if reward is None:
        return "no reward"
    return "passed" if reward >= 1 else "partial" if reward > 0 else "failed"


def _reward(rewards: dict[str, Any]) -> float | None:
    if _number(rewards.get("reward")) is not None:
        return _number(rewards["reward"])
    return next((v for v in map(_number, rewards.values()) if v is not None), None)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
