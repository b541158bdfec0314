"""ATIF rules about referenced trajectory files (run with ``atif validate --follow-refs``).

A run directory written by the reference implementation holds ``trajectory.json``, subagent
files named by ``trajectory_path`` (``trajectory.summarization-1-summary.json``) and
continuations named by ``continued_trajectory_ref`` (``trajectory.cont-1.json``). These rules
open each local reference, relative to the referring file and confined to its folder, and
validate it in turn.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atif_spec.findings import Level, join
from atif_spec.formats.atif import VERSIONS
from atif_spec.rules.atif import locate
from atif_spec.rules.registry import RuleContext, rule

_ACTIVE: contextvars.ContextVar[frozenset[Path]] = contextvars.ContextVar(
    "atif_follow_refs_active", default=frozenset()
)


@dataclass(frozen=True, slots=True)
class _Target:
    pointer: str
    text: str
    kind: str


def _references(ctx: RuleContext) -> Iterator[_Target]:
    node = ctx.node
    if not isinstance(node, dict):
        return
    cont = node.get("continued_trajectory_ref")
    if isinstance(cont, str) and cont:
        yield _Target(join(ctx.base, "continued_trajectory_ref"), cont, "continuation")
    steps = node.get("steps")
    if not isinstance(steps, list):
        return
    for i, step in enumerate(steps):
        obs = step.get("observation") if isinstance(step, dict) else None
        results = obs.get("results") if isinstance(obs, dict) else None
        if not isinstance(results, list):
            continue
        for k, result in enumerate(results):
            refs = result.get("subagent_trajectory_ref") if isinstance(result, dict) else None
            if not isinstance(refs, list):
                continue
            for r, ref in enumerate(refs):
                path = ref.get("trajectory_path") if isinstance(ref, dict) else None
                if isinstance(path, str) and path:
                    ptr = join(
                        ctx.base,
                        "steps",
                        i,
                        "observation",
                        "results",
                        k,
                        "subagent_trajectory_ref",
                        r,
                        "trajectory_path",
                    )
                    yield _Target(ptr, path, "subagent")


def _local(ctx: RuleContext) -> list[tuple[_Target, Path, bool]]:
    """Local references with their resolved path and whether they stay inside the tree
    (resolved once per node, however many rules ask)."""
    result: list[tuple[_Target, Path, bool]] = ctx.memoized("local_refs", lambda _: _resolve(ctx))
    return result


def _resolve(ctx: RuleContext) -> list[tuple[_Target, Path, bool]]:
    """What :func:`_local` returns, computed."""
    if ctx.path is None or not ctx.options.follow_refs:
        return []
    folder = ctx.path.resolve().parent
    return [
        (target, *locate(folder, target.text))
        for target in _references(ctx)
        if "://" not in target.text
    ]


@rule(
    code="ATIF701",
    name="missing-referenced-trajectory",
    level=Level.ERROR,
    format="atif",
    versions=VERSIONS,
    section="RFC §II SubagentTrajectoryRef.trajectory_path, root continued_trajectory_ref",
    summary="A trajectory_path or continued_trajectory_ref names a local file that does not exist.",
    needs_file=True,
)
def missing_referenced_trajectory(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: with --follow-refs, every local `trajectory_path` of a subagent reference
    and the `continued_trajectory_ref` resolve (relative to the referring file) to existing files.

    Why: the file-ref form is only useful if a consumer can open the file; a dangling reference
    loses the subagent's or the continuation's steps.

    Example: `{"session_id": "s-2", "trajectory_path": "trajectory.summarization-1-summary.json"}`
    with no such file beside `trajectory.json`.

    Valid instead: write the subagent file beside the parent, or embed the subagent (v1.7+).

    Spec: RFC §II (SubagentTrajectoryRef, continued_trajectory_ref); reference sheet F11.
    """
    allow = ctx.options.allow_outside
    for target, resolved, inside in _local(ctx):
        if (inside or allow) and not resolved.is_file():
            yield target.pointer, f"{target.kind} file {target.text!r} does not exist"


@rule(
    code="ATIF702",
    name="referenced-trajectory-outside-tree",
    level=Level.WARNING,
    format="atif",
    versions=VERSIONS,
    section="RFC.md §2.2 (confinement when reading files); DECISIONS.md D-6",
    summary="A referenced trajectory file outside the referring file's folder is not followed.",
    needs_file=True,
)
def referenced_trajectory_outside_tree(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: with --follow-refs, a local reference that escapes the folder of the
    referring file (through `..`, an absolute path, or a symbolic link). The reference is valid
    (the RFC allows a relative or absolute path); the validator only refuses to open it, so
    ATIF701, ATIF703 and ATIF704 do not check it, and says so here. --allow-outside follows it.

    Why: validating a run directory must not read arbitrary files elsewhere on the machine.

    Example: `"trajectory_path": "../../other-run/trajectory.json"`.

    Valid instead: nothing is invalid; keep referenced trajectories inside the run directory,
    or pass --allow-outside, to have them checked.

    Spec: RFC §II SubagentTrajectoryRef.trajectory_path; RFC.md §2.2; DECISIONS.md D-6.
    """
    if ctx.options.allow_outside:
        return
    for target, _resolved, inside in _local(ctx):
        if not inside:
            yield (
                target.pointer,
                f"{target.kind} file {target.text!r} is outside the document's folder: "
                "not followed (--allow-outside follows it)",
            )


_CACHE: dict[tuple[Path, int, bool, bool], Any] = {}
_CACHE_SIZE = 256


def _referenced_report(resolved: Path, ctx: RuleContext) -> Any:
    """The report of a referenced file (cached, so that several rules validate it once)."""
    from atif_spec.reader import RawDocument
    from atif_spec.validation import Options, validate_raw

    active = _ACTIVE.get()
    if resolved in active:
        return None
    try:
        key = (
            resolved,
            resolved.stat().st_mtime_ns,
            ctx.options.check_files,
            ctx.options.allow_outside,
        )
        if key in _CACHE:
            return _CACHE[key]
        data = resolved.read_bytes()
    except OSError:
        return None
    here = ctx.path.resolve() if ctx.path else resolved
    token = _ACTIVE.set(active | {resolved, here})
    try:
        options = Options(
            check_files=ctx.options.check_files,
            allow_outside=ctx.options.allow_outside,
            follow_refs=True,
        )
        report = validate_raw(RawDocument(str(resolved), data, None, resolved), options)
    finally:
        _ACTIVE.reset(token)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    _CACHE[key] = report
    return report


def _followed(ctx: RuleContext) -> list[tuple[_Target, Any]]:
    """The references that name a file, with that file's report (made once per node)."""
    result: list[tuple[_Target, Any]] = ctx.memoized("followed_refs", lambda _: _follow(ctx))
    return result


def _follow(ctx: RuleContext) -> list[tuple[_Target, Any]]:
    """What :func:`_followed` returns, computed."""
    allow = ctx.options.allow_outside
    out: list[tuple[_Target, Any]] = []
    for target, resolved, inside in _local(ctx):
        if (inside or allow) and resolved.is_file():
            report = _referenced_report(resolved, ctx)
            if report is not None:
                out.append((target, report))
    return out


@rule(
    code="ATIF703",
    name="invalid-referenced-trajectory",
    level=Level.ERROR,
    format="atif",
    versions=VERSIONS,
    section="RFC §II SubagentTrajectoryRef; reference sheet F8",
    summary="A referenced subagent or continuation file does not parse or is not valid.",
    needs_file=True,
)
def invalid_referenced_trajectory(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: with --follow-refs, each referenced file parses and validates (schema and
    rules, following its own references in turn; cycles are visited once).

    Why: a subagent's trajectory is part of the run; an invalid one breaks consumers that load it.

    Example: `trajectory.cont-1.json` whose steps are numbered from 0.

    Valid instead: fix the referenced file; run `atif validate` on it to see every finding.

    Spec: RFC §II; reference sheet F8 (subagents are complete, valid trajectories).
    """
    for target, report in _followed(ctx):
        if not report.valid:
            first = report.errors[0]
            more = len(report.errors) - 1
            extra = f" (and {more} more)" if more else ""
            yield (
                target.pointer,
                (
                    f"{target.kind} file {target.text!r} is invalid: {first.pointer or '/'} "
                    f"{first.code}: {first.message}{extra}"
                ),
            )


@rule(
    code="ATIF704",
    name="incompatible-referenced-version",
    level=Level.ERROR,
    format="atif",
    versions=VERSIONS,
    section="atif-spec version-compatibility policy (RFC.md, Subagent resolution)",
    summary="A referenced file is not ATIF, or declares a newer ATIF version than the referrer.",
    needs_file=True,
)
def incompatible_referenced_version(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: with --follow-refs, each referenced file is an ATIF document whose version
    is not newer than the referring document's.

    Why: a reader that understands the parent's version must be able to read what it points to.

    Example: a v1.6 `trajectory.json` whose continuation declares `ATIF-v1.8`.

    Valid instead: write referenced files in the parent's version (or migrate them with
    `atif migrate`).

    Spec: atif-spec policy (RFC.md); the same policy governs embedded subagents in the schemas.
    """
    for target, report in _followed(ctx):
        if report.format not in (None, "atif"):
            yield target.pointer, f"{target.kind} file {target.text!r} is {report.format}, not ATIF"
        elif report.version is not None and VERSIONS.index(report.version) > VERSIONS.index(
            ctx.version
        ):
            yield (
                target.pointer,
                (
                    f"{target.kind} file {target.text!r} declares {report.version}, "
                    f"newer than {ctx.version}"
                ),
            )
