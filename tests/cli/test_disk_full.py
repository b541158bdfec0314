"""A real full disk (issue #21): output to a small tmpfs that fills up is one clear line, exit 2,
the original untouched and no temporary file left. Needs root to mount the tmpfs: the
``disk-full`` nox session (run by ``.ci/run``, as root) fails instead of skipping."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.support.documents import minimal_atif

SIZE = 256 * 1024


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs mounted for the test."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (the disk-full nox session runs as root)")
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def atif(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atif_spec.cli", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def big_input(path: Path) -> bytes:
    """JSON Lines larger than the disk (about 4x)."""
    doc = minimal_atif("v1.7")
    doc["steps"][0]["message"] = "x" * 1000
    data = b"".join(orjson.dumps({**doc, "session_id": f"s{i}"}) + b"\n" for i in range(1000))
    path.write_bytes(data)
    return data


def check_full(result: subprocess.CompletedProcess[str], disk: Path) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("atif: ")]
    assert len(lines) == 1 and "No space left on device" in lines[0], result.stderr
    assert [p.name for p in disk.rglob(".*.tmp")] == []


def test_in_place_on_a_full_disk(small_disk: Path) -> None:
    src = small_disk / "t.jsonl"
    doc = minimal_atif("v1.7")
    doc["steps"][0]["message"] = "x" * 1000
    one = orjson.dumps(doc) + b"\n"
    data = one * ((SIZE // len(one)) * 6 // 10)  # 60% of the disk: the copy cannot fit
    src.write_bytes(data)
    check_full(atif("migrate", "--to", "v1.6", "--in-place", str(src)), small_disk)
    assert src.read_bytes() == data


@pytest.mark.parametrize("command", ["migrate", "convert", "export-sft", "summary"])
def test_output_to_a_full_disk(tmp_path: Path, small_disk: Path, command: str) -> None:
    src = tmp_path / "t.jsonl"
    big_input(src)
    out = small_disk / "out.jsonl"
    out.write_bytes(b"previous")
    args = {
        "migrate": ["migrate", "--to", "v1.6", str(src), "-o", str(out)],
        "convert": ["convert", "--to", "tao@v0.2.0", str(src), "-o", str(out)],
        "export-sft": ["export-sft", str(src), "-o", str(out)],
        "summary": ["validate", str(src), "--summary", str(out)],
    }[command]
    if command == "summary":  # a summary this large needs many failed documents
        lines = src.read_bytes().replace(b'"step_id":1', b'"step_id":7').splitlines()
        src.write_bytes(b"\n".join(lines * 5) + b"\n")
    check_full(atif(*args), small_disk)
    assert out.read_bytes() == b"previous"
