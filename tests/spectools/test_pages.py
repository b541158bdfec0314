"""The Pages domain comes from the catalog's base_url: the CNAME written, and a deploy refused
when the Pages site is served anywhere else."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from atif_spec.schemas.catalog import load_catalog
from atif_spec.spectools import pages


def test_cname_is_the_host_of_the_catalogs_base_url(tmp_path: Path) -> None:
    catalog = load_catalog()
    assert catalog.base_url == "https://atif-spec.org/schemas"
    assert pages.write_cname(tmp_path, catalog).read_text(encoding="utf-8") == "atif-spec.org\n"
    moved = dataclasses.replace(catalog, base_url="https://schemas.example.net/atif")
    assert pages.write_cname(tmp_path, moved).read_text(encoding="utf-8") == "schemas.example.net\n"


@pytest.mark.parametrize("served", ["https://atif-spec.org", "https://atif-spec.org/"])
def test_pages_at_the_origin_of_base_url_may_deploy(served: str) -> None:
    assert pages.mismatch(served, load_catalog()) is None


@pytest.mark.parametrize(
    "served",
    [
        "https://owner.github.io/atif-spec",
        "https://www.atif-spec.org",
        "https://atif-spec.org/schemas",
        "",
    ],
)
def test_pages_elsewhere_is_refused(served: str) -> None:
    problem = pages.mismatch(served, load_catalog())
    assert problem is not None
    assert "refusing to deploy" in problem and "atif-spec.org" in problem


def test_cli_writes_the_cname_and_checks_the_domain(tmp_path: Path, capsys: Any) -> None:
    assert pages.main(["cname", str(tmp_path)]) == 0
    assert (tmp_path / "CNAME").read_text(encoding="utf-8") == "atif-spec.org\n"
    assert pages.main(["check", "https://atif-spec.org"]) == 0
    assert pages.main(["check", "https://owner.github.io/atif-spec"]) == 1
    assert "refusing to deploy" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [[], ["cname"], ["deploy", "x"], ["check", "a", "b"]])
def test_cli_usage_errors_exit_2(argv: list[str], capsys: Any) -> None:
    assert pages.main(argv) == 2
    assert capsys.readouterr().err.startswith("usage:")


def test_cname_into_a_missing_site_is_one_clear_error(tmp_path: Path, capsys: Any) -> None:
    assert pages.main(["cname", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "build the site first" in err
