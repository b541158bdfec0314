"""The logging API and storage: SQLite always, PostgreSQL when ATIF_TEST_POSTGRES_DSN is set."""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from atif_spec.formats.step_substep import SYNTHETIC_SUMMARY
from atif_spec.stepsubstep.exchange import export_run, import_run
from atif_spec.stepsubstep.legacy import migrate
from atif_spec.stepsubstep.store import SqliteStore, StepRef, StepStore, open_store
from tests.support import ROOT

SUITE = ROOT / "conformance" / "step-substep" / "v1.0"
DSN = os.environ.get("ATIF_TEST_POSTGRES_DSN")
NO_PG = "ATIF_TEST_POSTGRES_DSN is not set (no PostgreSQL server to test against)"
T0 = "2026-02-26T10:00:00+00:00"


def _pg_reset() -> None:
    import psycopg

    with psycopg.connect(str(DSN), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS run_substeps, run_steps, runs CASCADE")


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StepStore]:
    if request.param == "postgres":
        if not DSN:
            pytest.skip(NO_PG)
        _pg_reset()
        target: str | Path = str(DSN)
    else:
        target = tmp_path / "runs.db"
    with open_store(target) as s:
        yield s


def test_emit_finalize_and_read_back(store: StepStore) -> None:
    s1 = store.emit_step(
        "run-1",
        "Listing files.",
        provider="codex",
        started_at=T0,
        legacy_turn_id="T1",
        legacy_event_id="T1.13",
    )
    assert s1 == StepRef(s1.id, "run-1", 1, "S1")
    call = store.emit_substep(
        s1,
        "tool_call",
        {"tool_name": "Bash", "tool_input": {"command": "ls"}},
        call_id="c1",
        timestamp=T0,
    )
    out = store.emit_substep(
        s1, "tool_output", {"exit_code": 0, "output": "a"}, call_id="c1", timestamp=T0
    )
    assert (call.substep_id, out.substep_id, out.substep_index) == ("S1.1", "S1.2", 2)
    store.finalize_step(s1, "completed", "listed", completed_at="2026-02-26T10:00:05+00:00")
    s2 = store.emit_step("run-1", "Next.")
    assert (s2.step_index, s2.step_id) == (2, "S2")
    steps = store.get_run_steps("run-1")
    assert [(s.step_id, s.outcome, s.summary, s.provider) for s in steps] == [
        ("S1", "completed", "listed", "codex"),
        ("S2", None, None, "codex"),
    ]
    assert steps[0].legacy_event_id == "T1.13"
    assert steps[1].started_at is not None  # the API stamps the time when none is given
    subs = store.get_run_substeps(s1)
    assert [(x.substep_id, x.type, x.call_id, x.payload) for x in subs] == [
        ("S1.1", "tool_call", "c1", {"tool_name": "Bash", "tool_input": {"command": "ls"}}),
        ("S1.2", "tool_output", "c1", {"exit_code": 0, "output": "a"}),
    ]


def test_tool_event_without_a_step_creates_a_synthetic_step(store: StepStore) -> None:
    store.create_run("run-2", "codex")
    first = store.emit_substep(
        None, "tool_call", {"tool_name": "Bash"}, run_id="run-2", call_id="c1"
    )
    again = store.emit_substep(None, "tool_output", {"output": "x"}, run_id="run-2", call_id="c1")
    steps = store.get_run_steps("run-2")
    assert [(s.step_id, s.message_text, s.summary) for s in steps] == [
        ("S1", None, SYNTHETIC_SUMMARY)
    ]
    assert (first.substep_id, again.substep_id) == ("S1.1", "S1.2")
    # Once the open step is finalized, a new tool event gets a new synthetic step.
    store.finalize_step(steps[0].ref, "completed")
    later = store.emit_substep(None, "tool_call", {"tool_name": "Bash"}, run_id="run-2")
    assert later.substep_id == "S2.1"


def test_refs_enums_and_times_are_checked(store: StepStore) -> None:
    ref = store.emit_step("run-3", "Hi.", provider="claude")
    with pytest.raises(ValueError, match="unknown step reference"):
        store.emit_substep(StepRef(ref.id, "run-3", 2, "S2"), "tool_call", {"tool_name": "x"})
    with pytest.raises(ValueError, match="unknown step reference"):
        store.finalize_step(StepRef(ref.id + 999, "run-3", 1, "S1"), "completed")
    with pytest.raises(ValueError, match="substep type"):
        store.emit_substep(ref, "tool_result", {})
    with pytest.raises(ValueError, match="source"):
        store.emit_substep(ref, "tool_call", {"tool_name": "x"}, source="agent")
    with pytest.raises(ValueError, match="outcome"):
        store.finalize_step(ref, "succeeded")
    with pytest.raises(ValueError, match="RFC 3339"):
        store.emit_step("run-3", "x", started_at="yesterday")
    with pytest.raises(ValueError, match="provider"):
        store.emit_step("run-new", "x")
    assert store.get_run_substeps(ref) == []
    assert [s.step_id for s in store.get_run_steps("run-3")] == ["S1"]


ROUND_TRIP = [
    SUITE / "valid" / "tool-lifecycle.json",
    SUITE / "valid" / "claude-content-results.json",
    SUITE / "legacy" / "codex-multi-step.run-log.json",
    SUITE / "legacy" / "gemini-stream.run-log.json",
]


@pytest.mark.parametrize("path", ROUND_TRIP, ids=[p.name for p in ROUND_TRIP])
def test_export_import_round_trip(store: StepStore, path: Path) -> None:
    doc = json.loads(path.read_text())
    import_run(store, doc)
    assert export_run(store, doc["run_id"]) == doc
    with pytest.raises(ValueError, match="already exists"):
        import_run(store, doc)


def test_export_of_emitted_run_is_a_valid_run_log(store: StepStore) -> None:
    import jsonschema

    ref = store.emit_step("run-4", "Working.", provider="gemini")
    store.emit_substep(ref, "tool_call", {"tool_name": "Read"}, call_id="r1")
    store.finalize_step(ref, "completed")
    doc = export_run(store, "run-4")
    schema = json.loads((ROOT / "spec/step-substep/v1.0/run-log.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert store.list_runs() == ["run-4"]
    with pytest.raises(KeyError):
        export_run(store, "nope")


def test_sqlite_file_uses_wal_and_foreign_keys(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with SqliteStore(path) as store:
        store.emit_step("r", "x", provider="codex")
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.execute("PRAGMA foreign_keys = ON")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(
            "INSERT INTO run_substeps (run_id, step_id, substep_index, substep_id, type, source, "
            "payload_json) VALUES ('r', 999, 1, 'S9.1', 'tool_call', 'provider', '{}')"
        )
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("UPDATE run_steps SET outcome = 'succeeded'")
    conn.close()


def test_migrated_log_stores_and_exports_unchanged(tmp_path: Path) -> None:
    evs = [
        json.loads(line)
        for line in (SUITE / "legacy" / "legacy-turn-events.jsonl").read_text().splitlines()
    ]
    doc = migrate(evs).document
    with SqliteStore(tmp_path / "m.db") as store:
        import_run(store, doc)
        assert export_run(store, doc["run_id"]) == doc


# -- several writer processes -------------------------------------------------------------------

WORKERS = 4
STEPS_EACH = 12
SUBS_EACH = 3
SHARED_EACH = 15


def _writer(target: str, run_id: str, shared: StepRef, worker: int, barrier: Any) -> None:
    """One writer process: its own steps and substeps, plus substeps on a shared step."""
    with open_store(target if target.startswith("postgres") else Path(target)) as store:
        barrier.wait()
        for n in range(STEPS_EACH):
            ref = store.emit_step(run_id, f"w{worker} step {n}")
            for m in range(SUBS_EACH):
                store.emit_substep(
                    ref, "tool_call", {"tool_name": "Bash"}, call_id=f"w{worker}-{n}-{m}"
                )
            store.emit_substep(shared, "status_update", {"message": f"w{worker} {n}"})
            if n % 4 == 0:
                store.finalize_step(ref, "completed")
        for n in range(STEPS_EACH, SHARED_EACH):
            store.emit_substep(shared, "status_update", {"message": f"w{worker} {n}"})


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_concurrent_processes_lose_nothing_and_never_duplicate(
    backend: str, tmp_path: Path
) -> None:
    if backend == "postgres":
        if not DSN:
            pytest.skip(NO_PG)
        _pg_reset()
        target = str(DSN)
    else:
        target = str(tmp_path / "shared.db")
    run_id = f"run-{uuid.uuid4().hex[:8]}"
    with open_store(target if backend == "postgres" else Path(target)) as store:
        shared = store.emit_step(run_id, "shared", provider="codex")
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(WORKERS)
    procs = [
        ctx.Process(target=_writer, args=(target, run_id, shared, w, barrier))
        for w in range(WORKERS)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    assert [p.exitcode for p in procs] == [0] * WORKERS
    with open_store(target if backend == "postgres" else Path(target)) as store:
        steps = store.get_run_steps(run_id)
        total = 1 + WORKERS * STEPS_EACH
        assert [s.step_index for s in steps] == list(range(1, total + 1))
        assert [s.step_id for s in steps] == [f"S{i}" for i in range(1, total + 1)]
        texts = sorted(s.message_text or "" for s in steps[1:])
        assert texts == sorted(f"w{w} step {n}" for w in range(WORKERS) for n in range(STEPS_EACH))
        shared_subs = store.get_run_substeps(shared)
        assert [x.substep_index for x in shared_subs] == list(range(1, WORKERS * SHARED_EACH + 1))
        assert len({x.payload["message"] for x in shared_subs}) == WORKERS * SHARED_EACH
        for step in steps[1:]:
            subs = store.get_run_substeps(step.ref)
            assert [x.substep_id for x in subs] == [f"{step.step_id}.{m}" for m in (1, 2, 3)]
            worker, n = step.message_text.split(" step ")  # type: ignore[union-attr]
            assert [x.call_id for x in subs] == [f"{worker}-{n}-{m}" for m in range(SUBS_EACH)]
