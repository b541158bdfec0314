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
from atif_spec.conformance import suite
from tests.support import ROOT
from tests.support.documents import minimal_atif


def run(*args: str, input: bytes | None = None, color: bool = False) -> Any:
    return CliRunner().invoke(main, list(args), input=input, color=color)


def write(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(doc))
    return path


def messages(report: Any) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in report.findings]


def test_substep_type_of_any_json_type_is_a_finding_not_a_typeerror() -> None:
    """Was: ``TypeError: unhashable type: 'list'`` in rules/step_substep.py."""
    doc = orjson.loads(
        (ROOT / "conformance/step-substep/v1.0/valid/tool-lifecycle.json").read_bytes()
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


# --follow-refs -------------------------------------------------------------------------------

REF = "/steps/0/observation/results/0/subagent_trajectory_ref/0/trajectory_path"


def referring(version: str, *targets: str, continuation: str | None = None) -> dict[str, Any]:
    """A minimal document whose first step references ``targets`` as subagent files."""
    doc = minimal_atif(version)
    refs = [{"session_id": f"s{i}", "trajectory_path": t} for i, t in enumerate(targets)]
    if refs:
        doc["steps"][0]["observation"] = {
            "results": [{"content": "sub", "subagent_trajectory_ref": refs}]
        }
    if continuation:
        doc["continued_trajectory_ref"] = continuation
    return doc


def ref_findings(report: Any) -> list[tuple[str, str, str]]:
    return [(f.code, f.pointer, f.message) for f in report.findings if f.code.startswith("ATIF7")]


def test_referenced_name_longer_than_the_file_system_allows(tmp_path: Path) -> None:
    """Was: ``OSError: [Errno 36] File name too long`` traceback."""
    main = write(tmp_path / "t.json", referring("v1.6", "x" * 5000 + ".json"))
    [(code, ptr, message)] = ref_findings(validate(main, follow_refs=True))
    assert (code, ptr) == ("ATIF701", REF)
    assert "too long" in message


def test_chain_of_100_continuations_stops_at_the_depth_limit(tmp_path: Path) -> None:
    """Was: ``RecursionError``. Now followed iteratively; beyond the limit, ATIF705 says so."""
    from atif_spec.validation.rules.atif_refs import MAX_REF_DEPTH

    for i in range(100):
        doc = referring("v1.6", continuation=f"c{i + 1}.json" if i < 99 else None)
        write(tmp_path / ("t.json" if i == 0 else f"c{i}.json"), doc)
    report = validate(tmp_path / "t.json", follow_refs=True)
    assert report.valid
    [(code, ptr, message)] = ref_findings(report)
    assert (code, ptr) == ("ATIF705", "/continued_trajectory_ref")
    assert f"more than {MAX_REF_DEPTH} files deep" in message
    assert f"c{MAX_REF_DEPTH}.json" in message
    # A fault inside the limit is still found, however deep, and named.
    bad = referring("v1.6", continuation="c31.json")
    bad["steps"][0]["step_id"] = 5
    write(tmp_path / "c30.json", bad)
    codes = [(c, m) for c, _, m in ref_findings(validate(tmp_path / "t.json", follow_refs=True))]
    assert codes[0][0] == "ATIF703"
    assert "leads to 'c30.json'" in codes[0][1]


def test_a_dag_of_references_checks_each_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: more than 280 s for 10 levels of 32 files, each naming all 32 of the next (every
    path through the graph was validated again)."""
    import atif_spec.validation.pipeline as validation

    levels, width = 10, 32
    for level in range(levels):
        names = [f"l{level + 1}-{k}.json" for k in range(width)] if level < levels - 1 else []
        for k in range(width):
            write(tmp_path / f"l{level}-{k}.json", referring("v1.6", *names))
    write(tmp_path / "t.json", referring("v1.6", *[f"l0-{k}.json" for k in range(width)]))
    calls: list[str] = []
    real = validation.validate_raw

    def counting(raw: Any, options: Any = None) -> Any:
        calls.append(raw.source)
        return real(raw, options)

    monkeypatch.setattr(validation, "validate_raw", counting)
    from atif_spec.validation.rules import atif_refs

    atif_refs._FILES.clear()
    report = validate(tmp_path / "t.json", follow_refs=True)
    assert report.valid, ref_findings(report)
    assert len(calls) == 1 + levels * width  # the document, then each referenced file once
    assert len(set(calls)) == len(calls)
    # One invalid leaf: every reference is reported as leading to it, and only the changed
    # file is checked again.
    leaf = referring("v1.6")
    leaf["steps"][0]["step_id"] = 4
    write(tmp_path / "l9-5.json", leaf)
    calls.clear()
    found = ref_findings(validate(tmp_path / "t.json", follow_refs=True))
    assert len(found) == width
    assert all(code == "ATIF703" and "leads to 'l9-5.json'" in m for code, _, m in found)
    assert sorted(calls) == sorted([str(tmp_path / "t.json"), str(tmp_path / "l9-5.json")])


def test_referenced_files_obey_max_bytes(tmp_path: Path) -> None:
    """Was: a referenced file of any size was loaded whatever --max-bytes said."""
    big = minimal_atif("v1.6") | {"extra": {"pad": "x" * 5000}}
    write(tmp_path / "sub.json", big)
    main = write(tmp_path / "t.json", referring("v1.6", "sub.json"))
    result = run("validate", "--follow-refs", "--max-bytes", "1000", str(main))
    assert result.exit_code == 1, result.output
    assert "ATIF703" in result.output
    assert "over the limit of 1000 bytes" in result.output


@pytest.mark.parametrize("command", ["validate", "view"])
def test_a_huge_referenced_file_is_not_read(tmp_path: Path, command: str) -> None:
    """Was: ``view --follow-refs`` read a referenced (sparse) file of any size whole before any
    size check; every command that follows references looks at the size first."""
    size = 64 * 1024 * 1024
    with (tmp_path / "sub.json").open("wb") as fh:
        fh.truncate(size)  # sparse: nothing written
    main = write(tmp_path / "t.json", referring("v1.6", "sub.json"))
    result = run(command, "--follow-refs", "--max-bytes", "1000", str(main))
    assert result.exit_code == (1 if command == "validate" else 0), result.output
    assert f"{size} bytes" in result.output and "1000 bytes" in result.output


def test_unreadable_referenced_file_is_a_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: ``PermissionError`` traceback (a reference into a folder that cannot be read)."""
    write(tmp_path / "locked" / "sub.json", minimal_atif("v1.6"))
    main = write(tmp_path / "t.json", referring("v1.6", "locked/sub.json"))
    real_stat = Path.stat

    def stat(self: Path, **kwargs: Any) -> Any:
        if self.name == "sub.json":
            raise PermissionError(13, "Permission denied", str(self))
        return real_stat(self, **kwargs)

    monkeypatch.setattr(Path, "stat", stat)
    [(code, ptr, message)] = ref_findings(validate(main, follow_refs=True))
    assert (code, ptr) == ("ATIF703", REF)
    assert "cannot be read (Permission denied)" in message


def test_symlinked_trajectory_resolves_refs_and_media_against_the_links_folder(
    tmp_path: Path,
) -> None:
    """Was: references resolved against the link target's folder, media against the link's."""
    real = tmp_path / "store"
    run_dir = tmp_path / "run"
    doc = referring("v1.7", "sub.json")
    doc["steps"][0]["message"] = [
        {"type": "image", "source": {"media_type": "image/png", "path": "img.png"}}
    ]
    write(real / "trajectory.json", doc)
    run_dir.mkdir()
    (run_dir / "trajectory.json").symlink_to(real / "trajectory.json")
    write(run_dir / "sub.json", minimal_atif("v1.7"))
    (run_dir / "img.png").write_bytes(b"\x89PNG")
    assert validate(run_dir / "trajectory.json", follow_refs=True).valid
    # Beside the target instead, both are missing: one folder for both.
    report = validate(real / "trajectory.json", follow_refs=True)
    assert {f.code for f in report.findings} == {"ATIF401", "ATIF701"}


# Inputs, names and the terminal ------------------------------------------------------------


def test_unreadable_folder_is_exit_2_not_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: a folder that cannot be read was skipped silently, exit 0."""
    import os

    write(tmp_path / "ok.json", minimal_atif("v1.7"))
    locked = tmp_path / "locked"
    write(locked / "t.json", minimal_atif("v1.7"))
    real = os.scandir

    def scandir(path: Any = ".") -> Any:
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = run("validate", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert f"cannot read folder {locked}: Permission denied" in result.output


def test_stdin_json_lines_with_a_malformed_first_line(tmp_path: Path) -> None:
    """Was: read as one document (one invalid-json finding for the whole input)."""
    good = orjson.dumps(minimal_atif("v1.7"))
    result = run("validate", "--format", "json", "-", input=b'{"schema_version": "AT\n' + good)
    reports = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert [(r["line"], r["valid"]) for r in reports] == [(1, False), (2, True)]
    # A pretty-printed document that is broken stays one document.
    broken = b'{\n  "schema_version": "ATIF-v1.7",\n  "agent": {"name": "a"}\n'
    result = run("validate", "--format", "json", "-", input=broken)
    assert len(result.stdout.splitlines()) == 1


def test_a_newline_in_a_file_name_cannot_forge_a_line(tmp_path: Path) -> None:
    """Was: ``a\\n0 document(s): 0 valid...`` printed as two lines, the second one forged."""
    forged = "x.json\n5 document(s): 5 valid, 0 invalid; 0 error(s), 0 warning(s)\ny"
    doc = minimal_atif("v1.7")
    doc["steps"][0]["step_id"] = 2
    write(tmp_path / (forged + ".json"), doc)
    result = run("validate", str(tmp_path))
    lines = result.stdout.splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("'") and "\\n5 document(s)" in lines[0]
    assert lines[1].startswith("1 document(s)")


def test_control_characters_from_a_document_are_escaped(tmp_path: Path) -> None:
    """Was: raw ESC sequences from a document's keys reached the terminal (in the pointer)."""
    doc = minimal_atif("v1.7")
    doc["steps"][0]["\x1b]0;pwned\x07"] = 1
    path = write(tmp_path / "t.json", doc)
    older = write(tmp_path / "o.json", doc | {"schema_version": "ATIF-v1.6"})
    for args in (["validate", str(path)], ["migrate", "--to", "v1.6", str(older)]):
        result = run(*args, color=True)  # as on a terminal: click strips nothing
        assert "\x1b" not in result.output and "\x07" not in result.output, result.output
    result = run("validate", str(path), color=True)
    assert "/steps/0/\\x1b]0;pwned\\x07 schema:additionalProperties" in result.output


def test_terminal_helpers() -> None:
    from atif_spec.cli import terminal

    assert terminal.clean("a\tb\r\n\x1b[31m\u202e") == "a\\tb\\r\\n\\x1b[31m\\u202e"
    assert terminal.clean("plain \\ text é") == "plain \\ text é"
    assert terminal.name("ok.json") == "ok.json"
    assert terminal.name("a\nb'.json") == "'a\\nb\\'.json'"


def test_no_color_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    """Was: findings coloured on a terminal whatever NO_COLOR said."""
    import io
    import sys

    from atif_spec.cli.output import TextRenderer

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdout", Tty())
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert TextRenderer().colour
    monkeypatch.setenv("NO_COLOR", "1")
    assert not TextRenderer().colour


def test_findings_never_share_the_spinners_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: on a terminal the first finding was printed right after the progress spinner."""
    import io
    import sys

    from atif_spec.datasets import runner
    from atif_spec.validation.pipeline import Options

    screen = io.StringIO()
    monkeypatch.setattr(sys, "stderr", screen)  # the progress line is drawn on stderr
    bad = minimal_atif("v1.7")
    bad["steps"][0]["step_id"] = 2
    files = [str(write(tmp_path / f"t{i}.json", bad)) for i in range(5)]
    printed: list[str] = []

    def sink(report: dict[str, Any]) -> None:
        line = f"FINDING {report['source']}"
        printed.append(line)
        screen.write(line + "\n")

    runner.run_validation(files, Options(), sink=sink, progress=True)
    text = screen.getvalue()
    assert "validated" in text  # the spinner was drawn
    for line in printed:
        at = text.index(line)
        assert text[:at].endswith(("\n", "\x1b[2K")), repr(text[max(0, at - 40) : at])


def test_stdin_and_no_check_files_say_what_they_skip(tmp_path: Path) -> None:
    """Was: both skipped file checks (and the outside-folder rule) without a word."""
    doc = orjson.dumps(minimal_atif("v1.7"))
    result = run("validate", "-", input=doc)
    assert result.exit_code == 0
    assert "standard input has no folder" in result.stderr
    path = write(tmp_path / "t.json", minimal_atif("v1.7"))
    result = run("validate", "--no-check-files", str(path))
    assert "inside the document's folder (ATIF402)" in result.stderr
    assert "note" not in run("validate", str(path)).stderr


# What a new user hit -------------------------------------------------------------------------


def test_rules_explains_one_rule_with_an_example_from_its_cases() -> None:
    """Was: ``atif rules ATIF101`` was a usage error (no such argument)."""
    result = run("rules", "ATIF101")
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("ATIF101 non-sequential-step-id (error, atif@v1.0..v1.8)")
    assert "What it checks:" in out and "Why:" in out and "Spec:" in out
    assert "Example (atif-" in out and "at /steps/" in out and "Fix, as in atif-" in out
    assert "\\n" not in out  # the docstring's lines are lines
    assert run("rules", "input:too-large").exit_code == 0
    assert "schema-required" in run("rules", "schema:required").output
    assert run("rules", "NOPE1").exit_code == 2


def test_rules_explanations_are_plain_text_with_their_spec_once() -> None:
    """Was: reStructuredText and Sphinx markup in the terminal (````step_id````, :mod:`…`), and
    "Spec:" and "Section:" saying the same thing (issue 35 item 8)."""
    from atif_spec.validation.codes import OTHER_CODES
    from atif_spec.validation.rules import REGISTRY

    for code in [*(r.code for r in REGISTRY), *(c.code for c in OTHER_CODES)]:
        out = run("rules", code).output
        assert "``" not in out and ":mod:`" not in out and ":func:`" not in out, code
        assert out.count("Spec:") == 1 and "Section:" not in out, code
    assert "See also: RFC.md §2.3" in run("rules", "ATIF101").output


def test_rules_lists_every_code_under_a_header_within_the_terminal_width() -> None:
    """Was: registry rules only, no header, lines up to 264 characters (issue 35 item 8)."""
    result = CliRunner().invoke(main, ["rules"], env={"COLUMNS": "80"})
    lines = result.output.splitlines()
    assert lines[0].split() == ["CODE", "LEVEL", "APPLIES", "TO"]
    assert max(map(len, lines)) <= 80
    rows = [line for line in lines[2:] if not line.startswith(" ")]
    codes = [line.split()[0] for line in rows]
    assert "ATIF101" in codes and "input:invalid-json" in codes and "schema:required" in codes
    import re

    columns = [m.start() for m in re.finditer(r"(?:^|(?<=  ))\S", lines[0])]
    for line in rows:  # code, level and targets in aligned columns
        assert [m.start() for m in re.finditer(r"(?:^|(?<=  ))\S", line)] == columns, line
    names = {line.split(":")[0].strip() for line in lines[2:] if line.startswith(" ")}
    assert {"non-sequential-step-id", "invalid-json", "schema-required"} <= names


def test_every_input_code_in_the_sources_is_listed() -> None:
    """``atif rules`` lists every ``input:*`` code a source file can produce."""
    import re

    from atif_spec.validation.codes import INPUT_CODES

    tools = ROOT / "tools" / "atif_spec"
    used = {
        match
        for path in tools.rglob("*.py")
        for match in re.findall(r'input_finding\(\s*"([a-z0-9-]+)"', path.read_text("utf-8"))
    }
    used |= {"not-an-object", "unknown-format"}  # chosen by a conditional in lenses/
    assert used <= {c.name for c in INPUT_CODES}, used - {c.name for c in INPUT_CODES}


def test_spec_diff_refuses_two_formats() -> None:
    """Was: ~100 meaningless changes between atif@v1.7 and tao@v0.2.0."""
    result = run("spec", "diff", "atif@v1.7", "tao@v0.2.0")
    assert result.exit_code == 2
    assert "compares two versions of one format" in result.output


def test_conformance_without_a_suite_says_where_to_get_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: "no <format>/<version>/manifest.json found" from a plain install. The suite now
    comes with the package; an installation without it, or an empty --suite, is one line."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(suite, "default_suite", lambda: None)
    for command in (["run", "--impl", "true"], ["lint"], ["export", "out"]):
        result = run("conformance", *command)
        assert result.exit_code == 2, result.output
        assert "no conformance suite is installed: give --suite" in result.output
        result = run("conformance", *command, "--suite", str(tmp_path))
        assert result.exit_code == 2, result.output
        assert "holds no <format>/<version>/manifest.json" in result.output


EVIL_ADAPTER = """
import json, sys
for line in sys.stdin:
    req = json.loads(line)
    if req["cmd"] == "stop":
        break
    if req["cmd"] == "start":
        out = {"protocol": 1, "implementation": {"name": "evil\\x1b[2J", "version": "0"},
               "formats": ["atif"], "profiles": ["schema"], "findings": False}
    else:
        print("\\x1b]0;pwned\\x07", file=sys.stderr, flush=True)
        sys.exit(3)
    print(json.dumps(out), flush=True)
"""


def test_conformance_output_escapes_what_an_implementation_says(tmp_path: Path) -> None:
    """Was: an adapter's name and stderr reached the terminal raw (escape sequences)."""
    import shlex
    import sys

    adapter = tmp_path / "evil.py"
    adapter.write_text(EVIL_ADAPTER, encoding="utf-8")
    impl = shlex.join([sys.executable, str(adapter)])
    suite = str(ROOT / "conformance")
    result = run(
        "conformance", "run", "--suite", suite, "--impl", impl, "--only",
        "atif-v1.0-valid-minimal", color=True,
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "evil\\x1b[2J" in result.output and "\\x1b]0;pwned\\x07" in result.output


TITLE = "\x1b]0;pwned\x07"
"""An OSC sequence that retitles the terminal: a file or implementation name, a schema key."""


def _printing(tmp_path: Path, name: str) -> list[str]:
    """The arguments that make command ``name`` print a name holding :data:`TITLE`."""
    doc = minimal_atif("v1.7")
    plain = write(tmp_path / "t.json", doc)
    hostile = tmp_path / f"a{TITLE}\nb.json"
    blocked = tmp_path / "file.txt"  # a file where a folder is needed: the output cannot be made
    blocked.write_bytes(b"")
    cannot = str(blocked / f"{TITLE}.out")
    if name in ("stats", "view", "render"):
        return [name, str(hostile)]  # missing
    if name == "render: not JSON":
        hostile.write_bytes(b"\x00 not json")
        return ["render", str(hostile)]
    if name == "view -o":
        return ["view", str(plain), "-o", str(tmp_path / f"{TITLE}.html")]
    if name == "export-sft -o":
        return ["export-sft", str(plain), "-o", str(tmp_path / f"{TITLE}.jsonl")]
    if name.endswith("cannot write"):
        command = name.split()[0]
        tail = {"migrate": ["--to", "v1.6"], "validate": ["--summary", cannot]}.get(command, [])
        out = [] if command == "validate" else ["-o", cannot]
        return [command, *tail, str(plain), *out]
    if name == "conformance compare":
        head = {
            "type": "header",
            "implementation": {"implementation": {"name": TITLE, "version": "1"}},
        }
        summary = {
            "type": "summary", "scope": "target", "name": f"atif@{TITLE}",
            "total": 1, "skipped": 0, "passed": 1, "pass_rate": 1.0,
        }  # fmt: skip
        report = tmp_path / "r.jsonl"
        report.write_bytes(orjson.dumps(head) + b"\n" + orjson.dumps(summary) + b"\n")
        return ["conformance", "compare", str(report)]
    assert name == "spec diff", name
    old = write(tmp_path / "old.json", {"type": "object", "properties": {}})
    new = write(
        tmp_path / "new.json",
        {"type": "object", "properties": {f"{TITLE}\nforged": {"type": "string"}}},
    )
    return ["spec", "diff", str(old), str(new)]


@pytest.mark.parametrize(
    "name",
    [
        "stats", "view", "render", "render: not JSON", "view -o", "export-sft -o",
        "migrate cannot write", "export-sft cannot write", "view cannot write",
        "validate cannot write", "conformance compare", "spec diff",
    ],
)  # fmt: skip
def test_every_command_escapes_the_names_it_prints(tmp_path: Path, name: str) -> None:
    """Was: file names in error and status lines, implementation names in ``conformance
    compare`` and schema keys in ``spec diff`` reached the terminal raw."""
    result = run(*_printing(tmp_path, name), color=True)  # as on a terminal: nothing stripped
    assert "Traceback" not in result.output, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output, repr(result.output)
    assert "\\x1b]0;pwned\\x07" in result.output, repr(result.output)
    assert not any(line.startswith(("b.json", "forged")) for line in result.output.splitlines())
