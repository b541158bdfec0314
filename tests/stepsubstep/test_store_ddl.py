"""The SQLite and PostgreSQL DDL of the run-log store describe the same tables."""

from __future__ import annotations

import os
import re
import sqlite3
from dataclasses import dataclass
from typing import Any

import pytest

from tests.support import ROOT

SPEC = ROOT / "spec" / "step-substep" / "v1.0"
SQLITE = (SPEC / "store.sqlite.sql").read_text()
POSTGRES = (SPEC / "store.postgres.sql").read_text()

# Types per dialect → one portable name. SQLite INTEGER is 64-bit, so it stands for both.
TYPES = {
    "sqlite": {"INTEGER": "int", "TEXT": "text"},
    "postgres": {"INTEGER": "int", "BIGINT": "int", "TEXT": "text"},
}
IDENTITY = {
    "sqlite": "INTEGER PRIMARY KEY AUTOINCREMENT",
    "postgres": "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
}
JSON_CHECK = {
    "sqlite": re.compile(r"json_valid\((\w+)\)"),
    "postgres": re.compile(r"(\w+)::jsonb IS NOT NULL"),
}


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    not_null: bool
    primary_key: bool
    references: str | None
    check: str | None


def _split_top(body: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in body:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return [p for p in parts if p]


def _check(text: str, dialect: str) -> str | None:
    m = re.search(r"CHECK \((.*)\)$", text)
    if not m:
        return None
    return JSON_CHECK[dialect].sub(r"json(\1)", m.group(1))


def parse(script: str, dialect: str) -> dict[str, Any]:
    """Tables (columns in order, unique keys) and indexes of a DDL script."""
    script = "\n".join(ln for ln in script.splitlines() if not ln.lstrip().startswith("--"))
    tables: dict[str, Any] = {}
    for name, body in re.findall(r"CREATE TABLE IF NOT EXISTS (\w+) \((.*?)\n\);", script, re.S):
        columns, uniques = [], set()
        for part in _split_top(body):
            if part.startswith("UNIQUE"):
                uniques.add(tuple(c.strip() for c in re.findall(r"\((.*)\)", part)[0].split(",")))
                continue
            col, rest = part.split(" ", 1)
            if rest.startswith(IDENTITY[dialect]):
                ctype, rest = "identity", rest[len(IDENTITY[dialect]) :]
            else:
                raw, _, rest = rest.partition(" ")
                ctype = TYPES[dialect][raw]
            ref = re.search(r"REFERENCES (\w+ \(\w+\)(?: ON DELETE \w+)?)", rest)
            head = rest.split("CHECK", 1)[0]
            columns.append(
                Column(
                    col,
                    ctype,
                    "NOT NULL" in head or ctype == "identity",
                    "PRIMARY KEY" in head or ctype == "identity",
                    ref.group(1) if ref else None,
                    _check(rest.strip(), dialect),
                )
            )
        tables[name] = {"columns": columns, "unique": uniques}
    indexes = set(re.findall(r"CREATE INDEX IF NOT EXISTS (\w+) ON (\w+) \(([^)]*)\)", script))
    return {"tables": tables, "indexes": indexes}


def test_same_tables_columns_types_and_constraints() -> None:
    lite, pg = parse(SQLITE, "sqlite"), parse(POSTGRES, "postgres")
    assert list(lite["tables"]) == ["runs", "run_steps", "run_substeps"]
    assert lite == pg


def test_the_parser_sees_what_sqlite_sees() -> None:
    """Guards the comparison: the parsed SQLite columns are the ones SQLite creates."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(SQLITE)
    parsed = parse(SQLITE, "sqlite")["tables"]
    for table, info in parsed.items():
        rows = conn.execute(f"PRAGMA table_info({table})").fetchall()
        assert [(r[1], bool(r[3]) or bool(r[5])) for r in rows] == [
            (c.name, c.not_null) for c in info["columns"]
        ]
    fks = conn.execute("PRAGMA foreign_key_list(run_substeps)").fetchall()
    assert sorted((r[2], r[3], r[4], r[6]) for r in fks) == [
        ("run_steps", "step_id", "id", "CASCADE"),
        ("runs", "run_id", "run_id", "CASCADE"),
    ]


def test_the_spec_columns_are_all_there() -> None:
    tables = parse(SQLITE, "sqlite")["tables"]
    steps = [c.name for c in tables["run_steps"]["columns"]]
    subs = [c.name for c in tables["run_substeps"]["columns"]]
    assert steps[:13] == [
        "id",
        "run_id",
        "step_index",
        "step_id",
        "provider",
        "message_role",
        "message_text",
        "started_at",
        "completed_at",
        "outcome",
        "summary",
        "legacy_turn_id",
        "legacy_event_id",
    ]
    assert subs[:12] == [
        "id",
        "run_id",
        "step_id",
        "substep_index",
        "substep_id",
        "type",
        "source",
        "call_id",
        "payload_json",
        "timestamp",
        "legacy_turn_id",
        "legacy_event_id",
    ]


def test_a_difference_is_noticed() -> None:
    changed = POSTGRES.replace("summary TEXT,", "summary TEXT NOT NULL,")
    assert parse(changed, "postgres") != parse(SQLITE, "sqlite")


@pytest.mark.skipif(
    not os.environ.get("ATIF_TEST_POSTGRES_DSN"),
    reason="ATIF_TEST_POSTGRES_DSN is not set (no PostgreSQL server to test against)",
)
def test_the_parser_sees_what_postgres_sees() -> None:
    import psycopg

    with psycopg.connect(os.environ["ATIF_TEST_POSTGRES_DSN"], autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS run_substeps, run_steps, runs CASCADE")
        conn.execute(POSTGRES)  # type: ignore[arg-type]
        parsed = parse(POSTGRES, "postgres")["tables"]
        for table, info in parsed.items():
            rows = conn.execute(
                "SELECT column_name, is_nullable FROM information_schema.columns "
                "WHERE table_name = %s ORDER BY ordinal_position",
                (table,),
            ).fetchall()
            assert [(r[0], r[1] == "NO") for r in rows] == [
                (c.name, c.not_null) for c in info["columns"]
            ]
