"""The pre-commit hook's default ``files`` pattern (fast: the hook itself is run, slowly, by
test_precommit.py)."""

from __future__ import annotations

import re

import pytest

from tests.support import ROOT


def hook_pattern() -> re.Pattern[str]:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    found = re.search(r"^  files: '(.*)'$", text, re.MULTILINE)
    assert found is not None
    return re.compile(found.group(1))


@pytest.mark.parametrize(
    ("path", "checked"),
    [
        ("runs/a.trajectory.json", True),
        ("a.trajectory.json", True),
        # Was: Harbor's trajectories did not match \.trajectory\.json$ (issue 35 item 1)
        ("jobs/j/hello__Ab3/agent/trajectory.json", True),
        ("agent/trajectory.json", True),
        ("jobs/j/t/agent/trajectory.cont-1.json", True),
        ("jobs/j/t/agent/trajectory.summarization-1-summary.json", True),
        ("jobs/j/t/steps/build/agent/trajectory.json", True),
        ("jobs/j/t/user-agent/trajectory.json", True),
        ("jobs/j/t/config.json", False),
        ("jobs/j/t/result.json", False),
        ("jobs/j/t/agent/sessions/settings.json", False),
        ("jobs/j/t/artifacts/manifest.json", False),
        ("src/myagent/trajectory.json", False),
        ("package.json", False),
    ],
)
def test_the_default_pattern(path: str, checked: bool) -> None:
    assert bool(hook_pattern().search(path)) is checked
