"""--follow-refs: subagent files and continuations of a run directory (rules ATIF701-ATIF704)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from atif_spec import validate
from atif_spec.validation.findings import Report
from tests.support.documents import minimal_atif

REF = "/steps/0/observation/results/0/subagent_trajectory_ref/0/trajectory_path"


def write(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(doc))
    return path


def parent(version: str, target: str, continuation: str | None = None) -> dict[str, Any]:
    doc = minimal_atif(version)
    doc["steps"][0]["observation"] = {
        "results": [
            {
                "content": "summary",
                "subagent_trajectory_ref": [{"session_id": "s", "trajectory_path": target}],
            }
        ]
    }
    if continuation:
        doc["continued_trajectory_ref"] = continuation
    return doc


def ref_codes(report: Report) -> list[tuple[str, str]]:
    return sorted((f.code, f.pointer) for f in report.findings if f.code.startswith("ATIF7"))


def test_valid_run_directory(tmp_path: Path) -> None:
    main = write(
        tmp_path / "trajectory.json",
        parent("v1.6", "trajectory.summarization-1-summary.json", "trajectory.cont-1.json"),
    )
    write(tmp_path / "trajectory.summarization-1-summary.json", minimal_atif("v1.6"))
    cont = minimal_atif("v1.6")
    cont["steps"][0]["is_copied_context"] = True
    write(tmp_path / "trajectory.cont-1.json", cont)
    assert validate(main, follow_refs=True).valid


def test_refs_are_not_followed_by_default(tmp_path: Path) -> None:
    main = write(tmp_path / "trajectory.json", parent("v1.6", "missing.json"))
    assert ref_codes(validate(main)) == []


def test_missing_invalid_newer_and_outside(tmp_path: Path) -> None:
    run = tmp_path / "run"
    main = write(run / "trajectory.json", parent("v1.6", "missing.json", "trajectory.cont-1.json"))
    bad = minimal_atif("v1.6")
    bad["steps"][0]["step_id"] = 2
    write(run / "trajectory.cont-1.json", bad)
    assert ref_codes(validate(main, follow_refs=True)) == [
        ("ATIF701", REF),
        ("ATIF703", "/continued_trajectory_ref"),
    ]
    # a newer continuation is read as its own version (DECISIONS.md D-14); a TAO record is no
    # trajectory to continue with
    write(run / "trajectory.cont-1.json", minimal_atif("v1.8") | {"session_id": "s"})
    assert ref_codes(validate(main, follow_refs=True)) == [("ATIF701", REF)]
    tao = {"schema_version": "0.2.0", "trace_id": "t", "session_id": "s", "agent": {"name": "a"}}
    write(run / "trajectory.cont-1.json", tao)
    assert ref_codes(validate(main, follow_refs=True)) == [
        ("ATIF701", REF),
        ("ATIF704", "/continued_trajectory_ref"),
    ]
    write(tmp_path / "elsewhere.json", minimal_atif("v1.6"))
    outside = write(run / "t2.json", parent("v1.6", "../elsewhere.json"))
    assert ref_codes(validate(outside, follow_refs=True)) == [("ATIF702", REF)]
    assert ref_codes(validate(outside, follow_refs=True, allow_outside=True)) == []


def test_cycles_are_visited_once(tmp_path: Path) -> None:
    a = write(tmp_path / "a.json", parent("v1.6", "b.json"))
    write(tmp_path / "b.json", parent("v1.6", "a.json"))
    assert validate(a, follow_refs=True).valid


def test_urls_are_never_fetched(tmp_path: Path) -> None:
    main = write(tmp_path / "trajectory.json", parent("v1.6", "s3://bucket/run/sub.json"))
    assert validate(main, follow_refs=True).valid


def test_a_path_the_os_cannot_look_up_is_a_missing_file(tmp_path: Path) -> None:
    main = write(tmp_path / "trajectory.json", parent("v1.6", "sub\x00.json"))
    assert ref_codes(validate(main, follow_refs=True)) == [("ATIF701", REF)]


def _usage(doc: dict[str, Any], prompt: int) -> dict[str, Any]:
    doc["steps"][0] |= {"source": "agent", "message": "m", "metrics": {"prompt_tokens": prompt}}
    return doc


def _atif306(report: Report) -> list[str]:
    return [f.pointer for f in report.findings if f.code == "ATIF306"]


def test_totals_that_fold_in_file_referenced_subagents(tmp_path: Path) -> None:
    """terminus-2 adds the usage of file-referenced subagents to the parent's totals (RFC.md
    §2.4): accepted with --follow-refs (the file is read), and not judged without it."""
    main_doc = _usage(parent("v1.7", "sub.json"), 100)
    main_doc["final_metrics"] = {"total_prompt_tokens": 130}
    main = write(tmp_path / "trajectory.json", main_doc)
    write(tmp_path / "sub.json", _usage(minimal_atif("v1.7"), 30))
    assert _atif306(validate(main)) == []
    assert _atif306(validate(main, follow_refs=True)) == []
    main_doc["final_metrics"] = {"total_prompt_tokens": 131}
    write(main, main_doc)
    assert _atif306(validate(main, follow_refs=True)) == ["/final_metrics/total_prompt_tokens"]
    assert _atif306(validate(main)) == []  # the file may hold the difference: not judged
    main_doc["final_metrics"] = {"total_prompt_tokens": 100}  # the steps' own total
    write(main, main_doc)
    assert _atif306(validate(main, follow_refs=True)) == []


def test_nested_file_refs_resolve_against_the_folder_of_the_file_that_holds_them(
    tmp_path: Path,
) -> None:
    """root/a.json → sub/b.json → c.json: c.json is the one beside b.json (RFC.md §2.2 (2)),
    for the reference rules and for the totals alike; a decoy c.json beside a.json is not read."""
    root = tmp_path / "root"
    a_doc = _usage(parent("v1.7", "sub/b.json"), 100)
    a_doc["final_metrics"] = {"total_prompt_tokens": 100 + 20 + 3}
    a = write(root / "a.json", a_doc)
    write(root / "sub" / "b.json", _usage(parent("v1.7", "c.json"), 20))
    write(root / "sub" / "c.json", _usage(minimal_atif("v1.7"), 3))
    write(root / "c.json", _usage(minimal_atif("v1.7"), 5000))  # the decoy beside a.json
    report = validate(a, follow_refs=True)
    assert ref_codes(report) == []
    assert _atif306(report) == []  # 100 + 20 + 3: c.json beside b.json counted
    a_doc["final_metrics"] = {"total_prompt_tokens": 100 + 20 + 5000}  # the decoy's reading
    write(a, a_doc)
    assert _atif306(validate(a, follow_refs=True)) == ["/final_metrics/total_prompt_tokens"]
    other = tmp_path / "other"  # without c.json beside b.json, the decoy does not stand in
    a = write(other / "a.json", a_doc)
    write(other / "sub" / "b.json", _usage(parent("v1.7", "c.json"), 20))
    write(other / "c.json", _usage(minimal_atif("v1.7"), 5000))
    report = validate(a, follow_refs=True)
    assert ref_codes(report) == [("ATIF703", REF)]
    (nested,) = (f for f in report.findings if f.code == "ATIF703")
    assert "ATIF701: subagent file 'c.json' does not exist" in nested.message
    assert _atif306(report) == []  # not judged: b.json's reference could not be read


def test_totals_leave_out_copied_context(tmp_path: Path) -> None:
    doc = _usage(minimal_atif("v1.7"), 100)
    copied = doc["steps"][0] | {"step_id": 2, "is_copied_context": True}
    doc["steps"].append(copied)
    doc["final_metrics"] = {"total_prompt_tokens": 100}
    assert _atif306(validate(write(tmp_path / "t.json", doc))) == []
    doc["final_metrics"] = {"total_prompt_tokens": 200}
    assert _atif306(validate(write(tmp_path / "t.json", doc))) == [
        "/final_metrics/total_prompt_tokens"
    ]
