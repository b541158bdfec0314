"""Runs the suite against one implementation: start it, send every case, grade every answer.

The run never stops early: a case whose answer is unusable is ``errored`` and the
implementation is restarted for the next case. If it cannot be (re)started, every case left
is ``errored`` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from atif_spec.conformance.grading import ERRORED, SKIPPED, CaseResult, grade, grade_read
from atif_spec.conformance.process import Adapter, AdapterError
from atif_spec.conformance.protocol import (
    ACCEPTED_VERSIONS,
    Capabilities,
    ProtocolError,
    Refused,
    answer_for,
    read_request,
    run_request,
    start_request,
    started,
    stop_request,
)
from atif_spec.conformance.suite import Case, SkipList, read_document


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How to run: the switches of ``atif conformance run`` as plain data."""

    timeout: float = 30.0
    """Seconds to wait for the answer to one case."""
    start_timeout: float = 60.0
    """Seconds to wait for the answer to ``start``."""
    skip: SkipList = field(default_factory=SkipList)
    cwd: Path | None = None
    mode: str = "auto"
    """``validate`` (send ``run``), ``read`` (send ``read``), or ``auto``: ``run`` to a
    validator, ``read`` to an implementation that only reads (protocol 2)."""


@dataclass(slots=True)
class RunResult:
    """Everything a report needs."""

    command: list[str]
    capabilities: Capabilities | None
    results: list[CaseResult]
    start_error: str | None = None


def _read_document(case: Case) -> Any:
    return read_document(case.document)


def _start(adapter: Adapter, version: int, last: bool, timeout: float) -> Capabilities | None:
    """``adapter``'s answer to ``start`` at ``version``; None if it refuses and others are left."""
    try:
        caps = started(adapter.request(start_request(version), timeout))
    except Refused:
        if last:
            raise
        return None
    if caps.protocol > version:  # an older adapter may answer with its own version
        raise ProtocolError(f"asked for protocol {version}, got {caps.protocol}")
    return caps


def _start_failure(adapter: Adapter | None, exc: Exception) -> str:
    """Why the implementation did not start (killing ``adapter``, after reading its stderr)."""
    tail = adapter.stderr_tail() if adapter else []
    if adapter is not None:
        adapter.kill()
    return f"the implementation did not start: {exc}" + (f" (stderr: {tail[-1]})" if tail else "")


class _Session:
    """The implementation process, restarted on demand."""

    def __init__(self, command: Sequence[str], options: RunOptions) -> None:
        self.command = command
        self.options = options
        self.adapter: Adapter | None = None
        self.capabilities: Capabilities | None = None
        self.dead: str | None = None
        """Why the implementation cannot be (re)started; set once, never cleared."""

    def ensure(self) -> Adapter | None:
        if self.dead is not None:
            return None
        if self.adapter is not None and self.adapter.alive:
            return self.adapter
        self.discard()
        adapter: Adapter | None = None
        try:
            caps0 = self.capabilities
            versions = [caps0.protocol] if caps0 else list(ACCEPTED_VERSIONS)
            for version in versions:  # newest first; an adapter that refuses it gets the next
                if adapter is not None:
                    adapter.kill()
                adapter = Adapter(self.command, self.options.cwd)
                timeout = self.options.start_timeout
                caps = _start(adapter, version, version == versions[-1], timeout)
                if caps is not None:
                    break
        except (AdapterError, ProtocolError) as exc:
            self.dead = _start_failure(adapter, exc)
            return None
        self.adapter = adapter
        if self.capabilities is None:
            self.capabilities = caps
        return adapter

    def discard(self) -> list[str]:
        """Kill the current process; returns its last stderr lines."""
        if self.adapter is None:
            return []
        tail = self.adapter.stderr_tail()
        self.adapter.kill()
        self.adapter = None
        return tail

    def close(self) -> None:
        if self.adapter is not None:
            self.adapter.close(stop_request())
            self.adapter = None


def _run_case(session: _Session, case: Case) -> CaseResult:
    adapter = session.ensure()
    caps = session.capabilities
    if adapter is None or caps is None:
        return CaseResult(case, ERRORED, session.dead)
    mode = session.options.mode
    if mode == "auto":
        mode = "read" if "validator" not in caps.roles and "consumer" in caps.roles else "validate"
    why = caps.unreadable(case) if mode == "read" else caps.unsupported(case)
    if why is not None:
        return CaseResult(case, SKIPPED, why)
    try:
        document = _read_document(case)
    except (OSError, orjson.JSONDecodeError) as exc:
        return CaseResult(case, ERRORED, f"the suite's document cannot be read: {exc}")
    request = (read_request if mode == "read" else run_request)(case, document)
    try:
        answer = answer_for(
            case,
            adapter.request(request, session.options.timeout),
            "ok" if mode == "read" else "valid",
        )
    except (AdapterError, ProtocolError) as exc:
        tail = session.discard()
        return CaseResult(case, ERRORED, str(exc), messages=tail)
    return grade_read(case, answer, document) if mode == "read" else grade(case, caps, answer)


def run_suite(
    cases: Sequence[Case],
    command: Sequence[str],
    options: RunOptions | None = None,
    on_result: Callable[[CaseResult], None] | None = None,
) -> RunResult:
    """Run ``cases`` against the implementation started by ``command``."""
    opts = options or RunOptions()
    session = _Session(command, opts)
    results: list[CaseResult] = []
    try:
        session.ensure()
        for case in cases:
            reason = opts.skip.reason(case.id)
            result = (
                CaseResult(case, SKIPPED, f"skip file: {reason}")
                if reason is not None
                else _run_case(session, case)
            )
            results.append(result)
            if on_result is not None:
                on_result(result)
    finally:
        session.close()
    return RunResult(list(command), session.capabilities, results, session.dead)
