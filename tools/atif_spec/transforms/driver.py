"""The one driver of every transform step: ATIF version steps and format lenses alike.

A :class:`Step` has source and target (``FORMAT@VERSION``) and two plain mappings, ``forward``
and ``backward``. :func:`run` maps a document forward and the result back once, and keeps the
difference from the source as one stash layer (RFC.md §4.5): the patch that turns what
``backward`` rebuilds into the source, and the named keys ``forward`` wrote; a top layer of the
inverse step is undone by its patch. A mapping never sees a stash nor modifies its input; it
reads named keys only where its :class:`Context` allows, and tells it what it names, decides by
policy, or refuses.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from atif_spec.jsonio.jsonequal import same_json
from atif_spec.jsonio.pointers import MISSING, value_at
from atif_spec.jsonio.pointers import pointer as make_pointer
from atif_spec.transforms.changes import ChangeReport, Item
from atif_spec.transforms.stash import Op, StashError, apply, attach, detach, diff, holder
from atif_spec.validation.findings import Finding, Level, input_finding

Doc = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Options:
    """What the caller asked for (the switches of ``atif migrate`` and ``atif convert``)."""

    drop: bool = False
    """Discard what the target cannot hold instead of stashing it (reported as dropped)."""
    session_ref_path: str | None = None
    """The v1.6 -> v1.7 policy for session-only references (see :func:`atif_spec.migrate`)."""
    drop_context_only: bool = False
    """Drop context-only steps below their fields' versions (:func:`atif_spec.migrate`)."""
    otel_convention: str = "gen_ai"
    """The attribute convention of OTLP spans written (``gen_ai`` or ``openinference``)."""


class Refused(Exception):
    """A mapping refuses the document: ``finding`` says why, ``details`` say more."""

    def __init__(self, finding: Finding, details: Sequence[Finding] = ()) -> None:
        super().__init__(finding.message)
        self.finding = finding
        self.details = list(details)


@dataclass(slots=True)
class Context:
    """One run of one mapping: what it may read back, and what it reports."""

    step: str
    """The signature of the step whose mapping runs, ``SOURCE->TARGET``."""
    kind: str
    """The prefix of refusal codes: ``migrate`` or ``convert``."""
    options: Options = field(default_factory=Options)
    reads: frozenset[str] = frozenset()
    """Pointers (in the input) of the named keys to read back: the undone layer's ``wrote``."""
    undoing: Sequence[Op] = ()
    """The undone layer's patch, applied to the output after the mapping."""
    wrote: list[str] = field(default_factory=list)
    """Pointers (in the output) of the named keys the mapping wrote, in order."""
    named: list[Item] = field(default_factory=list)
    decided: list[Item] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    _adds: frozenset[str] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def target(self) -> str:
        """The target of the step (``FORMAT@VERSION``)."""
        return self.step.partition("->")[2]

    def read(self, pointer: str) -> bool:
        """Whether the member at ``pointer`` of the input is a named key to read back."""
        return pointer in self.reads

    def restored(self, pointer: str) -> bool:
        """Whether the stash gives the output a member at ``pointer`` after the mapping."""
        if self._adds is None:  # (the first time only: few mappings ask)
            self._adds = frozenset([op["path"] for op in self.undoing if op["op"] == "add"])
        return pointer in self._adds

    def name(self, source: str, to: str, reason: str) -> None:
        """Record a value put under a documented name at ``to`` (from ``source``)."""
        self.wrote.append(to)
        self.named.append(Item(source, self.step, reason, to=to, loss=False))

    def decide(self, pointer: str, policy: str, value: Any, *, show: bool = True) -> None:
        """Record a value written at ``pointer`` by the documented ``policy``."""
        self.decided.append(Item(pointer, self.step, policy, value=value, has_value=show))

    def warn(self, code: str, pointer: str, message: str) -> None:
        """Record a warning ``<kind>:<code>`` about the document."""
        self.warnings.append(Finding(f"{self.kind}:{code}", code, Level.WARNING, pointer, message))

    def refuse(
        self, code: str, pointer: str, message: str, details: Sequence[Finding] = ()
    ) -> Refused:
        """The exception to raise to refuse the document (``<kind>:<code>``)."""
        return Refused(Finding(f"{self.kind}:{code}", code, Level.ERROR, pointer, message), details)


class _Rebuilding(Context):
    """The context of the way back, which only rebuilds the source: its report is not kept."""

    __slots__ = ()

    def name(self, source: str, to: str, reason: str) -> None:
        """Nothing to record."""

    def decide(self, pointer: str, policy: str, value: Any, *, show: bool = True) -> None:
        """Nothing to record."""


Mapping = Callable[[Doc, Context], Doc]
"""Maps one document (without its stash); must not modify it."""


def signature(source: str, target: str) -> str:
    """The name of the step from ``source`` to ``target`` (:attr:`Step.name`)."""
    return f"{source}->{target}"


@dataclass(frozen=True, slots=True)
class Step:
    """One transform between two targets (``FORMAT@VERSION``), and the mapping of its inverse."""

    source: str
    target: str
    forward: Mapping
    backward: Mapping
    finish: Callable[[Doc, Doc], Doc] | None = None
    """``(made, written) -> written``: TAO's ``content_hash`` covers what is finally written."""
    rebuilds: bool = False
    """Whether ``backward`` rebuilds the whole document (a lens), so that the residue's diff
    compares containers in C before walking them; a version step shares what it keeps."""
    name: str = field(init=False, repr=False, compare=False)
    """The signature written in stash layers and reports: ``tao@v0.2.0->atif@v1.8``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", signature(self.source, self.target))

    @property
    def inverse(self) -> Step:
        """The step that undoes this one."""
        return Step(self.target, self.source, self.backward, self.forward, rebuilds=self.rebuilds)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector paused (as it was after): steps allocate many small objects
    and make no reference cycles, and a running collector re-scans the (large, freshly parsed)
    document again and again. ``migrate`` and ``convert`` run their steps so."""
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()


def too_deep() -> Finding:
    """The refusal of a document nested deeper than the mappings can walk (Python's recursion
    limit); ``atif migrate`` and ``atif convert`` give it too when checking or writing fails so."""
    return input_finding(
        "too-deep", "nesting is too deep to transform (refused; nothing was written)"
    )


def run(step: Step, doc: Doc, report: ChangeReport, options: Options, kind: str) -> Doc:
    """``doc`` (not modified) transformed by ``step`` (RFC.md §4.5.3, §4.5.4), reporting into
    ``report``; :class:`Refused` when a mapping or the stash refuses it, or the document is
    nested too deeply (:func:`too_deep`)."""
    try:
        return _run(step, doc, report, options, kind)
    except RecursionError:
        raise Refused(too_deep()) from None


def _run(step: Step, doc: Doc, report: ChangeReport, options: Options, kind: str) -> Doc:
    try:
        source, layers = detach(doc, holder(step.source))
    except StashError as exc:
        raise _stash_refusal(exc, kind) from None
    undo = signature(step.target, step.source)  # the inverse step's name
    top = layers.pop() if layers and layers[-1]["by"] == undo else None
    ctx = Context(step.name, kind, options)
    if top is not None:
        ctx.reads, ctx.undoing = frozenset(top.get("wrote", ())), top.get("patch", [])
    out = made = step.forward(source, ctx)
    skipped: set[int] = set()
    if top is not None:
        out, skipped = _restore(step, out, ctx, report)
    back = step.backward(out, _Rebuilding(undo, kind, options, frozenset(ctx.wrote)))
    patch = _not_undone(diff(source, back, rebuilt_whole=step.rebuilds), ctx.undoing, skipped)
    _report_patch(step, patch, report, options.drop)
    layer: Doc = {"by": step.name}
    if ctx.wrote:
        layer["wrote"] = ctx.wrote
    if patch:
        layer["patch"] = patch
    if len(layer) > 1 and not options.drop:
        layers.append(layer)
    report.named.extend(ctx.named)
    report.decided.extend(ctx.decided)
    report.warnings.extend(ctx.warnings)
    try:
        written = attach(out, holder(step.target), layers)
    except StashError as exc:
        raise _stash_refusal(exc, kind) from None
    return written if step.finish is None else step.finish(made, written)


def _stash_refusal(exc: StashError, kind: str) -> Refused:
    return Refused(Finding(f"{kind}:{exc.what}", exc.what, Level.ERROR, exc.pointer, exc.message))


def _restore(step: Step, out: Doc, ctx: Context, report: ChangeReport) -> tuple[Doc, set[int]]:
    """``out`` with the undone layer's patch applied (what could not be, after an edit, is
    reported), and the ids of its operations not applied."""
    restored, conflicts = apply(out, ctx.undoing)
    if not isinstance(restored, dict):
        raise ctx.refuse("stash-patch", "", "the stash's patch does not give a document back")
    for conflict in conflicts:
        op, ptr = conflict.op.get("op"), str(conflict.op.get("path"))
        if op == "remove":
            report.decided.append(Item(ptr, step.name, f"kept the edited value ({conflict.why})"))
        elif op != "test":
            report.dropped.append(Item(ptr, step.name, f"stashed value discarded: {conflict.why}"))

    def holds(pointer: str | None, value: Any = MISSING) -> bool:
        node = MISSING if pointer is None else value_at(restored, pointer)
        return node is not MISSING and (value is MISSING or same_json(value, node))

    ctx.decided[:] = [i for i in ctx.decided if holds(i.pointer, i.value)]
    ctx.named[:] = [i for i in ctx.named if holds(i.to)]
    ctx.wrote[:] = [ptr for ptr in ctx.wrote if holds(ptr)]
    return restored, {id(conflict.op) for conflict in conflicts}


def _not_undone(patch: list[Op], undone: Sequence[Op], skipped: set[int]) -> list[Op]:
    """``patch`` without what writes back a value the ``undone`` layer's patch took out or
    replaced after a test (but its operations ``skipped`` after an edit): the inverse step wrote
    them, so they are not the document's own data, and the way back (e.g. under another policy)
    need not write them."""
    if not patch or not undone:  # the usual case: nothing to compare
        return patch
    taken = {
        op["path"]: test.get("value")
        for test, op in itertools.pairwise(undone)
        if op.get("op") in ("remove", "replace")
        and test.get("op") == "test"
        and id(op) not in skipped
    }
    out: list[Op] = []
    for op in patch:
        path = op["path"]
        if op["op"] in ("add", "replace") and path in taken and same_json(op["value"], taken[path]):
            if out and out[-1]["op"] == "test" and out[-1]["path"] == path:
                out.pop()
            continue
        out.append(op)
    return out


def _report_patch(step: Step, patch: list[Op], report: ChangeReport, drop: bool) -> None:
    """List each operation of a new layer's patch as stashed (or dropped, with ``drop``)."""
    if not patch:
        return
    items = report.dropped if drop else report.stashed
    where = None if drop else make_pointer(*holder(step.target))
    reasons = {
        "add": f"{step.target} has no place for this value",
        "replace": f"{step.target} cannot hold this value as it is",
        "remove": f"the way back through {step.target} adds this value",
    }
    for op in patch:
        kind, path = op["op"], op["path"]
        if kind != "test":
            # a null value, and the version of an embedded document, are not data lost
            loss = kind != "remove" and op.get("value") is not None
            loss = loss and not path.endswith("/schema_version")
            items.append(Item(path, step.name, reasons[kind], stash=where, loss=loss))
