"""Every nox session prints its wall time (issue #21, CI budget), checked without nox installed:
the noxfile runs against a stand-in ``nox`` module and each session against a mock session."""

from __future__ import annotations

import contextlib
import io
import runpy
import sys
import types
from collections.abc import Callable
from typing import Any
from unittest import mock

from tests.support import ROOT


def test_every_session_prints_its_wall_time(monkeypatch: Any) -> None:
    registered: dict[str, Callable[..., None]] = {}

    def session(*args: Any, **kwargs: Any) -> Any:
        def register(func: Callable[..., None]) -> Callable[..., None]:
            registered[kwargs.get("name", func.__name__)] = func
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
    runpy.run_path(str(ROOT / "noxfile.py"))
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
