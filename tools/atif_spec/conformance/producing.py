"""Producers on native logs: ask each for its documents, validate them, compare producers.

Native inputs live in ``conformance/native/<source>/`` (one log per file; where each comes from
is in ``conformance/native/README.md``). Every document a producer answers with is validated by
atif-spec; a rejection is listed with its findings. The same log through two producers is
compared field by field (:func:`cross_check`). A valid document is also taken through atif-spec's
lenses and back (:mod:`~atif_spec.conformance.lensing`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import atif_spec
from atif_spec.conformance.lensing import RoundTrip, round_trips
from atif_spec.conformance.process import Adapter, AdapterError
from atif_spec.conformance.protocol import (
    ACCEPTED_VERSIONS,
    Capabilities,
    ProtocolError,
    answer_to,
    produce_request,
    start_request,
    started,
    stop_request,
)


@dataclass(slots=True)
class Produced:
    """One native log through one producer."""

    producer: str
    source: str
    input: str
    """The log's path relative to ``conformance/native``."""
    outcome: str
    """``valid``, ``invalid`` (atif-spec rejects a document), ``skipped`` or ``errored``."""
    documents: list[Any] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    reason: str | None = None
    messages: list[str] = field(default_factory=list)
    """The producer's own diagnostics (atif-make names the parser it used)."""
    warnings: list[str] = field(default_factory=list)
    """atif-spec's warnings on the documents (``CODE at POINTER``; they do not make it invalid)."""
    lenses: list[RoundTrip] = field(default_factory=list)
    """Each lens there and back on the documents (valid documents only)."""


SIDECAR_NAMES = frozenset({"manifest.json", "metadata.json"})
"""Files of an export folder that travel with its log and are not logs themselves (a Cursor
export's manifest, an Inspect sample pair's envelope)."""


def _logs(folder: Path) -> list[Path]:
    """The logs of one source folder: its files, and in each subfolder (an export: a log with
    the files shipped beside it) the top-level files that are not sidecars."""
    found: list[Path] = []
    for path in sorted(folder.iterdir()):
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found += [
                p for p in sorted(path.iterdir()) if p.is_file() and p.name not in SIDECAR_NAMES
            ]
    return found


def native_inputs(root: Path) -> list[tuple[str, Path]]:
    """``(source kind, path)`` of every native log under ``root`` (``conformance/native``)."""
    return [
        (folder.name, path)
        for folder in sorted(p for p in root.iterdir() if p.is_dir())
        for path in _logs(folder)
    ]


def _findings(document: Any) -> tuple[list[str], list[str]]:
    """atif-spec's errors on one document, with messages, and its warnings."""
    report = atif_spec.validate(document)
    errors = [f"{f.code} at {f.pointer or '(root)'}: {f.message}" for f in report.errors]
    return errors, [f"{f.code} at {f.pointer or '(root)'}" for f in report.warnings]


def run_producer(
    name: str, command: Sequence[str], inputs: Sequence[tuple[str, Path]], root: Path
) -> tuple[Capabilities | None, list[Produced]]:
    """Every input whose source the producer converts, through the producer's adapter."""
    out: list[Produced] = []
    adapter = Adapter(command)
    try:
        caps = started(adapter.request(start_request(ACCEPTED_VERSIONS[0]), 120.0))
    except (AdapterError, ProtocolError):
        adapter.kill()
        return None, out
    try:
        if "producer" not in caps.roles:
            return caps, out
        for source, path in inputs:
            rel = str(path.relative_to(root))
            if source not in caps.sources:
                continue
            item = Produced(name, source, rel, "valid")
            try:
                answer = answer_to(
                    rel,
                    adapter.request(produce_request(rel, source, str(path.resolve())), 120.0),
                    "documents",
                )
            except (AdapterError, ProtocolError) as exc:
                item.outcome, item.reason = "errored", str(exc)
                out.append(item)
                adapter.kill()
                adapter = Adapter(command)
                started(adapter.request(start_request(caps.protocol), 120.0))
                continue
            item.messages = [str(m) for m in answer.get("messages") or []]
            if "skipped" in answer or "errored" in answer:
                item.outcome = "skipped" if "skipped" in answer else "errored"
                item.reason = str(answer.get("skipped") or answer.get("errored"))
            elif not answer["documents"]:
                item.outcome, item.reason = "errored", "no document produced"
            else:
                item.documents = answer["documents"]
                for document in item.documents:
                    errors, warnings = _findings(document)
                    item.findings += errors
                    item.warnings += warnings
                item.outcome = "invalid" if item.findings else "valid"
                if not item.findings:
                    item.lenses = round_trips(item.documents)
            out.append(item)
    finally:
        adapter.close(stop_request())
    return caps, out


def _flat(value: Any, where: str = "") -> dict[str, Any]:
    """Every leaf of a JSON value by its pointer."""
    if isinstance(value, (dict, list)):
        pairs = value.items() if isinstance(value, dict) else enumerate(value)
        return {k: v for key, item in pairs for k, v in _flat(item, f"{where}/{key}").items()}
    return {where: value}


def cross_check(a: Any, b: Any) -> list[tuple[str, Any, Any]]:
    """Every leaf pointer where two documents differ: ``(pointer, a's value, b's value)``, with
    ``None`` for a side that lacks the pointer. ``extra`` objects are left out: they are each
    producer's own (RFC §II)."""
    fa = {k: v for k, v in _flat(a).items() if "/extra" not in k}
    fb = {k: v for k, v in _flat(b).items() if "/extra" not in k}
    return [
        (key, fa.get(key), fb.get(key))
        for key in sorted(set(fa) | set(fb))
        if fa.get(key) != fb.get(key)
    ]
