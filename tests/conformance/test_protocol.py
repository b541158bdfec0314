"""The runner protocol's messages (``conformance.protocol``)."""

from __future__ import annotations

from typing import Any

import pytest

from atif_spec.conformance.protocol import ProtocolError, check_response


def test_a_valid_response_is_returned() -> None:
    assert check_response({"id": "a", "valid": True}) == {"id": "a", "valid": True}


def test_a_response_refused_by_its_schema_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match=r"not a protocol response \(root: .*oneOf"):
        check_response({"id": "a", "valid": "yes"})


def test_a_deeply_nested_refused_value_is_a_protocol_error() -> None:
    """Was: ``ValueError: Recursion limit reached`` out of the run (issue #36)."""
    deep: Any = []
    for _ in range(300):
        deep = [deep]
    with pytest.raises(ProtocolError, match=r"not a protocol response \(root: nested too deeply"):
        check_response({"id": "a", "valid": deep})


def test_a_finding_may_carry_its_line_and_column() -> None:
    """A finding in the RFC.md §4.2 shape (as ``atif validate`` reports it, with ``line`` and
    ``column``) is a protocol finding; adapters need not strip them."""
    finding = {"code": "ATIF101", "pointer": "/steps/1/step_id", "line": 9, "column": 18}
    verdict = {"id": "a", "valid": False, "errors": [finding], "warnings": []}
    assert check_response(verdict) == verdict
    with pytest.raises(ProtocolError):
        check_response({**verdict, "errors": [{**finding, "line": 0}]})
