"""Protocol 2 of the conformance runner (roles, ``read``, ``produce``, the ``informational``
outcome), consumers' summaries, explained differences, and the interop data files."""

from __future__ import annotations

import json
import shlex
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from atif_spec.conformance.differences import DifferencesError, explain, load
from atif_spec.conformance.interop import cross_checks, produced, render_markdown
from atif_spec.conformance.producing import Produced, cross_check, native_inputs, run_producer
from atif_spec.conformance.runner import RunOptions, run_suite
from atif_spec.conformance.suite import load_suite
from atif_spec.conformance.summary import mismatches
from atif_spec.conformance.written import write_all
from tests.support import ROOT

SUITE = ROOT / "conformance"
ADAPTERS = SUITE / "adapters"

# A protocol-2 consumer: reads every document; its summary counts the root steps, or lies
# about them (mode "miscount"), or fails on valid ones (mode "refuse"). Protocol 1: "v1only".
CONSUMER = """
import json, sys
mode = sys.argv[1]
for line in sys.stdin:
    req = json.loads(line)
    if req["cmd"] == "stop":
        break
    if req["cmd"] == "start":
        if mode == "v1only" and req["protocol"] != 1:
            out = {"errored": "unsupported protocol version 2"}
        elif mode == "v1only":
            out = {"protocol": 1, "implementation": {"name": "old", "version": "0"},
                   "formats": ["atif"], "profiles": ["schema"], "findings": False}
        else:
            out = {"protocol": 2, "implementation": {"name": "reader", "version": "0"},
                   "roles": ["consumer"], "formats": ["atif"], "profiles": ["schema"],
                   "findings": False}
    elif req["cmd"] == "run":
        out = {"id": req["id"], "valid": "-invalid-" not in req["id"]}
    else:
        doc = req["document"]
        steps = doc.get("steps") if isinstance(doc, dict) else None
        n = len(steps) if isinstance(steps, list) else 0
        if mode == "refuse":
            out = {"id": req["id"], "ok": False, "error": "cannot read"}
        else:
            out = {"id": req["id"], "ok": True,
                   "summary": {"steps": n + (1 if mode == "miscount" else 0), "other": 1}}
    print(json.dumps(out), flush=True)
"""


@pytest.fixture
def consumer(tmp_path: Path) -> Path:
    path = tmp_path / "consumer.py"
    path.write_text(CONSUMER, encoding="utf-8")
    return path


def cases(prefix: str) -> list[Any]:
    return [c for c in load_suite(SUITE) if c.id.startswith(prefix)]


def outcomes(command: list[str], selected: list[Any]) -> dict[str, str]:
    return {r.case.id: r.outcome for r in run_suite(selected, command).results}


def test_a_consumer_reads_valid_cases_and_invalid_ones_are_informational(consumer: Path) -> None:
    selected = cases("atif-v1.7-")
    got = outcomes([sys.executable, str(consumer), "honest"], selected)
    for case in selected:
        expected = "passed" if case.expected_valid else "informational"
        assert got[case.id] == expected, case.id


def test_a_summary_that_disagrees_with_the_document_fails(consumer: Path) -> None:
    run = run_suite(cases("atif-v1.7-valid-"), [sys.executable, str(consumer), "miscount"])
    assert {r.outcome for r in run.results} == {"failed"}
    first = run.results[0]
    assert first.mismatches and first.mismatches[0].startswith("steps: read ")
    assert first.to_dict()["summary"] == first.summary


def test_a_consumer_that_cannot_read_a_valid_document_fails(consumer: Path) -> None:
    got = outcomes([sys.executable, str(consumer), "refuse"], cases("atif-v1.7-"))
    assert {o for i, o in got.items() if "-invalid-" not in i} == {"failed"}
    assert {o for i, o in got.items() if "-invalid-" in i} == {"informational"}


def test_an_adapter_that_refuses_protocol_2_is_restarted_with_protocol_1(consumer: Path) -> None:
    run = run_suite(cases("atif-v1.0-"), [sys.executable, str(consumer), "v1only"])
    assert run.capabilities is not None and run.capabilities.protocol == 1
    assert run.capabilities.roles == {"validator"}
    assert {r.outcome for r in run.results} == {"passed", "skipped"}


def test_read_mode_sends_read_to_a_validator_that_also_reads(consumer: Path) -> None:
    command = [sys.executable, str(consumer), "honest"]
    run = run_suite(cases("atif-v1.7-valid-"), command, RunOptions(mode="read"))
    assert {r.outcome for r in run.results} == {"passed"}
    assert all(r.summary is not None for r in run.results)


def test_summary_keys_are_computed_from_the_document() -> None:
    doc = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "steps": [
            {"step_id": 1, "source": "user", "message": "hi"},
            {"step_id": 2, "source": "agent", "message": "", "llm_call_count": 0,
             "tool_calls": [{"tool_call_id": "a"}, {"tool_call_id": "b"}]},
            {"step_id": 3, "source": "agent", "message": "ok", "is_copied_context": True},
        ],
    }  # fmt: skip
    right = {"steps": 3, "agent_steps": 2, "tool_calls": 2, "llm_steps": 0, "session_id": "s",
             "roundtrip": "equal", "errors": 0, "not-compared": "x"}  # fmt: skip
    assert mismatches("atif", right, doc) == []
    wrong = mismatches("atif", {"steps": 2, "roundtrip": "/x: dropped", "errors": 1}, doc)
    assert len(wrong) == 3
    assert mismatches("atif", {"not-compared": 1}, doc) == [
        "the summary has no key the runner compares (PROTOCOL.md §4.5)"
    ]


def test_system_steps_and_non_text_parts_are_counted_in_messages_and_results() -> None:
    image = {"type": "image", "source": {"media_type": "image/png", "path": "a.png"}}
    doc = {
        "schema_version": "ATIF-v1.7",
        "steps": [
            {"step_id": 1, "source": "system", "message": [{"type": "text", "text": "s"}, image]},
            {"step_id": 2, "source": "user", "message": [{"type": "text", "text": ""}, image]},
            {"step_id": 3, "source": "agent", "message": "look",
             "observation": {"results": [{"content": [image, {"type": "text", "text": "x"}]},
                                         {"content": "plain"}]}},
        ],
    }  # fmt: skip
    assert mismatches("atif", {"system_steps": 1, "non_text_parts": 3}, doc) == []
    assert mismatches("atif", {"non_text_parts": 4}, doc) == [
        "non_text_parts: read 4, document has 3"
    ]


def test_differences_explain_and_report_unexplained_and_stale(tmp_path: Path) -> None:
    toml = tmp_path / "x.toml"
    toml.write_text(
        '[[group]]\nname = "g"\nside = "theirs"\nrfc = "§2"\nsource = "x.py:1"\n'
        'fixture = "conformance/PROTOCOL.md"\npatterns = ["atif-v1.?-invalid-a"]\n'
        'explanation = "e"\n'
        '[[group]]\nname = "stale"\nside = "ours"\nrfc = "§2"\n'
        'fixture = "conformance/PROTOCOL.md"\npatterns = ["atif-v1.0-valid-z"]\n'
        'explanation = "e"\n',
        encoding="utf-8",
    )
    groups = load(toml, ROOT)
    by_item, unexplained, stale = explain(groups, ["atif-v1.2-invalid-a", "atif-v1.2-invalid-b"])
    assert by_item == {"atif-v1.2-invalid-a": "g"}
    assert unexplained == ["atif-v1.2-invalid-b"]
    assert stale == ["stale"]


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ('side = "theirs"\npatterns = ["atif-v1.0-a"]', "needs `source`"),
        ('side = "ours"\npatterns = ["*"]', "bare patterns"),
        ('side = "ours"\npatterns = ["written:*"]', "bare patterns"),
        ('side = "both"\npatterns = ["atif-v1.0-a"]', "ours or theirs"),
        ('side = "ours"\npatterns = ["atif-v1.0-a"]\npeers = "harbor-0.25.0"', "list of names"),
    ],
)
def test_differences_files_are_checked(tmp_path: Path, body: str, error: str) -> None:
    toml = tmp_path / "x.toml"
    toml.write_text(
        f'[[group]]\nname = "g"\nrfc = "§2"\nfixture = "conformance/PROTOCOL.md"\n'
        f'explanation = "e"\n{body}\n',
        encoding="utf-8",
    )
    with pytest.raises(DifferencesError, match=error):
        load(toml, ROOT)


def test_a_shared_differences_file_gives_each_peer_its_own_groups(tmp_path: Path) -> None:
    """Two releases of one package share a file; a group naming `peers` holds only for those,
    so it is neither applied to nor reported stale for the other release."""
    toml = tmp_path / "x.toml"
    group = '[[group]]\nside = "ours"\nrfc = "§2"\nfixture = "conformance/PROTOCOL.md"\n'
    toml.write_text(
        f'{group}name = "both"\npatterns = ["atif-v1.0-a"]\nexplanation = "e"\n'
        f'{group}name = "old"\npatterns = ["produce:x/*"]\nexplanation = "e"\n'
        'peers = ["h-0.25.0"]\n',
        encoding="utf-8",
    )
    assert [g.name for g in load(toml, ROOT)] == ["both", "old"]
    assert [g.name for g in load(toml, ROOT, peer="h-0.25.0")] == ["both", "old"]
    newer = load(toml, ROOT, peer="h-0.26.0")
    assert [g.name for g in newer] == ["both"]
    assert explain(newer, ["atif-v1.0-a", "produce:x/y"])[1] == ["produce:x/y"]


def test_the_report_links_each_group_to_the_file_it_comes_from() -> None:
    group = {"name": "g", "side": "theirs", "rfc": "§2", "items": 3, "source": "x.py:1"}
    data = {
        "peers": {},
        "listed": [],
        "matrix": [],
        "groups": [
            {**group, "implementation": "harbor-0.26.0", "file": "harbor.toml"},
            {**group, "implementation": "atif-scan", "file": "atif-scan.toml"},
        ],
        "cross_checks": [],
        "written": {"documents": 0, "sources": 0, "refused": 0, "invalid": []},
        "problems": [],
    }
    text = render_markdown(data)
    assert "| harbor-0.26.0 | [g](known-differences/harbor.toml) | theirs |" in text
    assert "| atif-scan | [g](known-differences/atif-scan.toml) | theirs |" in text


def test_a_multi_line_reason_stays_in_its_table_row() -> None:
    """A producer's error with several lines (a pydantic ValidationError) and a ``|`` is one
    row of the producers table, not a broken table."""
    row = {"producer": "p", "input": "atof/x.jsonl", "outcome": "errored", "parser": None,
           "steps": [], "reason": "ValidationError: 1 error for Step\ntimestamp\n  a | b",
           "warnings": {}, "lenses": {}, "group": "g"}  # fmt: skip
    data = {"peers": {}, "listed": [], "matrix": [], "groups": [], "produced": [row],
            "cross_checks": [], "problems": [],
            "written": {"documents": 0, "sources": 0, "refused": 0, "invalid": []}}  # fmt: skip
    text = render_markdown(data)
    assert (
        "| p | `atof/x.jsonl` | errored: ValidationError: 1 error for Step timestamp a \\| b "
        "| - | - | - | - | g |"
    ) in text.splitlines()


def test_every_peer_differences_file_exists_and_names_only_its_peers() -> None:
    peers = tomllib.loads((ADAPTERS / "peers.toml").read_text(encoding="utf-8"))["peer"]
    users: dict[str, set[str]] = {}
    for peer in peers:
        users.setdefault(peer.get("differences", f"{peer['name']}.toml"), set()).add(peer["name"])
    for name, sharing in users.items():
        path = SUITE / "known-differences" / name
        named = {p for g in load(path, ROOT) for p in g.peers}
        assert named <= sharing, (name, named - sharing)
    assert users["harbor.toml"] == {"harbor-0.25.0", "harbor-0.26.0"}


def test_every_known_differences_file_loads() -> None:
    files = sorted((SUITE / "known-differences").glob("*.toml"))
    assert files
    for path in files:
        groups = load(path, ROOT)
        assert groups, path
        assert all(g.side == "ours" or g.source for g in groups)


def test_written_documents_are_converted_valid_and_named(tmp_path: Path) -> None:
    written, refused = write_all(cases("atif-v1.7-valid-rich"), tmp_path)
    assert refused == 0  # every version of every format is reached (TAO's through its chain)
    targets = {w.target for w in written}
    assert {"atif@v1.0", "atif@v1.8", "tao@v0.1.0", "tao@v0.2.0", "tao@v0.9.0"} <= targets
    assert "atif@v1.7" not in targets
    assert all(not w.invalid for w in written)
    first = written[0]
    assert first.case.id == f"written:atif-v1.7-valid-rich>{first.target}"
    assert json.loads(first.case.document.read_text())


def test_cross_check_lists_differing_leaves_without_extra() -> None:
    a = {"steps": [{"message": "x", "extra": {"k": 1}}], "notes": "n"}
    b = {"steps": [{"message": "y", "extra": {"k": 2}}]}
    assert cross_check(a, b) == [("/notes", "n", None), ("/steps/0/message", "x", "y")]


def test_cross_checks_compare_only_producers_of_one_format(tmp_path: Path) -> None:
    """An ATIF trajectory and a TAO record of the same log share no pointers: no cross-check."""
    atif = {"schema_version": "ATIF-v1.7", "session_id": "s", "agent": {"name": "a"}, "steps": []}
    tao = {"schema_version": "0.2.0", "trace_id": "t", "session_id": "s", "agent": {"name": "a"}}
    other = {**atif, "session_id": "other"}
    made = [
        Produced("p1", "demo", "demo/a.log", "valid", documents=[atif]),
        Produced("p2", "demo", "demo/a.log", "valid", documents=[tao]),
        Produced("p3", "demo", "demo/a.log", "valid", documents=[other]),
    ]
    checks = cross_checks(made, tmp_path)
    assert [c["producers"] for c in checks] == [["p1", "p3"]]
    assert checks[0]["differing_leaves"] == 1


PRODUCER = """
import json, sys
for line in sys.stdin:
    req = json.loads(line)
    if req["cmd"] == "stop":
        break
    if req["cmd"] == "start":
        out = {"protocol": 2, "implementation": {"name": "maker", "version": "0"},
               "roles": ["producer"], "formats": [], "profiles": [], "findings": False,
               "sources": ["demo"], "writes": ["atif@v1.7"]}
    else:
        doc = {"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"},
               "steps": [{"step_id": 1, "source": "user", "message": open(req["path"]).read()}]}
        if "bad" in req["path"]:
            doc["steps"][0]["step_id"] = 2
        out = {"id": req["id"], "documents": [doc], "messages": ["parser: demo-log"]}
    print(json.dumps(out), flush=True)
"""


def test_producer_outputs_are_validated(tmp_path: Path) -> None:
    script = tmp_path / "producer.py"
    script.write_text(PRODUCER, encoding="utf-8")
    native = tmp_path / "native"
    (native / "demo").mkdir(parents=True)
    (native / "demo" / "good.log").write_text("hello", encoding="utf-8")
    (native / "demo" / "bad.log").write_text("hello", encoding="utf-8")
    inputs = [("demo", native / "demo" / "good.log"), ("demo", native / "demo" / "bad.log")]
    caps, made = run_producer("maker", shlex.split(f"{sys.executable} {script}"), inputs, native)
    assert caps is not None and caps.sources == ("demo",)
    assert {p.input: p.outcome for p in made} == {
        "demo/good.log": "valid",
        "demo/bad.log": "invalid",
    }
    assert any("ATIF101" in f or "step_id" in f for f in made[1].findings)
    assert made[0].messages == ["parser: demo-log"]
    assert [r.outcome for r in made[0].lenses] == ["passed"] * 3  # only valid ones go through
    assert made[1].lenses == []
    item = {"implementation": "maker", "id": "produce:demo/bad.log", "group": "bad-ids"}
    rows = {r["input"]: r for r in produced(made, [item])}
    assert rows["demo/bad.log"]["group"] == "bad-ids" and rows["demo/good.log"]["group"] is None
    assert rows["demo/good.log"]["parser"] == "parser: demo-log"
    assert rows["demo/good.log"]["steps"] == [1]


def test_native_inputs_take_an_export_folder_as_its_log_without_sidecars(tmp_path: Path) -> None:
    export = tmp_path / "cursor" / "export"
    (export / "terminals").mkdir(parents=True)
    for path in (
        export / "transcript.jsonl",
        export / "manifest.json",
        export / "terminals" / "1.txt",
    ):
        path.write_text("{}", encoding="utf-8")
    (tmp_path / "cursor" / "alone.jsonl").write_text("{}", encoding="utf-8")
    pair = tmp_path / "inspect" / "pair"  # an Inspect sample pair: the envelope is a sidecar
    pair.mkdir(parents=True)
    for path in (pair / "sample.json", pair / "metadata.json"):
        path.write_text("{}", encoding="utf-8")
    (tmp_path / "README.md").write_text("", encoding="utf-8")
    assert native_inputs(tmp_path) == [
        ("cursor", tmp_path / "cursor" / "alone.jsonl"),
        ("cursor", export / "transcript.jsonl"),
        ("inspect", pair / "sample.json"),
    ]


def test_every_native_log_has_provenance_and_every_kind_three_logs() -> None:
    native = SUITE / "native"
    readme = (native / "README.md").read_text(encoding="utf-8")
    inputs = native_inputs(native)
    missing = [
        str(p.relative_to(native)) for _, p in inputs if f"`{p.relative_to(native)}`" not in readme
    ]
    assert missing == []
    kinds: dict[str, int] = {}
    for kind, _ in inputs:
        kinds[kind] = kinds.get(kind, 0) + 1
    assert kinds and min(kinds.values()) >= 3, kinds


def test_interop_data_file_matches_the_peers_file() -> None:
    data = json.loads((SUITE / "interop.json").read_text(encoding="utf-8"))
    peers = tomllib.loads((ADAPTERS / "peers.toml").read_text(encoding="utf-8"))
    assert set(data["peers"]) == {p["name"] for p in peers["peer"]}
    assert data["problems"] == []


def test_harbor_known_differences_come_from_the_interop_groups() -> None:
    """KNOWN-DIFFERENCES.md's generator reads known-differences/harbor.toml (one source): a case
    no group explains and a suite group that explains nothing are both reported."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("kd", SUITE / "known_differences.py")
    assert spec is not None and spec.loader is not None
    kd = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kd)
    groups = kd.suite_groups(load(SUITE / "known-differences" / "harbor.toml", ROOT))
    assert {g.name for g in groups} >= {"timestamp-syntax", "schema-url-key"}
    head = {"type": "header", "implementation": {"implementation": {"name": "h", "version": "1"}},
            "suite": {"version": "0"}}  # fmt: skip
    case = {"type": "case", "category": "invalid", "valid": True, "outcome": "failed"}
    lines = [
        head,
        {**case, "id": "atif-v1.7-invalid-timestamp-date-only"},
        {**case, "id": "atif-v1.7-invalid-something-new"},
        {"type": "summary", "passed": 1, "failed": 2, "errored": 0, "skipped": 0},
    ]
    block, problems = kd.render(lines, groups)
    assert (
        "| `atif-v1.7-invalid-timestamp-date-only` | invalid | valid | [timestamp-syntax]" in block
    )
    assert "### `timestamp-syntax`" in block
    assert "unexplained difference: atif-v1.7-invalid-something-new" in problems
    assert "stale group (explains no case): schema-url-key" in problems
