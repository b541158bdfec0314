"""Documents the tests build and the fixtures they treat specially."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support import ROOT

DISPATCH_ONLY = frozenset(
    {
        "conformance/atif/v1.6/valid/later-version-fields-null.json",
        "conformance/atif/v1.7/valid/embedded-subagent-newer-version.json",
    }
)
"""Fixtures valid only through the validator's dispatch (DECISIONS.md D-14, D-15), not through the
released schemas: the generated bindings and the lenses (which accept what the schema accepts,
and drop keys whose value is null) do not read them back unchanged, so their tests leave them
out."""


def dispatch_only(path: Path) -> bool:
    """Whether ``path`` is one of :data:`DISPATCH_ONLY`."""
    return path.relative_to(ROOT).as_posix() in DISPATCH_ONLY


ATIF_VERSIONS = ["v1.0", "v1.1", "v1.2", "v1.3", "v1.4", "v1.5", "v1.6", "v1.7", "v1.8"]


def minimal_atif(version: str) -> dict[str, Any]:
    """The smallest valid ATIF document of a version (an agent step, root session id)."""
    return {
        "schema_version": f"ATIF-{version}",
        "session_id": "sess-1",
        "agent": {"name": "terminus-2", "version": "1.0.0"},
        "steps": [{"step_id": 1, "source": "agent", "message": "done"}],
    }
