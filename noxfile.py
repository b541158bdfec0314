"""Project automation: `nox -l` lists the sessions.

Sessions that CI runs: tests, lint, typecheck, schemas (and more as they are added to .ci/run).
"""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests", "lint", "typecheck", "schemas"]

PYTHON = "3.11"


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The test suite (the same command as the README's)."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff over the package, tests and automation."""
    session.install("ruff>=0.6")
    session.run("ruff", "check", "tools", "tests", "noxfile.py")


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy --strict over tools/."""
    session.install("-e", ".", "mypy>=1.11")
    session.run("mypy")


@nox.session(python=PYTHON)
def schemas(session: nox.Session) -> None:
    """Every schema passes the 2020-12 metaschema; every $id matches its path and the catalog."""
    session.install("-e", ".[test]")
    import glob

    files = sorted(glob.glob("spec/**/*.schema.json", recursive=True))
    session.run("check-jsonschema", "--check-metaschema", *files)
    session.run("check-jsonschema", "--schemafile", "spec/catalog.schema.json", "spec/catalog.json")
    session.run("python", "-m", "pytest", "tests/test_catalog.py", "-q")


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Benchmarks (not tests): timings printed as ratios to baselines measured in the same run."""
    session.install("-e", ".[test]")
    session.run("python", "bench/bench_validate.py", *session.posargs)
