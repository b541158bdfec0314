"""The SDK file's snapshots: cut from a transcript as the SDK's builder cuts them, read back
into a transcript, hashed as the builder hashes them, and written in pieces. Snapshots repeat
every earlier message (the file grows quadratically): they share one object per message."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from atif_spec.jsonio import jsontext
from atif_spec.transforms.lenses.trajectory_sdk.table import Doc, Scope
from atif_spec.validation.rules import trajectory_sdk as rules


def cut(items: list[tuple[str, Any]]) -> list[Doc]:
    """Cumulative snapshots of transcript items (``("message", message)`` or ``("reset",
    [system messages])``), as the SDK 0.4 builder cuts them (ref §5; DECISIONS D2, D3, D8, D9),
    with a restart after each reset (D18). Snapshots share the message objects."""
    snapshots: list[Doc] = []
    prefix: list[Doc] = []
    body: list[Doc] = []
    user_seen = prev_system = pending = trainable = False

    def emit() -> None:
        nonlocal pending, trainable
        status = "trainable" if trainable else "not_trainable"
        snapshots.append(
            {"messages": [*prefix, *body], "reward": None, "info": None, "trainable_status": status}
        )
        pending = trainable = False

    for kind, value in items:
        if kind == "reset":
            if pending:
                emit()
            if snapshots:
                snapshots[-1]["trainable_status"] = rules.BOUNDARY
            prefix, body = list(value), []
            prev_system, pending, trainable = True, bool(prefix), False
            continue
        m: Doc = value
        role = m.get("role")
        if role == "system" and (user_seen or not body):
            if user_seen and not prev_system:
                prefix = [m]
            else:
                prefix.append(m)
            prev_system = pending = True
            continue
        prev_system = False
        body.append(m)
        pending = True
        trainable = trainable or m.get("trainable_status") == "trainable"
        if not user_seen:
            if role == "user":
                user_seen = True
                emit()
        elif role == "tool" or (role == "assistant" and not m.get("tool_calls")):
            emit()
    if pending:
        emit()
    return snapshots


def transcript(doc: Doc, scope: Scope) -> list[tuple[str, Any, int, int]]:
    """The whole conversation as ``(kind, value, snapshot index, message index)`` items (MAPPING
    §3.1): the messages each snapshot adds to the one before it; a replaced system prefix put
    back as system messages just before them; a restart after a ``summarization_boundary``
    snapshot as a ``reset`` item holding the new snapshot's leading system messages."""
    out: list[tuple[str, Any, int, int]] = []
    prev: list[Any] | None = None
    prev_step: Any = None
    steps = doc.get("steps")
    for i, step in enumerate(steps if isinstance(steps, list) else []):
        msgs = step.get("messages") if isinstance(step, dict) else None
        if not isinstance(msgs, list):
            continue
        start = 0
        if prev is not None and rules.is_restart(prev_step, prev, msgs):
            start = rules.leading_system(msgs)
            out.append(("reset", msgs[:start], i, 0))
        elif prev is not None:
            new_from, swapped = rules.compare_snapshots(prev, msgs)
            if new_from is None:
                message = f"step {i} does not repeat the messages of step {i - 1} (TSDK101)"
                raise scope.refuse("broken-prefix", f"/steps/{i}/messages", message)
            if swapped:
                out.extend(
                    ("message", m, i, k) for k, m in enumerate(msgs[: rules.leading_system(msgs)])
                )
            start = new_from
        out.extend(("message", m, i, k) for k, m in enumerate(msgs[start:], start=start))
        prev, prev_step = msgs, step
    return out


def _canonical(value: Any) -> Any:
    """The content-hash form of a value: null members and ``idx`` keys dropped (ref §8)."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items() if v is not None and k != "idx"}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def _dumps(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def content_hash(doc: Doc) -> str:
    """SHA-256 of the builder's hash input (ref §8): the trajectory without telemetry, error and
    trace id, fed snapshot by snapshot. Each message is encoded once, and a snapshot that
    extends the one before it extends that one's encoding (no copy of the whole)."""
    h = hashlib.sha256()
    cache: dict[int, bytes] = {}
    prev: list[Any] = []
    joined = bytearray()

    def encoded(m: Any) -> bytes:
        part = cache.get(id(m))
        if part is None:
            part = cache[id(m)] = _dumps(_canonical(m))
        return part

    top = {
        k: doc.get(k)
        for k in ("execution_metrics", "metrics", "model_id", "reward", "steps", "task")
        if doc.get(k) is not None
    }
    h.update(b"{")
    for n, (key, value) in enumerate(top.items()):
        h.update((b"," if n else b"") + _dumps(key) + b":")
        if key != "steps" or not isinstance(value, list):
            h.update(_dumps(_canonical(value)))
            continue
        h.update(b"[")
        for i, step in enumerate(value):
            rest = {k: v for k, v in step.items() if v is not None and k != "idx"}
            h.update(b",{" if i else b"{")
            for j, k in enumerate(sorted(rest)):
                h.update((b"," if j else b"") + _dumps(k) + b":")
                if k != "messages":
                    h.update(_dumps(_canonical(rest[k])))
                    continue
                msgs = rest[k]
                if prev and len(msgs) >= len(prev) and msgs[: len(prev)] == prev:  # shared
                    for m in msgs[len(prev) :]:
                        joined += b"," + encoded(m)
                else:
                    joined = bytearray(b",".join([encoded(m) for m in msgs]))
                prev = msgs
                h.update(b"[")
                h.update(joined)
                h.update(b"]")
            h.update(b"}")
        h.update(b"]")
    h.update(b"}")
    return h.hexdigest()


def json_chunks(doc: Any) -> Iterator[bytes]:
    """Compact JSON of ``doc`` in pieces, each object below the snapshots' messages' level (a
    message, shared by many snapshots) encoded once: memory stays linear in the conversation
    although the output grows quadratically."""
    cache: dict[int, bytes] = {}

    def walk(value: Any, depth: int) -> Iterator[bytes]:
        if isinstance(value, (dict, list)) and depth == 4:
            yield cache.get(id(value)) or cache.setdefault(id(value), jsontext.dumps(value))
        elif isinstance(value, dict):
            yield b"{"
            for n, (k, v) in enumerate(value.items()):
                yield (b"," if n else b"") + jsontext.dumps(k) + b":"
                yield from walk(v, depth + 1)
            yield b"}"
        elif isinstance(value, list):
            yield b"["
            for n, v in enumerate(value):
                yield b"," if n else b""
                yield from walk(v, depth + 1)
            yield b"]"
        else:
            yield jsontext.dumps(value)

    yield from walk(doc, 0)
