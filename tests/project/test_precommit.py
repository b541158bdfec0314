"""The `atif-validate` pre-commit hook, installed by pre-commit itself from a committed copy of
this repository (named by path and commit in a config, as a user's config names it), on a
temporary repository with a valid and an invalid file.

pre-commit builds the hook's own virtualenv and installs the package into it from the package
registry, so this is slow: once for the module (its store in ``home``; `pre-commit try-repo`
would build it again for every run, in a store of its own); it runs in CI's site session with
ATIF_FAIL_ON_SKIP=1.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT
from tests.support.documents import minimal_atif

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("pre_commit") is None or shutil.which("git") is None,
        reason="pre-commit (pip install pre-commit) and git are needed",
    ),
]

# What `pip install` of the package needs: pyproject's package-dir and readme, and the hook file.
PACKAGE_FILES = ["pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml"]
PACKAGE_DIRS = ["tools", "spec", "generated/python", "generated/bundles", "conformance"]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=atif-spec tests",
            "-c",
            "user.email=tests@atif-spec.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
            *args,
        ],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A committed copy of the working tree (pre-commit installs from commits, not the tree)."""
    repo = tmp_path_factory.mktemp("hook-repo")
    for name in PACKAGE_FILES:
        shutil.copy2(ROOT / name, repo / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in PACKAGE_DIRS:
        shutil.copytree(ROOT / name, repo / name, ignore=ignore)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "snapshot for pre-commit")
    return repo


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's repository with trajectories in it."""
    repo = tmp_path_factory.mktemp("user-repo")
    valid = minimal_atif("v1.7")
    invalid = minimal_atif("v1.7")
    invalid["steps"][0]["step_id"] = 2  # ATIF101
    del invalid["agent"]["version"]  # schema:required
    (repo / "good.trajectory.json").write_text(json.dumps(valid))
    (repo / "bad.trajectory.json").write_text(json.dumps(invalid))
    (repo / "unrelated.json").write_text(json.dumps({"not": "a trajectory"}))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    return repo


def run_hook(
    hook_repo: Path, project: Path, home: Path, *files: str
) -> subprocess.CompletedProcess[str]:
    """`pre-commit run` of the hook from ``hook_repo``'s commit (what `pre-commit try-repo`
    does, but with the module's store, so the hook's virtualenv is built once)."""
    rev = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=hook_repo, check=True, capture_output=True, text=True
    ).stdout.strip()
    config = home.parent / f"{home.name}-config.yaml"
    config.write_text(
        f"repos:\n- repo: {json.dumps(str(hook_repo))}\n  rev: {rev}\n"
        "  hooks:\n  - id: atif-validate\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    args = ["--files", *files] if files else ["--all-files"]
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--config", str(config), *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pre-commit's cache (the hook's virtualenv), shared by the tests of this module."""
    return tmp_path_factory.mktemp("pre-commit-home")


def test_valid_file_passes(hook_repo: Path, project: Path, home: Path) -> None:
    result = run_hook(hook_repo, project, home, "good.trajectory.json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "atif validate" in result.stdout and "Passed" in result.stdout


def test_invalid_file_fails_with_findings(hook_repo: Path, project: Path, home: Path) -> None:
    result = run_hook(hook_repo, project, home, "bad.trajectory.json")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Failed" in result.stdout
    assert "ATIF101" in result.stdout
    assert "/agent/version" in result.stdout


def test_all_files_checks_only_trajectories(hook_repo: Path, project: Path, home: Path) -> None:
    result = run_hook(hook_repo, project, home)
    assert result.returncode == 1
    assert "bad.trajectory.json" in result.stdout
    assert "unrelated.json" not in result.stdout  # not a *.trajectory.json: not checked
