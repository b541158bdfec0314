"""``atif view`` without a browser: the page's safety properties and what goes into it."""

from __future__ import annotations

import base64
import hashlib
import re
import tracemalloc
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from atif_spec.cli import main
from atif_spec.validation.reader import read_file
from atif_spec.view import SCRIPTS, ViewOptions, build, embed_json, page, render, script
from atif_spec.view.documents import MAX_MEDIA_BYTES, _provider, sniff
from tests.support import ROOT
from tests.support.harbor import harbor_job

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
HOSTILE = "</script><script>alert(1)</script><!-- \u2028\u2029 & <b onmouseover=x>"


def _doc(message: Any = "hi", **extra: Any) -> dict[str, Any]:
    doc = {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "a", "version": "1"},
        "steps": [{"step_id": 1, "source": "user", "message": message}],
    }
    doc.update(extra)
    return doc


def _write(folder: Path, doc: Any, name: str = "t.json") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(orjson.dumps(doc))
    return path


def test_embedded_json_escapes_what_could_end_the_script() -> None:
    text = embed_json({"k": HOSTILE})
    for raw in ("<", ">", "&", "\u2028", "\u2029"):
        assert raw not in text
    assert orjson.loads(text) == {"k": HOSTILE}


def test_csp_hashes_are_those_of_the_page_script_and_style(tmp_path: Path) -> None:
    html = render([str(_write(tmp_path, _doc(HOSTILE)))])
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert csp is not None
    policy = csp.group(1).replace("&#x27;", "'")
    assert "default-src 'none'" in policy and "unsafe-inline" not in policy
    assert "img-src data:" in policy and "media-src data:" in policy
    script = re.findall(r"<script>(.*?)</script>", html, re.S)
    style = re.findall(r"<style>(.*?)</style>", html, re.S)
    assert len(script) == 1 and len(style) == 1

    def digest(text: str) -> str:
        return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    assert f"script-src 'sha256-{digest(script[0])}'" in policy
    assert f"style-src 'sha256-{digest(style[0])}'" in policy
    # The hostile string cannot close the data element: only the page's own two scripts end.
    assert html.count("</script>") == 2
    assert "alert(1)" in html  # present, as escaped JSON text
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)


def test_template_slots_are_filled_once(tmp_path: Path) -> None:
    html = render([str(_write(tmp_path, _doc("{{SCRIPT}} {{STYLE}}")))])
    assert html.count("'use strict'") == 1


def test_media_embedded_only_from_inside_the_folder(tmp_path: Path) -> None:
    run = tmp_path / "run"
    (run / "images").mkdir(parents=True)
    (run / "images" / "ok.png").write_bytes(PNG)
    (run / "images" / "lie.png").write_bytes(b"GIF89a....")
    (tmp_path / "outside.png").write_bytes(PNG)

    def part(path: str, kind: str = "image/png") -> dict[str, Any]:
        return {"type": "image", "source": {"media_type": kind, "path": path}}

    message = [
        part("images/ok.png"),
        part("images/lie.png"),
        part("../outside.png"),
        part("https://example.com/a.png"),
        part("images/missing.png"),
    ]
    path = _write(run, _doc(message))
    media = build([str(path)])["docs"][0]["media"]
    at = [media[f"/steps/0/message/{j}"] for j in range(5)]
    assert at[0]["data"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert "not image/png" in at[1]["error"]
    assert "outside" in at[2]["error"]
    assert at[3] == {"url": "https://example.com/a.png"}
    assert "cannot read" in at[4]["error"]
    lifted = build([str(path)], ViewOptions(allow_outside=True))["docs"][0]["media"]
    assert lifted["/steps/0/message/2"]["data"].startswith("data:image/png;base64,")


def test_media_size_and_type_checks(tmp_path: Path) -> None:
    big = tmp_path / "big.png"
    with big.open("wb") as fh:
        fh.write(PNG)
        fh.truncate(MAX_MEDIA_BYTES + 1)
    doc = _doc([{"type": "image", "source": {"media_type": "image/png", "path": "big.png"}}])
    media = build([str(_write(tmp_path, doc))])["docs"][0]["media"]
    assert "larger than" in media["/steps/0/message/0"]["error"]
    assert sniff(PNG, "image/png") and not sniff(PNG, "image/jpeg")
    assert not sniff(b"<svg/>", "image/svg+xml")


def test_follow_refs_links_subagent_files_and_continuations() -> None:
    refs = ROOT / "conformance/atif/v1.7/valid/summarization-file-refs/trajectory.json"
    plain = build([str(refs)])
    assert len(plain["docs"]) == 1 and plain["docs"][0]["totals"]["unresolved_refs"] == 3
    followed = build([str(refs)], ViewOptions(follow_refs=True))
    main_doc = followed["docs"][0]
    assert sorted(main_doc["links"].values()) == [1, 2, 3]
    # Totals include each referenced file's usage once (RFC.md §2.4).
    own = plain["docs"][0]["totals"]["prompt_tokens"]
    linked = sum(d["totals"]["prompt_tokens"] for d in followed["docs"][1:])
    assert main_doc["totals"]["prompt_tokens"] == own + linked
    cont = ROOT / "conformance/atif/v1.7/valid/continued-trajectory/trajectory.json"
    assert build([str(cont)], ViewOptions(follow_refs=True))["docs"][0]["continuation"] == 1


def test_refs_outside_the_folder_are_not_followed(tmp_path: Path) -> None:
    _write(tmp_path, _doc(), "other.json")
    doc = _doc(continued_trajectory_ref="../other.json")
    path = _write(tmp_path / "run", doc)
    assert build([str(path)], ViewOptions(follow_refs=True))["docs"][0]["continuation"] is None
    lifted = ViewOptions(follow_refs=True, allow_outside=True)
    assert build([str(path)], lifted)["docs"][0]["continuation"] == 1


def test_follow_refs_looks_at_a_referenced_files_size_before_reading_it(tmp_path: Path) -> None:
    """Was: a reference to a huge (sparse) file was read whole before --max-bytes was looked
    at (3.2 GB of memory for a 1 GB file); now it is a too-large finding on its entry."""
    size = 64 * 1024 * 1024
    with (tmp_path / "huge.json").open("wb") as fh:
        fh.truncate(size)  # sparse: no disk space, no bytes written
    path = _write(tmp_path, _doc(continued_trajectory_ref="huge.json"))
    options = ViewOptions(follow_refs=True, max_bytes=100_000)
    build([str(_write(tmp_path, _doc(), "warm.json"))], options)  # schemas, rules: loaded now
    tracemalloc.start()
    try:
        payload = build([str(path)], options)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < size // 8, peak
    linked = payload["docs"][payload["docs"][0]["continuation"]]
    assert linked["source"] == str(tmp_path / "huge.json")
    assert [(f["code"], f["message"]) for f in linked["findings"]] == [
        (
            "input:too-large",
            f"document of {size} bytes exceeds the limit of 100000 bytes (raise it with "
            "--max-bytes)",
        )
    ]


def test_dataset_index_max_docs_and_stats(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_bytes(b"\n".join([orjson.dumps(_doc())] * 5 + [b"{bad"]) + b"\n")
    payload = build([str(data)], ViewOptions(max_docs=3))
    assert payload["dataset"] is True
    assert (payload["total"], payload["shown"], len(payload["index"])) == (6, 3, 3)
    assert payload["stats"]["documents"] == 6 and payload["stats"]["invalid"] == 1
    steps = next(c for c in payload["charts"] if c["title"] == "steps per document")
    assert (steps["labels"], steps["series"][0]["values"]) == (["1"], [5])


def test_pages_reach_every_document(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_bytes(b"\n".join(orjson.dumps(_doc(f"m{i}")) for i in range(7)) + b"\n")
    seen = []
    for number in (1, 2, 3):
        payload = build([str(data)], ViewOptions(max_docs=3, page=number))
        assert (payload["page"], payload["pages"], payload["first"]) == (number, 3, 3 * number - 3)
        assert payload["stats"]["documents"] == 7  # every page counts all
        seen += [r["line"] for r in payload["index"]]
        assert [d["line"] for d in payload["docs"]] == [r["line"] for r in payload["index"]]
    assert seen == list(range(1, 8))
    past = build([str(data)], ViewOptions(max_docs=3, page=4))
    assert (past["shown"], past["index"], past["docs"]) == (0, [], [])


def test_other_formats_keep_their_tree_and_findings() -> None:
    tao = ROOT / "conformance/tao/v0.2.0/invalid/agent-missing-name.json"
    doc = build([str(tao)])["docs"][0]
    assert doc["format"] == "tao" and doc["tree"] == orjson.loads(tao.read_bytes())
    assert doc["findings"][0]["pointer"] == "/agent/name"
    assert doc["atif"] is None  # the lens refuses it: the page shows the source tree only
    valid = next((ROOT / "conformance/tao/v0.2.0/valid").glob("*.json"))
    converted = build([str(valid)])["docs"][0]
    assert converted["tree"] is not None and converted["atif"]["schema_version"] == "ATIF-v1.7"


def test_unreadable_document_still_gets_a_page(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"{nope")
    payload = build([str(bad)])
    assert payload["docs"][0]["atif"] is None and payload["docs"][0]["findings"]
    assert "<!DOCTYPE html>" in page(payload)


def test_cli_writes_the_page_atomically(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    result = CliRunner().invoke(main, ["view", str(_write(tmp_path, _doc())), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("<!DOCTYPE html>")
    missing = CliRunner().invoke(main, ["view", str(tmp_path / "nope.json")])
    assert missing.exit_code == 2 and "no such file" in missing.output


def test_cli_page_option(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_bytes(b"\n".join(orjson.dumps(_doc(f"m{i}")) for i in range(3)) + b"\n")
    out = tmp_path / "p.html"
    args = ["view", str(data), "--max-docs", "2", "--page", "2", "-o", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    data_json = re.search(r'id="atif-data">(.*?)</script>', out.read_text(), re.S)
    assert data_json is not None
    payload = orjson.loads(data_json.group(1))
    assert (payload["page"], payload["first"], [r["line"] for r in payload["index"]]) == (2, 2, [3])
    zero = CliRunner().invoke(main, ["view", str(data), "--page", "0"])
    assert zero.exit_code == 2


@pytest.mark.parametrize("command", ["view", "stats"])
def test_help(command: str) -> None:
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0
    assert "Usage: main " + command in result.output or f"{command} [OPTIONS]" in result.output


def test_totals_count_the_references_of_referenced_files(tmp_path: Path) -> None:
    def agent_step(step_id: int, tokens: int, ref: str | None = None) -> dict[str, Any]:
        step: dict[str, Any] = {
            "step_id": step_id,
            "source": "agent",
            "message": "m",
            "metrics": {"prompt_tokens": tokens, "completion_tokens": 1},
        }
        if ref is not None:
            step["observation"] = {
                "results": [
                    {"subagent_trajectory_ref": [{"session_id": ref, "trajectory_path": ref}]}
                ]
            }
        return step

    def doc(session: str, tokens: int, ref: str | None = None) -> dict[str, Any]:
        return {
            "schema_version": "ATIF-v1.7",
            "session_id": session,
            "agent": {"name": "a", "version": "1"},
            "steps": [
                {"step_id": 1, "source": "user", "message": "go"},
                agent_step(2, tokens, ref),
            ],
        }

    _write(tmp_path, doc("grandchild.json", 100), "grandchild.json")
    _write(tmp_path, doc("child.json", 10, "grandchild.json"), "child.json")
    parent = _write(tmp_path, doc("parent", 1, "child.json"), "parent.json")
    followed = build([str(parent)], ViewOptions(follow_refs=True))
    assert [d["totals"]["prompt_tokens"] for d in followed["docs"]] == [111, 110, 100]
    assert all(d["totals"]["unresolved_refs"] == 0 for d in followed["docs"])
    assert all(d["valid"] for d in followed["docs"]), [d["findings"] for d in followed["docs"]]
    plain = build([str(parent)])["docs"][0]["totals"]
    assert plain["prompt_tokens"] == 1 and plain["unresolved_refs"] == 1


def test_references_not_followed_say_why(tmp_path: Path) -> None:
    ref = {"trajectory_path": "missing.json", "session_id": "m"}
    doc = _doc(continued_trajectory_ref="https://example.com/next.json")
    doc["steps"].append(
        {
            "step_id": 2,
            "source": "agent",
            "message": "m",
            "observation": {"results": [{"subagent_trajectory_ref": [ref]}]},
        }
    )
    path = _write(tmp_path, doc)
    followed = build([str(path)], ViewOptions(follow_refs=True))
    assert followed["follow_refs"] is True
    assert followed["docs"][0]["not_followed"] == {
        "/steps/1/observation/results/0/subagent_trajectory_ref/0": "no such file",
        "/continued_trajectory_ref": "a URL (never loaded)",
    }
    plain = build([str(path)])
    assert plain["follow_refs"] is False and plain["docs"][0]["not_followed"] == {}


def test_the_script_is_its_parts_in_one_strict_scope() -> None:
    text = script()
    assert text.startswith("(function () {\n'use strict';\n") and text.endswith("})();\n")
    for name in SCRIPTS:
        assert f"// --- {name} ---" in text
    assert text.index("function el(") < text.index("function route(")  # helpers first
    assert text.rstrip().endswith("setAttribute('data-ready', '1');\n\n})();")  # drawn last


def test_the_payload_explains_the_totals() -> None:
    entry = build([str(ROOT / "conformance/atif/v1.8/valid/rich.json")])["docs"][0]
    assert entry["final"]["differs"] is True
    assert entry["final"]["reasons"][0].endswith("own steps only, without its 1 subagent")
    assert entry["totals"]["prompt_tokens"] == 1774


CLAUDE_SESSION = (
    ROOT
    / "conformance/native/claude-code/task-subagent-session"
    / "7c41d2e8-0b9a-4f63-a5d1-2e8f4c9b1a70.jsonl"
)


def test_a_provider_stream_is_shown_converted_and_says_so() -> None:
    payload = build([str(CLAUDE_SESSION)])
    assert payload["total"] == 1 and not payload["dataset"]
    entry = payload["docs"][0]
    assert entry["format"] == "step-substep"
    assert "converted in memory" in entry["converted"] and "Claude Code" in entry["converted"]
    assert len(entry["atif"]["steps"]) == 3
    assert [f["code"] for f in entry["findings"]] == ["input:provider-stream"]


def test_a_plain_document_says_nothing_of_conversion(tmp_path: Path) -> None:
    assert build([str(_write(tmp_path, _doc()))])["docs"][0]["converted"] is None


def test_a_harbor_job_gets_one_row_per_trial(tmp_path: Path) -> None:
    job = harbor_job(tmp_path)
    payload = build([str(job.root)])
    assert payload["follow_refs"] and payload["named"] == [str(job.root)]
    trials = {t["name"]: t for t in payload["trials"]}
    assert sorted(trials) == sorted(p.name for p in job.root.iterdir() if p.is_dir())
    failed = trials["hello-world__Ee0Rr1t"]
    assert failed["outcome"] == "error" and failed["exception"]["type"] == "AgentTimeoutError"
    continued = trials["hello-world__Ab3dE7f"]
    labels = [d["label"] for d in continued["docs"]]
    assert labels == ["agent/trajectory.cont-1.json", "agent/trajectory.json"]
    assert labels[continued["main"]] == "agent/trajectory.json"  # its own, not the continuation
    multi = trials["build-and-test__Pp1Qr4s"]
    assert [d["label"] for d in multi["docs"]] == [
        "steps/build/agent/trajectory.json",
        "steps/test/agent/trajectory.json",
    ]
    # A trial's numbers add up its trajectories as stats counts them (each file once).
    rows = {(r["source"]): r for r in payload["index"]}
    summarized = trials["hello-world__Kq9Lm2x"]
    files = [str(job.root / "hello-world__Kq9Lm2x" / d["label"]) for d in summarized["docs"]]
    assert summarized["steps"] == sum(rows[f]["steps"] for f in files)
    assert summarized["tokens"] == sum(rows[f]["tokens"] or 0 for f in files)


def test_a_file_is_one_document_on_the_page(tmp_path: Path) -> None:
    # The summarization files are inputs and the trajectory's followed references: once each.
    job = harbor_job(tmp_path)
    trial = job.root / "hello-world__Kq9Lm2x"
    payload = build([str(trial)])
    assert payload["total"] == 4 and len(payload["docs"]) == 4
    sources = [d["source"] for d in payload["docs"]]
    assert len(set(sources)) == 4
    main = payload["docs"][0]
    assert sorted(main["links"].values()) == [1, 2, 3]
    assert sorted(r["doc"] for r in payload["index"]) == [0, 1, 2, 3]


def test_no_trials_outside_harbor_folders(tmp_path: Path) -> None:
    assert build([str(_write(tmp_path, _doc()))])["trials"] == []


def test_an_atof_stream_is_shown_as_its_trajectory_without_a_provider_note() -> None:
    path = ROOT / "conformance" / "atof" / "v0.1" / "valid" / "tool-calling-agent.jsonl"
    (raw,) = read_file(str(path))
    assert raw.stream == "atof"
    assert not _provider(raw, [])
    assert _provider(raw._replace(stream="claude"), {})
