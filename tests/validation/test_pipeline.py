"""The validation pipeline: detection, schema findings, rules, bad input, and the oracle."""

from __future__ import annotations

import copy
import pathlib
from typing import Any

import jsonschema
import orjson
import pytest

from atif_spec import validate
from atif_spec.schemas.catalog import load_catalog, schema_by_id
from atif_spec.schemas.compiled import referencing_registry
from atif_spec.validation.findings import Report
from tests.support.documents import ATIF_VERSIONS, minimal_atif


def codes(report: Report) -> list[tuple[str, str]]:
    return sorted((f.code, f.pointer) for f in report.findings)


def oracle_valid(version: str, doc: Any) -> bool:
    """python-jsonschema's verdict, the reference oracle."""
    entry = load_catalog().find(f"atif@{version}")
    validator = jsonschema.Draft202012Validator(
        schema_by_id(entry.id), registry=referencing_registry()
    )
    return bool(validator.is_valid(doc))


def _ref_doc(version: str, ref: dict[str, Any]) -> dict[str, Any]:
    doc = minimal_atif(version)
    doc["steps"][0]["observation"] = {
        "results": [{"content": "done", "subagent_trajectory_ref": [ref]}]
    }
    return doc


def _user_step_with_tool_calls(version: str) -> dict[str, Any]:
    doc = minimal_atif(version)
    doc["steps"].insert(0, {"step_id": 1, "source": "user", "message": "hi", "tool_calls": []})
    doc["steps"][1]["step_id"] = 2
    return doc


# Each version rejects, with the listed finding: (name, build, expected (code, pointer)).
REJECTED: list[tuple[str, Any, tuple[str, str]]] = [
    (
        "missing-schema-version",
        lambda v: {k: x for k, x in minimal_atif(v).items() if k != "schema_version"},
        ("input:missing-schema-version", ""),
    ),
    (
        "unknown-key-on-closed-object",
        lambda v: (d := minimal_atif(v), d["agent"].update(colour="red"), d)[-1],
        ("schema:additionalProperties", "/agent/colour"),
    ),
    ("tool-calls-on-user-step", _user_step_with_tool_calls, ("schema:type", "/steps/0/tool_calls")),
    (
        "empty-steps",
        lambda v: (d := minimal_atif(v), d.update(steps=[]), d)[-1],
        ("schema:minItems", "/steps"),
    ),
    (
        "message-null",
        lambda v: (d := minimal_atif(v), d["steps"][0].update(message=None), d)[-1],
        ("schema:type", "/steps/0/message"),
    ),
    (
        "arguments-as-string",
        lambda v: (
            d := minimal_atif(v),
            d["steps"][0].update(
                tool_calls=[{"tool_call_id": "c", "function_name": "f", "arguments": "{}"}]
            ),
            d,
        )[-1],
        ("schema:type", "/steps/0/tool_calls/0/arguments"),
    ),
    (
        "space-separated-timestamp",
        lambda v: (d := minimal_atif(v), d["steps"][0].update(timestamp="2025-10-11 10:30:00Z"), d)[
            -1
        ],
        ("schema:pattern", "/steps/0/timestamp"),
    ),
]


@pytest.mark.parametrize("version", ATIF_VERSIONS)
@pytest.mark.parametrize(("name", "build", "expected"), REJECTED, ids=[r[0] for r in REJECTED])
def test_each_version_rejects(
    version: str, name: str, build: Any, expected: tuple[str, str]
) -> None:
    doc = build(version)
    report = validate(doc)
    assert not report.valid
    assert expected in codes(report), codes(report)
    if expected[0].startswith("schema:"):
        assert not oracle_valid(version, doc)


@pytest.mark.parametrize("version", ATIF_VERSIONS)
def test_wrong_schema_version_constant(version: str) -> None:
    doc = minimal_atif(version)
    other = "v1.0" if version != "v1.0" else "v1.1"
    report = validate(doc, as_target=f"atif@{other}")
    assert ("schema:const", "/schema_version") in codes(report)


@pytest.mark.parametrize("version", ATIF_VERSIONS)
def test_minimal_documents_are_valid_in_both_validators(version: str) -> None:
    doc = minimal_atif(version)
    if version >= "v1.7":
        del doc["session_id"]
        doc["session_id"] = "s"
    assert validate(doc).valid
    assert oracle_valid(version, doc)


@pytest.mark.parametrize("version", ATIF_VERSIONS)
def test_session_id_only_ref(version: str) -> None:
    """A session_id-only ref is valid up to v1.6 and invalid from v1.7, at the ref's pointer."""
    doc = _ref_doc(version, {"session_id": "sub-1"})
    report = validate(doc)
    pointer = "/steps/0/observation/results/0/subagent_trajectory_ref/0"
    if version < "v1.7":
        assert report.valid, codes(report)
    else:
        assert codes(report) == [("schema:anyOf", pointer)]
    assert oracle_valid(version, doc) is (version < "v1.7")


@pytest.mark.parametrize("version", ["v1.7", "v1.8"])
def test_metrics_on_deterministic_step(version: str) -> None:
    doc = minimal_atif(version)
    doc["steps"][0].update(llm_call_count=0, metrics={"prompt_tokens": 1}, reasoning_content="r")
    assert codes(validate(doc)) == [
        ("schema:type", "/steps/0/metrics"),
        ("schema:type", "/steps/0/reasoning_content"),
    ]
    allowed = minimal_atif(version)
    allowed["steps"][0].update(llm_call_count=0, model_name="router", tool_calls=[])
    assert validate(allowed).valid


@pytest.mark.parametrize("version", ["v1.6", "v1.7", "v1.8"])
def test_image_part_with_text(version: str) -> None:
    doc = minimal_atif(version)
    doc["steps"][0]["message"] = [
        {"type": "image", "text": "caption", "source": {"media_type": "image/png", "path": "a.png"}}
    ]
    report = validate(doc, check_files=False)
    assert codes(report) == [("schema:type", "/steps/0/message/0/text")]
    assert not oracle_valid(version, doc)


def test_type_numbering_and_dangling_call_id_all_reported() -> None:
    doc = minimal_atif("v1.7")
    doc["steps"] = [
        {"step_id": 1, "source": "user", "message": "list files"},
        {
            "step_id": 3,
            "source": "agent",
            "message": "running ls",
            "tool_calls": [{"tool_call_id": "call_1", "function_name": "bash", "arguments": {}}],
            "observation": {"results": [{"source_call_id": "call_9", "content": "a.txt"}]},
            "metrics": {"prompt_tokens": "ten"},
        },
    ]
    found = codes(validate(doc))
    assert ("schema:type", "/steps/1/metrics/prompt_tokens") in found
    assert ("ATIF101", "/steps/1/step_id") in found
    assert ("ATIF201", "/steps/1/observation/results/0/source_call_id") in found


def test_embedded_subagent_checked_under_its_own_version() -> None:
    sub = minimal_atif("v1.7")
    sub.update(trajectory_id="sub-1")
    sub["steps"][0]["step_id"] = 2
    sub["agent"]["version"] = 2
    doc = minimal_atif("v1.8")
    doc["subagent_trajectories"] = [sub]
    found = codes(validate(doc))
    assert ("schema:type", "/subagent_trajectories/0/agent/version") in found
    assert ("ATIF101", "/subagent_trajectories/0/steps/0/step_id") in found


def test_embedded_subagent_newer_than_parent_is_checked_as_its_own_version() -> None:
    """DECISIONS.md D-14: a v1.8 child in a v1.7 parent is valid, and checked against v1.8."""
    sub = minimal_atif("v1.8")
    sub["trajectory_id"] = "sub-1"
    doc = minimal_atif("v1.7")
    doc["subagent_trajectories"] = [sub]
    assert codes(validate(doc)) == []
    sub["steps"][0]["llm_call_count"] = "x"  # a v1.8 field, wrongly typed
    sub["extra"] = {"k": 1}
    doc["bogus"] = True
    assert sorted(codes(validate(doc))) == [
        ("schema:additionalProperties", "/bogus"),
        ("schema:type", "/subagent_trajectories/0/steps/0/llm_call_count"),
    ]
    sub["schema_version"] = "ATIF-v1.6"  # older than embedding: still refused
    assert ("schema:enum", "/subagent_trajectories/0/schema_version") in codes(validate(doc))


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "input:invalid-json"),
        (b'{"schema_version": "ATIF-v1.7", "agent": {', "input:invalid-json"),
        (b"[]", "input:not-an-object"),
        (b'"text"', "input:not-an-object"),
        (b"\xff\xfe{}", "input:invalid-utf8"),
        (b'{"schema_version": "ATIF-v1.7", "x": NaN}', "input:non-finite-number"),
        (b'{"a": Infinity}', "input:non-finite-number"),
        (b"[" * 100_000 + b"]" * 100_000, "input:too-deep"),
        (b'{"schema_version": "ATIF-v2.0"}', "input:unknown-schema-version"),
        (b'{"schema_version": 17}', "input:unknown-format"),
        (b'{"hello": "world"}', "input:unknown-format"),
    ],
)
def test_bad_input_gives_a_finding_not_a_traceback(data: bytes, code: str) -> None:
    report = validate(data)
    assert not report.valid
    assert report.findings[0].code == code, report.findings


def test_byte_order_mark_is_a_warning() -> None:
    data = b"\xef\xbb\xbf" + orjson.dumps(minimal_atif("v1.7"))
    report = validate(data)
    assert report.valid
    assert [f.code for f in report.warnings] == ["input:byte-order-mark"]


def test_findings_do_not_hide_each_other_across_steps() -> None:
    doc = minimal_atif("v1.6")
    doc["steps"] = [
        {"step_id": 1, "source": "user", "message": "a", "model_name": "x"},
        {"step_id": 5, "source": "agent", "message": 7},
        {"step_id": 4, "source": "robot", "message": "c"},
    ]
    found = codes(validate(doc))
    assert ("schema:type", "/steps/0/model_name") in found
    assert ("schema:type", "/steps/1/message") in found
    assert ("schema:enum", "/steps/2/source") in found
    assert ("ATIF101", "/steps/1/step_id") in found
    assert ("ATIF101", "/steps/2/step_id") in found


def test_validate_accepts_paths_strings_and_bytes(tmp_path: Any) -> None:
    doc = minimal_atif("v1.5")
    f = tmp_path / "trajectory.json"
    f.write_bytes(orjson.dumps(doc))
    assert validate(str(f)).valid
    assert validate(f).valid
    assert validate(orjson.dumps(doc)).valid
    assert validate(orjson.dumps(doc).decode()).valid
    with pytest.raises(FileNotFoundError):
        validate(str(tmp_path / "missing.json"))


def test_report_shape() -> None:
    doc = copy.deepcopy(minimal_atif("v1.7"))
    doc["steps"][0]["step_id"] = 2
    out = validate(doc).to_dict()
    assert set(out) == {"source", "line", "format", "version", "valid", "errors", "warnings"}
    assert out["format"] == "atif" and out["version"] == "v1.7" and out["valid"] is False
    assert out["errors"][0] == {
        "code": "ATIF101",
        "name": "non-sequential-step-id",
        "level": "error",
        "pointer": "/steps/0/step_id",
        "message": out["errors"][0]["message"],
    }


# --- the cyclic GC is paused for large documents ----------------------------------------------


def _spy_gc_state(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Record whether the GC is enabled each time a document reaches the schema and rules."""
    import gc

    from atif_spec.validation import pipeline as validation

    seen: list[bool] = []
    original = validation.validate_document
    typed = validation._clean_version()

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return original(*args, **kwargs)

    def typed_spy(data: bytes) -> Any:  # the typed decode, which answers for clean documents
        found = typed(data)
        if found is not None:
            seen.append(gc.isenabled())
        return found

    monkeypatch.setattr(validation, "validate_document", spy)
    monkeypatch.setattr(validation, "_clean_version", lambda: typed_spy)
    return seen


def _big_document() -> bytes:
    from atif_spec.validation.pipeline import PAUSE_GC_FROM

    doc = minimal_atif("v1.7")
    doc["steps"][0]["message"] = "x" * PAUSE_GC_FROM
    return orjson.dumps(doc)


def test_large_documents_are_checked_with_the_gc_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from atif_spec.validation.pipeline import validate_raw
    from atif_spec.validation.reader import RawDocument

    seen = _spy_gc_state(monkeypatch)
    assert gc.isenabled()
    assert validate_raw(RawDocument("big.json", _big_document())).valid
    assert validate_raw(RawDocument("small.json", orjson.dumps(minimal_atif("v1.7")))).valid
    assert seen == [False, True]
    assert gc.isenabled()


def test_the_gc_state_is_restored_as_found(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from atif_spec.validation import pipeline as validation
    from atif_spec.validation.reader import RawDocument

    gc.disable()
    try:
        validation.validate_raw(RawDocument("big.json", _big_document()))
        assert not gc.isenabled()
    finally:
        gc.enable()

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(validation, "validate_document", boom)
    monkeypatch.setattr(validation, "_clean_version", lambda: boom)
    with pytest.raises(RuntimeError):
        validation.validate_raw(RawDocument("big.json", _big_document()))
    assert gc.isenabled()


def test_runner_batches_run_with_the_gc_paused_and_restore_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path
) -> None:
    import gc

    from atif_spec.datasets.runner import Piece, unpack, validate_batch, validate_pieces
    from atif_spec.validation.pipeline import Options
    from atif_spec.validation.reader import RawDocument

    seen = _spy_gc_state(monkeypatch)
    small = orjson.dumps(minimal_atif("v1.7"))
    reports = validate_batch([RawDocument("a.json", small)] * 2, Options())
    assert [r["valid"] for r in reports] == [True, True]
    lines = tmp_path / "docs.jsonl"
    data = small + b"\n \n" + small + b"\n"
    lines.write_bytes(data)
    [(count, packed)] = validate_pieces([Piece(str(lines), 0, len(data), True)], Options())
    line_reports = [unpack(r, str(lines)) for r in packed]
    assert count == 3 and line_reports == [
        {**reports[0], "source": str(lines), "line": 1},
        {**reports[0], "source": str(lines), "line": 3},
    ]
    assert seen == [False] * 4
    assert gc.isenabled()


def test_workers_send_clean_reports_compact_and_the_parent_rebuilds_them(
    tmp_path: pathlib.Path,
) -> None:
    """A worker sends a report without findings as (line, format, version); every report the
    parent rebuilds, line numbers moved by the lines before the piece, is the one in-process
    validation gives."""
    from atif_spec.datasets.runner import Piece, unpack, validate_pieces
    from atif_spec.validation.pipeline import Options, validate_raw
    from atif_spec.validation.reader import read_file

    bad = minimal_atif("v1.7")
    bad["steps"][0]["step_id"] = 5
    rows = [orjson.dumps(minimal_atif("v1.7")), orjson.dumps(bad), b"[]", b"", b"{"]
    lines = tmp_path / "mixed.jsonl"
    lines.write_bytes(b"\n".join(rows) + b"\n")
    expected = [validate_raw(doc, Options()).to_dict() for doc in read_file(str(lines))]
    for report in expected:
        report["line"] += 10
        for finding in (*report["errors"], *report["warnings"]):  # placed: the file's line
            finding["line"] += 10
    piece = Piece(str(lines), 0, lines.stat().st_size, True)
    [(count, packed)] = validate_pieces([piece], Options())
    assert count == len(rows)
    assert [type(r) for r in packed] == [tuple, dict, dict, dict]
    assert [unpack(r, str(lines), 10) for r in packed] == expected


def test_null_fields_of_later_versions_are_tolerated_in_older_documents() -> None:
    """DECISIONS.md D-15: a v1.6 file with v1.7 fields set to null (exclude_none=False dumps) is
    valid; the same field with a value, or an unknown key set to null, is still an error."""
    doc = minimal_atif("v1.6")
    doc["trajectory_id"] = None
    doc["steps"][0]["llm_call_count"] = None
    assert codes(validate(doc)) == []
    doc["steps"][0]["llm_call_count"] = 1
    doc["not_a_field"] = None
    assert sorted(codes(validate(doc))) == [
        ("schema:additionalProperties", "/not_a_field"),
        ("schema:additionalProperties", "/steps/0/llm_call_count"),
    ]


def _with(where: str) -> dict[str, Any]:
    doc = minimal_atif("v1.7")
    step = doc["steps"][0]
    if where == "enum":
        step["source"] = "\ud800"
    elif where == "type":
        step["step_id"] = "\ud800"
    elif where == "pattern":
        step["timestamp"] = "2025-01-01T00:00:00Z\udfff"
    elif where == "key":
        doc["\ud800"] = 1
    else:  # a refused root holding a lone surrogate in its free-form extra
        doc["extra"] = {"note": "x\ud800"}
        del doc["agent"]
    return doc


@pytest.mark.parametrize(
    ("where", "pointer", "char"),
    [
        ("enum", "/steps/0/source", "U+D800"),
        ("type", "/steps/0/step_id", "U+D800"),
        ("pattern", "/steps/0/timestamp", "U+DFFF"),
        ("key", "/\\ud800", "U+D800"),
        ("root", "/extra/note", "U+D800"),
    ],
)
def test_lone_surrogate_in_a_python_document_is_invalid_utf8(
    where: str, pointer: str, char: str
) -> None:
    """Was: ``UnicodeEncodeError`` from the schema engine (issue #36)."""
    report = validate(_with(where))
    assert [(f.code, f.pointer) for f in report.findings] == [("input:invalid-utf8", pointer)]
    assert f"lone surrogate ({char})" in report.findings[0].message
    assert orjson.dumps(report.to_dict())  # the report itself is valid Unicode


def test_lone_surrogate_in_json_text_given_as_a_python_string_is_invalid_utf8() -> None:
    """Was: ``UnicodeEncodeError`` encoding the string."""
    [finding] = validate('{"schema_version": "ATIF-v1.7", "session_id": "\ud800"}').findings
    assert finding.code == "input:invalid-utf8"
