"""Object storage inputs: one line and exit 2 when a store cannot be read, in bounded time, with
no network needed (every store here is a port on 127.0.0.1)."""

from __future__ import annotations

import datetime
import http.server
import importlib.util
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from atif_spec.cli import main
from atif_spec.datasets.engines import storage
from atif_spec.datasets.engines.sources import expand, read_documents
from atif_spec.validation.reader import UnreadablePath

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pyarrow") is None, reason="pyarrow not installed (parquet extra)"
)


@pytest.fixture(autouse=True)
def _offline_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Credentials in the environment, so no client asks a metadata server for them."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.delenv(storage.TIMEOUT_ENV, raising=False)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        yield int(s.getsockname()[1])


class _Denied(http.server.BaseHTTPRequestHandler):
    """An S3 endpoint that refuses every request (403 AccessDenied)."""

    def _deny(self) -> None:
        body = b"<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"
        self.send_response(403)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", "0" if self.command == "HEAD" else str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_HEAD = _deny

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def denying_port() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Denied)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield int(server.server_address[1])
    server.shutdown()
    server.server_close()


def s3(port: int, key: str = "x/") -> str:
    return f"s3://bucket/{key}?endpoint_override=127.0.0.1:{port}&scheme=http"


COMMANDS = [
    ["validate"],
    ["stats"],
    ["view"],
    ["migrate", "--to", "v1.6", "-o", "{out}"],
    ["convert", "--to", "atif@v1.8", "-o", "{out}"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_unreadable_store_is_one_line_and_exit_2(
    command: list[str], denying_port: int, tmp_path: Path
) -> None:
    """Was: a 40-line pyarrow traceback and exit 1 in validate, stats, view and migrate."""
    uri = s3(denying_port)
    args = [command[0], uri, *(a.format(out=tmp_path / "out") for a in command[1:])]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    [line] = result.stderr.splitlines()
    assert line.startswith(f"atif: cannot read {uri}: no credentials, or access denied: ")
    assert "ACCESS_DENIED" in line


def test_unreachable_store_names_the_network() -> None:
    uri = s3(closed_port())
    with pytest.raises(UnreadablePath) as caught:
        expand([uri])
    message = str(caught.value)
    assert message.startswith(f"cannot read {uri}: no network (the storage service cannot be ")
    assert "Could not connect" in message and "\n" not in message


def test_a_file_that_fails_while_read_is_one_line(denying_port: int) -> None:
    """A listed file is opened later (and on a Ray worker): its failure is one line too."""
    uri = s3(denying_port, "part-0.jsonl")
    with pytest.raises(
        UnreadablePath, match=r"^cannot read s3://bucket/part-0\.jsonl\?.*: no cred"
    ):
        list(read_documents(uri))


def test_bucket_not_found_is_named() -> None:
    # pyarrow's message when the region of a bucket that does not exist is resolved
    exc = OSError(
        "When resolving region for bucket 'nope': AWS Error RESOURCE_NOT_FOUND during "
        "HeadBucket operation: No response body."
    )
    assert str(storage.failure("s3://nope/x/", exc)).startswith(
        "cannot read s3://nope/x/: bucket not found: When resolving region"
    )


def test_a_silent_store_is_given_up_within_the_timeout(
    silent_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: ``gs://bucket/x/`` silent for over ten minutes (the GCS client retries for 15)."""
    monkeypatch.setenv(storage.TIMEOUT_ENV, "1")
    uri = f"gs://bucket/x/?endpoint_override=127.0.0.1:{silent_port}&scheme=http"
    started = time.monotonic()
    with pytest.raises(UnreadablePath, match=r"no answer from the storage service within 1 s"):
        expand([uri])
    assert time.monotonic() - started < 5


def test_gcs_retries_stop_at_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(storage.TIMEOUT_ENV, "8")
    filesystem, path, prefix = storage.locate("gs://bucket/x/")
    _, (options,) = filesystem.__reduce__()
    assert options["retry_time_limit"] == datetime.timedelta(seconds=4)
    assert (path, prefix) == ("bucket/x", "gs://")


@pytest.mark.parametrize("value", ["0", "-1", "soon", "inf", "nan"])
def test_timeout_must_be_positive(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(storage.TIMEOUT_ENV, value)
    with pytest.raises(UnreadablePath, match=f"{storage.TIMEOUT_ENV} must be a positive number"):
        storage.timeout()
    monkeypatch.setenv(storage.TIMEOUT_ENV, " 2.5 ")
    assert storage.timeout() == 2.5
