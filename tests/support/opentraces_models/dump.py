"""Write the JSON Schema pydantic makes of one ``opentraces-schema`` release's ``TraceRecord``.

Run with the release's wheel importable, for example::

    pip download --no-deps opentraces-schema==0.9.0 -d /tmp/ots
    unzip -q /tmp/ots/opentraces_schema-0.9.0-py3-none-any.whl -d /tmp/ots/0.9.0
    PYTHONPATH=/tmp/ots/0.9.0 python tests/support/opentraces_models/dump.py

It writes ``v<SCHEMA_VERSION>.json`` next to this file: the model's JSON Schema, and two records
(the upstream test vector, and one with every nested model at its required fields only) as the
release's ``TraceRecord`` fills them, with their ``content_hash``. tests/formats/test_tao_models.py
holds our schemas and ``atif_spec.formats.tao`` to them field by field.
"""

from __future__ import annotations

import json
from pathlib import Path

from opentraces_schema import SCHEMA_VERSION, TraceRecord

VECTOR = {
    "trace_id": "00000000-0000-4000-8000-000000000000",
    "session_id": "sess-1",
    "agent": {"name": "claude-code"},
}

NESTED = {
    **VECTOR,
    "steps": [
        {
            "step_index": 0,
            "role": "agent",
            "tool_calls": [{"tool_call_id": "c1", "tool_name": "Bash"}],
            "observations": [{"source_call_id": "c1"}],
            "snippets": [{"file_path": "a.py"}],
            "token_usage": {},
        }
    ],
    "attribution": {
        "files": [
            {"path": "a.py", "conversations": [{"ranges": [{"start_line": 1, "end_line": 2}]}]}
        ]
    },
    "patches": [
        {
            "patch_id": "p1",
            "file_path": "a.py",
            "anchor": {"last_searched_at": "2026-01-01T00:00:00Z", "found": False},
        }
    ],
    "git_links": [{"revision": "abc", "tier": "orphan"}],
    "environment": {"interpreter": {}, "resolved_dependencies": [{"name": "x"}]},
}
"""A record with every nested model of 0.9.0 at its required fields (older releases drop what
they do not define)."""


def filled(doc: dict[str, object]) -> dict[str, object]:
    record = TraceRecord.model_validate(doc)
    return {
        "input": doc,
        "record": record.model_dump(mode="json"),
        "content_hash": record.compute_content_hash(),
    }


LEGACY = Path(__file__).parents[3] / "conformance/tao/v0.3.0/valid/outcome-patch.json"
"""A 0.3.0 record with an ``outcome.patch`` (a unified diff over two files)."""


def migrated() -> dict[str, object]:
    """``migrate_record`` of the release (0.6.0 and later) on :data:`LEGACY`."""
    try:
        from opentraces_schema.migrations import migrate_record  # only from 0.6.0
    except ImportError:
        return {}
    doc = json.loads(LEGACY.read_text(encoding="utf-8"))
    return {"input": str(LEGACY.relative_to(LEGACY.parents[4])), "output": migrate_record(doc)}


if __name__ == "__main__":
    dumped = {
        "schema_version": SCHEMA_VERSION,
        "vector": filled(VECTOR),
        "nested": filled(NESTED),
        "migrate_record": migrated(),
        "model_json_schema": TraceRecord.model_json_schema(),
    }
    out = Path(__file__).with_name(f"v{SCHEMA_VERSION}.json")
    out.write_text(json.dumps(dumped, indent=1, sort_keys=False) + "\n", encoding="utf-8")
