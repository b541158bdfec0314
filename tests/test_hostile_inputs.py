"""The hostile-input battery of issue #21: each input once broke a command or misled its user.

Every test names what used to happen; all of them run in the README test command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from atif_spec import validate
from atif_spec.cli import main

from conftest import minimal_atif


def run(*args: str, input: bytes | None = None) -> Any:
    return CliRunner().invoke(main, list(args), input=input)


def write(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(doc))
    return path


def messages(report: Any) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in report.findings]


def test_substep_type_of_any_json_type_is_a_finding_not_a_typeerror() -> None:
    """Was: ``TypeError: unhashable type: 'list'`` in rules/step_substep.py."""
    doc = orjson.loads(
        (
            Path(__file__).parent.parent / "conformance/step-substep/v1.0/valid/tool-lifecycle.json"
        ).read_bytes()
    )
    for value in ([], {}, [[]]):
        for sub in doc["steps"][0]["substeps"]:
            sub["type"] = value
        report = validate(doc)
        assert not report.valid
        assert any(f.code.startswith("schema:") for f in report.findings)


def test_truncated_string_holding_nan_is_truncated_json() -> None:
    """Was: ``input:non-finite-number`` for ``{"a": "x NaN y`` (a string cut short)."""
    [(code, message)] = messages(validate(b'{"schema_version": "ATIF-v1.7", "a": "x NaN y'))
    assert code == "input:invalid-json"
    assert "truncated" in message
    [(code, _)] = messages(validate(b'{"a": "NaN", "b": NaN}'))
    assert code == "input:non-finite-number"


@pytest.mark.parametrize(
    ("data", "kind"),
    [(b"null", "null"), (b"true", "a boolean"), (b"1", "a number"), (b'"s"', "a string")],
)
def test_root_of_each_json_type_is_named_in_json_terms(data: bytes, kind: str) -> None:
    """Was: "the document is a JSON NoneType"."""
    [(code, message)] = messages(validate(data))
    assert code == "input:not-an-object"
    assert message == f"the document is {kind}, not an object"


@pytest.mark.parametrize("bad", ["atif@v2", "nosuch@v1.0", "v9.9", "atif@"])
def test_unknown_as_target_is_a_usage_error(bad: str, tmp_path: Path) -> None:
    """Was: exit 1, blaming the document ("unknown `schema_version` 'ATIF-v1.7'")."""
    doc = write(tmp_path / "t.json", minimal_atif("v1.7"))
    result = run("validate", "--as", bad, str(doc))
    assert result.exit_code == 2, result.output
    assert "--as" in result.output
    assert "schema_version" not in result.output


@pytest.mark.parametrize("declared", ["1.7", "v1.7", "atif-v1.7", "ATIF-v1.7 "])
def test_misspelled_schema_version_gets_a_suggestion(declared: str) -> None:
    """Was: "not a document of any known format" for ``"1.7"``, no suggestion for the rest."""
    doc = minimal_atif("v1.7") | {"schema_version": declared}
    [(code, message)] = messages(validate(doc))
    assert code == "input:unknown-schema-version"
    assert "did you mean ATIF-v1.7?" in message


def test_field_from_a_later_version_names_the_versions_that_have_it() -> None:
    """Was: "unknown field 'is_copied_context' (custom data belongs in an `extra` object)"."""
    doc = minimal_atif("v1.2")
    doc["steps"][0]["is_copied_context"] = True
    doc["steps"][0]["bogus"] = 1
    found = {f.pointer: f.message for f in validate(doc).findings}
    assert "in atif@v1.2 (it is defined in v1.5..v1.8" in found["/steps/0/is_copied_context"]
    assert "extra" in found["/steps/0/bogus"]
