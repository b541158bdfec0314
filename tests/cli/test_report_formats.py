"""``atif validate --format github|sarif|text``: findings placed and in document order, GitHub
workflow commands escaped as GitHub requires, SARIF 2.1.0 valid against its official schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from atif_spec.cli import main
from atif_spec.cli.output import TextRenderer
from atif_spec.cli.report_formats import (
    SRCROOT,
    SarifRenderer,
    annotation,
    escape_data,
    escape_property,
)
from atif_spec.datasets.runner import Summary
from tests.support import ROOT

SARIF_SCHEMA = ROOT / "tests" / "support" / "sarif" / "sarif-schema-2.1.0.json"

# One error per step 2 and a root warning (ATIF102), the agent after the steps.
_TEXT = """{"schema_version": "ATIF-v1.7",
 "steps": [{"step_id": 1, "source": "user", "message": "hi"},
   {"step_id": 3, "source": "bogus", "message": "é"}],
 "agent": {"name": "a", "version": "1"}}
"""
_RECORD = _TEXT.replace("\n", " ")


def _run(*args: str, input: bytes | None = None) -> Any:
    return CliRunner().invoke(main, ["validate", *args], input=input)


@pytest.fixture
def inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A JSON file in a subfolder, and a JSON Lines file with a bad record and an over-long one."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a b.json").write_text(_TEXT)
    (tmp_path / "d.jsonl").write_text(f'{_RECORD}\n{{"x": ]}}\n{" " * 3000}{{}}\n')
    return ["runs/a b.json", "d.jsonl"]


def test_text_is_in_document_order_with_line_and_column(inputs: list[str]) -> None:
    result = _run("--max-bytes", "2000", *inputs)
    assert result.exit_code == 1
    lines = [line.partition(": ") for line in result.output.splitlines()[:-1]]
    places = [(where, rest.split()[0]) for where, _, rest in lines]
    step_id, source = (_RECORD.index(at) + 1 for at in ('3, "source"', '"bogus"'))
    assert places == [
        ("runs/a b.json:1:1", "warning"),
        ("runs/a b.json:3:16", "error"),
        ("runs/a b.json:3:29", "error"),
        ("d.jsonl:1:1", "warning"),
        (f"d.jsonl:1:{step_id}", "error"),
        (f"d.jsonl:1:{source}", "error"),
        ("d.jsonl:2:7", "error"),  # where the parser stopped
        ("d.jsonl:3", "error"),  # too large to read: the record's line only
    ]


def _sarif(inputs: list[str]) -> dict[str, Any]:
    result = _run("--format", "sarif", "--max-bytes", "2000", *inputs)
    assert result.exit_code == 1, result.output
    log: dict[str, Any] = json.loads(result.output)
    return log


def test_sarif_is_valid_against_the_official_schema(inputs: list[str]) -> None:
    schema = json.loads(SARIF_SCHEMA.read_text())
    log = _sarif(inputs)
    jsonschema.Draft4Validator(schema).validate(log)
    # the check can fail: a SARIF log with a column of 0 is refused
    broken = json.loads(json.dumps(log))
    region = broken["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"]
    region["startColumn"] = 0
    assert not jsonschema.Draft4Validator(schema).is_valid(broken)


def test_sarif_results_rules_levels_and_regions(inputs: list[str], tmp_path: Path) -> None:
    run = _sarif(inputs)["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"] == {SRCROOT: {"uri": tmp_path.resolve().as_uri() + "/"}}
    rules = run["tool"]["driver"]["rules"]
    results = run["results"]
    assert [r["ruleId"] for r in results] == [
        "ATIF102",
        "ATIF101",
        "schema:enum",
        "ATIF102",
        "ATIF101",
        "schema:enum",
        "input:invalid-json",
        "input:too-large",
    ]
    assert [r["level"] for r in results] == ["warning", *["error"] * 2] * 2 + ["error"] * 2
    for result in results:  # ruleIndex names the rule, described from the registry
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    atif101 = rules[results[1]["ruleIndex"]]
    assert atif101["name"] == "non-sequential-step-id"
    assert atif101["defaultConfiguration"] == {"level": "error"}
    assert "step_id" in atif101["fullDescription"]["text"]
    assert atif101["help"]["text"].endswith("`atif rules ATIF101` explains it.")
    first = results[1]["locations"][0]
    assert first["physicalLocation"] == {
        "artifactLocation": {"uri": "runs/a%20b.json", "uriBaseId": SRCROOT},
        "region": {"startLine": 3, "startColumn": 16},
    }
    assert first["logicalLocations"] == [
        {"fullyQualifiedName": "/steps/1/step_id", "kind": "value"}
    ]
    assert results[1]["message"]["text"].startswith("/steps/1/step_id: step_id should be 2")
    whole = results[0]["locations"][0]  # the whole document: its first character
    assert whole["physicalLocation"]["region"] == {"startLine": 1, "startColumn": 1}
    assert "logicalLocations" not in whole
    too_large = results[-1]["locations"][0]["physicalLocation"]
    assert too_large == {
        "artifactLocation": {"uri": "d.jsonl", "uriBaseId": SRCROOT},
        "region": {"startLine": 3},
    }


def _parquet_report() -> dict[str, Any]:
    finding = {"code": "ATIF101", "name": "non-sequential-step-id", "level": "error"}
    return {
        "source": "data/t.parquet",
        "line": 5,  # the row
        "format": "atif",
        "version": "v1.7",
        "valid": False,
        "errors": [finding | {"pointer": "/steps/1/step_id", "message": "m"}],
        "warnings": [],
    }


def test_sarif_of_a_parquet_row_and_of_standard_input() -> None:
    sarif = SarifRenderer()
    sarif.document(_parquet_report())
    stdin = _parquet_report() | {"source": "<stdin>", "line": None}
    stdin["errors"] = [stdin["errors"][0] | {"pointer": "", "line": 2, "column": 4}]
    sarif.document(stdin)
    log = sarif.log(Summary(documents=2, invalid=2, errors=2))
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    row, piped = (r["locations"][0] for r in log["runs"][0]["results"])
    assert row == {
        "physicalLocation": {"artifactLocation": {"uri": "data/t.parquet", "uriBaseId": SRCROOT}},
        "logicalLocations": [
            {"name": "row 5", "kind": "element"},
            {"fullyQualifiedName": "/steps/1/step_id", "kind": "value"},
        ],
    }
    assert piped == {
        "physicalLocation": {
            "artifactLocation": {"description": {"text": "standard input"}},
            "region": {"startLine": 2, "startColumn": 4},
        }
    }
    assert log["runs"][0]["properties"]["documents"] == 2


def test_text_of_a_parquet_row_names_the_row(capsys: pytest.CaptureFixture[str]) -> None:
    report = _parquet_report()
    report["warnings"] = [report["errors"][0] | {"level": "warning", "code": "ATIF102"}]
    TextRenderer().document(report)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" /")[0] for line in lines] == [
        "data/t.parquet row 5: error",
        "data/t.parquet row 5: warning",
    ]


def test_github_annotations(inputs: list[str]) -> None:
    result = _run("--format", "github", "--max-bytes", "2000", *inputs)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == (
        "::warning file=runs/a b.json,line=1,col=1,title=ATIF102 missing-root-session-id::"
        "/: the root trajectory has no session_id; set one for run-level traceability"
    )
    assert lines[2] == (
        "::error file=runs/a b.json,line=3,col=29,title=schema%3Aenum schema-enum::"
        "/steps/1/source: 'bogus' is not one of: 'system', 'user', 'agent'"
    )
    assert lines[7].startswith("::error file=d.jsonl,line=3,title=input%3Atoo-large too-large::")
    assert lines[-1] == "4 document(s): 0 valid, 4 invalid; 6 error(s), 2 warning(s)"


def test_github_escaping() -> None:
    assert escape_data("100% sure\r\nnext\x1b[31m") == "100%25 sure%0D%0Anext\\x1b[31m"
    assert escape_property("a:b,c%d\ne") == "a%3Ab%2Cc%25d%0Ae"
    assert escape_data("a:b,c") == "a:b,c"  # only properties escape : and ,
    report = _parquet_report() | {"source": "we,ird:na%me\n.parquet"}
    report["errors"][0]["message"] = "line one\nline two: 50%"
    assert annotation(report, report["errors"][0]) == (
        "::error file=we%2Cird%3Ana%25me%0A.parquet,title=ATIF101 non-sequential-step-id::"
        "row 5 /steps/1/step_id: line one%0Aline two: 50%25"
    )


def test_github_annotation_of_standard_input_has_no_file() -> None:
    report = _parquet_report() | {"source": "<stdin>", "line": 3}
    assert annotation(report, report["errors"][0]).startswith("::error line=3,title=ATIF101 ")
