"""The SDK file's snapshots: cut from a transcript as the SDK's builder cuts them, read back
into a transcript, hashed as the builder hashes them, and written in pieces.

Snapshots repeat every earlier message, so an SDK file grows quadratically with the length of
the conversation. The lens makes one object per message, shared by every snapshot that holds
it; :func:`content_hash` and :func:`json_chunks` encode each message once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from atif_spec.jsonio import jsontext
from atif_spec.transforms.lenses.trajectory_sdk.common import Doc, Scope
from atif_spec.validation.rules.trajectory_sdk import (
    BOUNDARY,
    compare_snapshots,
    is_restart,
    leading_system,
)

TranscriptItem = tuple[str, Any]
"""A transcript item: ``("message", message)`` or ``("reset", [system messages])``."""


def cut(items: list[TranscriptItem]) -> list[Doc]:
    """Cumulative snapshots, as the SDK 0.4 builder cuts them (ref §5; DECISIONS D2, D3, D8,
    D9), with a restart after each reset (D18). Snapshots share the message objects."""
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
                snapshots[-1]["trainable_status"] = BOUNDARY
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


def transcript(doc: Doc, scope: Scope) -> list[tuple[str, Any, str]]:
    """The whole conversation as ``(kind, value, pointer)`` items (MAPPING §3.1).

    The last snapshot of each context segment gives the messages; a replaced system prefix is
    put back as system messages just before the messages of the snapshot that first lacks it;
    a restart after a ``summarization_boundary`` snapshot becomes a ``reset`` item holding the
    new snapshot's leading system messages.
    """
    out: list[tuple[str, Any, str]] = []
    prev: list[Any] | None = None
    prev_step: Any = None
    steps = doc.get("steps")
    for i, step in enumerate(steps if isinstance(steps, list) else []):
        msgs = step.get("messages") if isinstance(step, dict) else None
        if not isinstance(msgs, list):
            continue
        where = f"/steps/{i}/messages"
        start = 0
        if prev is not None and is_restart(prev_step, prev, msgs):
            start = leading_system(msgs)
            out.append(("reset", msgs[:start], where))
        elif prev is not None:
            new_from, swapped = compare_snapshots(prev, msgs)
            if new_from is None:
                message = f"step {i} does not repeat the messages of step {i - 1} (TSDK101)"
                raise scope.refuse("broken-prefix", where, message)
            if swapped:
                out.extend(
                    ("message", m, f"{where}/{k}")
                    for k, m in enumerate(msgs[: leading_system(msgs)])
                )
            start = new_from
        out.extend(("message", m, f"{where}/{k}") for k, m in enumerate(msgs[start:], start=start))
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
    """SHA-256 of the builder's hash input (ref §8), fed snapshot by snapshot.

    The input is the trajectory without telemetry, error and trace id; each message is
    encoded once however many snapshots repeat it, and a snapshot that extends the one before
    it reuses that one's encoding.
    """
    h = hashlib.sha256()
    cache: dict[int, bytes] = {}
    prev: list[Any] = []
    joined = b""

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
            h.update(b"," if i else b"")
            rest = {k: v for k, v in step.items() if v is not None and k != "idx"}
            h.update(b"{")
            for j, k in enumerate(sorted(rest)):
                h.update((b"," if j else b"") + _dumps(k) + b":")
                if k != "messages":
                    h.update(_dumps(_canonical(rest[k])))
                    continue
                msgs = rest[k]
                n = len(prev)
                if n and len(msgs) >= n and msgs[:n] == prev:  # C speed: shared objects
                    new = [encoded(m) for m in msgs[n:]]
                    joined = b",".join([joined, *new]) if new else joined
                else:
                    joined = b",".join([encoded(m) for m in msgs])
                prev = msgs
                h.update(b"[")
                h.update(joined)
                h.update(b"]")
            h.update(b"}")
        h.update(b"]")
    h.update(b"}")
    return h.hexdigest()


def json_chunks(doc: Any) -> Iterator[bytes]:
    """Compact JSON of ``doc`` in pieces, encoding each shared object once.

    A trajectory-sdk document made by this module repeats its messages in every snapshot;
    writing the pieces as they come keeps memory linear in the conversation although the
    output grows quadratically.
    """
    cache: dict[int, bytes] = {}

    def walk(value: Any, depth: int) -> Iterator[bytes]:
        if isinstance(value, dict) and depth < 4:
            yield b"{"
            for n, (k, v) in enumerate(value.items()):
                yield (b"," if n else b"") + jsontext.dumps(k) + b":"
                yield from walk(v, depth + 1)
            yield b"}"
        elif isinstance(value, list) and depth < 4:
            yield b"["
            for n, v in enumerate(value):
                if n:
                    yield b","
                yield from walk(v, depth + 1)
            yield b"]"
        elif isinstance(value, (dict, list)):
            key = id(value)
            if key not in cache:
                cache[key] = _encode(value)
            yield cache[key]
        else:
            yield _encode(value)

    yield from walk(doc, 0)


def _encode(value: Any) -> bytes:
    return jsontext.dumps(value)
