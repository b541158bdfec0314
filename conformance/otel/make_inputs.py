"""Write the real producers' OTLP/JSON files of conformance/otel (``nox -s otel-inputs``).

- ``pydantic-ai.jsonl``: pydantic-ai's own instrumentation (GenAI conventions, its
  instrumentation format version 5), offline: an agent on ``TestModel`` with two tools, one of
  which runs a second agent (a sub-agent) with a tool of its own. The spans are caught by the
  OpenTelemetry SDK's in-memory exporter, encoded by the OTLP exporter's encoder and written
  with ``otel_check.to_json_line`` (integer enums, hex ids): one line per agent run.
- ``pydantic-ai-batches.jsonl``: the same two runs as a batching exporter writes them: the
  SDK's ``BatchSpanProcessor`` (batches of :data:`BATCH` spans) hands them to an exporter that
  writes one line per export call, as the OpenTelemetry file exporter does: a trace spread over
  several lines, and a line with spans of both traces (RFC.md §7.1 item 2).
- ``harbor-atif2otel.jsonl``: harbor-atif2otel's ``convert_trajectory`` on valid ATIF fixtures,
  written with its own ``resource_spans_to_otlp_json`` exactly as its exporter writes a line
  (``export._write_resource_spans``): one line per fixture. Not valid OTLP/JSON (README.md).

``--check`` writes into a temporary folder and compares each file's span tree with the
committed one (ids and times of pydantic-ai's runs are new on every run; the trees are not).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from harbor_atif2otel import convert_trajectory, resource_spans_to_otlp_json
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.trace.v1.trace_pb2 import TracesData
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities.instrumentation import Instrumentation
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.models.test import TestModel

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parents[1]))
from conformance.otel_check import render, span_tree, to_json_line  # noqa: E402

ATIF_FIXTURES = (
    "conformance/atif/v1.4/valid/rich.json",
    "conformance/atif/v1.7/valid/embedded-subagent-two-levels.json",
    "conformance/atif/v1.7/valid/embedded-subagent-ids-reused-own-agents.json",
)
"""Valid fixtures of versions harbor-atif2otel reads (v1.0-v1.7), each of its own session (its
trace ids come from the session id, so two documents of one session share span ids): tool
calls, metrics and a subagent reference; embedded subagents two levels deep, and with agents of
their own. (README.md: the fixture of the fourth session, v1.7/null-optional-objects.json, makes
it raise.)"""


BATCH = 4
"""Spans per export batch of ``pydantic-ai-batches.jsonl`` (the SDK's default is 512: small
here so that the runs' few spans make several lines)."""


class LineExporter(SpanExporter):
    """An exporter that writes one OTLP/JSON line per export call (a file exporter's rule)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        request = encode_spans(spans)
        self.lines.append(to_json_line(TracesData(resource_spans=request.resource_spans)))
        return SpanExportResult.SUCCESS


def pydantic_ai_files() -> tuple[list[str], list[str]]:
    """Two agent runs of pydantic-ai: the lines of ``pydantic-ai.jsonl`` (one per run) and of
    ``pydantic-ai-batches.jsonl`` (one per export batch of :data:`BATCH` spans, in end order; no
    batch is exported before it is full but the last: a schedule delay of an hour). Both hold
    the same spans."""
    caught, lines = InMemorySpanExporter(), LineExporter()
    batches = BatchSpanProcessor(
        lines, max_export_batch_size=BATCH, schedule_delay_millis=3_600_000
    )
    provider = _runs(SimpleSpanProcessor(caught), batches)
    spans = caught.get_finished_spans()
    per_run = []
    for trace_id in dict.fromkeys(s.context.trace_id for s in spans):
        request = encode_spans([s for s in spans if s.context.trace_id == trace_id])
        per_run.append(to_json_line(TracesData(resource_spans=request.resource_spans)))
    provider.shutdown()
    return per_run, lines.lines


def _runs(*processors: SpanProcessor) -> TracerProvider:
    """Run the two agents, their spans to each of ``processors``; flushed."""
    provider = TracerProvider(resource=Resource.create({"service.name": "atif-spec-otel-inputs"}))
    for processor in processors:
        provider.add_span_processor(processor)
    settings = InstrumentationSettings(tracer_provider=provider, version=5)

    researcher = Agent(
        TestModel(custom_output_text="The archive says: 42."),
        name="researcher",
        instructions="Answer from the archive.",
        capabilities=[Instrumentation(settings=settings)],
    )

    @researcher.tool_plain
    def search_archive(query: str) -> str:
        """Search the archive."""
        return f"archive hit for {query}: 42"

    assistant = Agent(
        TestModel(custom_output_text="It is sunny, and the answer is 42."),
        name="assistant",
        instructions="Be brief.",
        capabilities=[Instrumentation(settings=settings)],
    )

    @assistant.tool_plain
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    @assistant.tool
    async def ask_researcher(ctx: RunContext[None], question: str) -> str:
        """Delegate a question to the researcher agent (a sub-agent)."""
        result = await researcher.run(question, usage=ctx.usage)
        return result.output

    async def runs() -> None:
        await assistant.run("What is the weather, and what does the archive say?")
        await researcher.run("Look up the answer.")

    asyncio.run(runs())
    provider.force_flush()
    return provider


def atif2otel_lines(root: Path) -> list[str]:
    """harbor-atif2otel's JSON line for each of ATIF_FIXTURES."""
    lines = []
    for name in ATIF_FIXTURES:
        document = json.loads((root / name).read_text(encoding="utf-8"))
        lines.append(json.dumps(resource_spans_to_otlp_json(convert_trajectory(document))))
    return lines


def write(folder: Path) -> list[Path]:
    written = []
    root = HERE.parents[1]
    per_run, batches = pydantic_ai_files()
    for name, lines in (
        ("pydantic-ai.jsonl", per_run),
        ("pydantic-ai-batches.jsonl", batches),
        ("harbor-atif2otel.jsonl", atif2otel_lines(root)),
    ):
        path = folder / name
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    if "--check" not in argv:
        for path in write(HERE):
            print(f"wrote {path.relative_to(HERE.parents[1])}")
        return 0
    stale = 0
    with tempfile.TemporaryDirectory(prefix="otel-inputs-") as tmp:
        for fresh in write(Path(tmp)):
            committed = HERE / fresh.name
            old = span_tree(committed.read_text(encoding="utf-8").splitlines())
            new = span_tree(fresh.read_text(encoding="utf-8").splitlines())
            same = old == new
            stale += not same
            print(f"{committed.name}: {'same span tree' if same else 'STALE'}")
            if not same:
                print(f"--- committed\n{render(old)}\n--- written now\n{render(new)}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
