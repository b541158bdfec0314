"""The consumer matrix: other tools load every schema and judge every conformance fixture.

Consumers: check-jsonschema (CLI, compound bundles), python-jsonschema and jsonschema-rs (compound
bundles, no registry: a reference outside the file is an error), Ajv built as SchemaStore builds
it (every published file in one instance; each compound bundle alone in a fresh one), and VS
Code's vscode-json-languageservice (editor bundles through its schema request service, read from
the package, never the network).

A case's expected verdict is "invalid iff it expects a ``schema:*`` or ``input:*`` finding": a
consumer that checks JSON Schema only must reach it on every case. A documented exception is a
group in :data:`DIFFERENCES` (case-id pattern, reason); a group that explains no case is stale.

    python -m tests.support.consumer_matrix      # prints the matrix; exit 1 on a difference or a stale group
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support import ROOT

BUNDLES = ROOT / "generated" / "bundles"
NODE_MODULES = ROOT / "node_modules"
CONSUMERS = ("check-jsonschema", "python-jsonschema", "jsonschema-rs", "ajv", "vscode")


@dataclass(frozen=True)
class Difference:
    """A documented exception: cases of one consumer whose verdict differs, and why."""

    consumer: str
    group: str
    cases: str
    """Regular expression over case ids (``re.fullmatch``)."""
    reason: str


DIFFERENCES: tuple[Difference, ...] = (
    Difference(
        "vscode",
        "schema-url-decides-in-editors",
        r"atif-v1\.[0-9]+-warning-schema-url-other-version",
        "VS Code validates a file against the schema its own `$schema` names, before any "
        "configured association: a document whose `$schema` names another ATIF version is "
        "checked as that version and fails its `schema_version` constant. That disagreement is "
        "what ATIF104 warns about (DECISIONS.md 6.19); `atif migrate` keeps the two in step.",
    ),
    Difference(
        "vscode",
        "integer-by-spelling",
        r"tao-v0\.2\.0-valid-lax-numbers-hash",
        "vscode-json-languageservice decides `integer` from a number's spelling (`1.0` is not an "
        "integer to it); JSON Schema, and every other consumer here, counts `1.0` as an integer "
        "(DECISIONS.md 6.18). TAO v0.2.0 documents may write integral floats in integer fields.",
    ),
)
"""The documented exceptions (each explains at least one case, or it is stale)."""

DISPATCH_ONLY_CASES = (
    r"atif-v1\.6-valid-later-version-fields-null|atif-v1\.7-valid-embedded-subagent-newer-version"
)
"""Valid through the validator's any-version dispatch only (DECISIONS.md D-14, D-15)."""

DIFFERENCES += tuple(
    Difference(
        consumer,
        "dispatch-only-tolerances",
        DISPATCH_ONLY_CASES,
        "Valid by decision, not by the released schema of the version they declare: an embedded "
        "subagent newer than its parent (DECISIONS.md D-14) and later versions' fields set to "
        "null (D-15). A version's schema cannot name what later versions add, so the tolerance "
        "lives in atif-spec's validator; a consumer of the schema files alone rejects both "
        "documents (docs/INTEGRATIONS.md, RFC.md §8).",
    )
    for consumer in CONSUMERS
)


@dataclass(frozen=True)
class Case:
    """One conformance fixture as a JSON Schema consumer sees it."""

    id: str
    schema: str
    """``$id`` of the schema the case is judged against."""
    file: Path
    invalid: bool
    """The expected schema-level verdict."""


def cases() -> list[Case]:
    """Every case of the conformance suite that is one JSON document. An ATOF stream (a ``.jsonl``
    case) is not: a consumer of the schema checks one event, and every consumer still loads the
    event schema (``compiled``); atif-spec checks a stream event by event (spec/atof/DECISIONS.md
    ATOF-1)."""
    from atif_spec.conformance.suite import load_suite
    from atif_spec.schemas.catalog import load_catalog

    catalog = load_catalog()
    out = []
    for c in load_suite(ROOT / "conformance"):
        if c.document.suffix == ".jsonl":
            continue
        entry = catalog.find(c.target or f"{c.format}@{c.version}")
        invalid = any(code.startswith(("schema:", "input:")) for code, _ in c.expected)
        out.append(Case(c.id, entry.id, c.document, invalid))
    return out


def schema_ids() -> list[str]:
    """Every catalog ``$id``."""
    from atif_spec.schemas.catalog import load_catalog

    return [e.id for e in load_catalog()]


def bundle_path(schema_id: str, kind: str) -> Path:
    """The generated bundle of a schema in the repository."""
    from atif_spec.schemas.catalog import load_catalog

    return BUNDLES / kind / load_catalog().by_id(schema_id).path


@dataclass
class Result:
    """One consumer's run: schema load problems and a verdict per case."""

    compiled: dict[str, str | None]
    verdicts: dict[str, bool]
    messages: dict[str, list[str]]
    seconds: float = 0.0


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def run_python_jsonschema(all_cases: list[Case]) -> Result:
    """python-jsonschema over the compound bundles, with a registry that refuses every URI."""
    import jsonschema
    import referencing
    import referencing.exceptions

    def refuse(uri: str) -> Any:
        raise referencing.exceptions.NoSuchResource(uri)

    registry: referencing.Registry[Any] = referencing.Registry(retrieve=refuse)
    compiled: dict[str, str | None] = {}
    validators = {}
    for sid in schema_ids():
        try:
            bundle = _read(bundle_path(sid, "compound"))
            jsonschema.Draft202012Validator.check_schema(bundle)
            validator = jsonschema.Draft202012Validator(bundle, registry=registry)
            validator.is_valid({})
            validators[sid] = validator
            compiled[sid] = None
        except Exception as exc:  # any failure to load is what this column reports
            compiled[sid] = f"{type(exc).__name__}: {exc}"[:300]
    verdicts, messages = {}, {}
    for c in all_cases:
        try:
            errors = list(validators[c.schema].iter_errors(_read(c.file)))
        except ValueError as exc:  # not JSON: invalid, as for every consumer
            errors = [exc]
        verdicts[c.id] = not errors
        if errors:
            messages[c.id] = [str(getattr(e, "message", e))[:200] for e in errors[:3]]
    return Result(compiled, verdicts, messages)


def run_jsonschema_rs(all_cases: list[Case]) -> Result:
    """jsonschema-rs over the compound bundles, without a registry or a retriever."""
    import jsonschema_rs

    def refuse(uri: str) -> Any:
        raise LookupError(f"no network: {uri}")

    compiled: dict[str, str | None] = {}
    validators = {}
    for sid in schema_ids():
        try:
            validators[sid] = jsonschema_rs.validator_for(
                _read(bundle_path(sid, "compound")), retriever=refuse
            )
            compiled[sid] = None
        except Exception as exc:
            compiled[sid] = f"{type(exc).__name__}: {exc}"[:300]
    verdicts, messages = {}, {}
    for c in all_cases:
        try:
            errors = [e.message for e in validators[c.schema].iter_errors(_read(c.file))]
        except ValueError as exc:
            errors = [str(exc)]
        verdicts[c.id] = not errors
        if errors:
            messages[c.id] = [m[:200] for m in errors[:3]]
    return Result(compiled, verdicts, messages)


def _check_metaschemas(exe: Path, env: dict[str, str]) -> dict[str, str | None]:
    """``check-jsonschema --check-metaschema`` over every compound bundle, in one run (it checks
    each file against its own ``$schema`` on its own): schema id → its errors, or None."""
    bundles = {str(bundle_path(sid, "compound").resolve()): sid for sid in schema_ids()}
    errors, output, failed = _check_jsonschema(exe, env, "--check-metaschema", *bundles)
    if errors is None:
        return dict.fromkeys(bundles.values(), output)
    found: dict[str, str | None] = dict.fromkeys(bundles.values())
    for file, message in errors:
        sid = bundles[file]
        found[sid] = ((found[sid] or "") + message + "\n")[-300:]
    if failed and not any(found.values()):  # failed without naming a file
        return dict.fromkeys(bundles.values(), output)
    return found


def _check_jsonschema(
    exe: Path, env: dict[str, str], *args: str
) -> tuple[list[tuple[str, str]] | None, str, bool]:
    """One check-jsonschema run with JSON output: its errors as (resolved file, message), or
    None when the output is not JSON; the tail of its output; whether it failed."""
    done = subprocess.run(
        [str(exe), "-o", "json", *args], capture_output=True, text=True, check=False, env=env
    )
    output = (done.stdout + done.stderr)[-300:]
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        return None, output, True
    errors = [
        (str(Path(err.get("filename", "")).resolve()), str(err.get("message", "")))
        for err in report.get("errors", []) + report.get("parse_errors", [])
    ]
    return errors, output, done.returncode != 0


def run_check_jsonschema(all_cases: list[Case]) -> Result:
    """The check-jsonschema command, ``--schemafile <compound bundle>``, one run per schema (and
    one ``--check-metaschema`` run over them all), with every proxy pointing at a closed port (a
    download would fail)."""
    exe = Path(sys.executable).parent / "check-jsonschema"
    dead = "http://127.0.0.1:9"
    env = {**os.environ, "HTTPS_PROXY": dead, "HTTP_PROXY": dead, "ALL_PROXY": dead}
    compiled = _check_metaschemas(exe, env)
    verdicts: dict[str, bool] = {}
    messages: dict[str, list[str]] = {}
    by_schema: dict[str, list[Case]] = {}
    for c in all_cases:
        by_schema.setdefault(c.schema, []).append(c)
    for sid in schema_ids():
        schema = bundle_path(sid, "compound")
        group = by_schema.get(sid, [])
        if not group:
            continue
        errors, output, _ = _check_jsonschema(
            exe, env, "--schemafile", str(schema), *(str(c.file) for c in group)
        )
        if errors is None:
            compiled[sid] = output
            for c in group:
                verdicts[c.id] = False
            continue
        bad: dict[str, list[str]] = {}
        for file, message in errors:
            bad.setdefault(file, []).append(message[:200])
        for c in group:
            found = bad.get(str(c.file.resolve()))
            verdicts[c.id] = not found
            if found:
                messages[c.id] = found[:3]
    return Result(compiled, verdicts, messages)


def _node(script: str, request: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        ["node", str(ROOT / "tests" / "consumers" / script)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(f"node {script}: {done.stderr.strip()[-500:]}")
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def run_ajv(all_cases: list[Case]) -> Result:
    """Ajv as SchemaStore builds it: every published file in one instance (verdicts), and each
    compound bundle compiled alone (its problems join the schema's)."""
    from atif_spec.schemas.catalog import schema_by_id

    ids = schema_ids()
    answer = _node(
        "ajv.mjs",
        {
            "schemas": [schema_by_id(i) for i in ids],
            "compounds": {i: str(bundle_path(i, "compound")) for i in ids},
            "cases": [{"id": c.id, "schema": c.schema, "file": str(c.file)} for c in all_cases],
        },
    )
    compiled = {i: answer["compiled"].get(i) or answer["bundles"].get(i) for i in ids}
    verdicts = {k: v is True for k, v in answer["verdicts"].items()}
    return Result(compiled, verdicts, answer.get("messages", {}))


def run_vscode(all_cases: list[Case]) -> Result:
    """vscode-json-languageservice over the editor bundles (served by its request service)."""
    answer = _node(
        "vscode.mjs",
        {
            "bundles": str(BUNDLES / "editor"),
            "schemas": schema_ids(),
            "cases": [{"id": c.id, "schema": c.schema, "file": str(c.file)} for c in all_cases],
        },
    )
    return Result(answer["compiled"], answer["verdicts"], answer.get("messages", {}))


RUNNERS: dict[str, Callable[[list[Case]], Result]] = {
    "check-jsonschema": run_check_jsonschema,
    "python-jsonschema": run_python_jsonschema,
    "jsonschema-rs": run_jsonschema_rs,
    "ajv": run_ajv,
    "vscode": run_vscode,
}


def run(consumer: str, all_cases: list[Case]) -> Result:
    """Run one consumer, timed."""
    start = time.perf_counter()
    result = RUNNERS[consumer](all_cases)
    result.seconds = time.perf_counter() - start
    return result


def differing(result: Result, all_cases: list[Case]) -> list[Case]:
    """Cases whose verdict is not the expected one."""
    return [c for c in all_cases if result.verdicts.get(c.id) is not (not c.invalid)]


def explain(consumer: str, cases_: list[Case], all_ids: list[str]) -> tuple[list[str], list[str]]:
    """``(unexplained case ids, problems with the groups)`` for one consumer's differences:
    a group that explains no case is stale; a pattern that matches every case is a catch-all."""
    groups = [d for d in DIFFERENCES if d.consumer == consumer]
    problems = []
    for d in groups:
        if all(re.fullmatch(d.cases, i) for i in all_ids):
            problems.append(f"{consumer}/{d.group}: pattern {d.cases!r} matches every case")
        if not d.reason.strip():
            problems.append(f"{consumer}/{d.group}: no reason")
        if not any(re.fullmatch(d.cases, c.id) for c in cases_):
            problems.append(f"{consumer}/{d.group}: stale (explains no differing case)")
    unexplained = [c.id for c in cases_ if not any(re.fullmatch(d.cases, c.id) for d in groups)]
    return unexplained, problems


def main() -> int:
    all_cases = cases()
    ids = [c.id for c in all_cases]
    n_invalid = sum(c.invalid for c in all_cases)
    print(f"{len(all_cases)} cases ({n_invalid} expected invalid), {len(schema_ids())} schemas")
    print(f"{'consumer':20} {'schemas':>9} {'agree':>9} {'explained':>10} {'seconds':>8}")
    failures = []
    for consumer in CONSUMERS:
        result = run(consumer, all_cases)
        broken = {k: v for k, v in result.compiled.items() if v}
        diff = differing(result, all_cases)
        unexplained, problems = explain(consumer, diff, ids)
        loaded = len(result.compiled) - len(broken)
        print(
            f"{consumer:20} {loaded:>4}/{len(result.compiled):<4} "
            f"{len(all_cases) - len(diff):>4}/{len(all_cases):<4} {len(diff) - len(unexplained):>10}"
            f" {result.seconds:>8.1f}"
        )
        failures += [f"{consumer}: schema {k} does not load: {v}" for k, v in broken.items()]
        failures += [
            f"{consumer}: {i} judged {'valid' if result.verdicts.get(i) else 'invalid'}: "
            f"{result.messages.get(i, [])}"
            for i in unexplained
        ]
        failures += problems
    print("\n".join(failures) if failures else "consumers OK: every verdict as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "tools"))
    sys.exit(main())
