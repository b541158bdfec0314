from __future__ import annotations

from atif_spec.transforms.lenses.otel.messages import (
    fingerprint,
    message_of,
    new_messages,
    output_message,
    parts_of,
    tool_calls_of,
)


def test_content_parts_come_back() -> None:
    message = [
        {"type": "text", "text": "look"},
        {"type": "image", "source": {"media_type": "image/png", "path": "a.png"}},
        {"type": "audio", "source": {"media_type": "audio/wav", "path": "b.wav"}},
    ]
    assert message_of(parts_of(message)) == message
    assert message_of(parts_of("plain")) == "plain"
    assert parts_of("") == [] and message_of([]) == ""


def test_text_parts_keep_their_boundaries() -> None:
    two = [{"type": "text", "text": "Hello"}, {"type": "text", "text": "world"}]
    assert message_of(parts_of(two)) == two  # not "Helloworld"
    assert message_of(parts_of([{"type": "text", "text": "one"}])) == "one"


def test_an_agent_step_is_one_assistant_message() -> None:
    step = {
        "source": "agent",
        "message": "ok",
        "reasoning_content": "think",
        "tool_calls": [{"tool_call_id": "c", "function_name": "f", "arguments": {"x": 1}}],
    }
    out = output_message(step)
    assert [p["type"] for p in out["parts"]] == ["reasoning", "text", "tool_call"]
    assert out["finish_reason"] == "tool_call"
    assert tool_calls_of(out["parts"]) == step["tool_calls"]
    assert tool_calls_of([{"type": "tool_call", "id": "c", "name": "f", "arguments": "[1]"}])[0][
        "arguments"
    ] == {"raw": "[1]"}


def _m(role: str, text: str) -> dict:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


def test_a_repeated_history_is_new_only_after_what_was_seen() -> None:
    seen = [_m("system", "s"), _m("user", "go"), _m("assistant", "done")]
    history = [fingerprint(x) for x in seen]
    assert new_messages([*seen, _m("user", "go")], history) == [_m("user", "go")]
    # an input that does not start with the first message holds new messages only
    assert new_messages([_m("user", "go")], history) == [_m("user", "go")]
    assert new_messages([_m("user", "x")], []) == [_m("user", "x")]
