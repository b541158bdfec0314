"""Object storage and other ``pyarrow.fs`` file systems (``s3://``, ``gs://``, ``hdfs://``,
``file://``), reached in bounded time and failing in one line.

A store that cannot be reached is an :class:`~atif_spec.validation.reader.UnreadablePath` naming
the URI and the cause (no network, no credentials or access denied, bucket not found), never a
pyarrow traceback. Time is bounded two ways:

* the first contact with a store (resolving it, looking up the input, opening a file) must
  answer within :func:`timeout` seconds (``ATIF_STORAGE_TIMEOUT``, default 20). pyarrow's calls
  cannot be cancelled, so the call runs in a daemon thread that is abandoned when it is late;
* Google Cloud Storage stops retrying after half that time (its client retries transient
  errors for 15 minutes by default, which is the silent hang of a ``gs://`` input without
  network), so that its own error, which names the cause, comes before the deadline.
  S3 keeps its SDK's own limits (1 s to connect, 3 s without data, 3 attempts).
"""

from __future__ import annotations

import datetime
import importlib
import os
import re
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from atif_spec.validation.reader import UnreadablePath

TIMEOUT_ENV = "ATIF_STORAGE_TIMEOUT"
DEFAULT_TIMEOUT = 20.0
"""Seconds the first contact with a store may take (GCS retries for half of it)."""
_DETAIL_CHARS = 240

_CAUSES = (
    (
        "no network (the storage service cannot be reached)",
        (
            "NETWORK_CONNECTION",
            "Could not resolve",
            "Could not connect",
            "Timeout was reached",
            "CURL error",
            "UNAVAILABLE",
            "DEADLINE_EXCEEDED",
        ),
    ),
    (
        "bucket not found",
        ("NO_SUCH_BUCKET", "NoSuchBucket", "RESOURCE_NOT_FOUND during HeadBucket"),
    ),
    (
        "no credentials, or access denied",
        (
            "ACCESS_DENIED",
            "AccessDenied",
            "INVALID_ACCESS_KEY_ID",
            "SIGNATURE_DOES_NOT_MATCH",
            "credentials",
            "PERMISSION_DENIED",
            "UNAUTHENTICATED",
        ),
    ),
)
"""The cause of a failure, by what pyarrow's message (the AWS or Google client's) says; the
first that matches wins (a GCS client offline fails to fetch a token: the network is the
cause)."""

T = TypeVar("T")


def timeout() -> float:
    """``ATIF_STORAGE_TIMEOUT`` in seconds (default 20); a value that is not a positive number is
    an :class:`UnreadablePath` (exit 2)."""
    text = os.environ.get(TIMEOUT_ENV, "").strip()
    if not text:
        return DEFAULT_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise UnreadablePath(f"{TIMEOUT_ENV} must be a positive number of seconds, not {text!r}")
    return seconds


def pyarrow(module: str) -> Any:
    """A pyarrow module (untyped), or the one-line error naming the extra."""
    try:
        return importlib.import_module(f"pyarrow.{module}")
    except ImportError as exc:
        raise UnreadablePath(
            "reading Parquet files and URIs needs pyarrow: pip install 'atif-spec[parquet]'"
        ) from exc


def failure(uri: str, exc: BaseException) -> UnreadablePath:
    """``exc`` (from pyarrow, reaching ``uri``) as one line naming the URI and the cause."""
    if isinstance(exc, UnreadablePath):
        return exc
    if isinstance(exc, FileNotFoundError):
        return UnreadablePath(f"no such file or directory: {uri}")
    message = str(exc)
    detail = re.sub(r"\s+", " ", message).strip()
    if len(detail) > _DETAIL_CHARS:
        detail = detail[: _DETAIL_CHARS - 1] + "…"
    cause = next((c for c, marks in _CAUSES if any(m in message for m in marks)), None)
    return UnreadablePath(f"cannot read {uri}: {cause + ': ' if cause else ''}{detail}")


def answer(uri: str, call: Callable[[], T]) -> T:
    """``call()`` (a first contact with the store of ``uri``), or :class:`UnreadablePath` when it
    fails or gives no answer within :func:`timeout` seconds."""
    seconds = timeout()
    box: list[Any] = []

    def work() -> None:
        try:
            box.append(call())
        except BaseException as exc:  # handed to the caller's thread below
            box.append(exc)

    worker = threading.Thread(target=work, name="atif-storage", daemon=True)
    worker.start()
    worker.join(seconds)
    if not box:
        raise UnreadablePath(
            f"cannot read {uri}: no network (no answer from the storage service within "
            f"{seconds:g} s; {TIMEOUT_ENV} sets how long to wait)"
        )
    if isinstance(box[0], BaseException):
        raise failure(uri, box[0]) from None
    result: T = box[0]
    return result


def locate(uri: str) -> tuple[Any, str, str]:
    """``(file system, path inside it, scheme prefix)`` of a URI, its time bounded."""

    def resolve() -> tuple[Any, str]:
        filesystem, path = pyarrow("fs").FileSystem.from_uri(uri)
        return _bounded(filesystem), path

    filesystem, path = answer(uri, resolve)
    return filesystem, path, uri.split("://", 1)[0] + "://"


def _bounded(filesystem: Any) -> Any:
    """``filesystem`` with GCS retries limited to half of :func:`timeout` (the same options
    otherwise: pickling's own constructor arguments)."""
    if type(filesystem).__name__ != "GcsFileSystem":
        return filesystem
    _, (options,) = filesystem.__reduce__()
    limit = datetime.timedelta(seconds=timeout() / 2)
    return type(filesystem)(**{**options, "retry_time_limit": limit})


def open_stream(uri: str) -> Any:
    """A sequential input stream of the file at ``uri``."""
    filesystem, path, _ = locate(uri)
    return answer(uri, lambda: filesystem.open_input_stream(path))


def open_file(uri: str) -> Any:
    """A random-access file at ``uri`` (what Parquet needs)."""
    filesystem, path, _ = locate(uri)
    return answer(uri, lambda: filesystem.open_input_file(path))
