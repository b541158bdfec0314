"""Data loss and corruption (issue #21): big integers keep their digits, deep nesting is processed
or refused with a finding, through every command that reads documents."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from atif_spec.cli import main
from atif_spec.formats.tao import content_hash as tao_content_hash
from atif_spec.jsonio import jsontext
from tests.support import ROOT

RICH = ROOT / "conformance" / "atif" / "v1.5" / "valid" / "rich.json"
BIG = [10**30, 2**64 + 1, 2**64 - 1, 2**63, 2**53 + 1, -(2**63) - 5, -(10**25)]
"""Beyond 64 bits (orjson would parse a float), the edges of 64 bits, and beyond doubles."""


def atif(args: list[str], stdin: bytes | None = None) -> Result:
    return CliRunner().invoke(main, args, input=stdin)


def rich() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(RICH.read_bytes())
    return doc


def big_doc() -> dict[str, Any]:
    doc = rich()
    doc["extra"] = {f"n{i}": n for i, n in enumerate(BIG)}
    for step in doc["steps"]:
        for call in step.get("tool_calls", []):
            call["arguments"] = {"big": BIG}
    return doc


def digits_kept(text: str) -> None:
    for n in BIG:
        assert str(n) in text, n
    assert "e+" not in text.replace("e+0", "")  # no float rendering of a big integer


def test_loads_keeps_every_integer_exactly() -> None:
    value = jsontext.loads(json.dumps(BIG).encode())
    assert value == BIG and all(type(v) is int for v in value)
    assert jsontext.loads(b'{"s": "12345678901234567890", "f": 1e30}') == {
        "s": "12345678901234567890",
        "f": 1e30,
    }
    with pytest.raises(ValueError):
        jsontext.loads(b"[NaN, 12345678901234567890123]")


def test_dumps_keeps_big_integers_and_deep_nesting() -> None:
    assert jsontext.dumps(BIG) == json.dumps(BIG, separators=(",", ":")).encode()
    deep: Any = 1
    for _ in range(300):
        deep = [deep]
    assert json.loads(jsontext.dumps(deep, indent=True)) == deep


def test_validate_reports_big_integers_with_their_digits(tmp_path: Path) -> None:
    doc = rich()
    doc["steps"][0]["step_id"] = 10**30
    (tmp_path / "t.json").write_text(json.dumps(doc))
    result = atif(["validate", str(tmp_path / "t.json")])
    assert result.exit_code == 1
    assert f"got {10**30}" in result.output and "1e+30" not in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["migrate", "--to", "v1.7"],
        ["convert", "--to", "atif@v1.7"],
        ["convert", "--to", "tao@v0.2.0"],
        ["convert", "--to", "step-substep@v1.0"],
        ["convert", "--to", "trajectory-sdk@v0.4"],
    ],
    ids=lambda a: "-".join(a[::2]),
)
def test_transforms_keep_big_integers(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "t.json").write_text(json.dumps(big_doc()))
    result = atif([*args, str(tmp_path / "t.json"), "-o", str(tmp_path / "out.json")])
    assert result.exit_code == 0, result.output
    out = (tmp_path / "out.json").read_text()
    digits_kept(out)
    back = atif(["convert", "--to", "atif@v1.5", str(tmp_path / "out.json")])
    assert back.exit_code == 0, back.output
    assert json.loads(back.stdout.strip())["extra"] == big_doc()["extra"]


def test_migrate_jsonl_keeps_big_integers(tmp_path: Path) -> None:
    (tmp_path / "t.jsonl").write_text(json.dumps(big_doc()) + "\n")
    result = atif(["migrate", "--to", "v1.7", "--in-place", str(tmp_path / "t.jsonl")])
    assert result.exit_code == 0, result.output
    digits_kept((tmp_path / "t.jsonl").read_text())


def test_export_sft_keeps_big_integers(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text(json.dumps(big_doc()))
    result = atif(["export-sft", str(tmp_path / "t.json"), "-o", str(tmp_path / "sft.jsonl")])
    assert result.exit_code == 0, result.output
    digits_kept((tmp_path / "sft.jsonl").read_text())


def nested(levels: int, inner: Any = 1) -> Any:
    for _ in range(levels):
        inner = {"k": inner}
    return inner


@pytest.mark.parametrize("levels", [260, 1000])
@pytest.mark.parametrize(
    "args",
    [
        ["migrate", "--to", "v1.7"],
        ["convert", "--to", "tao@v0.2.0"],
        ["convert", "--to", "step-substep@v1.0"],
        ["convert", "--to", "trajectory-sdk@v0.4"],
        ["export-sft", "-o", "-"],
    ],
    ids=lambda a: "-".join(a[::2]),
)
def test_deep_nesting_is_processed_or_refused_with_a_finding(
    tmp_path: Path, args: list[str], levels: int
) -> None:
    doc = rich()
    doc["extra"] = nested(levels)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 3 * levels))
    try:
        text = json.dumps(doc)
    finally:
        sys.setrecursionlimit(limit)
    (tmp_path / "t.json").write_text(text)
    assert atif(["validate", str(tmp_path / "t.json")]).exit_code == 0
    result = atif([*args, str(tmp_path / "t.json")])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    if levels == 260:  # orjson's own limit is 255: the standard library takes over
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code in (0, 1)
        if result.exit_code == 1:
            assert "input:too-deep" in result.output


# --- the run-log store validates on write ---------------------------------------------------------

STORE_WRITES: dict[str, Any] = {
    "tool_call payload without tool_name": lambda s: s.emit_substep(
        s.emit_step("r1", "m", provider="codex"), "tool_call", {"oops": 1}
    ),
    "empty run_id": lambda s: s.emit_step("", "m", provider="codex"),
    "empty provider": lambda s: s.create_run("r1", ""),
    "step extra not an object": lambda s: s.emit_step("r1", "m", provider="codex", extra=[1]),
    "message not text": lambda s: s.emit_step("r1", 5, provider="codex"),
    "NaN in a payload": lambda s: s.emit_substep(
        s.emit_step("r1", "m", provider="codex"), "status_update", {"message": "x", "v": 1e999}
    ),
    "summary not text": lambda s: s.finalize_step(
        s.emit_step("r1", "m", provider="codex"), "completed", summary=5
    ),
    "imported document not a run log": lambda s: s.insert_document(
        {"run_id": "r2", "provider": "codex", "steps": [], "extra": "no"}
    ),
}


@pytest.mark.parametrize("write", list(STORE_WRITES), ids=list(STORE_WRITES))
def test_store_refuses_values_that_would_make_its_export_invalid(
    tmp_path: Path, write: str
) -> None:
    from atif_spec import validate
    from atif_spec.stepsubstep.exchange import export_run
    from atif_spec.stepsubstep.store import SqliteStore

    with SqliteStore(tmp_path / "runs.db") as store:
        with pytest.raises(ValueError):
            STORE_WRITES[write](store)
        for run_id in store.list_runs():  # whatever was stored before the refusal is valid
            assert validate(export_run(store, run_id)).valid


# --- export-sft: quadratic output, said and capped ------------------------------------------------


def long_trajectory(steps: int, text: str = "x" * 200) -> dict[str, Any]:
    doc = rich()
    doc["schema_version"] = "ATIF-v1.5"
    first = [s for s in doc["steps"] if s["source"] != "agent"][:1]
    agent = next(s for s in doc["steps"] if s["source"] == "agent" and "tool_calls" in s)
    doc["steps"] = [*first]
    for i in range(len(first) + 1, steps + 1):
        step = json.loads(json.dumps(agent))
        step["step_id"] = i
        step["message"] = text
        for j, call in enumerate(step.get("tool_calls", [])):
            call["tool_call_id"] = f"c{i}-{j}"
        for j, result in enumerate(step.get("observation", {}).get("results", [])):
            result["source_call_id"] = f"c{i}-{j}"
        doc["steps"].append(step)
    doc.pop("final_metrics", None)
    doc.pop("continued_trajectory_ref", None)
    return doc


def test_export_sft_help_says_the_output_is_quadratic() -> None:
    text = atif(["export-sft", "--help"]).output
    assert "SQUARE of the steps" in text
    assert "--max-context-steps" in text and "--max-bytes-out" in text


@pytest.mark.parametrize("cap", [None, 0, 3])
def test_projected_size_is_close_to_what_is_written(tmp_path: Path, cap: int | None) -> None:
    from atif_spec.transforms.sft import examples, projected_bytes

    doc = long_trajectory(120)
    assert atif(["validate", "-"], stdin=json.dumps(doc).encode()).exit_code == 0
    written = sum(
        len(json.dumps(e, separators=(",", ":"), ensure_ascii=False)) + 1
        for e in examples(doc, max_context_steps=cap)
    )
    projected = projected_bytes(doc, max_context_steps=cap)
    assert abs(projected - written) <= 0.1 * written, (projected, written)


def test_max_context_steps_keeps_the_last_steps(tmp_path: Path) -> None:
    from atif_spec.transforms.sft import examples

    doc = long_trajectory(40)
    full = list(examples(doc))
    capped = list(examples(doc, max_context_steps=2))
    assert len(full) == len(capped)
    assert all(
        c["messages"] == f["messages"][-len(c["messages"]) :]
        for c, f in zip(capped, full, strict=True)
    )
    assert max(len(c["messages"]) for c in capped) < max(len(f["messages"]) for f in full)
    (tmp_path / "t.json").write_text(json.dumps(doc))
    out = tmp_path / "o.jsonl"
    result = atif(
        ["export-sft", str(tmp_path / "t.json"), "-o", str(out), "--max-context-steps", "2"]
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["messages"] for line in lines] == [c["messages"] for c in capped]


def test_max_bytes_out_stops_and_large_outputs_are_projected(tmp_path: Path) -> None:
    doc = long_trajectory(1500, text="y" * 400)
    (tmp_path / "t.json").write_text(json.dumps(doc))
    out = tmp_path / "o.jsonl"
    result = atif(
        ["export-sft", str(tmp_path / "t.json"), "-o", str(out), "--max-bytes-out", "200000"]
    )
    assert result.exit_code == 1, result.output
    assert "stopped at --max-bytes-out 200000" in result.stderr
    assert "1500 steps give about" in result.stderr and "B of examples" in result.stderr
    data = out.read_bytes()
    assert 0 < len(data) <= 200_000 and data.endswith(b"\n")
    for line in data.splitlines():
        json.loads(line)


@pytest.mark.parametrize("value", [5, "x", {"a": 1}, [1, None]])
def test_projected_bytes_never_raises(value: Any) -> None:
    from atif_spec.transforms.sft import projected_bytes

    doc = long_trajectory(3)
    doc["subagent_trajectories"] = value
    assert projected_bytes(doc) > 0
    assert projected_bytes(value) >= 0


def test_view_stats_and_render_keep_big_integers(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(big_doc()))
    out = tmp_path / "t.html"
    viewed = atif(["view", str(path), "-o", str(out)])
    assert viewed.exit_code == 0, viewed.output
    digits_kept(out.read_text(encoding="utf-8"))
    stats = atif(["stats", str(path), "--format", "json"])
    assert stats.exit_code == 0, stats.output
    huge = rich()
    for step in huge["steps"]:
        if isinstance(step.get("metrics"), dict):
            step["metrics"]["completion_tokens"] = 2**64 + 1
    path.write_text(json.dumps(huge))
    stats = atif(["stats", str(path), "--format", "json"])
    assert stats.exit_code == 0, stats.output
    assert "e+" not in stats.output
    rendered = atif(["render", str(path), "--verbose"])
    assert rendered.exit_code == 0, rendered.output


def big_tao() -> dict[str, Any]:
    """A valid TAO record (its own hash) with a member of its own holding big integers."""
    doc: dict[str, Any] = json.loads(
        (ROOT / "conformance/tao/v0.2.0/valid/coding-session.json").read_bytes()
    )
    doc["x_producer"] = {f"n{i}": n for i, n in enumerate(BIG)}
    doc["metadata"] = {**(doc.get("metadata") or {}), "big": BIG}
    doc["content_hash"] = tao_content_hash(doc, "v0.2.0")
    return doc


@pytest.mark.parametrize(
    "args",
    [
        ["stats", "--format", "json"],
        ["view", "-o", "{out}"],
        ["convert", "--to", "atif@v1.7", "-o", "{out}"],
        ["convert", "--to", "step-substep@v1.0", "-o", "{out}"],
        ["convert", "--to", "trajectory-sdk@v0.4", "-o", "{out}"],
        ["export-sft", "-o", "{out}"],
    ],
    ids=lambda a: "-".join(a[:3:2]),
)
def test_a_tao_record_with_big_integers_goes_through_every_command(
    tmp_path: Path, args: list[str]
) -> None:
    """Was: ``TypeError: Integer exceeds 64-bit range`` from bare ``orjson.dumps`` calls in the TAO
    lens and the stash share (issue 36); ruff's TID251 now bans the bare call in tools/."""
    path, out = tmp_path / "t.json", tmp_path / "out"
    path.write_text(json.dumps(big_tao()))
    result = atif([args[0], str(path), *(a.format(out=out) for a in args[1:])])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    if args[0] == "convert" and args[2] == "atif@v1.7":
        digits_kept(out.read_text(encoding="utf-8"))
        back = atif(["convert", "--to", "tao@v0.2.0", str(out)])
        assert back.exit_code == 0, back.output
        assert json.loads(back.stdout.strip()) == big_tao()
