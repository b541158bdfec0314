"""An output that is an input is recognised however it is named (issue #36)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from atif_spec.jsonio.atomic import OutputError
from atif_spec.jsonio.samefile import file_id, file_ids, refuse_overlap, refuse_read


@pytest.fixture
def input_file(tmp_path: Path) -> Path:
    path = tmp_path / "in" / "t.json"
    path.parent.mkdir()
    path.write_bytes(b"{}")
    return path


def spellings(path: Path) -> list[Path]:
    """The input by name, through ``..``, a symbolic link and a hard link."""
    link = path.parent / "link.json"
    link.symlink_to(path.name)
    hard = path.parent / "hard.json"
    os.link(path, hard)
    return [path, path.parent / ".." / path.parent.name / path.name, link, hard]


def test_every_spelling_of_an_input_is_refused(input_file: Path) -> None:
    for output in spellings(input_file):
        with pytest.raises(OutputError, match=r"refusing to write .*: it is (an|the) input"):
            refuse_overlap([output], [str(input_file)])
    with pytest.raises(OutputError, match="it is an input; use --in-place"):
        refuse_overlap([input_file], [input_file], "; use --in-place")
    with pytest.raises(OutputError, match=re.escape(f"it is the input {input_file}")):
        refuse_overlap([input_file.parent / "link.json"], ["-", input_file])


def test_new_files_streams_and_other_files_are_not_inputs(input_file: Path) -> None:
    other = input_file.parent / "other.json"
    other.write_bytes(b"{}")
    elsewhere = input_file.parent.parent / "t.json"
    for output in (
        None,
        "-",
        "/dev/null",
        input_file.parent,
        other,
        elsewhere,
        input_file.parent / "new.json",
    ):
        refuse_overlap([output], ["-", input_file])
    assert file_id("-") is None and file_id("/dev/null") is None and file_id(other) is not None
    assert file_id(input_file.parent) is None and file_id("s3://bucket/t.json") is None


def test_inputs_are_looked_at_only_when_an_output_exists(input_file: Path) -> None:
    def inputs() -> Iterator[Path]:
        raise AssertionError("inputs listed for an output that does not exist")
        yield input_file  # pragma: no cover

    refuse_overlap([input_file.parent / "new.json"], inputs())


def test_refuse_read_checks_the_files_a_run_finds_as_it_reads(input_file: Path) -> None:
    outputs = file_ids([input_file, None, "-"])
    assert len(outputs) == 1
    with pytest.raises(OutputError, match=r"this run reads it \(a media file\)"):
        refuse_read(input_file, input_file.stat(), outputs, "a media file")
    with pytest.raises(OutputError, match="reads it"):
        refuse_read(input_file.parent / "link.json", None, file_ids(spellings(input_file)), "x")
    other = input_file.parent / "other.json"
    other.write_bytes(b"{}")
    refuse_read(other, None, outputs, "an input")
    refuse_read(input_file, input_file.stat(), frozenset(), "an input")
