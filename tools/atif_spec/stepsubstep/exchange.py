"""A stored run to a run-log document and back."""

from __future__ import annotations

from typing import Any

from atif_spec.stepsubstep.store import RunStep, RunSubstep, StepStore


def export_run(store: StepStore, run_id: str) -> dict[str, Any]:
    """The run-log document of a stored run (every field written, nulls included)."""
    run = store.get_run(run_id)
    if run is None:
        raise KeyError(f"no run {run_id!r} in the store")
    doc: dict[str, Any] = {
        "run_id": run.run_id,
        "provider": run.provider,
        "steps": [_step(store, s) for s in store.get_run_steps(run_id)],
    }
    if run.extra is not None:
        doc["extra"] = run.extra
    return doc


def import_run(store: StepStore, document: dict[str, Any]) -> None:
    """Store a run-log document as a new run, ids and indexes exactly as written."""
    store.insert_document(document)


def _step(store: StepStore, step: RunStep) -> dict[str, Any]:
    out: dict[str, Any] = {
        "step_id": step.step_id,
        "step_index": step.step_index,
        "provider": step.provider,
        "message_role": step.message_role,
        "message_text": step.message_text,
        "started_at": step.started_at,
        "completed_at": step.completed_at,
        "outcome": step.outcome,
        "summary": step.summary,
        "legacy_turn_id": step.legacy_turn_id,
        "legacy_event_id": step.legacy_event_id,
        "substeps": [_substep(s) for s in store.get_run_substeps(step.ref)],
    }
    if step.extra is not None:
        out["extra"] = step.extra
    return out


def _substep(sub: RunSubstep) -> dict[str, Any]:
    out: dict[str, Any] = {
        "substep_id": sub.substep_id,
        "substep_index": sub.substep_index,
        "type": sub.type,
        "source": sub.source,
        "call_id": sub.call_id,
        "payload": sub.payload,
        "timestamp": sub.timestamp,
        "legacy_turn_id": sub.legacy_turn_id,
        "legacy_event_id": sub.legacy_event_id,
    }
    if sub.extra is not None:
        out["extra"] = sub.extra
    return out
