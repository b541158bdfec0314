"""Every nox session prints its wall time (issue #21, CI budget), checked without nox installed:
the noxfile runs against a stand-in ``nox`` module and each session against a mock session."""

from __future__ import annotations

import contextlib
import io
import runpy
import sys
import tomllib
import types
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from tests.support import ROOT


def load_noxfile(monkeypatch: Any) -> tuple[dict[str, Any], dict[str, Callable[..., None]]]:
    """The noxfile's globals and its sessions by name, read against a stand-in ``nox``."""
    registered: dict[str, Callable[..., None]] = {}

    def session(*args: Any, **kwargs: Any) -> Any:
        def register(func: Callable[..., None]) -> Callable[..., None]:
            registered[kwargs.get("name", func.__name__)] = func
            func.nox_kwargs = kwargs  # type: ignore[attr-defined]
            return func

        if len(args) == 1 and callable(args[0]) and not kwargs:
            return register(args[0])
        return register

    fake = types.ModuleType("nox")
    fake.session = session  # type: ignore[attr-defined]
    fake.Session = object  # type: ignore[attr-defined]
    fake.options = types.SimpleNamespace()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "nox", fake)
    monkeypatch.chdir(ROOT)
    return runpy.run_path(str(ROOT / "noxfile.py")), registered


def test_every_session_prints_its_wall_time(monkeypatch: Any) -> None:
    _, registered = load_noxfile(monkeypatch)
    assert {"tests", "lint", "ray", "disk-full"} <= set(registered)
    for name, func in registered.items():
        fake_session = mock.MagicMock(name=name)
        fake_session.name = name
        fake_session.posargs = []
        fake_session.create_tmp.return_value = str(ROOT / ".nox-test-tmp")
        out = io.StringIO()
        with (
            contextlib.redirect_stdout(out),
            contextlib.suppress(Exception),
            mock.patch("subprocess.run"),
            mock.patch("shutil.which", return_value=None),
        ):
            func(fake_session)
        assert f"{name}: wall time" in out.getvalue(), name


def test_sessions_use_uv_and_the_one_that_runs_pip_has_pip(monkeypatch: Any) -> None:
    """uv's environments have no pip: `upstream` runs `python -m pip index versions` in its own
    environment (atif_spec.spectools.upstream), so it is made by venv."""
    noxfile, registered = load_noxfile(monkeypatch)
    assert noxfile["nox"].options.default_venv_backend == "uv|venv"
    assert noxfile["nox"].options.download_python == "never"
    upstream = (ROOT / "tools/atif_spec/spectools/upstream.py").read_text(encoding="utf-8")
    assert '"-m", "pip", "index", "versions"' in upstream
    assert registered["upstream"].nox_kwargs.get("venv_backend") == "venv"
    assert "'nox[uv]" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


# --- jsonschema-rs: the range pyproject.toml allows is the range the session tests ------------


def test_the_engine_range_is_read_from_pyproject(monkeypatch: Any, tmp_path: Path) -> None:
    noxfile, _ = load_noxfile(monkeypatch)
    engine_range = noxfile["engine_range"]
    pyproject = tmp_path / "pyproject.toml"
    deps = '"orjson>=3.10", "jsonschema-rs>=0.58,<0.70", "click>=8.1"'
    pyproject.write_text(f"[project]\ndependencies = [{deps}]\n", encoding="utf-8")
    lowest, highest = engine_range(pyproject)
    assert lowest == "jsonschema-rs==0.58"
    assert SpecifierSet(highest.removeprefix("jsonschema-rs")) == SpecifierSet(">=0.58,<0.70")
    for unbounded in ('"jsonschema-rs>=0.58"', '"jsonschema-rs<0.70"', '"orjson"'):
        pyproject.write_text(f"[project]\ndependencies = [{unbounded}]\n", encoding="utf-8")
        with pytest.raises(ValueError, match="jsonschema-rs"):
            engine_range(pyproject)


def test_the_session_tests_both_ends_of_the_pinned_range(monkeypatch: Any) -> None:
    noxfile, registered = load_noxfile(monkeypatch)
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pin = next(Requirement(d) for d in declared["project"]["dependencies"]
               if Requirement(d).name == "jsonschema-rs")  # fmt: skip
    lowest, highest = noxfile["engine_range"]()
    assert (
        lowest == f"jsonschema-rs=={next(s.version for s in pin.specifier if s.operator == '>=')}"
    )
    assert Requirement(highest).specifier == pin.specifier
    session = mock.MagicMock(name="jsonschema-rs-range")
    session.name = "jsonschema-rs-range"
    with contextlib.redirect_stdout(io.StringIO()):
        registered["jsonschema-rs-range"](session)
    calls = [(c[0], c.args) for c in session.mock_calls if c[0] in ("install", "run")]
    installed = [args[-1] for name, args in calls if name == "install" and "--upgrade" in args]
    assert installed == [lowest, highest]
    for requirement in installed:  # the suite runs after each install, before the next
        after = calls[calls.index(("install", ("--upgrade", requirement))) + 1 :][:3]
        assert any("atif_spec.conformance" in args and "run" in args for _, args in after)


def test_the_installed_engine_is_inside_the_range() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pin = next(Requirement(d) for d in declared["project"]["dependencies"]
               if Requirement(d).name == "jsonschema-rs")  # fmt: skip
    assert pin.specifier.contains(metadata.version("jsonschema-rs"))
