"""``reader.by_trace``: the documents of an OTLP/JSON file are its traces, however an exporter
spread their spans over lines (RFC.md §7.1 item 2)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from itertools import islice
from typing import Any

import pytest

from atif_spec.jsonio.jsontext import loads
from atif_spec.validation.reader import RawDocument, UnreadablePath, by_trace, read_lines
from tests.support import ROOT
from tests.support.otlp import SMALL_A, SMALL_B, interleaved, jsonl, traces

LIMIT = 1 << 20
A, B = SMALL_A, SMALL_B


def _grouped(data: bytes, limit: int = LIMIT) -> list[RawDocument]:
    return list(by_trace(read_lines(io.BytesIO(data), "t.jsonl", None, limit), limit))


def _parsed(docs: list[RawDocument]) -> list[Any]:
    return [loads(d.data) for d in docs]


def test_a_trace_split_over_three_lines_is_one_document_equal_to_the_unsplit_one() -> None:
    docs = _grouped(jsonl(interleaved(A, B)))
    assert _parsed(docs) == [A, B]  # by first appearance
    assert [(d.line, d.lines) for d in docs] == [(1, (1, 3, 4)), (1, (1, 2))]


def test_a_file_of_one_trace_per_line_is_read_as_before() -> None:
    data = jsonl([A, B])
    before = list(read_lines(io.BytesIO(data), "t.jsonl", None, LIMIT))
    assert _grouped(data) == before


def test_a_line_holding_two_whole_traces_is_two_documents_of_that_line() -> None:
    both = traces(A["resourceSpans"][0], B["resourceSpans"][0])
    docs = _grouped(jsonl([both]))
    assert _parsed(docs) == [A, B]
    assert [(d.line, d.lines) for d in docs] == [(1, None), (1, None)]


def test_a_record_that_is_no_trace_stays_a_document_in_its_place() -> None:
    data = jsonl([A]) + b"{not json\n" + jsonl([traces(), B])
    docs = _grouped(data)
    assert [d.line for d in docs] == [1, 2, 3, 4]
    assert docs[1].data == b"{not json\n"
    assert _parsed([docs[0], docs[2], docs[3]]) == [A, traces(), B]


def test_another_source_is_streamed_through() -> None:
    def endless() -> Iterator[RawDocument]:
        n = 0
        while True:
            n += 1
            yield RawDocument("t.jsonl", b'{"schema_version": "ATIF-v1.8"}\n', n)

    assert [d.line for d in islice(by_trace(endless(), LIMIT), 3)] == [1, 2, 3]


def test_an_otlp_file_over_the_limit_is_refused_whole() -> None:
    data = jsonl(interleaved(A, B))
    assert len(_grouped(data, len(data))) == 2
    with pytest.raises(UnreadablePath, match=r"t\.jsonl: .*--max-bytes"):
        _grouped(data, len(data) - 1)


def test_a_producers_batches_are_its_traces() -> None:
    """pydantic-ai's two runs as its batching exporter wrote them (a line per batch of 4 spans:
    the first trace over lines 1-3, line 3 shared) and as one line per run: the same spans."""
    folder = ROOT / "conformance" / "otel"
    per_run = (folder / "pydantic-ai.jsonl").read_bytes()
    docs = _grouped((folder / "pydantic-ai-batches.jsonl").read_bytes())
    assert _parsed(docs) == [loads(line) for line in per_run.splitlines()]
    assert [(d.line, d.lines) for d in docs] == [(1, (1, 2, 3)), (3, (3, 4))]


def test_a_span_id_that_comes_again_starts_another_document_of_the_trace() -> None:
    """A repeated export (or two documents our writer derived the same ids for): the second
    copy is a document of its own, gathered from its lines like the first."""
    again = interleaved(A, B)
    docs = _grouped(jsonl([A, *again]))
    assert _parsed(docs) == [A, A, B]
    assert [(d.line, d.lines) for d in docs] == [(1, None), (2, (2, 4, 5)), (2, (2, 3))]
    twice = jsonl([A, A])
    assert _grouped(twice) == list(read_lines(io.BytesIO(twice), "t.jsonl", None, LIMIT))
