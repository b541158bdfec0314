-- Step/substep run-log store, PostgreSQL dialect (v1.0).
-- Kept equivalent to store.sqlite.sql by tests/test_step_substep_ddl.py: same tables, same
-- columns in the same order, mapped types, same NOT NULL, UNIQUE, CHECK and FOREIGN KEY constraints.
-- Timestamps are RFC 3339 text, stored exactly as given; payloads and extras are JSON text.

CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT NOT NULL PRIMARY KEY,
    provider TEXT NOT NULL,
    extra_json TEXT CHECK (extra_json IS NULL OR extra_json::jsonb IS NOT NULL)
);

CREATE TABLE IF NOT EXISTS run_steps (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    step_index INTEGER NOT NULL CHECK (step_index >= 1),
    step_id TEXT NOT NULL,
    provider TEXT NOT NULL,
    message_role TEXT NOT NULL,
    message_text TEXT,
    started_at TEXT,
    completed_at TEXT,
    outcome TEXT CHECK (outcome IS NULL OR outcome IN ('completed', 'failed', 'interrupted', 'timeout')),
    summary TEXT,
    legacy_turn_id TEXT,
    legacy_event_id TEXT,
    extra_json TEXT CHECK (extra_json IS NULL OR extra_json::jsonb IS NOT NULL),
    UNIQUE (run_id, step_index),
    UNIQUE (run_id, step_id)
);

CREATE TABLE IF NOT EXISTS run_substeps (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    step_id BIGINT NOT NULL REFERENCES run_steps (id) ON DELETE CASCADE,
    substep_index INTEGER NOT NULL CHECK (substep_index >= 1),
    substep_id TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('tool_call', 'tool_output', 'tool_error', 'tool_retry', 'status_update', 'artifact')),
    source TEXT NOT NULL CHECK (source IN ('runner', 'provider', 'tool')),
    call_id TEXT,
    payload_json TEXT NOT NULL CHECK (payload_json::jsonb IS NOT NULL),
    timestamp TEXT,
    legacy_turn_id TEXT,
    legacy_event_id TEXT,
    extra_json TEXT CHECK (extra_json IS NULL OR extra_json::jsonb IS NOT NULL),
    UNIQUE (step_id, substep_index),
    UNIQUE (step_id, substep_id)
);

CREATE INDEX IF NOT EXISTS run_steps_run_id_idx ON run_steps (run_id);
CREATE INDEX IF NOT EXISTS run_substeps_run_id_idx ON run_substeps (run_id);
CREATE INDEX IF NOT EXISTS run_substeps_step_id_idx ON run_substeps (step_id);
