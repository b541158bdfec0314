"""Shared test helpers."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def pin_hypothesis_constants() -> None:
    """Keep hypothesis's draws independent of which modules are loaded.

    Hypothesis (6.131 and later) sometimes draws a literal mined from the source of the local
    modules in ``sys.modules`` (here every ``atif_spec`` module imported so far), so a
    derandomized test drew other examples when another test had imported more modules first
    (``atif_spec.conformance.interop``, say). The suite pins that pool to empty; hypothesis's
    own constants stay. ``tests/test_draws_pinned.py`` fails if draws depend on imports again.
    """
    from hypothesis.internal.conjecture import providers

    if hasattr(providers, "_get_local_constants"):  # older releases mine nothing
        from hypothesis.internal.constants_ast import Constants

        empty = Constants()
        providers._get_local_constants = lambda: empty


pin_hypothesis_constants()
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


@pytest.fixture
def minimal() -> Any:
    """Factory for minimal documents (a fresh deep copy each call)."""
    return lambda version: copy.deepcopy(minimal_atif(version))


_SKIPPED: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Record skipped tests (see ``pytest_sessionfinish``)."""
    if report.skipped:
        _SKIPPED.append(report.nodeid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """With ATIF_FAIL_ON_SKIP=1 (the sessions that provide a service), a skip is a failure."""
    import os

    if os.environ.get("ATIF_FAIL_ON_SKIP") == "1" and _SKIPPED:
        print(f"\nATIF_FAIL_ON_SKIP: {len(_SKIPPED)} test(s) skipped: {_SKIPPED[:5]}")
        session.exitstatus = 1
