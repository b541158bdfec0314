"""Statistics over a dataset of trajectories: the pure core of ``atif stats`` (and of the dataset
page of ``atif view``).

Two steps, both pure and engine-free, so every engine gives the same numbers:

* :func:`document_stats` reads one :class:`~atif_spec.validation.reader.RawDocument`, validates it
and
  returns its numbers as a plain JSON-able record (non-ATIF documents are counted through
  ATIF: converted with ``atif_spec.convert(doc, to="atif@v1.7")``);
* :class:`Stats` adds records up, per group (``--by``), and merges with the stats of other
  parts of the dataset. Sums of floats and percentiles are computed from every document's
  value at the end (:func:`math.fsum`, nearest-rank percentiles), so the result does not
  depend on the order in which documents or parts arrive.

Token and cost totals follow the one definition (:mod:`atif_spec.formats.totals`, RFC.md §2.4); a
document's *tokens* are its prompt plus completion tokens (cached tokens are part of the prompt).
The JSON form's schema is ``spec/atif-spec/v1/dataset-stats.schema.json``; its text and CSV forms
and the terminal's histograms are :mod:`atif_spec.datasets.statstext`.
"""

from __future__ import annotations

import functools
import importlib
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

import orjson

from atif_spec.datasets.engines.sources import DEFAULT_COLUMN, read_documents
from atif_spec.datasets.pool import map_ordered
from atif_spec.datasets.progress import Progress
from atif_spec.formats import is_event_stream
from atif_spec.formats.streams import converted_note
from atif_spec.formats.totals import trajectory_totals
from atif_spec.jsonio import jsontext
from atif_spec.jsonio.jsonvalues import dict_member, list_member, objects
from atif_spec.stepsubstep.legacy import read_stream
from atif_spec.transforms.lenses import ConversionError, convert
from atif_spec.validation.findings import Finding, Level, Report, input_finding
from atif_spec.validation.pipeline import validate_document
from atif_spec.validation.reader import DEFAULT_MAX_BYTES, RawDocument, parse, parse_stream

GroupBy = Literal["model", "agent", "version", "format"]
GROUP_BY: tuple[GroupBy, ...] = ("model", "agent", "version", "format")
HUB = "atif@v1.7"
"""What documents of other formats are converted to before they are counted."""
UNKNOWN = "unknown"
STREAM_CODE = "input:provider-stream"
"""The finding of a provider stream (converted in memory: :func:`load`)."""
PERCENTILES = (50, 90)
DISTRIBUTIONS = ("steps", "tokens")


# --- one document ----------------------------------------------------------------------------


def document_stats(raw: RawDocument, max_bytes: int = DEFAULT_MAX_BYTES) -> dict[str, Any]:
    """The numbers of one document, as a JSON-able record (see :class:`Stats`)."""
    doc, report = load(raw, max_bytes)
    return record(raw, report, as_atif(doc, report.format, report.version))


def load(raw: RawDocument, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[Any, Report]:
    """Parse and validate one document: the parsed value (None when unreadable) and its report."""

    if raw.stream is None or is_event_stream(raw.stream):  # an ATOF stream is one document
        doc, problems = (parse if raw.stream is None else parse_stream)(raw, max_bytes)
    else:
        doc, problems = _stream(raw, max_bytes)
    if any(p.level == "error" for p in problems):
        return None, Report(source=raw.source, line=raw.line, findings=problems)
    report = validate_document(doc, source=raw.source, line=raw.line, path=raw.path)
    report.findings[:0] = problems
    return doc, report


def _stream(raw: RawDocument, max_bytes: int) -> tuple[Any, list[Finding]]:
    """A provider stream converted in memory to a run log, as ``atif convert`` does (then
    :func:`as_atif` takes it on to ATIF), with the finding that says so."""
    if raw.oversize is not None:
        return parse(raw, max_bytes)
    try:
        doc, notes = read_stream(raw.data)
    except ValueError as exc:
        return None, [input_finding("invalid-json", str(exc))]
    said = input_finding("provider-stream", converted_note(raw.stream or ""), "", Level.WARNING)
    return doc, [said, *notes]


def record(raw: RawDocument, report: Report, atif: dict[str, Any] | None) -> dict[str, Any]:
    """The record of a document already loaded by :func:`load` (``atif``: :func:`as_atif` of
    it)."""
    out: dict[str, Any] = {
        "source": raw.source,
        "line": raw.line,
        "valid": report.valid,
        "format": report.format or UNKNOWN,
        "version": f"{report.format}@{report.version}"
        if report.format and report.version
        else UNKNOWN,
        "findings": dict(Counter(f.code for f in report.findings)),
        "counted": False,
    }
    if atif is not None:
        out.update(trajectory_numbers(atif))
        out["counted"] = True
    return out


def as_atif(doc: Any, fmt: str | None, version: str | None) -> dict[str, Any] | None:
    """The document as ATIF: itself when it is ATIF, else converted to :data:`HUB` (None when
    that is not possible)."""
    if not isinstance(doc, dict | list) or fmt is None or version is None:
        return None
    if fmt == "atif":
        return doc if isinstance(doc, dict) else None

    try:
        converted, _ = convert(doc, HUB)
    except (ConversionError, ValueError):
        return None
    return converted


def trajectory_numbers(doc: Mapping[str, Any]) -> dict[str, Any]:
    """Steps, calls, tokens, cost, duration, model and agent of one ATIF trajectory (embedded
    subagents included; file-referenced ones are counted as ``unresolved_refs``)."""

    totals = trajectory_totals(doc)
    agent_steps = 0
    calls: Counter[str] = Counter()
    models: Counter[str] = Counter()
    for node in _nodes(doc):
        for step in objects(node.get("steps")):
            if step.get("source") == "agent":
                agent_steps += 1
            if isinstance(step.get("model_name"), str):
                models[step["model_name"]] += 1
            for call in objects(step.get("tool_calls")):
                name = call.get("function_name")
                calls[name if isinstance(name, str) else UNKNOWN] += 1
    agent = dict_member(doc, "agent") or {}
    model = agent.get("model_name")
    if not isinstance(model, str):
        model = models.most_common(1)[0][0] if models else UNKNOWN
    tokens = None
    if totals.prompt_tokens is not None or totals.completion_tokens is not None:
        tokens = (totals.prompt_tokens or 0) + (totals.completion_tokens or 0)
    return {
        "model": model,
        "agent": agent.get("name") if isinstance(agent.get("name"), str) else UNKNOWN,
        "steps": totals.steps,
        "agent_steps": agent_steps,
        "tool_calls": dict(calls),
        "prompt_tokens": totals.prompt_tokens,
        "completion_tokens": totals.completion_tokens,
        "cached_tokens": totals.cached_tokens,
        "tokens": tokens,
        "cost_usd": totals.cost_usd,
        "duration_sec": duration(list_member(doc, "steps")),
        "copied_context_steps": totals.copied_context_steps,
        "zero_call_steps": totals.zero_call_steps,
        "subagents": totals.subagents,
        "unresolved_refs": totals.unresolved_refs,
    }


def _nodes(doc: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """The trajectory and its embedded subagents, recursively (iteratively: no deep stack)."""
    pending: list[Mapping[str, Any]] = [doc]
    while pending:
        node = pending.pop()
        yield node
        pending.extend(objects(node.get("subagent_trajectories")))


def duration(steps: Iterable[Any]) -> float | None:
    """Seconds between the first and the last step timestamp (None without two timestamps)."""
    times = [t for t in map(moment, objects(steps)) if t is not None]
    return max(times) - min(times) if len(times) >= 2 else None


def moment(step: Mapping[str, Any]) -> float | None:
    """A step's ``timestamp`` in seconds since the epoch; None when it is missing, unreadable or
    has no time zone (naive and aware times cannot be compared: only aware ones are used)."""
    stamp = step.get("timestamp")
    if not isinstance(stamp, str):
        return None
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return when.timestamp() if when.tzinfo is not None else None


# --- adding up -------------------------------------------------------------------------------


def percentile(values: list[int], p: int) -> int:
    """The exact nearest-rank ``p``-th percentile of sorted ``values`` (not interpolated)."""
    rank = max(1, math.ceil(p / 100 * len(values)))
    return values[rank - 1]


@dataclass(slots=True)
class Group:
    """The numbers of a set of documents. Per-document values are kept for the distributions
    and the exact float sums."""

    documents: int = 0
    valid: int = 0
    counted: int = 0
    steps: list[int] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    costs: list[float] = field(default_factory=list)
    durations: list[float] = field(default_factory=list)
    sums: Counter[str] = field(default_factory=Counter)
    tool_calls: Counter[str] = field(default_factory=Counter)
    findings: Counter[str] = field(default_factory=Counter)
    findings_documents: Counter[str] = field(default_factory=Counter)
    reported: Counter[str] = field(default_factory=Counter)
    """How many documents report each token metric (a sum of none is null)."""

    SUMMED = (
        "agent_steps",
        "prompt_tokens",
        "completion_tokens",
        "cached_tokens",
        "copied_context_steps",
        "zero_call_steps",
        "subagents",
        "unresolved_refs",
    )

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one document's record."""
        self.documents += 1
        self.valid += bool(record["valid"])
        for code, n in record["findings"].items():
            self.findings[code] += n
            self.findings_documents[code] += 1
        if not record["counted"]:
            return
        self.counted += 1
        self.steps.append(record["steps"])
        for name in self.SUMMED:
            if record[name] is not None:
                self.sums[name] += record[name]
                self.reported[name] += 1
        if record["tokens"] is not None:
            self.tokens.append(record["tokens"])
        if record["cost_usd"] is not None:
            self.costs.append(record["cost_usd"])
        if record["duration_sec"] is not None:
            self.durations.append(record["duration_sec"])
        self.tool_calls.update(record["tool_calls"])

    def merge(self, other: Group) -> None:
        """Add another part's numbers into these."""
        self.documents += other.documents
        self.valid += other.valid
        self.counted += other.counted
        for name in ("steps", "tokens", "costs", "durations"):
            getattr(self, name).extend(getattr(other, name))
        for name in ("sums", "tool_calls", "findings", "findings_documents", "reported"):
            getattr(self, name).update(getattr(other, name))

    def to_part(self) -> dict[str, Any]:
        """A lossless JSON form (for engines that add parts up elsewhere)."""
        return {
            name: (dict(value) if isinstance(value, Counter) else value)
            for name, value in ((n, getattr(self, n)) for n in self.__slots__)
        }

    @classmethod
    def from_part(cls, part: Mapping[str, Any]) -> Group:
        """The inverse of :meth:`to_part`."""
        group = cls()
        for name, value in part.items():
            current = getattr(group, name)
            setattr(group, name, Counter(value) if isinstance(current, Counter) else value)
        return group

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (schema ``dataset-stats``): keys sorted, floats summed exactly."""

        def total(name: str) -> int | None:
            return self.sums[name] if self.reported[name] else None

        return {
            "documents": self.documents,
            "valid": self.valid,
            "invalid": self.documents - self.valid,
            "counted": self.counted,
            "steps": sum(self.steps),
            "agent_steps": self.sums["agent_steps"],
            "tool_calls": dict(sorted(self.tool_calls.items())),
            "tokens": {
                "prompt": total("prompt_tokens"),
                "completion": total("completion_tokens"),
                "cached": total("cached_tokens"),
            },
            "cost_usd": math.fsum(self.costs) if self.costs else None,
            "duration_sec": math.fsum(self.durations) if self.durations else None,
            "copied_context_steps": self.sums["copied_context_steps"],
            "zero_call_steps": self.sums["zero_call_steps"],
            "subagents": self.sums["subagents"],
            "unresolved_refs": self.sums["unresolved_refs"],
            "findings": {
                code: {"findings": self.findings[code], "documents": self.findings_documents[code]}
                for code in sorted(self.findings)
            },
            "distributions": {name: _distribution(getattr(self, name)) for name in DISTRIBUTIONS},
        }


def _distribution(values: list[int]) -> dict[str, int] | None:
    if not values:
        return None
    ordered = sorted(values)
    out = {f"p{p}": percentile(ordered, p) for p in PERCENTILES}
    out["max"] = ordered[-1]
    out["documents"] = len(ordered)
    return out


@dataclass(slots=True)
class Stats:
    """The statistics of a dataset: the whole, and one :class:`Group` per ``by`` key."""

    by: GroupBy | None = None
    total: Group = field(default_factory=Group)
    groups: dict[str, Group] = field(default_factory=dict)

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one document's record (from :func:`document_stats`)."""
        self.total.add(record)
        if self.by is not None:
            key = str(record.get(self.by) or UNKNOWN)
            self.groups.setdefault(key, Group()).add(record)

    def merge(self, other: Stats) -> None:
        """Add the stats of another part of the dataset."""
        self.total.merge(other.total)
        for key, group in other.groups.items():
            self.groups.setdefault(key, Group()).merge(group)

    def to_part(self) -> dict[str, Any]:
        """Lossless JSON form of a part (see :meth:`from_part`)."""
        return {
            "by": self.by,
            "total": self.total.to_part(),
            "groups": {k: g.to_part() for k, g in self.groups.items()},
        }

    @classmethod
    def from_part(cls, part: Mapping[str, Any]) -> Stats:
        """The inverse of :meth:`to_part`."""
        return cls(
            part["by"],
            Group.from_part(part["total"]),
            {k: Group.from_part(g) for k, g in part["groups"].items()},
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (schema ``spec/atif-spec/v1/dataset-stats.schema.json``)."""
        return {
            "by": self.by,
            "total": self.total.to_dict(),
            "groups": {k: self.groups[k].to_dict() for k in sorted(self.groups)},
        }


# --- engines ---------------------------------------------------------------------------------


def records_batch(batch: list[RawDocument], max_bytes: int = DEFAULT_MAX_BYTES) -> list[Any]:
    """:func:`document_stats` over a batch (the unit engines ship to workers)."""
    return [document_stats(raw, max_bytes) for raw in batch]


def run_local(
    files: list[str],
    by: GroupBy | None = None,
    *,
    jobs: int = 1,
    lines: bool | None = None,
    column: str = DEFAULT_COLUMN,
    max_bytes: int = DEFAULT_MAX_BYTES,
    progress: Progress | None = None,
) -> Stats:
    """The stats of every document of ``files`` (already expanded), here or in ``jobs``
    processes; ``progress`` counts them."""

    def docs() -> Iterator[RawDocument]:
        for name in files:
            yield from read_documents(name, max_bytes=max_bytes, lines=lines, column=column)

    stats = Stats(by)
    work = functools.partial(records_batch, max_bytes=max_bytes)
    for raw, record in map_ordered(work, docs(), jobs):
        stats.add(record)
        if progress is not None:
            progress.advance(size=len(raw.data) or raw.oversize or 0)
    return stats


def run_ray(
    files: list[str],
    by: GroupBy | None = None,
    *,
    lines: bool | None = None,
    column: str = DEFAULT_COLUMN,
    address: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Stats:
    """The same stats computed on a Ray cluster: each batch is counted where it is and only
    the parts come back to be merged."""
    from atif_spec.datasets import ray as atif_ray  # noqa: PLC0415 - optional: the ray extra

    stats = Stats(by)
    if not files:
        return stats
    atif_ray.connect(address)
    ds = atif_ray.read(files, lines=lines, column=column, max_bytes=max_bytes)
    parts = ds.map_batches(
        _ray_part,
        batch_size=atif_ray.BATCH_DOCUMENTS,
        batch_format="pyarrow",
        fn_kwargs={"by": by, "max_bytes": max_bytes},
    )
    for row in parts.iter_rows():
        stats.merge(Stats.from_part(orjson.loads(row["part"])))
    return stats


def _ray_part(batch: Any, *, by: GroupBy | None, max_bytes: int) -> Any:

    from atif_spec.datasets import ray as atif_ray  # noqa: PLC0415 - optional: the ray extra

    pa: Any = importlib.import_module("pyarrow")
    part = Stats(by)
    for raw in atif_ray.raw_documents(batch, "data"):
        part.add(document_stats(raw, max_bytes))
    return pa.table(
        {"part": pa.array([jsontext.dumps(part.to_part()).decode()], pa.large_string())}
    )
