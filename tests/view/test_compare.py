"""``atif view A B --compare``: the alignment of two runs' steps and what each side shows."""

from __future__ import annotations

from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

import orjson
import pytest

from atif_spec.view import CompareError, ViewOptions, build
from atif_spec.view.compare import align, side, step_key


def _step(i: int, source: str = "agent", *tools: str, **fields: Any) -> dict[str, Any]:
    calls = [
        {"tool_call_id": f"c{i}{k}", "function_name": t, "arguments": {}}
        for k, t in enumerate(tools)
    ]
    return {
        "step_id": i,
        "source": source,
        "message": "m",
        **({"tool_calls": calls} if calls else {}),
        **fields,
    }


def test_a_steps_key_is_its_source_and_tool_names() -> None:
    assert step_key(_step(1, "agent", "bash", "read")) == ("agent", ("bash", "read"))
    assert step_key({"source": 3, "tool_calls": [{"function_name": None}, "x"]}) == ("?", ("?",))
    assert step_key({}) == ("?", ())


U, S = ("user", ()), ("system", ())
BASH, READ, GREP = ("agent", ("bash",)), ("agent", ("read",)), ("agent", ("grep",))


def test_inserted_and_missing_steps_stand_against_gaps() -> None:
    a = [S, U, BASH, READ, BASH]
    b = [S, U, BASH, GREP, READ, BASH]
    assert align(a, b) == [
        (0, 0, "same"),
        (1, 1, "same"),
        (2, 2, "same"),
        (None, 3, "only-b"),
        (3, 4, "same"),
        (4, 5, "same"),
    ]
    assert align(b, a)[3] == (3, None, "only-a")


def test_a_replaced_run_pairs_in_order_and_leaves_the_rest_unmatched() -> None:
    rows = align([U, READ, READ, BASH], [U, GREP, BASH])
    assert rows == [(0, 0, "same"), (1, 1, "changed"), (2, None, "only-a"), (3, 2, "same")]


def test_runs_of_like_steps_match_at_both_ends() -> None:
    # SequenceMatcher alone matches A's first four bash steps with B's last four, leaving
    # both ends unmatched; the common beginning and end are matched first.
    a = [S, U] + [BASH] * 8
    b = [S, U] + [BASH] * 4 + [READ, BASH, BASH, GREP] + [BASH] * 4
    rows = align(a, b)
    assert rows[:6] == [(k, k, "same") for k in range(6)]
    assert rows[-4:] == [(6 + k, 10 + k, "same") for k in range(4)]
    assert sorted(tag for _, _, tag in rows).count("same") == 10
    # Every step of each run is in exactly one row, in order.
    assert [i for i, _, _ in rows if i is not None] == list(range(len(a)))
    assert [j for _, j, _ in rows if j is not None] == list(range(len(b)))


def test_equally_long_blocks_match_near_the_diagonal() -> None:
    # B has two grep steps inside a long bash run; the runs begin and end differently. The
    # standard SequenceMatcher matches B's longest bash block with A's first bash steps, 19
    # steps the same; the block nearest the diagonal keeps all but one of A's 30 bash steps.
    a = [S] + [BASH] * 30 + [S]
    b = [U] + [BASH] * 10 + [GREP] + [BASH] * 12 + [GREP] + [BASH] * 7 + [U]
    plain = SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
    assert sum(block.size for block in plain) == 19
    tags = [tag for _, _, tag in align(a, b)]
    assert (tags.count("same"), tags.count("changed"), tags.count("only-b")) == (29, 3, 1)


def test_nothing_in_common_and_empty_runs() -> None:
    assert align([U], [BASH]) == [(0, 0, "changed")]
    assert align([], [U, BASH]) == [(None, 0, "only-b"), (None, 1, "only-b")]
    assert align([], []) == []
    assert align([U, U], [U, U]) == [(0, 0, "same"), (1, 1, "same")]


def test_a_side_has_per_step_tokens_tools_and_findings() -> None:
    entry = {
        "source": "a.json",
        "atif": {
            "agent": {"name": "coder", "version": "2", "model_name": "m"},
            "steps": [
                _step(1, "user"),
                _step(2, "agent", "bash", metrics={"prompt_tokens": 10, "completion_tokens": 5}),
                _step(3, "agent", "bash", "read"),
                _step(4, is_copied_context=True, metrics={"prompt_tokens": 99}),  # not counted
            ],
        },
        "findings": [
            {"pointer": "/steps/1/message", "level": "error"},
            {"pointer": "/steps/1", "level": "warning"},
            {"pointer": "/subagent_trajectories/0/steps/1", "level": "error"},
            {"pointer": "", "level": "warning"},
        ],
        "totals": {"prompt_tokens": 10, "completion_tokens": 5, "cost_usd": None},
    }
    one = side(entry)
    assert (one["agent"], one["model"], one["errors"], one["warnings"]) == ("coder 2", "m", 2, 2)
    assert one["tool_calls"] == {"bash": 2, "read": 1}
    second = one["steps"][1]
    assert second == {
        "i": 1,
        "id": 2,
        "source": "agent",
        "tools": ["bash"],
        "tokens": 15,
        "errors": 1,
        "warnings": 1,
    }
    assert one["steps"][2]["tokens"] is None and one["steps"][2]["errors"] == 0
    assert one["steps"][3]["tokens"] is None  # RFC.md §2.4: copied context does not count


def _write(path: Path, steps: list[dict[str, Any]]) -> str:
    doc = {"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"}, "steps": steps}
    path.write_bytes(orjson.dumps(doc))
    return str(path)


def test_build_compares_two_files_and_refuses_anything_else(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.json", [_step(1, "user"), _step(2, "agent", "bash")])
    b = _write(tmp_path / "b.json", [_step(1, "user"), _step(2, "agent", "read"), _step(3)])
    payload = build([a, b], ViewOptions(compare=True))
    compare = payload["compare"]
    assert compare["docs"] == [0, 1] and [s["source"] for s in compare["sides"]] == [a, b]
    assert compare["rows"] == [[0, 0, "same"], [1, 1, "changed"], [None, 2, "only-b"]]
    assert compare["counts"] == {"same": 1, "changed": 1, "only-a": 0, "only-b": 1}
    assert build([a, b])["compare"] is None
    with pytest.raises(CompareError, match=r"two trajectory files .* not 1"):
        build([a], ViewOptions(compare=True))
    with pytest.raises(CompareError, match="not 3"):
        build([a, b, _write(tmp_path / "c.json", [_step(1)])], ViewOptions(compare=True))
    lines = tmp_path / "two.jsonl"
    lines.write_bytes(
        (tmp_path / "a.json").read_bytes() + b"\n" + (tmp_path / "b.json").read_bytes() + b"\n"
    )
    with pytest.raises(CompareError, match=r"each input must be one trajectory .*hold 3"):
        build([str(lines), a], ViewOptions(compare=True))
    (tmp_path / "bad.json").write_bytes(b"{not json")
    with pytest.raises(CompareError, match="could not be read as a trajectory"):
        build([a, str(tmp_path / "bad.json")], ViewOptions(compare=True))
