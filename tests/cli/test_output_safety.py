"""Writing output never loses or corrupts data (issue #21): inputs reached twice, output
collisions, special files, symlinks, owners and hard links, write errors and signals."""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner, Result

from atif_spec.cli import main
from atif_spec.jsonio import atomic
from tests.support.documents import minimal_atif


def atif(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def doc(n: int = 1) -> dict[str, Any]:
    d = minimal_atif("v1.7")
    d["session_id"] = f"s-{n}"
    return d


def put(path: Path, *docs: dict[str, Any]) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".jsonl":
        data = b"".join(orjson.dumps(d) + b"\n" for d in docs)
    else:
        data = orjson.dumps(docs[0] if docs else doc(), option=orjson.OPT_INDENT_2)
    path.write_bytes(data)
    return data


def no_temp_files(folder: Path) -> None:
    assert [p.name for p in folder.rglob(".*.tmp")] == []


def one_clear_line(result: Result) -> str:
    assert result.exit_code == 2, result.output
    assert not isinstance(result.exception, OSError), result.exception
    assert "Traceback" not in result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("atif: ")]
    assert len(lines) == 1, result.stderr
    return lines[0]


# --- inputs reached twice, outputs that collide ---------------------------------------------------


def test_same_file_through_its_folder_and_by_name_is_migrated_once(tmp_path: Path) -> None:
    put(tmp_path / "d" / "t.json")
    result = atif(
        "migrate", "--to", "v1.6", "--in-place", str(tmp_path / "d"), str(tmp_path / "d" / "t.json")
    )
    assert result.exit_code == 0, result.output
    assert orjson.loads((tmp_path / "d" / "t.json").read_bytes())["schema_version"] == "ATIF-v1.6"
    assert "Migrated 1 of 1 document " in result.output


def test_a_symlink_and_its_target_are_one_input(tmp_path: Path) -> None:
    put(tmp_path / "t.json")
    (tmp_path / "link.json").symlink_to("t.json")
    result = atif(
        "migrate",
        "--to",
        "v1.6",
        "--in-place",
        str(tmp_path / "t.json"),
        str(tmp_path / "link.json"),
    )
    assert result.exit_code == 0, result.output
    assert orjson.loads((tmp_path / "t.json").read_bytes())["schema_version"] == "ATIF-v1.6"
    assert (tmp_path / "link.json").is_symlink()


def test_two_inputs_with_one_output_name_are_refused(tmp_path: Path) -> None:
    put(tmp_path / "a" / "t.json", doc(1))
    put(tmp_path / "b" / "t.json", doc(2))
    out = tmp_path / "out"
    result = atif(
        "migrate",
        "--to",
        "v1.6",
        str(tmp_path / "a" / "t.json"),
        str(tmp_path / "b" / "t.json"),
        "-o",
        str(out),
    )
    line = one_clear_line(result)
    assert "would both be written to" in line
    assert not out.exists()


# --- an output that is an input (issue #36) -------------------------------------------------------

WRITERS: dict[str, list[str]] = {
    "validate --summary": ["validate", "IN", "--summary", "OUT"],
    "migrate -o": ["migrate", "--to", "v1.6", "IN", "-o", "OUT"],
    "migrate --summary": ["migrate", "--to", "v1.6", "IN", "--summary", "OUT"],
    "migrate --in-place --summary": [
        "migrate",
        "--to",
        "v1.6",
        "--in-place",
        "IN",
        "--summary",
        "OUT",
    ],
    "convert -o": ["convert", "--to", "tao@v0.2.0", "IN", "-o", "OUT"],
    "convert --summary": ["convert", "--to", "tao@v0.2.0", "IN", "--summary", "OUT"],
    "export-sft -o": ["export-sft", "IN", "-o", "OUT"],
    "view -o": ["view", "IN", "-o", "OUT"],
}
"""Every command with an output file that can name one of its inputs (IN, OUT filled in)."""


def command(name: str, given: Path, out: Path) -> list[str]:
    return [str(given) if a == "IN" else str(out) if a == "OUT" else a for a in WRITERS[name]]


@pytest.mark.parametrize("spelling", ["same name", "symlink", "hard link", "through its folder"])
@pytest.mark.parametrize("name", sorted(WRITERS))
def test_an_output_that_is_an_input_is_refused(tmp_path: Path, name: str, spelling: str) -> None:
    """Was: ``atif validate x.json --summary x.json`` replaced the trajectory by the summary
    (exit 0); view, export-sft, migrate and convert -o overwrote their input the same way."""
    src = tmp_path / "run" / "t.json"
    data = put(src, doc())
    given, out = src, src
    if spelling == "symlink":
        (tmp_path / "link.json").symlink_to(src)
        out = tmp_path / "link.json"
    elif spelling == "hard link":
        os.link(src, tmp_path / "hard.json")
        out = tmp_path / "hard.json"
    elif spelling == "through its folder":
        given = src.parent
        out = src.parent if name in ("migrate -o", "convert -o") else src  # -o DIR mirrors IN
    line = one_clear_line(atif(*command(name, given, out)))
    assert "refusing to write" in line and "input" in line, line
    assert src.read_bytes() == data
    no_temp_files(tmp_path)


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_an_output_that_is_not_read_is_written(tmp_path: Path, name: str) -> None:
    """A new file, or a file of the input's folder that the run does not read, is fine."""
    src = tmp_path / "run" / "t.json"
    data = put(src, doc())
    for out in (tmp_path / "out" / "new.json", tmp_path / "run" / "notes.txt"):
        out.parent.mkdir(exist_ok=True)
        result = atif(*command(name, src.parent, out))
        assert result.exit_code in (0, 1), result.output
        assert out.exists()
        assert "--in-place" in name or src.read_bytes() == data


def test_in_place_still_rewrites_its_input(tmp_path: Path) -> None:
    src = tmp_path / "t.json"
    put(src, doc())
    result = atif("migrate", "--to", "v1.6", "--in-place", str(src))
    assert result.exit_code == 0, result.output
    assert orjson.loads(src.read_bytes())["schema_version"] == "ATIF-v1.6"


def test_a_conformance_report_that_is_a_file_of_the_run_is_refused(tmp_path: Path) -> None:
    """Was: ``--report`` over the ``--skip-file``, a manifest or a case document replaced it."""
    skip = tmp_path / "skip.txt"
    skip.write_text("nothing-matches  # no case\n", encoding="utf-8")
    case = tmp_path / "suite" / "atif" / "v1.7" / "valid" / "t.json"
    put(case, doc())
    manifest = case.parent.parent / "manifest.json"
    entry = {"id": "c", "category": "valid", "profiles": ["schema"], "path": "valid/t.json"}
    manifest.write_bytes(orjson.dumps({"format": "atif", "version": "v1.7", "cases": [entry]}))
    suite = str(tmp_path / "suite")
    for report in (skip, case, manifest):
        before = report.read_bytes()
        args = ["--impl", "false", "--suite", suite, "--skip-file", str(skip)]
        line = one_clear_line(atif("conformance", "run", *args, "--report", str(report)))
        assert "refusing to write" in line and "input" in line, line
        assert report.read_bytes() == before


def referring(target: str, continuation: str | None = None) -> dict[str, Any]:
    """A v1.7 trajectory whose first step references the subagent file ``target``."""
    d = doc()
    d["steps"][0]["observation"] = {
        "results": [
            {
                "content": "s",
                "subagent_trajectory_ref": [{"session_id": "s", "trajectory_path": target}],
            }
        ]
    }
    if continuation is not None:
        d["continued_trajectory_ref"] = continuation
    return d


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "--follow-refs", "IN", "--summary", "OUT"],
        ["validate", "--follow-refs", "-j", "2", "IN", "--summary", "OUT"],
        ["view", "--follow-refs", "IN", "-o", "OUT"],
    ],
    ids=["validate", "validate -j 2", "view"],
)
@pytest.mark.parametrize("kind", ["subagent", "continuation"])
def test_an_output_that_is_a_referenced_file_is_refused(
    tmp_path: Path, args: list[str], kind: str
) -> None:
    """Was: a file read through --follow-refs could be the output, and was replaced by it."""
    sub = tmp_path / "sub.json"
    data = put(sub, doc(2))
    main_doc = referring("sub.json") if kind == "subagent" else referring("none.json", "sub.json")
    put(tmp_path / "main.json", main_doc)
    filled = [
        str(tmp_path / "main.json") if a == "IN" else str(sub) if a == "OUT" else a for a in args
    ]
    line = one_clear_line(atif(*filled))
    assert "refusing to write" in line and "this run reads it (a referenced trajectory)" in line
    assert sub.read_bytes() == data
    no_temp_files(tmp_path)


def test_a_view_output_that_is_an_embedded_media_file_is_refused(tmp_path: Path) -> None:
    image = tmp_path / "i.png"
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
    image.write_bytes(png)
    d = doc()
    d["steps"][0]["message"] = [
        {"type": "image", "source": {"media_type": "image/png", "path": "i.png"}}
    ]
    put(tmp_path / "t.json", d)
    line = one_clear_line(atif("view", str(tmp_path / "t.json"), "-o", str(image)))
    assert "this run reads it (a media file)" in line
    assert image.read_bytes() == png


# --- special files, symlinks, owners, links -------------------------------------------------------


def null_device(tmp_path: Path) -> Path:
    """A character device that discards what is written: a private copy of /dev/null when root
    (a regression must not replace the machine's own), else /dev/null itself (not replaceable)."""
    if os.geteuid() != 0:
        return Path("/dev/null")
    node = tmp_path / "null"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return node


def test_output_to_a_device_streams_and_keeps_the_device(tmp_path: Path) -> None:
    put(tmp_path / "t.json")
    null = null_device(tmp_path)
    before = os.stat(null)
    for args in (["-o", str(null)], ["--summary", str(null), "-o", str(null)]):
        result = atif("migrate", "--to", "v1.6", str(tmp_path / "t.json"), *args)
        assert result.exit_code == 0, result.output
    result = atif("export-sft", str(tmp_path / "t.json"), "-o", str(null))
    assert result.exit_code == 0, result.output
    after = os.stat(null)
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_output_to_a_fifo_is_a_stream(tmp_path: Path) -> None:
    put(tmp_path / "t.json")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    result = atif("migrate", "--to", "v1.6", str(tmp_path / "t.json"), "-o", str(fifo))
    out, _ = reader.communicate(timeout=30)
    assert result.exit_code == 0, result.output
    assert orjson.loads(out)["schema_version"] == "ATIF-v1.6"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_output_symlink_is_followed_and_kept(tmp_path: Path) -> None:
    put(tmp_path / "t.json")
    real = tmp_path / "real.json"
    real.write_bytes(b"old")
    (tmp_path / "out.json").symlink_to("real.json")
    result = atif(
        "migrate", "--to", "v1.6", str(tmp_path / "t.json"), "-o", str(tmp_path / "out.json")
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out.json").is_symlink()
    assert orjson.loads(real.read_bytes())["schema_version"] == "ATIF-v1.6"
    no_temp_files(tmp_path)


def test_dangling_symlink_output_is_refused(tmp_path: Path) -> None:
    put(tmp_path / "t.json")
    (tmp_path / "out.json").symlink_to("nowhere.json")
    result = atif(
        "migrate", "--to", "v1.6", str(tmp_path / "t.json"), "-o", str(tmp_path / "out.json")
    )
    assert "dangling symlink" in one_clear_line(result)


def test_in_place_through_a_symlink_migrates_the_real_file(tmp_path: Path) -> None:
    put(tmp_path / "real.json")
    (tmp_path / "link.json").symlink_to("real.json")
    result = atif("migrate", "--to", "v1.6", "--in-place", str(tmp_path / "link.json"))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "link.json").is_symlink()
    data = (tmp_path / "real.json").read_bytes()
    assert orjson.loads(data)["schema_version"] == "ATIF-v1.6"


def test_in_place_keeps_mode_and_owner(tmp_path: Path) -> None:
    target = tmp_path / "t.json"
    put(target)
    os.chmod(target, 0o640)
    if os.geteuid() == 0:
        os.chown(target, 4321, 4321)
    before = target.stat()
    result = atif("migrate", "--to", "v1.6", "--in-place", str(target))
    assert result.exit_code == 0, result.output
    after = target.stat()
    assert stat.S_IMODE(after.st_mode) == 0o640
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)


def test_in_place_refuses_a_hard_linked_file(tmp_path: Path) -> None:
    target = tmp_path / "t.json"
    data = put(target)
    os.link(target, tmp_path / "other.json")
    result = atif("migrate", "--to", "v1.6", "--in-place", str(target))
    assert "hard links" in one_clear_line(result)
    assert target.read_bytes() == data and os.stat(target).st_nlink == 2
    no_temp_files(tmp_path)


def test_owner_that_cannot_be_kept_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "t.json"
    data = put(target)
    real_fstat = os.fstat

    def other_owner(fd: int) -> os.stat_result:
        st = list(real_fstat(fd))
        st[stat.ST_UID] += 1  # the temporary file would belong to someone else
        return os.stat_result(st)

    def denied(fd: int, uid: int, gid: int) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(atomic.os, "fstat", other_owner)
    monkeypatch.setattr(atomic.os, "fchown", denied)
    result = atif("migrate", "--to", "v1.6", "--in-place", str(target))
    assert "owner" in one_clear_line(result)
    assert target.read_bytes() == data
    no_temp_files(tmp_path)


# --- write errors and signals ---------------------------------------------------------------------


class _FullDisk:
    """A file object whose writes fail with ENOSPC after ``room`` bytes."""

    def __init__(self, fh: Any, room: int) -> None:
        self._fh, self._room = fh, room

    def write(self, data: bytes) -> int:
        self._room -= len(data)
        if self._room < 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return int(self._fh.write(data))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fh, name)


@pytest.mark.parametrize("where", ["write", "fsync", "mkstemp", "replace"])
@pytest.mark.parametrize(
    "command",
    ["migrate-in-place", "migrate-o", "export-sft", "summary", "view", "validate-summary"],
)
def test_write_errors_are_one_line_exit_2_and_leave_originals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, command: str
) -> None:
    src = tmp_path / "t.jsonl"
    data = put(src, doc(1), doc(2), doc(3))
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"previous")
    real_fdopen = os.fdopen
    if where == "write":
        monkeypatch.setattr(
            atomic.os, "fdopen", lambda fd, mode: _FullDisk(real_fdopen(fd, mode), 100)
        )
    elif where == "fsync":
        monkeypatch.setattr(
            atomic.os,
            "fsync",
            lambda fd: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left on device")),
        )
    elif where == "mkstemp":
        monkeypatch.setattr(
            atomic.tempfile,
            "mkstemp",
            lambda **kw: (_ for _ in ()).throw(PermissionError(errno.EACCES, "Permission denied")),
        )
    else:
        monkeypatch.setattr(
            atomic.os,
            "replace",
            lambda a, b: (_ for _ in ()).throw(
                FileNotFoundError(errno.ENOENT, "No such file or directory")
            ),
        )
    args = {
        "migrate-in-place": ["migrate", "--to", "v1.6", "--in-place", str(src)],
        "migrate-o": ["migrate", "--to", "v1.6", str(src), "-o", str(out)],
        "export-sft": ["export-sft", str(src), "-o", str(out)],
        "summary": ["migrate", "--to", "v1.6", str(src), "--summary", str(out)],
        "view": ["view", str(src), "-o", str(out)],
        "validate-summary": ["validate", str(src), "--summary", str(out)],
    }[command]
    line = one_clear_line(atif(*args))
    assert "cannot write" in line and ("No space" in line or "denied" in line or "No such" in line)
    assert src.read_bytes() == data
    assert out.read_bytes() == b"previous"
    no_temp_files(tmp_path)


def test_sigterm_during_in_place_leaves_no_temporary_file(tmp_path: Path) -> None:
    """SIGTERM while the temporary file is being written. On a busy machine the run can end
    before the poll sees its temporary file: then it is tried again with four times the input."""
    src = tmp_path / "big.jsonl"
    for size in (20_000, 80_000, 320_000):
        data = put(src, *(doc(i) for i in range(size)))
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "atif_spec.cli",
                "migrate",
                "--to",
                "v1.6",
                "--in-place",
                str(src),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 120
        while not list(tmp_path.glob(".big.jsonl.*.tmp")) and proc.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        if proc.poll() is None:
            break
    else:
        pytest.fail("every run finished before a temporary file was seen")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == -signal.SIGTERM
    assert src.read_bytes() == data
    no_temp_files(tmp_path)


# --- side outputs and missing extras --------------------------------------------------------------


def test_summary_is_a_side_output(tmp_path: Path) -> None:
    put(tmp_path / "t.json")
    plain, with_summary = tmp_path / "plain.json", tmp_path / "with.json"
    assert (
        atif("migrate", "--to", "v1.6", str(tmp_path / "t.json"), "-o", str(plain)).exit_code == 0
    )
    result = atif(
        "migrate", "--to", "v1.6", str(tmp_path / "t.json"), "-o", str(with_summary),
        "--summary", str(tmp_path / "summary.json"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert with_summary.is_file() and with_summary.read_bytes() == plain.read_bytes()
    summary = orjson.loads((tmp_path / "summary.json").read_bytes())
    assert (summary["operation"], summary["documents"], summary["passed"]) == ("migrate", 1, 1)


def test_ray_engine_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a)
    )
    for command in (["migrate", "--to", "v1.6"], ["convert", "--to", "tao@v0.2.0"], ["validate"]):
        result = atif(*command, "-", "--engine", "ray")
        assert result.exit_code == 2, result.output
        assert "the 'ray' extra (docs/USAGE.md, Optional extras)" in result.output
        assert not isinstance(result.exception, ImportError)
