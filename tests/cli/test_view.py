"""``atif view`` on the command line: where the page goes without ``-o``, and ``--open``."""

from __future__ import annotations

import webbrowser
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from atif_spec.cli import main
from atif_spec.cli import view as view_cli
from tests.support.documents import minimal_atif


@pytest.fixture
def doc(tmp_path: Path) -> Path:
    path = tmp_path / "run" / "x.json"
    path.parent.mkdir()
    path.write_bytes(orjson.dumps(minimal_atif("v1.8")))
    return path


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The URLs the command asked the default browser to open (none is started)."""
    urls: list[str] = []

    def fake_open(url: str, *args: object, **kwargs: object) -> bool:
        urls.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", fake_open)
    return urls


def test_piped_without_o_the_page_goes_to_stdout(doc: Path, opened: list[str]) -> None:
    result = CliRunner().invoke(main, ["view", str(doc)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("<!DOCTYPE html>")
    assert not (doc.parent / "x.view.html").exists() and opened == []


def test_on_a_terminal_the_page_goes_next_to_the_input(
    doc: Path, opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(view_cli, "stdout_is_terminal", lambda: True)
    result = CliRunner().invoke(main, ["view", str(doc)])
    assert result.exit_code == 0, result.output
    page = doc.parent / "x.view.html"
    assert page.read_text().startswith("<!DOCTYPE html>")
    assert "<!DOCTYPE" not in result.stdout
    assert result.stderr == f"atif: wrote {page}\n"
    assert opened == []


def test_open_writes_the_file_and_opens_it(doc: Path, opened: list[str]) -> None:
    result = CliRunner().invoke(main, ["view", str(doc), "--open"])
    assert result.exit_code == 0, result.output
    page = doc.parent / "x.view.html"
    assert opened == [page.resolve().as_uri()]
    assert page.is_file()
    out = doc.parent / "named.html"
    result = CliRunner().invoke(main, ["view", str(doc), "--open", "-o", str(out)])
    assert result.exit_code == 0 and opened[-1] == out.resolve().as_uri()


def test_several_inputs_or_a_read_only_folder_go_to_a_temporary_file(
    doc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(view_cli.tempfile, "tempdir", str(tmp_path))
    target = view_cli.destination((str(doc), str(doc)), to_file=True)
    assert target is not None and Path(target).parent == tmp_path
    assert Path(target).name.startswith("atif-view-") and target.endswith(".html")
    monkeypatch.setattr(view_cli.os, "access", lambda path, mode: False)
    target = view_cli.destination((str(doc),), to_file=True)
    assert target is not None and Path(target).parent == tmp_path
    assert view_cli.destination((str(doc),), to_file=False) is None


def test_no_browser_is_said(doc: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: False)
    result = CliRunner().invoke(main, ["view", str(doc), "--open"])
    assert result.exit_code == 0
    assert "no browser could be started; open the file yourself" in result.stderr


def test_open_and_stdout_do_not_mix(doc: Path, opened: list[str]) -> None:
    result = CliRunner().invoke(main, ["view", str(doc), "--open", "-o", "-"])
    assert result.exit_code == 2 and "--open opens a file" in result.output
    assert opened == []


def test_nothing_is_left_behind_when_the_page_cannot_be_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(view_cli.tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(view_cli, "stdout_is_terminal", lambda: True)
    result = CliRunner().invoke(main, ["view", str(tmp_path / "missing.json")])
    assert result.exit_code == 2 and "no such file" in result.stderr
    assert list((tmp_path / "tmp").iterdir()) == []


def test_compare_takes_two_trajectories(doc: Path, tmp_path: Path) -> None:
    out = tmp_path / "cmp.html"
    result = CliRunner().invoke(main, ["view", str(doc), str(doc), "--compare", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert '"compare":{"docs":[0,0]' in out.read_text()
    result = CliRunner().invoke(main, ["view", str(doc), "--compare", "-o", str(out)])
    assert result.exit_code == 2
    assert result.stderr == "atif: --compare takes two trajectory files (A and B), not 1\n"
