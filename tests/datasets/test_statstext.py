"""The text forms of ``atif stats``: ``--histogram`` under the table."""

from __future__ import annotations

from pathlib import Path

import orjson
from click.testing import CliRunner

from atif_spec.cli import main
from atif_spec.datasets.stats import Group
from atif_spec.datasets.statstext import histograms_text


def _doc(steps: int, tokens: int | None) -> bytes:
    rows = [{"step_id": i + 1, "source": "user", "message": "m"} for i in range(steps)]
    if tokens is not None:
        rows[0] = {**rows[0], "source": "agent", "metrics": {"prompt_tokens": tokens}}
    return orjson.dumps(
        {"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"}, "steps": rows}
    )


def test_histograms_of_per_document_values() -> None:
    group = Group(steps=[1, 1, 2, 9], tokens=[100], costs=[], durations=[0.5, 2.5])
    out = histograms_text(group, ["steps", "cost", "duration"])
    assert out.splitlines() == [
        "",
        "steps per document (4 documents):",
        "  1  2  ########################################",
        "  2  1  ####################",
        "  3  0",
        "  4  0",
        "  5  0",
        "  6  0",
        "  7  0",
        "  8  0",
        "  9  1  ####################",
        "",
        "cost per document (USD) (0 documents):",
        "  (no values)",
        "",
        "seconds per document, first to last step timestamp (2 documents):",
        "  0.4\u20130.6  1  ########################################",
        "  0.6\u20130.8  0",
        "    0.8\u20131  0",
        "    1\u20131.2  0",
        "  1.2\u20131.4  0",
        "  1.4\u20131.6  0",
        "  1.6\u20131.8  0",
        "    1.8\u20132  0",
        "    2\u20132.2  0",
        "  2.2\u20132.4  0",
        "  2.4\u20132.6  1  ########################################",
    ]
    assert histograms_text(group, []) == ""


def test_stats_histogram_option(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_bytes(b"\n".join([_doc(3, 500), _doc(3, 700), _doc(12, None)]) + b"\n")
    result = CliRunner().invoke(main, ["stats", str(data), "--histogram", "tokens"])
    assert result.exit_code == 0, result.output
    table, histogram = (
        result.output.split("\n\n", 1)[0],
        result.output.split("tokens per document")[1],
    )
    assert table.splitlines()[1].split() == ["documents", "3"]
    # Only the two documents with token metrics are in the histogram.
    assert histogram.splitlines()[0] == ", prompt + completion (2 documents):"
    assert "  500\u2013519  1  ####" in histogram and "  700\u2013719  1  ####" in histogram
    bad = CliRunner().invoke(main, ["stats", str(data), "--histogram", "steps", "--format", "json"])
    assert bad.exit_code == 2 and "--histogram draws on the text output" in bad.output
