"""The GitHub Actions workflows (.github/workflows): every action pinned by commit hash with its
tag beside it, every stage of .ci/run a job of the CI workflow (the stages are read from .ci/run,
not listed here), and a release that deploys the site only at the catalog's base URL."""

from __future__ import annotations

import itertools
import re
import shlex
import subprocess
from typing import Any

import pytest
import yaml

from atif_spec.schemas.catalog import load_catalog
from atif_spec.spectools.pages import host
from tests.support import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
PINNED_LINE = re.compile(
    r"uses:\s*(?P<ref>[\w.-]+/[\w./-]+@[0-9a-f]{40})\s+#\s*(?P<tag>v\d[\w.]*)\s*$"
)
NOX = re.compile(r"\bnox[ \t]+-s[ \t]+(?P<names>[\w-]+(?:[ \t]+[\w-]+)*)")


def load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict), name
    return data


def every_uses(workflow: dict[str, Any]) -> list[str]:
    """Every ``uses:`` of a workflow: reusable-workflow jobs and steps."""
    found = []
    for job in workflow["jobs"].values():
        found += [job["uses"]] if "uses" in job else []
        found += [step["uses"] for step in job.get("steps", []) if "uses" in step]
    return found


def runs(job: dict[str, Any]) -> str:
    return "\n".join(step.get("run", "") for step in job.get("steps", []))


def nox_sessions(script: str) -> set[str]:
    """The nox sessions a shell script runs (``nox -s a b``, up to ``--`` or the line's end)."""
    names = (m["names"].split() for m in NOX.finditer(script))
    return {n for found in names for n in itertools.takewhile(lambda n: n != "--", found)}


def ci_run() -> str:
    return (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def readme_command() -> str:
    """The README test command as .ci/run runs it (the line after its first stage heading)."""
    lines = ci_run().splitlines()
    return lines[lines.index('stage "README test command"') + 1].strip()


def step_of(job: dict[str, Any], action: str) -> int:
    """The index of the first step of ``job`` that uses ``action`` (owner/name)."""
    uses = [str(step.get("uses", "")).split("@")[0] for step in job["steps"]]
    return uses.index(action)


def test_workflows_exist_and_parse() -> None:
    assert sorted(p.name for p in WORKFLOWS.glob("*.yml")) == ["ci.yml", "release.yml"]
    for path in WORKFLOWS.glob("*.yml"):
        assert load(path.name)["jobs"], path


@pytest.mark.parametrize("name", ["ci.yml", "release.yml"])
def test_every_action_is_pinned_by_commit_hash_with_its_tag(name: str) -> None:
    uses = every_uses(load(name))
    remote = [u for u in uses if not u.startswith("./")]
    assert remote, f"{name} uses no action"
    unpinned = [u for u in remote if not PINNED.match(u)]
    assert not unpinned, f"{name}: not pinned by a 40-hex commit hash: {unpinned}"
    lines = (WORKFLOWS / name).read_text(encoding="utf-8").splitlines()
    tagged = [m["ref"] for line in lines if (m := PINNED_LINE.search(line))]
    assert sorted(tagged) == sorted(remote), f"{name}: a pinned hash without its `# vX` tag"


def test_one_hash_names_one_tag_across_workflows() -> None:
    tags: dict[str, set[str]] = {}
    for path in WORKFLOWS.glob("*.yml"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if m := PINNED_LINE.search(line):
                tags.setdefault(m["ref"], set()).add(m["tag"])
    assert tags
    assert {ref: t for ref, t in tags.items() if len(t) > 1} == {}


def test_ci_jobs_cover_every_stage_of_ci_run() -> None:
    stages = nox_sessions(ci_run())
    assert {"lint", "package", "postgres", "workflows", "site-browser"} <= stages
    jobs = load("ci.yml")["jobs"]
    covered = set().union(*(nox_sessions(runs(job)) for job in jobs.values()))
    assert stages - covered == set(), "stages of .ci/run that no CI job runs"
    assert covered - stages == set(), "CI jobs running sessions .ci/run does not"
    assert any(readme_command() in runs(job) for job in jobs.values())


def test_ci_runs_the_readme_test_command_exactly() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"```sh\n{readme_command()}\n```" in readme
    assert readme_command().endswith(" -m pytest -n auto")  # the suite on every core


def test_ci_jobs_run_in_parallel_on_pushes_and_pull_requests() -> None:
    ci = load("ci.yml")
    triggers = ci[True]  # YAML 1.1 reads the key `on` as true
    assert {"push", "pull_request", "workflow_call"} <= set(triggers)
    assert len(ci["jobs"]) > 5
    assert [name for name, job in ci["jobs"].items() if "needs" in job] == []


def test_the_release_runs_ci_before_building_and_publishes_only_what_it_built() -> None:
    release = load("release.yml")
    assert release[True] == {"push": {"tags": ["v*"]}}
    jobs = release["jobs"]
    assert jobs["ci"]["uses"] == "./.github/workflows/ci.yml"
    assert jobs["build"]["needs"] == "ci"
    assert "nox -s package -- release" in runs(jobs["build"])
    for name in ("pypi", "npm", "github-release", "pages"):
        assert name in jobs, name
    publish = step_of(jobs["pypi"], "pypa/gh-action-pypi-publish")
    assert jobs["pypi"]["permissions"] == {"id-token": "write"}
    assert jobs["pypi"]["steps"][publish]["with"]["packages-dir"] == "release/dist/"
    assert "npm publish" in runs(jobs["npm"])
    assert jobs["npm"]["permissions"] == {"id-token": "write"}
    assets = shlex.split(runs(jobs["github-release"]).replace("\n", " "))
    assert {"release/suite.tar.gz", "release/site.tar.gz", "release/dist/*"} <= set(assets)


def test_the_pages_cname_comes_from_the_catalog_and_a_mismatch_refuses_the_deploy() -> None:
    jobs = load("release.yml")["jobs"]
    build, pages = jobs["build"], jobs["pages"]
    upload = build["steps"][step_of(build, "actions/upload-pages-artifact")]
    site = upload["with"]["path"]
    assert f"python -m atif_spec.spectools.pages cname {site}" in runs(build)
    assert f"nox -s site -- {site}" in runs(build)
    jobs_text = (WORKFLOWS / "release.yml").read_text(encoding="utf-8").split("\njobs:")[1]
    assert host(load_catalog()) not in jobs_text, "the domain is written by hand"
    configure = step_of(pages, "actions/configure-pages")
    deploy = step_of(pages, "actions/deploy-pages")
    checks = [
        i
        for i, step in enumerate(pages["steps"])
        if "atif_spec.spectools.pages check" in step.get("run", "")
    ]
    assert len(checks) == 1 and configure < checks[0] < deploy
    check = pages["steps"][checks[0]]
    configured = pages["steps"][configure]["id"]
    assert check["env"]["PAGES_URL"] == f"${{{{ steps.{configured}.outputs.base_url }}}}"


def test_actionlint_config_is_read_by_the_ci_session() -> None:
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert '".ci/actionlint.mjs", ".github/actionlint.yaml"' in noxfile
    config = yaml.safe_load((ROOT / ".github" / "actionlint.yaml").read_text(encoding="utf-8"))
    runners = {
        job["runs-on"]
        for path in WORKFLOWS.glob("*.yml")
        for job in load(path.name)["jobs"].values()
        if "runs-on" in job
    }
    assert runners <= set(config["self-hosted-runner"]["labels"]) | {"ubuntu-latest"}


def test_nox_sessions_reads_names_up_to_posargs() -> None:
    assert nox_sessions(".venv/bin/nox -s lint typecheck\nnox -s package -- out") == {
        "lint",
        "typecheck",
        "package",
    }
    assert nox_sessions("echo none") == set()


def test_rfc_section_8_records_the_hosting_and_the_procedure() -> None:
    rfc = (ROOT / "RFC.md").read_text(encoding="utf-8")
    section = rfc.split("\n## 8.")[1].split("\n## 9.")[0]
    for needle in (".github/workflows/release.yml", "atif_spec.spectools.pages cname", "sudo"):
        assert needle in section, needle
    assert load_catalog().base_url in section


def test_ci_run_times_every_stage_and_prints_a_table_even_on_failure() -> None:
    script = ci_run()
    headings = [line for line in script.splitlines() if line.startswith('echo "==')]
    assert headings == ['echo "== all CI stages passed"'], "a stage heading not through stage()"
    prelude = script.split("\ntrap finish EXIT\n")[0].replace('cd "$(dirname "$0")/.."', "")
    mock = prelude + '\ntrap finish EXIT\nstage "first"\nstage "second"\nfalse\n'
    ran = subprocess.run(["bash", "-c", mock], capture_output=True, text=True, check=False)
    assert ran.returncode == 1, ran.stderr
    # bash counts SECONDS in whole seconds of the clock: a stage of no time may show 1 s
    shown = re.sub(r"\b[01] s\b", "N s", ran.stdout).splitlines()
    assert shown[:4] == ["== first", "== N s: first", "== second", "== N s: second"]
    assert shown[4] == "== stage times (total N s, FAILED in the last stage)"
    assert [line.split() for line in shown[5:]] == [["N", "s", "first"], ["N", "s", "second"]]
