"""The one-line details of a timeline's substeps (the strings gza's ``gza log --steps`` prints)."""

from __future__ import annotations

from typing import Any

import pytest

from atif_spec.stepsubstep.details import message_text, substep_detail, truncate


@pytest.mark.parametrize(
    ("type_", "payload", "detail"),
    [
        ("tool_call", {"tool_name": "Bash", "tool_input": {"command": "rg -n foo"}}, "rg -n foo"),
        ("tool_call", {"tool_name": "Bash", "command": "ls -la"}, "Bash ls -la"),
        (
            "tool_call",
            {"tool_name": "Grep", "tool_input": {"pattern": "x", "path": "src"}},
            "Grep x [src]",
        ),
        (
            "tool_call",
            {"tool_name": "TodoWrite", "tool_input": {"todos": [1, 2]}},
            "TodoWrite 2 todos",
        ),
        ("tool_call", {"tool_name": "WebFetch", "tool_input": {}}, "WebFetch"),
        ("tool_output", {"content": "a\\nb", "is_error": False}, "a\nb"),
        ("tool_output", {"content": [{"t": 1}], "is_error": False}, '[{"t": 1}]'),
        ("tool_output", {"exit_code": 0, "output": "x" * 130}, "x" * 117 + "..."),
        ("tool_error", {"message": "denied"}, "denied"),
        ("tool_error", {"code": 3}, '{"code": 3}'),
        ("tool_call", {"tool_name": "Bash", "command": "y" * 120}, "Bash " + "y" * 97 + "..."),
    ],
)
def test_substep_details_follow_gza(type_: str, payload: Any, detail: str) -> None:
    assert substep_detail(type_, payload) == detail


def test_message_text_joins_the_text_parts() -> None:
    parts = [{"type": "text", "text": " a "}, {"type": "image"}, {"type": "text", "text": "b"}]
    assert message_text(parts) == "a\nb"
    assert message_text(" hi ") == "hi" and message_text(None) == ""


def test_truncate_keeps_the_limit_with_its_suffix() -> None:
    assert truncate("abcdef", 4) == "a..." and truncate("abc", 4) == "abc"
