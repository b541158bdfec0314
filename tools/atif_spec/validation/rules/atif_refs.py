"""ATIF rules about referenced trajectory files (run with ``atif validate --follow-refs``).

A run directory written by the reference implementation holds ``trajectory.json``, subagent
files named by ``trajectory_path`` (``trajectory.summarization-1-summary.json``) and
continuations named by ``continued_trajectory_ref`` (``trajectory.cont-1.json``). These rules
open each local reference, relative to the referring file and confined to its folder, and
validate it in turn.

References are followed iteratively, breadth first: each file reachable from the document is
read and checked once per run (within ``--max-bytes``), however many files name it, and files
more than ``MAX_REF_DEPTH`` references away are not opened (rule ATIF705 says so). Reading the
graph of files is separate from judging it: a referenced file is validated with its own
references recorded, not followed, and the rules of the referring document then look through
the recorded graph.
"""

from __future__ import annotations

import contextvars
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from atif_spec.formats.atif import VERSIONS
from atif_spec.jsonio.pointers import join
from atif_spec.jsonio.samefile import refuse_read
from atif_spec.validation.findings import Finding, Level
from atif_spec.validation.rules.atif_files import locate, tree_of
from atif_spec.validation.rules.registry import RuleContext, rule

MAX_REF_DEPTH = 64
"""Referenced files more than this many references away from the document are not opened."""


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
    folder = tree_of(ctx)  # the folder of the file as named (a symlink's own folder)
    if folder is None or not ctx.options.follow_refs:
        return []
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
    section=(
        "RFC §II SubagentTrajectoryRef.trajectory_path, continued_trajectory_ref; "
        "RFC.md §2.2 (2, 6); "
        "spec/atif/DECISIONS.md D-5"
    ),
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

    Spec: RFC §II (SubagentTrajectoryRef, continued_trajectory_ref).
    """
    allow = ctx.options.allow_outside
    for target, resolved, inside in _local(ctx):
        if (inside or allow) and (problem := _missing(resolved)):
            yield target.pointer, f"{target.kind} file {target.text!r} {problem}"


@rule(
    code="ATIF702",
    name="referenced-trajectory-outside-tree",
    level=Level.WARNING,
    format="atif",
    versions=VERSIONS,
    section="RFC.md §2.2 (6), confinement when reading files; spec/atif/DECISIONS.md D-5, D-13",
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

    Spec: RFC §II SubagentTrajectoryRef.trajectory_path; RFC.md §2.2; DECISIONS.md D-13.
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


def _missing(resolved: Path) -> str | None:
    """Why ``resolved`` names no file (``does not exist``, ...), or None when something is
    there (a file that exists but cannot be read is ATIF703's to report)."""
    try:
        resolved.stat()
    except FileNotFoundError:
        return "does not exist"
    except PermissionError:
        return None
    except OSError as exc:  # a name too long, a loop of links, a component that is a file
        return f"does not exist ({exc.strerror or exc})"
    except ValueError:  # a NUL byte
        return "does not exist (the name holds a NUL byte)"
    return None


@dataclass(slots=True)
class _Edge:
    """One local reference of a checked file, as recorded while that file was validated."""

    target: _Target
    resolved: Path
    inside: bool


@dataclass(slots=True)
class _Checked:
    """One referenced file, read and validated once; its own references recorded, not followed."""

    problem: str | None = None
    """Why the file could not be checked (unreadable, too large, not a regular file)."""
    format: str | None = None
    errors: list[Finding] = field(default_factory=list)
    edges: list[_Edge] = field(default_factory=list)


_RECORDING: contextvars.ContextVar[_Checked | None] = contextvars.ContextVar(
    "atif_follow_refs_recording", default=None
)
"""Set while a referenced file is validated: its reference rules record edges there."""

_FILES: dict[tuple[Path, int, int, bool, bool, int], _Checked] = {}
_FILES_SIZE = 4096


def _check_file(resolved: Path, ctx: RuleContext) -> _Checked:
    """Read and validate one referenced file (cached by path, change time, size, options);
    raises :class:`atif_spec.jsonio.atomic.OutputError` when it is an output of this run."""
    opts = ctx.options
    if opts.validate_file is None:
        return _Checked(problem="cannot be validated (no validator was given to the rules)")
    try:
        info = resolved.stat()
    except OSError as exc:
        return _Checked(problem=f"cannot be read ({exc.strerror or exc})")
    if not resolved.is_file():
        return _Checked(problem="is not a regular file")
    refuse_read(resolved, info, opts.outputs, "a referenced trajectory")
    key = (
        resolved,
        info.st_mtime_ns,
        info.st_size,
        opts.check_files,
        opts.allow_outside,
        opts.max_bytes,
    )
    if key in _FILES:
        return _FILES[key]
    if info.st_size > opts.max_bytes:
        checked = _Checked(
            problem=f"is {info.st_size} bytes, over the limit of {opts.max_bytes} bytes "
            "(raise it with --max-bytes)"
        )
    else:
        try:
            data = resolved.read_bytes()
        except OSError as exc:
            checked = _Checked(problem=f"cannot be read ({exc.strerror or exc})")
        else:
            checked = _Checked()
            token = _RECORDING.set(checked)
            try:
                report = opts.validate_file(resolved, data)
            finally:
                _RECORDING.reset(token)
            checked.format, checked.errors = report.format, report.errors
    if len(_FILES) >= _FILES_SIZE:
        _FILES.clear()
    _FILES[key] = checked
    return checked


def _followable(edge: tuple[_Target, Path, bool], allow: bool) -> bool:
    _, resolved, inside = edge
    return (inside or allow) and _missing(resolved) is None


@dataclass(slots=True)
class _Graph:
    """Every file reachable from one node's references, each checked once."""

    files: dict[Path, _Checked] = field(default_factory=dict)
    cut: set[Path] = field(default_factory=set)
    """Files whose references lead deeper than ``MAX_REF_DEPTH`` (those were not opened)."""

    faults: dict[Path, str] | None = None
    """What is wrong with each file on its own (see :func:`_fault`); made once, on first use."""
    culprits: dict[Path, Path] = field(default_factory=dict)
    """For each file that leads to a faulty one, that file (made with ``faults``)."""

    def leading_to(self, marked: Iterable[Path]) -> dict[Path, Path]:
        """For every file from which a ``marked`` file can be reached (itself included), one
        such marked file: one backward breadth-first walk from all of them, so the cost is the
        size of the graph however many files ask."""
        back: dict[Path, list[Path]] = {}
        for path, checked in self.files.items():
            for edge in checked.edges:
                if edge.resolved in self.files:
                    back.setdefault(edge.resolved, []).append(path)
        found: dict[Path, Path] = {}
        queue: deque[Path] = deque()
        for path in marked:
            if path not in found:
                found[path] = path
                queue.append(path)
        while queue:
            here = queue.popleft()
            for parent in back.get(here, ()):
                if parent not in found:
                    found[parent] = found[here]
                    queue.append(parent)
        return found


def _walk(ctx: RuleContext) -> _Graph:
    """Read and check every file reachable from the node's references, breadth first."""
    graph = _Graph()
    allow = ctx.options.allow_outside
    here = ctx.path.resolve() if ctx.path else None
    named: dict[Path, bool] = {}  # whether a path names a file, looked up once per walk

    def followable(resolved: Path, inside: bool) -> bool:
        if resolved not in named:
            named[resolved] = _missing(resolved) is None
        return (inside or allow) and named[resolved]

    queue = deque(
        (resolved, 1) for _, resolved, inside in _local(ctx) if followable(resolved, inside)
    )
    while queue:
        path, depth = queue.popleft()
        if path in graph.files or path == here:
            continue
        checked = graph.files[path] = _check_file(path, ctx)
        for edge in checked.edges:
            if not followable(edge.resolved, edge.inside):
                continue
            if depth >= MAX_REF_DEPTH:
                graph.cut.add(path)
            else:
                queue.append((edge.resolved, depth + 1))
    return graph


def _not_atif(checked: _Checked) -> str | None:
    """Why a referenced file is not a trajectory a parent can point at (ATIF704), or None. Its
    version does not matter: older, equal or newer, it is read as the version it declares
    (DECISIONS.md D-14)."""
    if checked.format not in (None, "atif"):
        return f"is {checked.format}, not ATIF"
    return None


def _fault(checked: _Checked, graph: _Graph) -> str | None:
    """What is wrong with one checked file on its own (its first error, or a reference to a
    file that is not ATIF), or None."""
    if checked.problem:
        return checked.problem
    if checked.errors:
        first = checked.errors[0]
        more = len(checked.errors) - 1
        extra = f" (and {more} more)" if more else ""
        return f"is invalid: {first.pointer or '/'} {first.code}: {first.message}{extra}"
    for edge in checked.edges:
        target = graph.files.get(edge.resolved)
        why = _not_atif(target) if target and target.problem is None else None
        if why:
            return f"names {edge.target.text!r}, which {why}"
    return None


def _graph(ctx: RuleContext) -> _Graph:
    """The graph of the node's references (walked once per node, however many rules ask)."""
    result: _Graph = ctx.memoized("ref_graph", lambda _: _walk(ctx))
    return result


def _direct(ctx: RuleContext) -> Iterator[tuple[_Target, Path, _Checked, _Graph]]:
    """The node's references that name a file that was checked, with that file."""
    if _record(ctx):
        return
    allow = ctx.options.allow_outside
    graph = _graph(ctx)
    for target, resolved, inside in _local(ctx):
        checked = graph.files.get(resolved)
        if checked is not None and _followable((target, resolved, inside), allow):
            yield target, resolved, checked, graph


def _record(ctx: RuleContext) -> bool:
    """While a referenced file is checked, record the node's references instead of following
    them (once per node); True in that case."""
    recording = _RECORDING.get()
    if recording is None:
        return False
    if not ctx.memo.get("ref_recorded"):
        ctx.memo["ref_recorded"] = True
        recording.edges.extend(_Edge(*local) for local in _local(ctx))
    return True


@rule(
    code="ATIF703",
    name="invalid-referenced-trajectory",
    level=Level.ERROR,
    format="atif",
    versions=VERSIONS,
    section="RFC §II SubagentTrajectoryRef; RFC.md §2.2 (6, 7); spec/atif/DECISIONS.md D-7",
    summary="A referenced subagent or continuation file (or one it references) is not valid.",
    needs_file=True,
)
def invalid_referenced_trajectory(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: with --follow-refs, each referenced file can be read within --max-bytes,
    parses and validates (schema and rules), and so does every file it references in turn.
    Each file is checked once however many files name it; cycles are visited once.

    Why: a subagent's trajectory is part of the run; an invalid one breaks consumers that load it.

    Example: `trajectory.cont-1.json` whose steps are numbered from 0.

    Valid instead: fix the referenced file; run `atif validate` on it to see every finding.

    Spec: RFC §II (subagents are complete, valid trajectories); RFC.md, Subagent resolution.
    """
    for target, resolved, _, graph in _direct(ctx):
        if graph.faults is None:
            found = ((p, _fault(c, graph)) for p, c in graph.files.items())
            graph.faults = {p: why for p, why in found if why is not None}
            graph.culprits = graph.leading_to(graph.faults)
        faults = graph.faults
        if resolved in faults:
            yield target.pointer, f"{target.kind} file {target.text!r} {faults[resolved]}"
        elif resolved in graph.culprits:
            culprit = graph.culprits[resolved]
            yield (
                target.pointer,
                f"{target.kind} file {target.text!r} leads to {culprit.name!r}, which "
                f"{faults[culprit]}",
            )


@rule(
    code="ATIF704",
    name="referenced-file-not-atif",
    level=Level.ERROR,
    format="atif",
    versions=VERSIONS,
    section="RFC.md §2.2 (5), versions of referenced files; spec/atif/DECISIONS.md D-14",
    summary="A referenced subagent or continuation file is not an ATIF trajectory.",
    needs_file=True,
)
def referenced_file_not_atif(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: with --follow-refs, each referenced file is an ATIF document. Its version
    may be older than, equal to or newer than the referring document's: it is checked as the
    version it declares, as an embedded subagent is (DECISIONS.md D-14).

    Why: a subagent reference or a continuation points at a trajectory; a file of another format
    (a TAO record, a trajectory-sdk file) is not one, whatever it contains.

    Example: a `trajectory.json` whose continuation file is an opentraces TAO record.

    Valid instead: point at the ATIF trajectory (convert the other format with `atif convert`).

    Spec: RFC.md, Subagent resolution (versions).
    """
    for target, _, checked, _ in _direct(ctx):
        why = _not_atif(checked) if checked.problem is None else None
        if why:
            yield target.pointer, f"{target.kind} file {target.text!r} {why}"


@rule(
    code="ATIF705",
    name="references-too-deep",
    level=Level.WARNING,
    format="atif",
    versions=VERSIONS,
    section="RFC.md §2.2 (7), reference-depth limit; spec/atif/DECISIONS.md D-7",
    summary=f"References lead more than {MAX_REF_DEPTH} files deep; the files beyond are not "
    "checked.",
    needs_file=True,
)
def references_too_deep(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """What it checks: with --follow-refs, every file reached through references is at most
    64 references away from the document (`MAX_REF_DEPTH`); files further away are not opened.

    Why: following references is bounded, so that a long chain of continuation files (or a
    hostile one) cannot exhaust time or memory; what is not checked is said, never skipped in
    silence.

    Example: `trajectory.json` → `trajectory.cont-1.json` → ... → `trajectory.cont-100.json`.

    Valid instead: keep chains of continuations shorter, or validate the files beyond the
    limit on their own (`atif validate --follow-refs trajectory.cont-64.json`).

    Spec: atif-spec policy (RFC.md, Subagent resolution).
    """
    cut_from: dict[Path, Path] | None = None
    for target, resolved, _, graph in _direct(ctx):
        if not graph.cut:
            return
        if cut_from is None:
            cut_from = graph.leading_to(p for p in graph.files if p in graph.cut)
        if resolved in cut_from:
            yield (
                target.pointer,
                f"{target.kind} file {target.text!r} leads to references more than "
                f"{MAX_REF_DEPTH} files deep (beyond {cut_from[resolved].name!r}); those are "
                "not checked",
            )
