"""The conformance runner, its protocol and its report (``atif conformance run``).

Real adapters (ours) and small fake ones written to a temporary folder: one that guesses the
verdict from the case id, one that accepts everything, and ones that crash, hang or print
garbage on a chosen case.
"""

from __future__ import annotations

import json
import shlex
import sys
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

import atif_spec
from atif_spec.cli.conformance import conformance
from atif_spec.conformance.grading import grade
from atif_spec.conformance.process import MAX_RESPONSE_BYTES, MAX_STDERR_LINE_BYTES
from atif_spec.conformance.protocol import Capabilities
from atif_spec.conformance.suite import SkipList, load_suite, manifests
from atif_spec.schemas.catalog import UnknownSchemaError, load_catalog
from tests.support import ROOT

SUITE = ROOT / "conformance"
OUR_ADAPTER = ROOT / "conformance" / "adapters" / "atif_spec_adapter.py"
SCHEMAS = ROOT / "spec" / "atif-spec" / "v1"
BASE = "https://atif-spec.org/schemas/atif-spec/v1/"
V1_0 = [c for c in load_suite(SUITE) if c.id.startswith("atif-v1.0-")]

FAKE = """
import json, os, sys, time
mode, target = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
record = os.environ.get("FAKE_RECORD")
for line in sys.stdin:
    if record:
        with open(record, "a") as f:
            f.write(line)
    req = json.loads(line)
    if req["cmd"] == "stop":
        break
    if req["cmd"] == "start":
        out = {"protocol": 1, "implementation": {"name": "fake-" + mode, "version": "0"},
               "formats": json.loads(os.environ.get("FAKE_FORMATS", '["atif"]')),
               "profiles": json.loads(os.environ.get("FAKE_PROFILES",
                                      '["schema", "must", "should", "files"]')),
               "findings": False}
    else:
        if req["id"] == target:
            if mode == "crash":
                print("boom", file=sys.stderr)
                sys.exit(3)
            if mode == "garbage":
                print("this is not json", flush=True)
                continue
            if mode == "wrong-shape":
                print(json.dumps({"id": req["id"], "verdict": True}), flush=True)
                continue
            if mode == "wrong-id":
                print(json.dumps({"id": "other", "valid": True}), flush=True)
                continue
            if mode == "hang":
                time.sleep(600)
            if mode.startswith("endless-"):  # one line that never ends
                stream = sys.stdout if mode == "endless-stdout" else sys.stderr
                while True:
                    stream.write("x" * 65536)
        valid = True if mode == "accept-all" else "-invalid-" not in req["id"]
        out = {"id": req["id"], "valid": valid}
    print(json.dumps(out), flush=True)
"""


@pytest.fixture
def fake(tmp_path: Path) -> Path:
    path = tmp_path / "fake_adapter.py"
    path.write_text(FAKE, encoding="utf-8")
    return path


def impl(script: Path, *args: str) -> str:
    return shlex.join([sys.executable, str(script), *args])


def run(*args: str, report: Path | None = None) -> Result:
    argv = ["run", "--suite", str(SUITE), *args]
    if report is not None:
        argv += ["--report", str(report)]
    return CliRunner().invoke(conformance, argv, catch_exceptions=False)


def read_report(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def outcomes(lines: list[dict[str, Any]]) -> dict[str, str]:
    return {line["id"]: line["outcome"] for line in lines if line["type"] == "case"}


def schema_validator(name: str) -> Draft202012Validator:
    resources = [
        (s["$id"], DRAFT202012.create_resource(s))
        for s in (json.loads(p.read_text()) for p in SCHEMAS.glob("conformance-*.schema.json"))
    ]
    registry: Registry[Any] = Registry().with_resources(resources)
    return Draft202012Validator({"$ref": BASE + name}, registry=registry)


def assert_report_valid(lines: list[dict[str, Any]]) -> None:
    validator = schema_validator("conformance-report.schema.json")
    for line in lines:
        errors = [e.message for e in validator.iter_errors(line)]
        assert errors == [], line
    assert lines[0]["type"] == "header"
    assert lines[-1]["type"] == "summary" and lines[-1]["scope"] == "total"


# ------------------------------------------------------------------------------ our adapter


def test_round_trip_with_our_adapter(tmp_path: Path) -> None:
    """Our adapter passes a few cases of each category; the report says who ran and how."""
    report = tmp_path / "ours.jsonl"
    only = [
        "atif-v1.7-valid-rich",
        "atif-v1.7-invalid-step-id-gap",
        "atif-v1.7-invalid-image-file-missing",
        "atif-v1.7-warning-duplicate-tool-call-id",
    ]
    result = run("--impl", impl(OUR_ADAPTER), *(f"--only={o}" for o in only), report=report)
    assert result.exit_code == 0, result.output
    lines = read_report(report)
    assert_report_valid(lines)
    head = lines[0]
    assert head["implementation"]["implementation"]["name"] == "atif-spec"
    assert head["implementation"]["findings"] is True
    assert head["filters"]["only"] == only
    assert outcomes(lines) == dict.fromkeys(only, "passed")
    assert "PASS:" in result.output


def test_our_adapter_passes_the_whole_suite(tmp_path: Path) -> None:
    """Every case our adapter can run passes; the only skipped cases are formats whose schemas
    are not in the catalog (counted, with that reason)."""
    report = tmp_path / "ours.jsonl"
    result = run("--impl", impl(OUR_ADAPTER), report=report)
    assert result.exit_code == 0, result.output
    lines = read_report(report)
    assert_report_valid(lines)
    cases = [line for line in lines if line["type"] == "case"]
    assert len(cases) == len(load_suite(SUITE))
    assert Counter(c["outcome"] for c in cases).keys() <= {"passed", "skipped"}
    assert not [c["id"] for c in cases if c["outcome"] == "skipped" and c["format"] == "atif"]
    assert all("not supported" in c["reason"] for c in cases if c["outcome"] == "skipped")
    assert sum(c["outcome"] == "passed" for c in cases) >= 500


def test_findings_are_compared_for_implementations_that_report_them(tmp_path: Path) -> None:
    """A verdict with findings other than the expected ones fails even when valid/invalid is
    right; the report lists what is missing and what is unexpected."""
    case = next(c for c in load_suite(SUITE) if c.id == "atif-v1.0-invalid-step-id-gap")
    caps = Capabilities(
        {
            "protocol": 1,
            "implementation": {"name": "x", "version": "1"},
            "formats": ["atif"],
            "profiles": ["schema", "must"],
            "findings": True,
        }
    )
    wrong = grade(
        case, caps, {"id": case.id, "valid": False, "errors": [{"code": "X", "pointer": ""}]}
    )
    assert wrong.outcome == "failed"
    assert wrong.unexpected == [("X", "")]
    assert wrong.missing == sorted(case.expected)
    right = [{"code": c, "pointer": p} for c, p in case.expected]
    ok = grade(case, caps, {"id": case.id, "valid": False, "errors": right, "warnings": right})
    assert ok.outcome == "passed"  # warnings are ignored without the `should` profile
    strict = Capabilities({**caps.raw, "profiles": ["schema", "must", "should"]})
    extra = grade(case, strict, {"id": case.id, "valid": False, "errors": right, "warnings": right})
    assert extra.outcome == "failed" and extra.unexpected == sorted(case.expected)


# ------------------------------------------------------------------------------ broken adapters


def test_accept_everything_adapter_fails_with_a_clear_summary(tmp_path: Path, fake: Path) -> None:
    """An adapter that says `valid` to everything fails every invalid case and the run."""
    report = tmp_path / "all.jsonl"
    result = run("--impl", impl(fake, "accept-all"), "--only", "atif-v1.0-*", report=report)
    assert result.exit_code == 1
    lines = read_report(report)
    assert_report_valid(lines)
    for line in lines:
        if line["type"] == "case":
            expected = "failed" if line["category"] == "invalid" else "passed"
            assert line["outcome"] == expected, line["id"]
    assert "FAILED   atif-v1.0-invalid-step-id-gap: answered valid, the case is invalid" in (
        result.output
    )
    n_invalid = sum(c.category == "invalid" for c in V1_0)
    assert f"FAIL: {len(V1_0) - n_invalid} passed, {n_invalid} failed, 0 errored, 0 skipped" in (
        result.output
    )


def test_verdict_only_adapter_passes_by_verdict(tmp_path: Path, fake: Path) -> None:
    """Without findings, only the verdict is graded: a correct verdict passes."""
    result = run("--impl", impl(fake, "verdict"), "--only", "atif-v1.8-*")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("crash", "the implementation exited (status 3)"),
        ("garbage", "not a JSON line on standard output"),
        ("wrong-shape", "not a protocol response"),
        ("wrong-id", "answer is for case 'other'"),
        ("hang", "no answer within 0.5 s"),
    ],
)
def test_broken_answer_is_errored_and_the_run_goes_on(
    tmp_path: Path, fake: Path, mode: str, reason: str
) -> None:
    """A crash, garbage on stdout, a non-protocol object or a hang make that one case
    `errored`; the adapter is restarted, the other cases still pass, and the run fails."""
    bad = "atif-v1.0-invalid-step-id-gap"
    report = tmp_path / f"{mode}.jsonl"
    result = run(
        "--impl",
        impl(fake, mode, bad),
        "--only",
        "atif-v1.0-invalid-*",
        "--timeout",
        "0.5",
        report=report,
    )
    assert result.exit_code == 1
    lines = read_report(report)
    assert_report_valid(lines)
    got = outcomes(lines)
    assert got.pop(bad) == "errored"
    assert set(got.values()) == {"passed"}
    line = next(x for x in lines if x.get("id") == bad)
    assert reason in line["reason"]
    if mode == "crash":
        assert line["messages"] == ["boom"]
    assert f"ERRORED  {bad}: " in result.output


@pytest.mark.parametrize(
    ("stream", "reason"),
    [
        ("stdout", "a line on standard output is longer than 64 MiB: 'xxxx"),
        ("stderr", "no answer within 3 s"),
    ],
)
def test_endless_line_is_an_adapter_error_in_bounded_memory(
    tmp_path: Path, fake: Path, stream: str, reason: str
) -> None:
    """Was: the runner read the line whole (2.3 GB in 5 s). On stdout it is an adapter error as
    soon as it passes MAX_RESPONSE_BYTES; on stderr only its first MAX_STDERR_LINE_BYTES are
    kept (the case errors for want of an answer). The run goes on."""
    bad = "atif-v1.0-invalid-step-id-gap"
    report = tmp_path / f"{stream}.jsonl"
    tracemalloc.start()
    try:
        result = run(
            "--impl",
            impl(fake, f"endless-{stream}", bad),
            "--only",
            "atif-v1.0-invalid-step-*",
            "--timeout",
            "3",
            report=report,
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * MAX_RESPONSE_BYTES, f"{peak / 2**20:.0f} MiB"
    assert result.exit_code == 1
    lines = read_report(report)
    assert_report_valid(lines)
    got = outcomes(lines)
    assert got.pop(bad) == "errored"
    assert got and set(got.values()) == {"passed"}
    line = next(x for x in lines if x.get("id") == bad)
    assert line["reason"].startswith(reason)
    if stream == "stderr":
        [cut] = line["messages"]
        assert cut == "x" * MAX_STDERR_LINE_BYTES + "… (line cut)"


def test_adapter_that_cannot_start_errors_every_case(tmp_path: Path) -> None:
    """A command that does not exist: every case is errored, the header has no
    implementation, and the summary says so."""
    report = tmp_path / "none.jsonl"
    result = run(
        "--impl", str(tmp_path / "no-such-adapter"), "--only", "atif-v1.1-*", report=report
    )
    assert result.exit_code == 1
    lines = read_report(report)
    assert_report_valid(lines)
    assert lines[0]["implementation"] is None
    assert set(outcomes(lines).values()) == {"errored"}
    assert "implementation: did not start" in result.output


def test_unsupported_profiles_and_formats_are_skipped_not_passed(
    tmp_path: Path, fake: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cases needing a profile the implementation lacks are never sent: they are skipped
    with the reason, counted in the summary, and do not fail the run."""
    monkeypatch.setenv("FAKE_PROFILES", '["schema"]')
    monkeypatch.setenv("FAKE_FORMATS", '["atif@v1.2"]')
    report = tmp_path / "schema-only.jsonl"
    result = run("--impl", impl(fake, "verdict"), "--only", "atif-v1.[23]-*", report=report)
    assert result.exit_code == 0, result.output
    cases = [x for x in read_report(report) if x["type"] == "case"]
    for c in cases:
        if c["version"] == "v1.3":
            assert (c["outcome"], c["reason"]) == ("skipped", "format atif@v1.3 not supported")
        elif c["profiles"] != ["schema"]:
            assert c["outcome"] == "skipped" and "not supported" in c["reason"], c
        else:
            assert c["outcome"] == "passed"
    total = read_report(report)[-1]
    assert total["skipped"] == sum(c["outcome"] == "skipped" for c in cases) > 0


# ------------------------------------------------------------------------------ options


def test_only_selects_cases_by_pattern(tmp_path: Path) -> None:
    report = tmp_path / "only.jsonl"
    pattern = "atif-v1.6-warning-*"
    result = run("--impl", impl(OUR_ADAPTER), "--only", pattern, report=report)
    assert result.exit_code == 0
    expected = {c.id for c in load_suite(SUITE) if c.id.startswith("atif-v1.6-warning-")}
    assert set(outcomes(read_report(report))) == expected


def test_only_matching_nothing_is_a_usage_error() -> None:
    result = run("--impl", impl(OUR_ADAPTER), "--only", "no-such-case-*")
    assert result.exit_code == 2
    assert "no case id matches" in result.output


def test_skip_file_skips_with_its_reason(tmp_path: Path, fake: Path) -> None:
    """Cases listed in --skip-file are skipped with the reason after '#', and a known failure
    listed there no longer fails the run."""
    skip = tmp_path / "skip.txt"
    skip.write_text("# known differences\natif-v1.0-invalid-*  # accepts everything\n")
    report = tmp_path / "skip.jsonl"
    result = run(
        "--impl",
        impl(fake, "accept-all"),
        "--only",
        "atif-v1.0-*",
        "--skip-file",
        str(skip),
        report=report,
    )
    assert result.exit_code == 0, result.output
    lines = read_report(report)
    assert lines[0]["filters"]["skip_file"] == str(skip)
    for line in lines:
        if line["type"] == "case" and line["category"] == "invalid":
            assert (line["outcome"], line["reason"]) == ("skipped", "skip file: accepts everything")
    assert SkipList.parse("a-*\n\n# c\n").reason("a-b") == "listed in the skip file"


def test_requests_follow_the_request_schema(
    tmp_path: Path, fake: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every line the runner sends validates against the request schema: start first, stop
    last, one run per case carrying the case's file location and, when set, its target."""
    record = tmp_path / "requests.jsonl"
    monkeypatch.setenv("FAKE_RECORD", str(record))
    result = run("--impl", impl(fake, "verdict"), "--only", "atif-v1.7-invalid-*")
    assert result.exit_code == 0, result.output
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    validator = schema_validator("conformance-request.schema.json")
    for r in requests:
        assert [e.message for e in validator.iter_errors(r)] == []
    assert [requests[0]["cmd"], requests[-1]["cmd"]] == ["start", "stop"]
    runs = [r for r in requests if r["cmd"] == "run"]
    for r in runs:
        path = Path(r["folder"]) / r["filename"]
        assert json.loads(path.read_text()) == r["document"]
    assert any(r.get("target") == "atif@v1.7" for r in runs)


def test_compare_prints_pass_rates_side_by_side(tmp_path: Path, fake: Path) -> None:
    ours, theirs = tmp_path / "ours.jsonl", tmp_path / "theirs.jsonl"
    run("--impl", impl(OUR_ADAPTER), "--only", "atif-v1.0-*", report=ours)
    run("--impl", impl(fake, "accept-all"), "--only", "atif-v1.0-*", report=theirs)
    result = CliRunner().invoke(conformance, ["compare", str(ours), str(theirs)])
    assert result.exit_code == 0
    head, row, total = result.output.splitlines()
    assert f"atif-spec {atif_spec.__version__}" in head and "fake-accept-all 0" in head
    n, n_valid = len(V1_0), sum(c.category != "invalid" for c in V1_0)
    assert row.startswith("atif@v1.0")
    assert f"100.0% ({n}/{n}, 0 skipped)" in row
    assert f"{100 * n_valid / n:.1f}% ({n_valid}/{n}, 0 skipped)" in row
    assert total.startswith("total")


# ------------------------------------------------------------------------------ lint


def catalogued_formats() -> list[str]:
    """Formats of the suite whose every version has a schema in the catalog."""
    by_format: dict[str, list[str]] = {}
    for path in manifests(SUITE):
        by_format.setdefault(path.parent.parent.name, []).append(path.parent.name)

    def known(fmt: str, version: str) -> bool:
        try:
            load_catalog().find(f"{fmt}@{version}")
        except UnknownSchemaError:
            return False
        return True

    return [f for f, vs in by_format.items() if all(known(f, v) for v in vs)]


def test_lint_passes_on_the_suite() -> None:
    """Every invariant holds for the fixtures of every format our validator can validate
    (a format whose schemas are not in the catalog yet is left out)."""
    formats = catalogued_formats()
    assert "atif" in formats
    args = ["lint", "--suite", str(SUITE), *(f"--format={f}" for f in formats)]
    result = CliRunner().invoke(conformance, args)
    assert result.exit_code == 0, result.output
    assert "fixtures OK" in result.output


def test_lint_reports_each_broken_invariant(tmp_path: Path) -> None:
    """A copy of one version with a duplicated id, a renamed id, a repeated description, a
    stray file, a file that does not parse and a wrong expectation: each is reported."""
    import shutil

    root = tmp_path / "suite"
    shutil.copytree(SUITE / "atif" / "v1.0", root / "atif" / "v1.0")
    manifest = root / "atif" / "v1.0" / "manifest.json"
    data = json.loads(manifest.read_text())
    cases = data["cases"]
    cases[1]["id"] = cases[0]["id"]
    cases[2]["id"] = "atif-v1.0-valid-renamed"
    cases[3]["description"] = cases[4]["description"]
    gap = next(c for c in cases if c["id"] == "atif-v1.0-invalid-step-id-gap")
    gap["expected"] = [{"code": "ATIF101", "pointer": "/steps/0/step_id"}]
    manifest.write_text(json.dumps(data))
    (root / "atif" / "v1.0" / "valid" / "stray.json").write_text("{not json")
    result = CliRunner().invoke(conformance, ["lint", "--suite", str(root)])
    assert result.exit_code == 1
    out = result.output
    assert f"{cases[0]['id']}: [unique-id] used by 2 cases" in out
    assert "atif-v1.0-valid-renamed: [stable-id]" in out
    assert "[unique-description]" in out
    assert "stray.json: [files] belongs to 0 cases" in out
    assert "stray.json: [parses]" in out
    assert "atif-v1.0-invalid-step-id-gap: [our-validator] unexpected finding" in out
    assert "atif-v1.0-invalid-step-id-gap: [our-validator] expected finding not reported" in out


def test_known_differences_name_existing_cases_in_explained_groups() -> None:
    """Every case in KNOWN-DIFFERENCES.md's generated table exists in the suite and links to a
    group that the document explains (a heading of its own)."""
    import re

    text = (SUITE / "KNOWN-DIFFERENCES.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)` \| \w+ \| \w+ \| \[([\w-]+)\]\(#([\w-]+)\) \|$", text, re.M)
    assert rows
    ids = {c.id for c in load_suite(SUITE)}
    headings = set(re.findall(r"^### `([\w-]+)`$", text, re.M))
    assert [case_id for case_id, _, _ in rows if case_id not in ids] == []
    assert {group for _, group, anchor in rows if group == anchor} <= headings
    assert all(group == anchor for _, group, anchor in rows)
