"""The `atif` command: exit codes, output formats, inputs, and the schema subcommands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from atif_spec.cli import main
from tests.support.documents import minimal_atif


def run(*args: str, input: bytes | None = None) -> Any:
    return CliRunner().invoke(main, list(args), input=input)


def write(path: Path, doc: Any) -> Path:
    path.write_bytes(orjson.dumps(doc))
    return path


@pytest.fixture
def good(tmp_path: Path) -> Path:
    return write(tmp_path / "good.json", minimal_atif("v1.7"))


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    doc = minimal_atif("v1.7")
    doc["steps"][0]["step_id"] = 3
    return write(tmp_path / "bad.json", doc)


def test_valid_file_exits_0(good: Path) -> None:
    result = run("validate", str(good))
    assert result.exit_code == 0, result.output
    assert "1 valid, 0 invalid" in result.output


def test_invalid_file_exits_1_with_located_finding(bad: Path) -> None:
    result = run("validate", str(bad))
    assert result.exit_code == 1
    column = bad.read_text().index('"step_id":3') + len('"step_id":') + 1
    where = f"{bad}:1:{column}: error"
    assert f"{where} /steps/0/step_id ATIF101 non-sequential-step-id:" in result.output


def test_missing_path_exits_2(tmp_path: Path) -> None:
    result = run("validate", str(tmp_path / "nope.json"))
    assert result.exit_code == 2
    assert "no such file or directory" in result.output


def test_bad_target_is_a_usage_error(good: Path) -> None:
    assert run("validate", "--as", "atif@1.7", str(good)).exit_code == 2


def test_json_format_one_line_per_document(tmp_path: Path, good: Path, bad: Path) -> None:
    result = run("validate", "--format", "json", str(good), str(bad))
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [(r["source"], r["valid"]) for r in lines] == [(str(good), True), (str(bad), False)]
    assert lines[1]["errors"][0]["code"] == "ATIF101"


def test_directory_is_walked_recursively(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    write(tmp_path / "a" / "one.json", minimal_atif("v1.2"))
    write(tmp_path / "a" / "b" / "two.json", minimal_atif("v1.4"))
    (tmp_path / "a" / "notes.txt").write_text("not a trajectory")
    result = run("validate", "--format", "json", str(tmp_path))
    assert [json.loads(x)["version"] for x in result.output.splitlines()] == ["v1.4", "v1.2"]


def test_json_lines_with_line_numbers_and_bad_rows(tmp_path: Path) -> None:
    rows = [orjson.dumps(minimal_atif("v1.6")), b"", b'{"truncated": ', b"[1, 2]"]
    f = tmp_path / "data.jsonl"
    f.write_bytes(b"\n".join(rows) + b"\n")
    result = run("validate", "--format", "json", str(f))
    reports = [json.loads(x) for x in result.output.splitlines()]
    assert [(r["line"], r["valid"]) for r in reports] == [(1, True), (3, False), (4, False)]
    assert result.exit_code == 1


def test_oversized_record_is_reported_and_skipped(tmp_path: Path) -> None:
    big = orjson.dumps(minimal_atif("v1.6") | {"notes": "x" * 5000})
    f = tmp_path / "data.jsonl"
    f.write_bytes(big + b"\n" + orjson.dumps(minimal_atif("v1.6")) + b"\n")
    result = run("validate", "--format", "json", "--max-bytes", "1000", str(f))
    reports = [json.loads(x) for x in result.output.splitlines()]
    assert reports[0]["errors"][0]["code"] == "input:too-large"
    assert (reports[1]["line"], reports[1]["valid"]) == (2, True)


def test_stdin_document_and_lines() -> None:
    one = orjson.dumps(minimal_atif("v1.3"))
    assert run("validate", "-", input=one).exit_code == 0
    result = run("validate", "--format", "json", "-", input=one + b"\n" + one + b"\n")
    assert [json.loads(x)["line"] for x in result.output.splitlines()] == [1, 2]


def test_strict_makes_warnings_fail(tmp_path: Path) -> None:
    doc = minimal_atif("v1.7")
    del doc["session_id"]
    f = write(tmp_path / "w.json", doc)
    assert run("validate", str(f)).exit_code == 0
    assert run("validate", "--strict", str(f)).exit_code == 1


def test_jobs_give_the_same_reports_in_order(tmp_path: Path) -> None:
    docs = []
    for i in range(300):
        doc = minimal_atif("v1.7")
        doc["steps"][0]["step_id"] = 1 + (i % 3 == 0)
        docs.append(orjson.dumps(doc))
    f = tmp_path / "many.jsonl"
    f.write_bytes(b"\n".join(docs) + b"\n")
    one = run("validate", "--format", "json", str(f)).output
    two = run("validate", "--format", "json", "--jobs", "2", str(f)).output
    assert one == two
    assert one.count('"valid":false') == 100


def test_duplicate_keys_opt_in(tmp_path: Path) -> None:
    text = (
        orjson.dumps(minimal_atif("v1.7"))
        .decode()
        .replace('"agent":', '"notes":"a","notes":"b","agent":')
    )
    f = tmp_path / "dup.json"
    f.write_text(text)
    assert "duplicate-key" not in run("validate", str(f)).output
    out = run("validate", "--check-duplicate-keys", str(f)).output
    assert "input:duplicate-key" in out and "'notes'" in out


def test_rules_lists_the_registry_as_text_and_json() -> None:
    text = run("rules").output
    assert "ATIF101" in text and "non-sequential-step-id" in text
    rows = [
        json.loads(x)
        for x in run("rules", "--format", "json", "--for", "atif@v1.2").output.splitlines()
    ]
    assert rows and all("v1.2" in r["versions"] and r["format"] == "atif" for r in rows)
    assert "ATIF303" not in {r["code"] for r in rows}


def test_schema_list_show_path() -> None:
    listing = run("schema", "list").output
    assert "https://atif-spec.org/schemas/atif/v1.7/trajectory.schema.json" in listing
    shown = json.loads(run("schema", "show", "atif@v1.7").output)
    assert shown["$id"].endswith("/atif/v1.7/trajectory.schema.json")
    path = Path(run("schema", "path", "atif@v1.7").output.strip())
    assert json.loads(path.read_text()) == shown
    assert json.loads(run("schema", "show", "atif").output)["$id"].endswith(
        "/atif/trajectory.schema.json"
    )
    assert run("schema", "show", "atif@v9.9").exit_code == 2


def test_console_script_runs_as_a_process(good: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "atif_spec.cli", "validate", str(good)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


def test_json_reports_follow_the_report_schema(tmp_path: Path, good: Path, bad: Path) -> None:
    import jsonschema

    from atif_spec.schemas.catalog import schema_by_id
    from atif_spec.schemas.compiled import referencing_registry

    schema = schema_by_id(
        "https://atif-spec.org/schemas/atif-spec/v1/validation-report.schema.json"
    )
    validator = jsonschema.Draft202012Validator(schema, registry=referencing_registry())
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b'{"a": \n[]\n' + orjson.dumps(minimal_atif("v1.1")) + b"\n")
    output = run("validate", "--format", "json", str(good), str(bad), str(junk)).output
    lines = [json.loads(x) for x in output.splitlines()]
    assert len(lines) == 5
    for line in lines:
        validator.validate(line)


def test_jobs_split_json_lines_files_into_ranges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With several processes the workers read newline-aligned ranges themselves; line numbers,
    blank lines, bad rows, oversized records and a last line without a newline survive."""
    from atif_spec.datasets import runner

    monkeypatch.setattr(runner, "PIECE_BYTES", 700)
    good = orjson.dumps(minimal_atif("v1.7"))
    bad = minimal_atif("v1.7")
    bad["steps"][0]["step_id"] = 5
    rows = []
    for i in range(60):
        rows.append(orjson.dumps(bad) if i % 7 == 0 else good)
        if i % 11 == 0:
            rows.append(b"")
        if i % 13 == 0:
            rows.append(b'{"truncated": ')
    rows.append(orjson.dumps(minimal_atif("v1.6") | {"notes": "y" * 3000}))
    f = tmp_path / "ranges.jsonl"
    f.write_bytes(b"\n".join(rows))  # no newline after the last record
    args = ["validate", "--format", "json", "--max-bytes", "2500", str(f)]
    one = run(*args).output
    two = run(*args, "--jobs", "2").output
    assert one == two
    lines = [json.loads(x)["line"] for x in one.splitlines()]
    assert lines == sorted(lines) and lines[-1] == len(rows)


def test_the_command_line_has_one_home() -> None:
    """Only atif_spec.cli parses arguments (click) and the library never imports the CLI; every
    command is registered in the one group."""
    import ast
    from pathlib import Path

    import atif_spec
    from atif_spec.cli import main

    package = Path(atif_spec.__file__).parent
    offenders = []
    for path in package.rglob("*.py"):
        rel = path.relative_to(package)
        if rel.parts[0] in ("cli",) or rel.name == "__main__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n == "click" or n.startswith("atif_spec.cli") for n in names):
                offenders.append(str(rel))
    assert offenders == []
    expected = {
        "conformance",
        "convert",
        "export-sft",
        "migrate",
        "render",
        "rules",
        "schema",
        "spec",
        "validate",
    }
    assert expected <= set(main.list_commands(None))  # type: ignore[arg-type]
    for name in expected:
        assert main.get_command(None, name) is not None, name  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "args",
    [
        ["validate"],
        ["validate", "--summary", "{tmp}/summary.json"],
        ["stats"],
        ["view", "-o", "{tmp}/page.html"],
        ["export-sft", "-o", "{tmp}/sft.jsonl"],
        ["migrate", "--to", "v1.6"],
        ["convert", "--to", "atif@v1.7"],
        ["convert", "--to", "atif@v1.7", "-j", "2"],
    ],
    ids=lambda a: "-".join(a[:1] + [x.lstrip("-") for x in a[1:2]]),
)
@pytest.mark.parametrize("holding", ["nothing", "text files", "a fifo"])
def test_nothing_found_is_one_error_line_and_exit_2(
    tmp_path: Path, args: list[str], holding: str
) -> None:
    """Was: "0 document(s)" and exit 0, so a CI job given a wrong path passed (issue 35 item 4):
    one rule, one message, one exit status for every command that reads documents."""
    folder = tmp_path / "in"
    folder.mkdir()
    if holding == "text files":
        (folder / "notes.txt").write_text("{}")
    elif holding == "a fifo":
        os.mkfifo(folder / "pipe.json")
    result = CliRunner().invoke(
        main, [args[0], str(folder), *(a.format(tmp=tmp_path) for a in args[1:])]
    )
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines()[-1].startswith(f"atif: no document files in {folder}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]  # nothing was written


@pytest.mark.parametrize("where", ["file", "folder", "jobs"])
def test_convert_to_an_unknown_target_is_a_usage_error(tmp_path: Path, where: str) -> None:
    """Was: a KeyError traceback and exit 1 (issue 35 item 2); migrate already said so."""
    source = tmp_path / "t.json"
    source.write_bytes(orjson.dumps(minimal_atif("v1.7")))
    given = str(tmp_path) if where == "folder" else str(source)
    extra = ["-j", "2"] if where == "jobs" else []
    result = CliRunner().invoke(main, ["convert", given, "--to", "nonsense", *extra])
    assert result.exit_code == 2, result.output
    assert "unknown format 'nonsense'" in result.output
    assert "Traceback" not in result.output
