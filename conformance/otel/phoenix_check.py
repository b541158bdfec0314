"""OTLP/JSON files against a real receiver, Arize Phoenix, local on loopback (nox -s phoenix).

For each file: the strict check (``otel_check.strict_lines``); each line parsed with
``opentelemetry-proto`` and POSTed as protobuf to Phoenix's ``/v1/traces`` (it answers 415 to
JSON) into a project of its own (``x-project-name``); the spans read back through Phoenix's own
client; the tree Phoenix holds compared with the file's ``span_tree``: the same spans under the
same parents, the span kinds Phoenix gives them (it turns ``gen_ai.*`` into OpenInference on the
way in) against the file's ``gen_ai.operation.name`` or ``openinference.span.kind``, the token
counts, tool names and tool call ids. Once per source, the same file is also sent through the
OpenTelemetry SDK's OTLP/HTTP exporter and read back the same way.

Inputs: the files named on the command line, or by default the producer files of this folder and,
when this atif_spec has an ``otel`` format (the ATIF -> OTel lens), what ``atif convert --to otel``
writes for every valid ATIF fixture (``lens_outputs``). Phoenix keeps span ids unique across
projects, so files whose span ids overlap go in separate rounds, each round's projects deleted
before the next. Phoenix is stopped when the check ends, whatever happens.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import TracesData
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags
from phoenix.client import Client

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
from conformance.otel_check import (  # noqa: E402
    Comparison,
    Span,
    compare,
    parse,
    span_tree,
    spans_of_lines,
    strict_lines,
    tree,
)

KNOWN_INVALID = {
    "harbor-atif2otel.jsonl": "enum names for kind and status.code (README.md)",
}
"""Producer files that are not valid OTLP/JSON, and why; they are still sent and compared."""


@dataclass
class Result:
    """One file sent one way, and what came back."""

    name: str
    path: str
    spans: int
    back: int = 0
    strict: str = "valid"
    problems: tuple[str, ...] = ()
    comparison: Comparison = field(default_factory=Comparison)

    @property
    def ok(self) -> bool:
        valid = self.strict == "valid" or self.name in KNOWN_INVALID
        return valid and self.back == self.spans and self.comparison.ok


# --- Phoenix, local -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def phoenix(work: Path) -> Iterator[str]:
    """A Phoenix server on 127.0.0.1 (free ports, its data in ``work``); its base URL."""
    port, grpc = free_port(), free_port()
    env = {
        **os.environ,
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc),
        "PHOENIX_WORKING_DIR": str(work),
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "OTEL_SDK_DISABLED": "true",
    }
    work.mkdir(parents=True, exist_ok=True)
    log = (work / "phoenix.log").open("w")
    started = time.monotonic()
    server = subprocess.Popen(
        [sys.executable, "-m", "phoenix.server.main", "serve"], env=env, stdout=log, stderr=log
    )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_up(url, server)
        print(f"phoenix: up on {url} after {time.monotonic() - started:.1f} s")
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
        print(f"phoenix: stopped (exit {server.returncode}); log {work / 'phoenix.log'}")


def wait_until_up(url: str, server: subprocess.Popen[bytes], limit: float = 180) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"phoenix exited with {server.returncode} before it was up")
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(f"{url}/healthz", timeout=2) as answer,
        ):
            if answer.status == 200:
                return
        time.sleep(0.5)
    raise SystemExit(f"phoenix was not up after {limit:.0f} s")


# --- sending ------------------------------------------------------------------------------------


def post_lines(url: str, lines: list[str], project: str) -> None:
    """Each line as one protobuf ExportTraceServiceRequest to /v1/traces."""
    for line in lines:
        body = ExportTraceServiceRequest(resource_spans=parse(json.loads(line)).resource_spans)
        request = urllib.request.Request(
            f"{url}/v1/traces",
            data=body.SerializeToString(),
            headers={"Content-Type": "application/x-protobuf", "x-project-name": project},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            if answer.status != 200:
                raise SystemExit(f"phoenix answered {answer.status} to {project}")


def json_refused(url: str, line: str) -> int:
    """Phoenix's answer to a line posted as JSON (the issue says: 415)."""
    request = urllib.request.Request(
        f"{url}/v1/traces",
        data=line.encode(),
        headers={"Content-Type": "application/json", "x-project-name": "json-probe"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def export_with_sdk(url: str, lines: list[str], project: str) -> None:
    """The lines' spans as SDK spans, sent by the SDK's OTLP/HTTP exporter."""
    exporter = OTLPSpanExporter(endpoint=f"{url}/v1/traces", headers={"x-project-name": project})
    for line in lines:
        result = exporter.export(readable_spans(parse(json.loads(line))))
        if result.name != "SUCCESS":
            raise SystemExit(f"the OTLP/HTTP exporter failed for {project}: {result}")
    exporter.shutdown()


def readable_spans(traces: TracesData) -> list[ReadableSpan]:
    """The spans of a TracesData as the SDK's ReadableSpans (what its exporters take)."""
    found = []
    for resource_spans in traces.resource_spans:
        resource = Resource({a.key: sdk_value(a.value) for a in resource_spans.resource.attributes})
        for scope_spans in resource_spans.scope_spans:
            scope = InstrumentationScope(scope_spans.scope.name, scope_spans.scope.version or None)
            for span in scope_spans.spans:
                trace_id = int.from_bytes(span.trace_id, "big")
                parent = None
                if span.parent_span_id:
                    parent_id = int.from_bytes(span.parent_span_id, "big")
                    parent = SpanContext(trace_id, parent_id, is_remote=False)
                found.append(
                    ReadableSpan(
                        name=span.name,
                        context=SpanContext(
                            trace_id,
                            int.from_bytes(span.span_id, "big"),
                            is_remote=False,
                            trace_flags=TraceFlags(TraceFlags.SAMPLED),
                        ),
                        parent=parent,
                        resource=resource,
                        attributes={a.key: sdk_value(a.value) for a in span.attributes},
                        kind=SpanKind(max(span.kind - 1, 0)),  # OTLP counts UNSPECIFIED as 0
                        status=Status(StatusCode(span.status.code)),
                        start_time=span.start_time_unix_nano,
                        end_time=span.end_time_unix_nano,
                        instrumentation_scope=scope,
                    )
                )
    return found


def sdk_value(value: Any) -> Any:
    """An AnyValue as an SDK attribute value (key-value lists as JSON text: the SDK has none)."""
    which = value.WhichOneof("value")
    if which == "array_value":
        return [sdk_value(v) for v in value.array_value.values]
    if which == "kvlist_value":
        return json.dumps({kv.key: str(sdk_value(kv.value)) for kv in value.kvlist_value.values})
    return getattr(value, which) if which else ""


# --- reading back and comparing -----------------------------------------------------------------


def spans_back(
    client: Client, expected: dict[str, int], limit: float = 300
) -> dict[str, list[Span]]:
    """Each project's spans as Phoenix returns them, once it holds the number ``expected``
    names (Phoenix inserts in the background: about 4,000 of the 6,000 spans of the 3,000-step
    fixture were in after 90 s on a busy machine); when the time is up, what it holds then."""
    held: dict[str, list[dict[str, Any]]] = {project: [] for project in expected}
    waiting, deadline = set(expected), time.monotonic() + limit
    while waiting and time.monotonic() < deadline:
        for project in sorted(waiting):
            with contextlib.suppress(Exception):  # the project exists once its first span is in
                size = expected[project] + 100
                held[project] = list(client.spans.get_spans(project_identifier=project, limit=size))
            if len(held[project]) >= expected[project]:
                waiting.discard(project)
        time.sleep(0.5 if waiting else 0)
    return {project: [phoenix_span(s) for s in spans] for project, spans in held.items()}


def phoenix_span(span: dict[str, Any]) -> Span:
    """A span as Phoenix's client returns it, as ``otel_check`` reads spans."""
    start = datetime.fromisoformat(span["start_time"])
    return Span(
        trace_id=span["context"]["trace_id"],
        span_id=span["context"]["span_id"],
        parent_id=span.get("parent_id") or "",
        name=span["name"],
        kind=span["span_kind"],
        start=int(start.timestamp() * 1_000_000) * 1000,
        attributes=span.get("attributes") or {},
    )


# --- inputs -------------------------------------------------------------------------------------


def lens_outputs(out: Path) -> list[Path]:
    """What ``atif convert --to otel`` writes for every valid ATIF fixture, one folder per
    version; none while this atif_spec has no ``otel`` format (before the lens is merged)."""
    try:
        from atif_spec.formats import all_formats
    except ImportError:
        print("lens: atif_spec is not installed here; no lens output")
        return []
    if "otel" not in all_formats():
        print("lens: this atif_spec has no `otel` format yet; no lens output")
        return []
    written: list[Path] = []
    for version in sorted((ROOT / "conformance" / "atif").glob("v*/valid")):
        fixtures = sorted(str(p) for p in version.glob("*.json"))
        target = out / version.parent.name
        target.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "atif_spec.cli", "convert", *fixtures, "--to", "otel"]
        answer = subprocess.run([*command, "-q", "-o", str(target)], check=False)
        print(f"lens: {version.parent.name}: atif convert exited {answer.returncode}")
        written += sorted(p for p in target.iterdir() if p.is_file())
    return written


def rounds(files: list[Path]) -> list[list[Path]]:
    """The files in rounds whose span ids do not overlap (Phoenix keeps a span id once)."""
    placed: list[tuple[set[str], list[Path]]] = []
    for path in files:
        ids: set[str] = set()
        with contextlib.suppress(Exception):  # a file that does not parse goes in a round too
            ids = {s.span_id for s in spans_of_lines(path.read_text("utf-8").splitlines())}
        for taken, members in placed:
            if not taken & ids:
                taken |= ids
                members.append(path)
                break
        else:
            placed.append((set(ids), [path]))
    return [members for _, members in placed]


def check_round(url: str, client: Client, files: list[Path], how: str) -> list[Result]:
    """Send every file of a round (``how``: protobuf posts or the SDK exporter), each to a
    project of its own, then read each back and compare; the round's projects are deleted."""
    results, projects, expected = [], [], {}
    for index, path in enumerate(files):
        name = path.name if path.resolve().parent == HERE else f"{path.parent.name}/{path.name}"
        lines = [line for line in path.read_text("utf-8").splitlines() if line.strip()]
        problems = strict_lines(path)
        result = Result(
            name, how, 0, strict="valid" if not problems else f"{len(problems)} problems"
        )
        result.problems = tuple(problems[:3])
        results.append(result)
        project = f"{how}-{index}-{path.stem}"[:120]
        try:
            result.spans = len({(s.trace_id, s.span_id) for s in spans_of_lines(lines)})
            (post_lines if how == "protobuf" else export_with_sdk)(url, lines, project)
        except (ValueError, json_format.ParseError) as error:  # a line that does not parse
            result.problems += (f"not sent: {error}",)
            continue
        projects.append((project, path, result))
        expected[project] = result.spans
    held = spans_back(client, expected)
    for project, path, result in projects:
        result.back = len(held[project])
        sent = span_tree(path.read_text("utf-8").splitlines())
        result.comparison = compare(sent, tree(held[project]))
        result.problems += result.comparison.problems
        with contextlib.suppress(Exception):  # a project that never got a span does not exist
            client.projects.delete(project_name=project)
    return results


def table(results: list[Result]) -> str:
    head = ("file", "path", "spans", "back", "tree", "kinds", "tokens", "tool calls", "strict", "")
    rows = [
        (
            r.name,
            r.path,
            str(r.spans),
            str(r.back),
            "same" if r.comparison.tree else "DIFFERS",
            *(f"{a}/{b}" for a, b in (r.comparison.kinds, r.comparison.tokens, r.comparison.tools)),
            r.strict,
            "ok" if r.ok else "FAIL",
        )
        for r in results
    ]
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    return "\n".join(
        " | ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [head, *rows]
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--work", type=Path, required=True, help="Phoenix's data, lens outputs")
    args = parser.parse_args(argv)
    for old in ("phoenix", "lens"):  # a fresh database: Phoenix keeps each span id once
        shutil.rmtree(args.work / old, ignore_errors=True)
    producers = sorted(HERE.glob("*.jsonl"))
    lens = [] if args.files else lens_outputs(args.work / "lens")
    files = args.files or [*producers, *lens]
    # Once per source, through the SDK's exporter too: pydantic-ai's file, the first lens output.
    exported = (files[:1] if args.files else [HERE / "pydantic-ai.jsonl"]) + lens[:1]
    results: list[Result] = []
    with phoenix(args.work / "phoenix") as url:
        client = Client(base_url=url)
        print(f"phoenix: a line posted as JSON: HTTP {json_refused(url, '{}')}")
        for group in rounds(files):
            results += check_round(url, client, group, "protobuf")
        for path in exported:
            results += check_round(url, client, [path], "sdk-exporter")
    print(table(results))
    for result in results:
        for problem in result.problems[:5] if not result.ok else ():
            print(f"  {result.name} ({result.path}): {problem}")
    failed = [r for r in results if not r.ok]
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
