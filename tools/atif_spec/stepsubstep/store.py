"""The logging API (``emit_step``, ``emit_substep``, ``finalize_step``) over a SQL store.

Tables ``runs``, ``run_steps`` and ``run_substeps`` (DDL in ``spec/step-substep/v1.0/``).
:class:`SqliteStore` is the embedded default: one file, WAL, foreign keys on, and one
``BEGIN IMMEDIATE`` transaction per call, so that several writer processes allocate indexes
without gaps or duplicates. :class:`PostgresStore` (``psycopg`` 3, imported lazily) serializes
allocations per run with ``SELECT ... FOR UPDATE`` on the run's row.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import jsonschema_rs

from atif_spec.formats.step_substep import (
    OUTCOMES,
    SOURCES,
    SUBSTEP_TYPES,
    SYNTHETIC_SUMMARY,
    is_rfc3339,
    step_id,
    substep_id,
    utc_now,
)
from atif_spec.schemas.catalog import spec_root
from atif_spec.schemas.compiled import refuse_retrieval, rs_registry, rs_validator

Time = str | datetime | None


class Cursor(Protocol):
    """The part of a DB-API cursor the store uses."""

    def execute(self, sql: Any, params: Any = ..., /) -> Any: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...


@dataclass(frozen=True, slots=True)
class StepRef:
    """What ``emit_step`` returns and the other calls take: a step's row id and labels."""

    id: int
    run_id: str
    step_index: int
    step_id: str


@dataclass(frozen=True, slots=True)
class RunInfo:
    """One row of ``runs``."""

    run_id: str
    provider: str
    extra: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class RunStep:
    """One row of ``run_steps``."""

    id: int
    run_id: str
    step_index: int
    step_id: str
    provider: str
    message_role: str
    message_text: str | None
    started_at: str | None
    completed_at: str | None
    outcome: str | None
    summary: str | None
    legacy_turn_id: str | None
    legacy_event_id: str | None
    extra: dict[str, Any] | None

    @property
    def ref(self) -> StepRef:
        """The step's reference."""
        return StepRef(self.id, self.run_id, self.step_index, self.step_id)


@dataclass(frozen=True, slots=True)
class RunSubstep:
    """One row of ``run_substeps`` (``step_id`` is the parent's row id, as in the spec)."""

    id: int
    run_id: str
    step_id: int
    substep_index: int
    substep_id: str
    type: str
    source: str
    call_id: str | None
    payload: Any
    timestamp: str | None
    legacy_turn_id: str | None
    legacy_event_id: str | None
    extra: dict[str, Any] | None


_STEP_COLUMNS = (
    "id, run_id, step_index, step_id, provider, message_role, message_text, started_at, "
    "completed_at, outcome, summary, legacy_turn_id, legacy_event_id, extra_json"
)
_SUBSTEP_COLUMNS = (
    "id, run_id, step_id, substep_index, substep_id, type, source, call_id, payload_json, "
    "timestamp, legacy_turn_id, legacy_event_id, extra_json"
)


def ddl(dialect: str) -> str:
    """The DDL script for ``sqlite`` or ``postgres``."""
    return spec_root().joinpath("step-substep", "v1.0", f"store.{dialect}.sql").read_text("utf-8")


def _time(value: Time, name: str) -> str | None:
    if value is None:
        return None
    text = value.isoformat() if isinstance(value, datetime) else value
    if not is_rfc3339(text):
        raise ValueError(f"{name} must be an RFC 3339 date-time with an offset, not {text!r}")
    return text


RUN_LOG_ID = "https://atif-spec.org/schemas/step-substep/v1.0/run-log.schema.json"


@functools.cache
def _validator(part: str) -> Any:
    """The compiled schema of the run log (``part`` empty) or of one of its ``$defs``."""

    if not part:
        return rs_validator(RUN_LOG_ID)
    return jsonschema_rs.validator_for(
        {"$ref": f"{RUN_LOG_ID}#/$defs/{part}"}, registry=rs_registry(), retriever=refuse_retrieval
    )


def _valid(part: str, value: dict[str, Any]) -> None:
    """Validate on write: raise ValueError when ``value`` would make the exported run log
    invalid against its schema (``part``: a ``$defs`` name, or empty for the whole run log)."""
    for error in _validator(part).iter_errors(value):
        where = "/" + "/".join(str(p) for p in error.instance_path)
        raise ValueError(f"{part or 'run log'} at {where}: {error.message}")


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except ValueError as exc:
        raise ValueError(f"not storable as JSON: {exc}") from None


def _extra(value: dict[str, Any] | None) -> str | None:
    return None if value is None else _json(value)


def _load(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _check(value: str | None, allowed: tuple[str, ...], name: str) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")


class StepStore(ABC):
    """The API shared by every backend; subclasses supply transactions and placeholders."""

    placeholder = "?"

    @abstractmethod
    def _transaction(self) -> Any:
        """A context manager yielding a cursor inside one write transaction."""

    def _lock_run(self, cur: Cursor, run_id: str) -> None:  # noqa: B027 - optional hook
        """Serialize index allocation for one run (SQLite's write lock already does)."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection."""

    def __enter__(self) -> StepStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, cur: Cursor, sql: str, params: tuple[Any, ...] = ()) -> Cursor:
        cur.execute(sql.replace("?", self.placeholder), params)
        return cur

    # -- runs ----------------------------------------------------------------------------------
    def _ensure_run(
        self, cur: Cursor, run_id: str, provider: str | None, extra: dict[str, Any] | None
    ) -> str:
        row = self._run(cur, "SELECT provider FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is not None:
            self._lock_run(cur, run_id)
            return str(row[0])
        if provider is None:
            raise ValueError(f"run {run_id!r} does not exist; give its provider")
        run: dict[str, Any] = {"run_id": run_id, "provider": provider, "steps": []}
        _valid("", run if extra is None else {**run, "extra": extra})
        self._run(
            cur,
            "INSERT INTO runs (run_id, provider, extra_json) VALUES (?, ?, ?) "
            "ON CONFLICT (run_id) DO NOTHING",
            (run_id, provider, _extra(extra)),
        )
        self._lock_run(cur, run_id)
        row = self._run(cur, "SELECT provider FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return str(row[0])

    def create_run(self, run_id: str, provider: str, extra: dict[str, Any] | None = None) -> None:
        """Add a run (nothing happens if it exists)."""
        with self._transaction() as cur:
            self._ensure_run(cur, run_id, provider, extra)

    def get_run(self, run_id: str) -> RunInfo | None:
        """The run's row, or None."""
        with self._transaction() as cur:
            row = self._run(
                cur, "SELECT run_id, provider, extra_json FROM runs WHERE run_id = ?", (run_id,)
            ).fetchone()
        return None if row is None else RunInfo(row[0], row[1], _load(row[2]))

    def list_runs(self) -> list[str]:
        """Every run id, sorted."""
        with self._transaction() as cur:
            rows = self._run(cur, "SELECT run_id FROM runs ORDER BY run_id").fetchall()
        return [r[0] for r in rows]

    # -- the logging API -----------------------------------------------------------------------
    def emit_step(
        self,
        run_id: str,
        message: str | None,
        *,
        provider: str | None = None,
        message_role: str = "assistant",
        started_at: Time = None,
        summary: str | None = None,
        legacy_turn_id: str | None = None,
        legacy_event_id: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> StepRef:
        """Open a new step for one provider message; it gets the run's next index."""
        start = _time(started_at, "started_at") or utc_now()
        with self._transaction() as cur:
            return self._new_step(
                cur,
                run_id,
                message,
                provider,
                message_role,
                start,
                summary,
                legacy_turn_id,
                legacy_event_id,
                extra,
            )

    def _new_step(
        self,
        cur: Cursor,
        run_id: str,
        message: str | None,
        provider: str | None,
        role: str,
        started_at: str,
        summary: str | None,
        turn: str | None,
        event: str | None,
        extra: dict[str, Any] | None,
    ) -> StepRef:
        run_provider = self._ensure_run(cur, run_id, provider, None)
        row = self._run(
            cur, "SELECT COALESCE(MAX(step_index), 0) FROM run_steps WHERE run_id = ?", (run_id,)
        ).fetchone()
        index = int(row[0]) + 1
        sid = step_id(index)
        step = {
            "step_id": sid,
            "step_index": index,
            "provider": provider or run_provider,
            "message_role": role,
            "message_text": message,
            "started_at": started_at,
            "completed_at": None,
            "outcome": None,
            "summary": summary,
            "legacy_turn_id": turn,
            "legacy_event_id": event,
            "substeps": [],
        }
        _valid("Step", step if extra is None else {**step, "extra": extra})
        new = self._run(
            cur,
            "INSERT INTO run_steps (run_id, step_index, step_id, provider, message_role, "
            "message_text, started_at, summary, legacy_turn_id, legacy_event_id, extra_json) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (
                run_id,
                index,
                sid,
                provider or run_provider,
                role,
                message,
                started_at,
                summary,
                turn,
                event,
                _extra(extra),
            ),
        ).fetchone()
        return StepRef(int(new[0]), run_id, index, sid)

    def emit_substep(
        self,
        step_ref: StepRef | None,
        substep_type: str,
        payload: Any,
        *,
        source: str = "provider",
        call_id: str | None = None,
        timestamp: Time = None,
        legacy_turn_id: str | None = None,
        legacy_event_id: str | None = None,
        extra: dict[str, Any] | None = None,
        run_id: str | None = None,
    ) -> RunSubstep:
        """Append a substep to ``step_ref``'s step.

        With no ``step_ref`` (``run_id`` is then required) the event goes to the run's latest
        step if it is still open, or else to a new synthetic step (``Pre-message tool
        activity``): tool events never exist outside a step.
        """
        _check(substep_type, SUBSTEP_TYPES, "substep type")
        _check(source, SOURCES, "source")
        at = _time(timestamp, "timestamp") or utc_now()
        with self._transaction() as cur:
            if step_ref is None:
                if run_id is None:
                    raise ValueError("emit_substep needs a step_ref or a run_id")
                ref = self._active_or_synthetic(cur, run_id, at)
            else:
                ref = step_ref
                self._verify(cur, ref)
            row = self._run(
                cur,
                "SELECT COALESCE(MAX(substep_index), 0) FROM run_substeps WHERE step_id = ?",
                (ref.id,),
            ).fetchone()
            index = int(row[0]) + 1
            label = substep_id(ref.step_id, index)
            substep = {
                "substep_id": label,
                "substep_index": index,
                "type": substep_type,
                "source": source,
                "call_id": call_id,
                "payload": payload,
                "timestamp": at,
                "legacy_turn_id": legacy_turn_id,
                "legacy_event_id": legacy_event_id,
            }
            _valid("Substep", substep if extra is None else {**substep, "extra": extra})
            new = self._run(
                cur,
                "INSERT INTO run_substeps (run_id, step_id, substep_index, substep_id, type, "
                "source, call_id, payload_json, timestamp, legacy_turn_id, legacy_event_id, "
                "extra_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    ref.run_id,
                    ref.id,
                    index,
                    label,
                    substep_type,
                    source,
                    call_id,
                    _json(payload),
                    at,
                    legacy_turn_id,
                    legacy_event_id,
                    _extra(extra),
                ),
            ).fetchone()
        return RunSubstep(
            int(new[0]),
            ref.run_id,
            ref.id,
            index,
            label,
            substep_type,
            source,
            call_id,
            payload,
            at,
            legacy_turn_id,
            legacy_event_id,
            extra,
        )

    def _active_or_synthetic(self, cur: Cursor, run_id: str, at: str) -> StepRef:
        self._ensure_run(cur, run_id, None, None)
        row = self._run(
            cur,
            "SELECT id, step_index, step_id, completed_at, outcome FROM run_steps "
            "WHERE run_id = ? ORDER BY step_index DESC LIMIT 1",
            (run_id,),
        ).fetchone()
        if row is not None and row[3] is None and row[4] is None:
            return StepRef(int(row[0]), run_id, int(row[1]), str(row[2]))
        return self._new_step(
            cur, run_id, None, None, "assistant", at, SYNTHETIC_SUMMARY, None, None, None
        )

    def _verify(self, cur: Cursor, ref: StepRef) -> None:
        row = self._run(
            cur, "SELECT run_id, step_index, step_id FROM run_steps WHERE id = ?", (ref.id,)
        ).fetchone()
        if row is None or (row[0], int(row[1]), row[2]) != (
            ref.run_id,
            ref.step_index,
            ref.step_id,
        ):
            raise ValueError(f"unknown step reference {ref}")
        self._lock_run(cur, ref.run_id)

    def finalize_step(
        self,
        step_ref: StepRef,
        outcome: str,
        summary: str | None = None,
        *,
        completed_at: Time = None,
    ) -> None:
        """Record how the step ended (``completed_at`` defaults to now)."""
        _check(outcome, OUTCOMES, "outcome")
        if summary is not None and not isinstance(summary, str):
            raise ValueError(f"summary must be a string or None, not {type(summary).__name__}")
        end = _time(completed_at, "completed_at") or utc_now()
        with self._transaction() as cur:
            self._verify(cur, step_ref)
            self._run(
                cur,
                "UPDATE run_steps SET completed_at = ?, outcome = ?, "
                "summary = COALESCE(?, summary) WHERE id = ?",
                (end, outcome, summary, step_ref.id),
            )

    # -- reading -------------------------------------------------------------------------------
    def get_run_steps(self, run_id: str) -> list[RunStep]:
        """The run's steps in index order."""
        with self._transaction() as cur:
            rows = self._run(
                cur,
                f"SELECT {_STEP_COLUMNS} FROM run_steps WHERE run_id = ? ORDER BY step_index",
                (run_id,),
            ).fetchall()
        return [_step_row(r) for r in rows]

    def get_run_substeps(self, step_ref: StepRef) -> list[RunSubstep]:
        """The step's substeps in index order."""
        with self._transaction() as cur:
            rows = self._run(
                cur,
                f"SELECT {_SUBSTEP_COLUMNS} FROM run_substeps WHERE step_id = ? "
                "ORDER BY substep_index",
                (step_ref.id,),
            ).fetchall()
        return [_substep_row(r) for r in rows]

    # -- bulk insert (import) ------------------------------------------------------------------
    def insert_document(self, doc: dict[str, Any]) -> None:
        """Store a whole run-log document as given, in one transaction (the run must be new);
        a document that is not a valid run log (its schema) is refused with ValueError."""
        _valid("", doc)
        with self._transaction() as cur:
            run_id = doc["run_id"]
            if self._run(cur, "SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone():
                raise ValueError(f"run {run_id!r} already exists")
            self._ensure_run(cur, run_id, doc["provider"], doc.get("extra"))
            for step in doc["steps"]:
                new = self._run(
                    cur,
                    "INSERT INTO run_steps (run_id, step_index, step_id, provider, "
                    "message_role, message_text, started_at, completed_at, outcome, summary, "
                    "legacy_turn_id, legacy_event_id, extra_json) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (
                        run_id,
                        step["step_index"],
                        step["step_id"],
                        step["provider"],
                        step["message_role"],
                        step.get("message_text"),
                        step.get("started_at"),
                        step.get("completed_at"),
                        step.get("outcome"),
                        step.get("summary"),
                        step.get("legacy_turn_id"),
                        step.get("legacy_event_id"),
                        _extra(step.get("extra")),
                    ),
                ).fetchone()
                for sub in step["substeps"]:
                    self._run(
                        cur,
                        "INSERT INTO run_substeps (run_id, step_id, substep_index, substep_id, "
                        "type, source, call_id, payload_json, timestamp, legacy_turn_id, "
                        "legacy_event_id, extra_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            run_id,
                            int(new[0]),
                            sub["substep_index"],
                            sub["substep_id"],
                            sub["type"],
                            sub["source"],
                            sub.get("call_id"),
                            _json(sub["payload"]),
                            sub.get("timestamp"),
                            sub.get("legacy_turn_id"),
                            sub.get("legacy_event_id"),
                            _extra(sub.get("extra")),
                        ),
                    )


class SqliteStore(StepStore):
    """The store in one SQLite file (WAL, foreign keys on, ``BEGIN IMMEDIATE`` per call)."""

    def __init__(self, path: str | Path, *, timeout: float = 60.0) -> None:
        self._conn = sqlite3.connect(str(path), timeout=timeout, isolation_level=None)
        self._conn.execute("PRAGMA foreign_keys = ON")
        self._conn.execute("PRAGMA journal_mode = WAL")
        with self._transaction() as cur:
            for statement in _statements(ddl("sqlite")):
                cur.execute(statement)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Cursor]:
        cur = self._conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            yield cur
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        else:
            cur.execute("COMMIT")
        finally:
            cur.close()

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()


class PostgresStore(StepStore):
    """The store in PostgreSQL through ``psycopg`` 3 (the ``atif-spec[postgres]`` extra)."""

    placeholder = "%s"

    def __init__(self, dsn: str) -> None:
        try:
            import psycopg  # noqa: PLC0415 - optional: the postgres extra
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise RuntimeError(
                "PostgresStore needs psycopg, the 'postgres' extra (docs/USAGE.md, Optional extras)"
            ) from exc
        self._conn = psycopg.connect(dsn, autocommit=True)
        with self._transaction() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(hashtext('atif_spec.stepsubstep.ddl'))")
            for statement in _statements(ddl("postgres")):
                cur.execute(statement)

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        with self._conn.transaction(), self._conn.cursor() as cur:
            yield cur

    def _lock_run(self, cur: Cursor, run_id: str) -> None:
        self._run(cur, "SELECT run_id FROM runs WHERE run_id = ? FOR UPDATE", (run_id,))

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()


def _step_row(r: Any) -> RunStep:
    return RunStep(
        int(r[0]),
        r[1],
        int(r[2]),
        r[3],
        r[4],
        r[5],
        r[6],
        r[7],
        r[8],
        r[9],
        r[10],
        r[11],
        r[12],
        _load(r[13]),
    )


def _substep_row(r: Any) -> RunSubstep:
    return RunSubstep(
        int(r[0]),
        r[1],
        int(r[2]),
        int(r[3]),
        r[4],
        r[5],
        r[6],
        r[7],
        _load(r[8]),
        r[9],
        r[10],
        r[11],
        _load(r[12]),
    )


def _statements(script: str) -> list[str]:
    """The statements of a DDL script (comments dropped; no semicolons inside statements)."""
    lines = [line for line in script.splitlines() if not line.lstrip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def open_store(target: str | Path) -> StepStore:
    """A PostgreSQL store for a ``postgresql://`` DSN, else a SQLite store at that path."""
    text = str(target)
    if text.startswith(("postgresql://", "postgres://")):
        return PostgresStore(text)
    return SqliteStore(target)
