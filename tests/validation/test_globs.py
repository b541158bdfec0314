"""The glob patterns of --include, --exclude and .atifignore."""

from __future__ import annotations

import pytest

from atif_spec.validation.globs import Pattern, PatternError, read_ignore


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("config.json", "config.json", True),
        ("config.json", "a/b/config.json", True),  # no slash: a name anywhere
        ("*.json", "a/b.json", True),
        ("*.json", "a/b.jsonl", False),
        ("sessions", "t/agent/sessions/x.jsonl", True),  # a folder on the path
        ("artifacts/", "t/artifacts/m.json", True),
        ("artifacts/", "t/artifacts", False),  # folders only
        ("t/agent/*.json", "t/agent/trajectory.json", True),  # a slash: from the start
        ("agent/*.json", "t/agent/trajectory.json", False),
        ("/t/agent", "t/agent/trajectory.json", True),  # a leading slash changes nothing
        ("**/agent/trajectory*.json", "j/t/agent/trajectory.cont-1.json", True),
        ("**/agent/trajectory*.json", "agent/trajectory.json", True),
        ("**/agent/trajectory*.json", "j/t/agent/x/trajectory.json", False),
        ("old/**", "old/a/b.json", True),
        ("a/**/b.json", "a/b.json", True),
        ("a/**/b.json", "a/x/y/b.json", True),
        ("run-?.json", "run-1.json", True),
        ("run-?.json", "run-10.json", False),
        ("run-[0-4].json", "run-3.json", True),
        ("run-[!0-4].json", "run-3.json", False),
        ("run-[!0-4].json", "run-7.json", True),
        ("*", "a/b.json", True),
        ("a.json", "xa.json", False),
    ],
)
def test_patterns(pattern: str, path: str, matches: bool) -> None:
    assert Pattern.parse(pattern).matches(path) is matches


@pytest.mark.parametrize("bad", ["", "/", "run-[0-4.json"])
def test_a_bad_pattern_is_refused(bad: str) -> None:
    with pytest.raises(PatternError):
        Pattern.parse(bad)


def test_ignore_file_lines() -> None:
    assert read_ignore("# comment\n\n  *.jsonl  \nold/\n") == ["*.jsonl", "old/"]
