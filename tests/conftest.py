"""Pytest hooks and fixtures shared by every test (helpers live in ``tests/support/``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.support.documents import minimal_atif


def pin_hypothesis_constants() -> None:
    """Keep hypothesis's draws independent of which modules are loaded.

    Hypothesis (6.131 and later) sometimes draws a literal mined from the source of the local
    modules in ``sys.modules`` (here every ``atif_spec`` module imported so far), so a
    derandomized test drew other examples when another test had imported more modules first
    (``atif_spec.conformance.interop``, say). The suite pins that pool to empty; hypothesis's
    own constants stay. ``tests/support/test_draws_pinned.py`` fails if draws depend on imports again.
    """
    from hypothesis.internal.conjecture import providers

    if hasattr(providers, "_get_local_constants"):  # older releases mine nothing
        from hypothesis.internal.constants_ast import Constants

        empty = Constants()
        providers._get_local_constants = lambda: empty


pin_hypothesis_constants()


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
