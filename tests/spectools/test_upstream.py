"""spec/UPSTREAM.toml (RFC.md §9): the offline check that every known upstream release is
reviewed or pending with an issue, the pins of the interop report against it, and the lookup
that appends new releases (`nox -s upstream`), with pip answered by a stand-in."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

import pytest

from atif_spec.spectools import upstream
from atif_spec.spectools.upstream import (
    UpstreamError,
    add,
    index_versions,
    load,
    lookup,
    main,
    new_releases,
    parse,
    parse_index_versions,
    problems,
    release_key,
)
from tests.support import ROOT

LIST = ROOT / "spec" / "UPSTREAM.toml"
PEERS = ROOT / "conformance" / "adapters" / "peers.toml"

HEAD = """
[[package]]
name = "harbor"
role = "ATIF"
since = "0.25.0"

[[release]]
package = "harbor"
version = "0.25.0"
status = "reviewed"
note = "models v1.8"
"""


def test_every_known_upstream_release_is_reviewed_or_pending_with_an_issue() -> None:
    """The gate of RFC.md §9: fails while `nox -s upstream` has added a release nobody looked at."""
    assert problems(load(LIST)) == []


def test_every_release_the_interop_report_runs_is_a_reviewed_release_of_the_list() -> None:
    listed = load(LIST)
    reviewed = {(r.package, r.version) for r in listed.releases if r.status == "reviewed"}
    pins = [p["package"].split("==") for p in tomllib.loads(PEERS.read_text())["peer"]]
    assert all(len(pin) == 2 for pin in pins)
    assert [pin for pin in pins if tuple(pin) not in reviewed] == []


def test_the_releases_issue_31_names_are_listed_and_reviewed() -> None:
    """The releases issue 31 found: recorded, and reviewed now that it covers them (TAO 0.3.0-0.9.0
    schemas, ATOF 0.1, the interop peers of opentraces 0.4.13 and nvidia-nat-atif 1.9.0), and the
    releases in between, reviewed from their wheels (the TAO versions they require are covered;
    nat's ATOF code is 1.9.0's), and trajectory-sdk after 0.4.4 (0.4.5-0.5.3 write 0.4.4's file;
    from 0.6.0 the package is the platform API client and writes none)."""
    by = {(r.package, r.version): r for r in load(LIST).releases}
    for name, version in [
        ("opentraces-schema", "0.3.0"),
        ("opentraces-schema", "0.6.0"),
        ("opentraces-schema", "0.7.0"),
        ("opentraces-schema", "0.9.0"),
        ("opentraces", "0.4.13"),
        ("nvidia-nat-atif", "1.9.0"),
        ("harbor", "0.26.0"),
        ("opentraces", "0.3.0"),
        ("opentraces", "0.4.12"),
        ("nvidia-nat-atif", "1.6.0"),
        ("nvidia-nat-atif", "1.8.0"),
        ("trajectory-sdk", "0.4.5"),
        ("trajectory-sdk", "0.5.3"),
        ("trajectory-sdk", "0.6.0"),
        ("trajectory-sdk", "0.9.31"),
    ]:
        assert by[(name, version)].status == "reviewed"


@pytest.mark.parametrize(
    ("release", "problem"),
    [
        ('status = "unreviewed"\nnote = "n"', "harbor 0.26.0: unreviewed"),
        ('status = "pending"\nnote = "n"', "harbor 0.26.0: pending needs the `issue`"),
        ('status = "skipped"\nnote = "n"', "harbor 0.26.0: status 'skipped' is none of"),
    ],
)
def test_an_entry_neither_reviewed_nor_pending_with_an_issue_is_a_problem(
    release: str, problem: str
) -> None:
    text = HEAD + f'\n[[release]]\npackage = "harbor"\nversion = "0.26.0"\n{release}\n'
    found = problems(parse(text))
    assert len(found) == 1 and found[0].startswith(problem), found


def test_pending_with_an_issue_passes_and_bad_entries_are_problems() -> None:
    ok = HEAD + '\n[[release]]\npackage = "harbor"\nversion = "0.26.0"\nstatus = "pending"\n'
    assert problems(parse(ok + 'issue = 31\nnote = "n"\n')) == []
    twice = HEAD + '\n[[release]]\npackage = "harbor"\nversion = "0.25"\nstatus = "reviewed"\n'
    assert problems(parse(twice + 'note = "n"\n')) == ["harbor 0.25: listed twice"]
    old = HEAD + '\n[[release]]\npackage = "harbor"\nversion = "0.1.2"\nstatus = "reviewed"\n'
    assert problems(parse(old + 'note = "n"\n')) == [
        "harbor 0.1.2: older than the first release followed (0.25.0)"
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[package]\n", "UPSTREAM.toml:"),
        (HEAD.replace('note = "models v1.8"', ""), "`note` must be a non-empty string"),
        (HEAD.replace('package = "harbor"', 'package = "other"'), "packages not listed: other"),
        (HEAD + 'issue = "31"\n', "`issue` must be an issue number"),
    ],
)
def test_a_list_that_cannot_be_read_is_one_clear_error(text: str, message: str) -> None:
    with pytest.raises(UpstreamError, match=message.replace("`", ".")):
        parse(text)


def test_release_keys_compare_final_releases_only() -> None:
    assert release_key("0.26.0") == (0, 26) and release_key("1.0") == release_key("1.0.0")
    assert release_key("0.9.10") > release_key("0.9.9")  # type: ignore[operator]
    assert release_key("1.0rc1") is None and release_key("1.0+local") is None


PIP_OUT = "harbor (0.27.0)\nAvailable versions: 0.27.0, 0.26.0, 0.25.0, 0.24.0, 0.27.0rc1\n"


def _pip(stdout: str, code: int = 0, stderr: str = "") -> upstream.Runner:
    def run(args: list[str]) -> subprocess.CompletedProcess[str]:
        assert args[1:] == ["-m", "pip", "index", "versions", "--ignore-requires-python", args[-1]]
        return subprocess.CompletedProcess(args, code, stdout, stderr)

    return run


def test_the_index_answer_is_read_and_only_new_releases_from_since_on_are_added() -> None:
    assert parse_index_versions(PIP_OUT)[:2] == ["0.27.0", "0.26.0"]
    assert index_versions("harbor", _pip(PIP_OUT))[-1] == "0.27.0rc1"
    listed = parse(HEAD)
    versions = parse_index_versions(PIP_OUT)
    assert new_releases(listed, listed.packages[0], versions) == ["0.26.0", "0.27.0"]
    with pytest.raises(UpstreamError, match="harbor: the package index answered: ERROR: none"):
        index_versions("harbor", _pip("", 1, "WARNING: x\nERROR: none"))


def test_the_lookup_appends_unreviewed_entries_and_the_check_then_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "UPSTREAM.toml"
    path.write_text("# kept\n" + HEAD, encoding="utf-8")
    found, failed = lookup(path, _pip(PIP_OUT))
    assert found == {"harbor": ["0.26.0", "0.27.0"]} and failed == []
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# kept\n") and text.count('status = "unreviewed"') == 2
    assert [p.split(":")[0] for p in problems(load(path))] == ["harbor 0.26.0", "harbor 0.27.0"]
    assert lookup(path, _pip(PIP_OUT)) == ({}, [])  # nothing new the second time
    assert add(path, {}) == 0
    assert main(["--check", "--list", str(path)]) == 1
    assert "harbor 0.27.0: unreviewed" in capsys.readouterr().err
    monkeypatch.setattr(upstream, "_pip", _pip("", 1, "ERROR: offline"))
    assert main(["--list", str(path)]) == 2
    assert "the package index answered: ERROR: offline" in capsys.readouterr().err


def test_main_answers_a_missing_or_broken_list_with_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--check", "--list", str(tmp_path / "none.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "none.toml" in err
    broken = tmp_path / "broken.toml"
    broken.write_text("[[package]\n", encoding="utf-8")
    assert main(["--check", "--list", str(broken)]) == 2
    assert main(["--check", "--list", str(LIST)]) == 0
