"""`atif migrate` end to end: inputs, outputs, reports, exit codes, atomic in-place writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner, Result

from atif_spec.cli.transform import migrate as command
from atif_spec.jsonio.atomic import AtomicFile
from tests.support.documents import minimal_atif


def run(*args: str, input: bytes | None = None) -> Result:
    return CliRunner().invoke(command, list(args), input=input)


def v17(**step: Any) -> dict[str, Any]:
    doc = minimal_atif("v1.7")
    doc["steps"][0].update(step)
    return doc


def write(path: Path, *docs: dict[str, Any]) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".jsonl":
        data = b"".join(orjson.dumps(d) + b"\n" for d in docs)
    else:
        data = orjson.dumps(docs[0], option=orjson.OPT_INDENT_2)
    path.write_bytes(data)
    return data


def reports(text: str) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_file_to_stdout_with_text_report_on_stderr(tmp_path: Path) -> None:
    src = tmp_path / "t.json"
    write(src, v17(llm_call_count=2))
    result = run(str(src), "--to", "v1.6", "-v")
    assert result.exit_code == 0, result.output
    out = orjson.loads(result.stdout)
    assert out["schema_version"] == "ATIF-v1.6"
    assert "atif@v1.7 -> atif@v1.6: " in result.stderr
    assert "mapped, 0 named, 1 stashed, 0 dropped, 0 decided" in result.stderr


# --- what a run prints: a summary, a line per document with -v, only problems with -q ------------


def test_the_default_is_a_summary_in_plain_words_and_no_line_per_document(tmp_path: Path) -> None:
    """Was: one line of jargon per document (``54 mapped, 0 named, ...``), 10,000 for 10,000."""
    write(tmp_path / "a.json", v17(llm_call_count=2))  # llm_call_count goes to the stash
    write(tmp_path / "b.json", v17())
    write(tmp_path / "c.json", v17())
    result = run(str(tmp_path), "--to", "v1.6", "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "Migrated 3 of 3 documents to atif@v1.6: 2 carried over completely, 1 kept data the "
        "target cannot hold in its stash, 0 lost data; 0 not written."
    ]


def test_verbose_adds_a_line_per_document(tmp_path: Path) -> None:
    write(tmp_path / "a.json", v17())
    write(tmp_path / "b.json", v17())
    result = run(str(tmp_path), "--to", "v1.6", "-o", str(tmp_path / "out"), "--verbose")
    assert result.exit_code == 0, result.output
    *each, last = result.stdout.splitlines()
    assert [line.split(":")[0] for line in each] == [
        str(tmp_path / "a.json"),
        str(tmp_path / "b.json"),
    ]
    assert all("atif@v1.7 -> atif@v1.6: " in line for line in each)
    assert last.startswith("Migrated 2 of 2 documents")


def test_quiet_prints_nothing_on_success(tmp_path: Path) -> None:
    write(tmp_path / "a.json", v17())
    result = run(str(tmp_path / "a.json"), "--to", "v1.6", "-o", str(tmp_path / "o.json"), "-q")
    assert result.exit_code == 0
    assert result.stdout == "" and result.stderr == ""
    assert orjson.loads((tmp_path / "o.json").read_bytes())["schema_version"] == "ATIF-v1.6"


def test_quiet_prints_only_the_documents_not_written(tmp_path: Path) -> None:
    write(tmp_path / "a.json", v17(llm_call_count=2))
    write(tmp_path / "b.json", v17())
    out = tmp_path / "out"
    result = run(str(tmp_path), "--to", "v1.6", "-o", str(out), "-q", "--fail-on-loss")
    assert result.exit_code == 1
    (line,) = result.stdout.splitlines()
    assert line.startswith(f"{tmp_path / 'a.json'}: atif@v1.7 -> atif@v1.6: not written: ")
    assert "migrate:would-lose-data" in line


def test_the_default_names_the_documents_not_written_and_counts_them(tmp_path: Path) -> None:
    write(tmp_path / "a.json", v17(llm_call_count=2))
    write(tmp_path / "b.json", v17())
    out = tmp_path / "out"
    result = run(str(tmp_path), "--to", "v1.6", "-o", str(out), "--fail-on-loss")
    assert result.exit_code == 1
    refused, summary = result.stdout.splitlines()
    assert refused.startswith(f"{tmp_path / 'a.json'}: ") and "not written" in refused
    assert summary == (
        "Migrated 1 of 2 documents to atif@v1.6: 1 carried over completely, 0 kept data the "
        "target cannot hold in its stash, 0 lost data; 1 not written."
    )


def test_dropped_data_is_counted_as_lost(tmp_path: Path) -> None:
    write(tmp_path / "a.json", v17(llm_call_count=2))
    result = run(str(tmp_path / "a.json"), "--to", "v1.6", "--drop")
    assert result.exit_code == 0, result.output
    assert "0 carried over completely, 0 kept data the target cannot hold in its stash, " in (
        result.stderr
    )
    assert "1 lost data; 0 not written." in result.stderr


def test_quiet_and_verbose_together_are_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "a.json", v17())
    result = run(str(tmp_path / "a.json"), "--to", "v1.6", "-q", "-v")
    assert result.exit_code == 2
    assert "mutually exclusive" in result.output


def test_json_reports_are_one_per_document_whatever_the_level(tmp_path: Path) -> None:
    write(tmp_path / "in" / "a.json", v17())
    write(tmp_path / "in" / "b.json", v17())
    for level in ("-q", "-v"):
        out = str(tmp_path / f"out{level}")
        result = run(str(tmp_path / "in"), "--to", "v1.6", "-o", out, "--report", "json", level)
        assert result.exit_code == 0, result.output
        assert len(reports(result.stdout)) == 2 and "Migrated" not in result.stdout


def test_json_report_lines_and_output_file(tmp_path: Path) -> None:
    src, dst = tmp_path / "t.json", tmp_path / "out.json"
    write(src, v17(llm_call_count=2))
    result = run(str(src), "--to", "v1.6", "-o", str(dst), "--report", "json")
    assert result.exit_code == 0
    (line,) = reports(result.stdout)
    assert line["from"] == "atif@v1.7" and line["to"] == "atif@v1.6" and line["ok"]
    assert line["output"] == str(dst)
    assert [i["pointer"] for i in line["stashed"]] == ["/steps/0/llm_call_count"]
    assert orjson.loads(dst.read_bytes())["schema_version"] == "ATIF-v1.6"


def test_json_lines_to_json_lines(tmp_path: Path) -> None:
    src, dst = tmp_path / "c.jsonl", tmp_path / "out.jsonl"
    write(src, v17(), v17(llm_call_count=1), v17())
    result = run(str(src), "--to", "v1.0", "-o", str(dst), "--report", "json")
    assert result.exit_code == 0
    assert [r["line"] for r in reports(result.stdout)] == [1, 2, 3]
    lines = dst.read_bytes().splitlines()
    assert [orjson.loads(x)["schema_version"] for x in lines] == ["ATIF-v1.0"] * 3


def test_directory_input_is_mirrored_into_the_output_directory(tmp_path: Path) -> None:
    (tmp_path / "in" / "sub").mkdir(parents=True)
    write(tmp_path / "in" / "a.json", v17())
    write(tmp_path / "in" / "sub" / "b.json", v17())
    result = run(str(tmp_path / "in"), "--to", "v1.8", "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    for rel in ("a.json", "sub/b.json"):
        doc = orjson.loads((tmp_path / "out" / rel).read_bytes())
        assert doc["schema_version"] == "ATIF-v1.8"


def test_stdin_to_stdout_with_json_report_on_stderr() -> None:
    result = run("-", "--to", "v1.5", "--report", "json", input=orjson.dumps(v17()))
    assert result.exit_code == 0
    assert orjson.loads(result.stdout)["schema_version"] == "ATIF-v1.5"
    assert reports(result.stderr)[0]["source"] == "<stdin>"


def test_in_place_rewrites_each_file(tmp_path: Path) -> None:
    src = tmp_path / "t.json"
    write(src, v17(llm_call_count=3))
    src.chmod(0o640)
    result = run(str(src), "--to", "v1.6", "--in-place")
    assert result.exit_code == 0
    assert orjson.loads(src.read_bytes())["schema_version"] == "ATIF-v1.6"
    assert src.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]


def test_interrupted_in_place_run_leaves_originals_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.json"
    data_first = write(first, v17(), v17(), v17())
    data_second = write(second, v17())
    calls = {"n": 0}
    real_write = AtomicFile.write

    def failing_write(self: AtomicFile, data: bytes) -> None:
        calls["n"] += 1
        if calls["n"] == 3:  # mid-way through the first file
            raise KeyboardInterrupt
        real_write(self, data)

    monkeypatch.setattr(AtomicFile, "write", failing_write)
    result = run(str(first), str(second), "--to", "v1.6", "--in-place")
    assert result.exit_code != 0
    assert first.read_bytes() == data_first
    assert second.read_bytes() == data_second
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "b.json"]  # no temp files


def test_a_file_is_written_only_when_all_its_documents_pass(tmp_path: Path) -> None:
    src = tmp_path / "c.jsonl"
    bad = v17()
    bad["steps"][0]["step_id"] = 2  # invalid in every version: ATIF101
    data = write(src, v17(), bad, v17())
    result = run(str(src), "--to", "v1.6", "--in-place", "--report", "json")
    assert result.exit_code == 1
    lines = reports(result.stdout)
    assert [r["ok"] for r in lines] == [True, False, True]
    assert "ATIF101" in [e["code"] for e in lines[1]["errors"]]
    assert lines[1]["output"] is None
    assert src.read_bytes() == data


def test_fail_on_loss_and_fail_on_decision(tmp_path: Path) -> None:
    src, dst = tmp_path / "t.json", tmp_path / "out.json"
    write(src, v17(llm_call_count=1))
    result = run(str(src), "--to", "v1.6", "--fail-on-loss", "-o", str(dst), "--report", "json")
    assert result.exit_code == 1
    assert reports(result.stdout)[0]["errors"][0]["code"] == "migrate:would-lose-data"
    assert not dst.exists()
    doc = v17()
    del doc["session_id"]
    write(src, doc)
    result = run(str(src), "--to", "v1.6", "--fail-on-decision", "-o", str(dst))
    assert result.exit_code == 1 and not dst.exists()
    assert "migrate:needs-decision" in result.stdout


def test_drop_reports_dropped_items(tmp_path: Path) -> None:
    src = tmp_path / "t.json"
    write(src, v17(llm_call_count=1))
    result = run(str(src), "--to", "v1.6", "--drop", "--report", "json")
    assert result.exit_code == 0
    (line,) = reports(result.stderr)
    assert [i["pointer"] for i in line["dropped"]] == ["/steps/0/llm_call_count"]
    assert b"_atif_stash" not in result.stdout_bytes


def test_jobs_give_the_same_output(tmp_path: Path) -> None:
    src = tmp_path / "c.jsonl"
    write(src, *[v17(llm_call_count=i) for i in range(150)])
    one = run(str(src), "--to", "v1.0", "-j", "1")
    two = run(str(src), "--to", "v1.0", "-j", "2")
    assert one.exit_code == two.exit_code == 0
    assert one.stdout == two.stdout and one.stdout.count("\n") == 150


@pytest.mark.parametrize(
    "args",
    [
        ["--to", "v9.9"],
        ["--to", "v1.6", "--in-place", "-o", "x.json"],
        ["--to", "v1.6", "--in-place", "-"],
        ["--to", "v1.6", "does-not-exist.json"],
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str]) -> None:
    src = tmp_path / "t.json"
    write(src, v17())
    if "does-not-exist.json" in args:
        args = [*args[:-1], str(tmp_path / args[-1])]
    elif "-" not in args:
        args = [str(src), *args]
    assert run(*args).exit_code == 2


def test_invalid_json_is_reported_not_fatal(tmp_path: Path) -> None:
    src = tmp_path / "c.jsonl"
    src.write_bytes(b"{not json\n" + orjson.dumps(v17()) + b"\n")
    result = run(str(src), "--to", "v1.6", "--report", "json")
    assert result.exit_code == 1
    lines = reports(result.stderr)
    assert [r["ok"] for r in lines] == [False, True]
    assert lines[0]["errors"][0]["code"] == "input:invalid-json"


def test_json_report_counts_values_by_class(tmp_path: Path) -> None:
    """Issue 15: the change report counts mapped, named, stashed and dropped values."""
    src = tmp_path / "t.json"
    doc = v17(llm_call_count=0)
    write(src, doc)
    result = run(str(src), "--to", "v1.6", "--report", "json", "-o", str(tmp_path / "o.json"))
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout.splitlines()[0])
    migrated = orjson.loads((tmp_path / "o.json").read_bytes())
    counts = report["counts"]
    assert counts["named"] == len(report["named"]) == 1
    assert counts["stashed"] == len(report["stashed"]) and counts["dropped"] == 0
    # every leaf of the input but schema_version (rewritten: mapped too) and the named count
    from atif_spec.transforms.changes import mapped_leaves

    assert counts["mapped"] == mapped_leaves(migrated) == mapped_leaves(doc) - 1


def test_convert_caps_a_trajectory_sdk_output_by_default_and_0_lifts_it(tmp_path: Path) -> None:
    """Each trajectory-sdk snapshot repeats the conversation: 640 KB gave 1.5 GB (issue 36)."""
    from atif_spec.cli.options import DEFAULT_MAX_BYTES_OUT
    from atif_spec.cli.transform import convert

    cap = next(p for p in convert.params if p.name == "max_bytes_out")
    assert cap.default == DEFAULT_MAX_BYTES_OUT == 1024**3
    doc = minimal_atif("v1.7")
    doc["steps"] = [
        {"step_id": i + 1, "source": "user" if i % 2 == 0 else "agent", "message": "m " * 50}
        for i in range(80)
    ]
    source, out = tmp_path / "t.json", tmp_path / "sdk.json"
    source.write_bytes(orjson.dumps(doc))
    runner = CliRunner()
    base = ["--to", "trajectory-sdk@v0.4", str(source), "-o", str(out)]
    refused = runner.invoke(convert, [*base, "--max-bytes-out", "10000"])
    assert refused.exit_code == 1 and not out.exists()
    assert "convert:output-too-large" in refused.output and "would be" in refused.output
    lifted = runner.invoke(convert, [*base, "--max-bytes-out", "0"])
    assert lifted.exit_code == 0, lifted.output
    assert out.stat().st_size > 10000


def test_a_terminal_shows_the_progress_line_and_its_total(tmp_path: Path) -> None:
    """On a terminal (a pseudo-terminal here) migrate shows ``migrated N/total documents``; the
    line is erased at the end, so the summary is what stays."""
    import os
    import pty
    import subprocess
    import sys

    for name in ("a.json", "b.json"):
        write(tmp_path / "in" / name, v17())
    main, child = pty.openpty()
    command = [sys.executable, "-m", "atif_spec.cli", "migrate", "--to", "v1.6"]
    with subprocess.Popen(
        [*command, str(tmp_path / "in"), "-o", str(tmp_path / "out")],
        stdin=subprocess.DEVNULL,
        stdout=child,
        stderr=child,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
    ) as process:
        os.close(child)
        screen = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            screen += chunk
        assert process.wait() == 0
    os.close(main)
    text = screen.decode()
    assert "migrated 1/2 documents · " in text
    assert text.rstrip().endswith("0 lost data; 0 not written.")


# --- TAO records between TAO versions (spec/tao/DECISIONS.md D38) --------------------------------

TAO_SUITE = Path(__file__).parents[2] / "conformance" / "tao"


@pytest.mark.parametrize("to", ["tao@v0.2.0", "v0.2.0", "0.2.0"])
def test_a_tao_record_migrates_to_a_tao_version_and_back(tmp_path: Path, to: str) -> None:
    src = TAO_SUITE / "v0.9.0" / "valid" / "opentraces-task-subagent.json"
    down, up = tmp_path / "down.json", tmp_path / "up.json"
    result = run(str(src), "--to", to, "-o", str(down), "-v")
    assert result.exit_code == 0, result.output
    assert "tao@v0.9.0 -> tao@v0.2.0: " in result.output
    assert orjson.loads(down.read_bytes())["schema_version"] == "0.2.0"
    assert run(str(down), "--to", "tao@v0.9.0", "-o", str(up)).exit_code == 0
    assert orjson.loads(up.read_bytes()) == orjson.loads(src.read_bytes())


def test_an_unpublished_tao_version_is_a_usage_error(tmp_path: Path) -> None:
    result = run(str(TAO_SUITE / "v0.9.0" / "valid" / "minimal.json"), "--to", "v0.8.0")
    assert result.exit_code == 2
    assert "not an ATIF version" in result.output


def test_convert_to_otel_writes_one_line_per_document_in_the_convention_asked(
    tmp_path: Path,
) -> None:
    from atif_spec.cli.transform import convert

    source, out = tmp_path / "t.json", tmp_path / "traces.jsonl"
    source.write_bytes(orjson.dumps(minimal_atif("v1.8"), option=orjson.OPT_INDENT_2))
    runner = CliRunner()
    done = runner.invoke(convert, [str(source), "--to", "otel", "-o", str(out)])
    assert done.exit_code == 0, done.output
    lines = out.read_bytes().splitlines()
    assert len(lines) == 1 and b'"gen_ai.operation.name"' in lines[0]
    oi = runner.invoke(
        convert, [str(source), "--to", "otel", "--otel-convention", "openinference", "-o", str(out)]
    )
    assert oi.exit_code == 0, oi.output
    assert b'"openinference.span.kind"' in out.read_bytes()
    back = tmp_path / "back.json"
    again = runner.invoke(
        convert,
        [str(out), "--to", "atif@v1.8", "--otel-convention", "openinference", "-o", str(back)],
    )
    assert again.exit_code == 0, again.output
    assert orjson.loads(back.read_bytes()) == minimal_atif("v1.8")
    bad = runner.invoke(convert, [str(source), "--to", "otel", "--otel-convention", "zipkin"])
    assert bad.exit_code == 2


def _otel_traces() -> tuple[dict[str, Any], dict[str, Any]]:
    """Two traces of the OTel fixtures (their own trace ids)."""
    from tests.support.otlp import TRACE_A, TRACE_B, with_trace
    from tests.transforms.lenses.otel.support import OTEL_FIXTURES, load

    named = {p.name: p for p in OTEL_FIXTURES}
    a = with_trace(load(named["gen-ai-subagent.json"]), TRACE_A)
    b = with_trace(load(named["gen-ai-full-history.json"]), TRACE_B)
    return a, b


def test_convert_reads_an_otlp_file_one_document_per_trace_across_lines(tmp_path: Path) -> None:
    """An exporter's batches: trace A over lines 1, 3 and 4, trace B over lines 1 and 2."""
    from atif_spec.cli.transform import convert
    from tests.support.otlp import gathered_from, interleaved, jsonl

    a, b = _otel_traces()
    split, whole = tmp_path / "split.jsonl", tmp_path / "whole.jsonl"
    split.write_bytes(jsonl(interleaved(a, b)))
    whole.write_bytes(jsonl([a, b]))
    runner = CliRunner()
    outs = []
    for source in (split, whole):
        out = tmp_path / f"{source.stem}.atif.jsonl"
        done = runner.invoke(
            convert, [str(source), "--to", "atif@v1.8", "-o", str(out), "--report", "json"]
        )
        assert done.exit_code == 0, done.output
        outs.append(out.read_bytes())
        if source is split:
            assert [(r["line"], gathered_from(r)) for r in reports(done.stdout)] == [
                (1, [1, 3, 4]),
                (1, [1, 2]),
            ]
    assert outs[0] == outs[1]
    assert len(outs[0].splitlines()) == 2
    verbose = runner.invoke(convert, [str(split), "--to", "atif@v1.8", "-o", str(out), "-v"])
    assert "atif@v1.8 (the spans of this trace come from lines 1, 3, 4 of the file): " in (
        verbose.output
    )


def test_convert_refuses_an_otlp_file_over_max_bytes_in_one_line(tmp_path: Path) -> None:
    from atif_spec.cli.transform import convert
    from tests.support.otlp import interleaved, jsonl

    split, out = tmp_path / "split.jsonl", tmp_path / "out.jsonl"
    data = jsonl(interleaved(*_otel_traces()))
    split.write_bytes(data)
    limit = str(len(data) - 1)  # every line fits; the file does not
    done = CliRunner().invoke(
        convert, [str(split), "--to", "atif@v1.8", "-o", str(out), "--max-bytes", limit]
    )
    assert done.exit_code == 2 and not out.exists()
    (line,) = done.output.splitlines()  # one line, no traceback
    assert (
        line.startswith(f"atif: cannot read {split}: an OTLP/JSON file") and "--max-bytes" in line
    )


def test_validate_reads_an_otlp_file_line_by_line(tmp_path: Path) -> None:
    """Each line of an exporter's file is a whole ``TracesData``: validation is not grouped."""
    from atif_spec.cli import main
    from tests.support.otlp import interleaved, jsonl

    split = tmp_path / "split.jsonl"
    split.write_bytes(jsonl(interleaved(*_otel_traces())))
    done = CliRunner().invoke(main, ["validate", str(split), "--format", "json"])
    assert done.exit_code == 0, done.output
    lines = [r["line"] for r in reports(done.stdout) if "line" in r]
    assert lines == [1, 2, 3, 4]
