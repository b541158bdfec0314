"""What every version step shares: the step context, traversal helpers, the working copy.

A step is a pair of functions ``up(doc, ctx, base)`` and ``down(doc, ctx, base)`` that change one
trajectory node in place (the caller works on a copy). Each first undoes the stash layers its
inverse wrote (:meth:`StepContext.restore`), then makes its own changes through
:meth:`StepContext.owner`, which stashes and reports them. ``base`` is the node's JSON pointer in
the whole document (``""`` for the root, ``/subagent_trajectories/0`` for an embedded one).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from atif_spec.formats.totals import context_only_fact
from atif_spec.jsonio.jsonvalues import dicts
from atif_spec.jsonio.pointers import pointer as make_pointer
from atif_spec.transforms.changes import ChangeReport, Item
from atif_spec.transforms.stash_v1 import Layer, Path, StashError, pop
from atif_spec.validation.findings import Finding, Level

Doc = dict[str, Any]
ATIF = "atif"


def step_id(source: str, target: str) -> str:
    """The name a step signs its stash layers with: ``atif@v1.7->atif@v1.6``."""
    return f"{ATIF}@{source}->{ATIF}@{target}"


class Edit:
    """Changes below one owner object, stashed in one layer and reported.

    A context manager: the layer is committed to the owner's holder when the block ends.
    """

    __slots__ = ("_holder", "base", "ctx", "layer")

    def __init__(self, layer: Layer, base: str, ctx: StepContext) -> None:
        self.layer = layer
        self.base = base
        """Pointer of the owner in the document."""
        self.ctx = ctx
        self._holder: str | None = None

    @property
    def holder(self) -> str:
        """Pointer of the holder ``extra`` in the document."""
        if self._holder is None:
            self._holder = self.base + make_pointer(*self.layer.holder)
        return self._holder

    def __enter__(self) -> Edit:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if kind is None:
            try:
                self.layer.commit()
            except StashError as error:  # report the pointer in the whole document
                raise StashError(self.base + error.pointer, error.message) from None

    def _last(self) -> str:
        """The document pointer of the entry just made."""
        relative: str = self.layer.entries[-1]["pointer"]
        return self.base + relative

    def remove(self, path: Path, reason: str, *, loss: bool | None = None) -> Any:
        """Take out a member the target cannot hold (stashed, or dropped with ``--drop``)."""
        value = self.layer.remove(path)
        self.ctx.lost(self._last(), self.holder, reason, value is not None, loss)
        return value

    def move(self, path: Path, to: Path, reason: str) -> None:
        """Move a member the target has no field for under a documented name (reported as
        named; the stash records the move, not the value)."""
        self.layer.move(path, to)
        self.ctx.report.named.append(
            Item(self._last(), self.ctx.name, reason, to=self.base + make_pointer(*to))
        )

    def training_fact(self, key: str, reason: str) -> None:
        """Take the owner step's ``key`` out (``is_copied_context`` or ``llm_call_count``); when
        it says the step is not a training target (``true``, ``0``), keep that readable as
        ``extra.<key>`` (:data:`atif_spec.formats.totals.TRAINING_FACTS`), reported as named with
        the finding ``migrate:context-only-step``. A producer's own ``extra.<key>`` is never
        overwritten: then the value is stashed as usual."""

        step = self.layer.owner
        extra = step.get("extra")
        free = extra is None or (isinstance(extra, dict) and key not in extra)
        if not (context_only_fact(key, step[key]) and free):
            self.remove((key,), reason)
            return
        self.move((key,), ("extra", key), reason)
        self.ctx.report.warnings.append(
            Finding(
                "migrate:context-only-step",
                "context-only-step",
                Level.WARNING,
                self.base,
                f"{self.ctx.target} has no {key}; the step is context only, not a training "
                f"target: kept as extra.{key} (export-sft and the totals read it)",
            )
        )

    def replace(
        self,
        path: Path,
        value: Any,
        reason: str,
        policy: str | None,
        *,
        show: bool = True,
        loss: bool | None = None,
    ) -> Any:
        """Put a synthesized value in place of one the target cannot hold.

        ``policy`` names the rule that chose the new value (reported as decided); None when the
        value is forced (a subagent's version). ``show`` reports the value itself too.
        """
        original = self.layer.replace(path, value)
        ptr = self._last()
        self.ctx.lost(ptr, self.holder, reason, original is not None, loss)
        if policy is not None:
            self.ctx.decided(ptr, policy, value, show)
        return original

    def add(self, path: Path, value: Any, policy: str, position: int | None = None) -> None:
        """Add a value the target requires and the source lacks."""
        self.layer.add(path, value, position)
        self.ctx.decided(self._last(), policy, value, True)


@dataclass(slots=True)
class StepContext:
    """One step's view of the run: its name, the switches, and the report it writes to."""

    source: str
    target: str
    report: ChangeReport
    drop: bool = False
    session_ref_path: str | None = None
    """Template of the ``trajectory_path`` given to v1.6 session-only references (v1.6 -> v1.7);
    None refuses such documents."""
    drop_context_only: bool = False
    """Going below the version of ``is_copied_context``/``llm_call_count``: drop the steps those
    fields make context only instead of keeping the fact under ``extra`` (not invertible)."""

    name: str = ""
    """This step's signature, e.g. ``atif@v1.7->atif@v1.6``."""
    inverse: str = ""
    """The signature of the step this one undoes."""

    def __post_init__(self) -> None:
        self.name = step_id(self.source, self.target)
        self.inverse = step_id(self.target, self.source)

    def owner(self, obj: Doc, base: str, holder: Path = ("extra",)) -> Edit:
        """Edit below ``obj`` (``with ctx.owner(...) as edit``); committed at the block's end."""
        return Edit(Layer(obj, self.name, holder, keep=not self.drop), base, self)

    def remove_member(
        self, obj: Doc, base: str, key: str, reason: str, holder: Path = ("extra",)
    ) -> None:
        """Take ``obj[key]`` out (see :meth:`Edit.remove`) when ``obj`` has that member."""
        if key in obj:
            with self.owner(obj, base, holder) as edit:
                edit.remove((key,), reason)

    def drop_context_only_steps(self, doc: Doc, base: str, key: str) -> bool:
        """With :attr:`drop_context_only`, remove the steps of ``doc`` whose ``key`` makes them
        context only, renumber the integer ``step_id`` of the others from 1 and keep a
        ``final_metrics.total_steps`` that counted the steps in step (all reported: dropped,
        decided). True when the policy is on (the caller then has no such steps left)."""

        if not self.drop_context_only:
            return False
        listed = doc.get("steps")
        if not isinstance(listed, list):
            return True
        keep: list[Any] = []
        for i, step in enumerate(listed):
            if isinstance(step, dict) and context_only_fact(key, step.get(key)):
                reason = f"{self.target} has no {key}; the policy drops context-only steps"
                self.report.dropped.append(Item(f"{base}/steps/{i}", self.name, reason))
            else:
                keep.append(step)
        if len(keep) == len(listed):
            return True
        final = doc.get("final_metrics")
        doc["steps"] = keep
        policy = "context-only steps dropped: step_id renumbered from 1"
        for n, step in enumerate(keep, start=1):
            old = step.get("step_id") if isinstance(step, dict) else None
            if isinstance(old, int) and not isinstance(old, bool) and old != n:
                step["step_id"] = n
                self.decided(f"{base}/steps/{n - 1}/step_id", policy, n, True)
        if isinstance(final, dict) and final.get("total_steps") == len(listed):
            doc["final_metrics"] = final | {"total_steps": len(keep)}
            self.decided(f"{base}/final_metrics/total_steps", policy, len(keep), True)
        return True

    def remove_training_fact(self, step: Doc, base: str, key: str, reason: str) -> None:
        """:meth:`Edit.training_fact` in a layer of its own (when ``step`` has ``key``)."""
        if key in step:
            with self.owner(step, base) as edit:
                edit.training_fact(key, reason)

    def restore(self, obj: Any, base: str, holder: Path = ("extra",)) -> bool:
        """Undo the layers the inverse step left below ``obj``; True when there were any."""
        changes = pop(obj, self.inverse, holder)
        self.report.conflicts(changes, self.name, base)
        return bool(changes)

    def lost(self, ptr: str, holder: str, reason: str, data: bool, loss: bool | None) -> None:
        """Report a value the target cannot hold: stashed, or dropped with ``--drop``."""
        counts = data if loss is None else loss
        if self.drop:
            self.report.dropped.append(Item(ptr, self.name, reason, loss=counts))
        else:
            self.report.stashed.append(Item(ptr, self.name, reason, stash=holder, loss=counts))

    def refuse(self, code: str, ptr: str, message: str) -> None:
        """Record an error that refuses the document (``migrate:<code>``)."""

        self.report.errors.append(Finding(f"migrate:{code}", code, Level.ERROR, ptr, message))

    def decided(self, ptr: str, policy: str, value: Any, show: bool) -> None:
        """Report a value written by policy."""
        self.report.decided.append(Item(ptr, self.name, policy, value=value, has_value=show))


# --- traversal ------------------------------------------------------------------------------------


def steps(doc: Doc, base: str) -> Iterator[tuple[str, Doc]]:
    """``(pointer, step)`` for every step object."""
    for i, step in dicts(doc.get("steps")):
        yield f"{base}/steps/{i}", step


def metrics(doc: Doc, base: str) -> Iterator[tuple[str, Doc]]:
    """``(pointer, metrics)`` for the metrics object of every step."""
    for ptr, step in steps(doc, base):
        obj = step.get("metrics")
        if isinstance(obj, dict):
            yield f"{ptr}/metrics", obj


def results(step: Doc) -> Iterator[tuple[int, Doc]]:
    """``(index, result)`` for every observation result of a step."""
    observation = step.get("observation")
    if isinstance(observation, dict):
        yield from dicts(observation.get("results"))


def refs(step: Doc, step_ptr: str) -> Iterator[tuple[str, Doc]]:
    """``(pointer, ref)`` for every subagent reference below a step."""
    for k, result in results(step):
        for r, ref in dicts(result.get("subagent_trajectory_ref")):
            yield f"{step_ptr}/observation/results/{k}/subagent_trajectory_ref/{r}", ref


def subagents(doc: Doc, base: str) -> Iterator[tuple[str, Doc]]:
    """``(pointer, trajectory)`` for the embedded subagents directly below ``doc``."""
    for i, sub in dicts(doc.get("subagent_trajectories")):
        yield f"{base}/subagent_trajectories/{i}", sub


def position_after(obj: Doc, key: str) -> int:
    """Key position just after ``key`` (0 when ``key`` is absent)."""
    keys = list(obj)
    return keys.index(key) + 1 if key in obj else 0


# --- the working copy -----------------------------------------------------------------------------


def working_copy(doc: Doc) -> Doc:
    """Copy every container a step may change in place; share the rest with ``doc``.

    Steps edit trajectories, steps, tool calls, observations, results, references, metrics,
    content lists and the agent in place, and replace ``extra`` objects rather than editing them,
    so copying that skeleton keeps the caller's document intact without copying token arrays,
    tool arguments or free-form ``extra`` content.
    """
    out = dict(doc)
    agent = out.get("agent")
    if isinstance(agent, dict):
        out["agent"] = dict(agent)
    if isinstance(out.get("steps"), list):
        out["steps"] = [_step_copy(s) if isinstance(s, dict) else s for s in out["steps"]]
    subs = out.get("subagent_trajectories")
    if isinstance(subs, list):
        out["subagent_trajectories"] = [working_copy(s) if isinstance(s, dict) else s for s in subs]
    return out


def _step_copy(step: Doc) -> Doc:
    out = dict(step)
    if isinstance(out.get("message"), list):
        out["message"] = list(out["message"])
    calls = out.get("tool_calls")
    if isinstance(calls, list):
        out["tool_calls"] = [dict(c) if isinstance(c, dict) else c for c in calls]
    if isinstance(out.get("metrics"), dict):
        out["metrics"] = dict(out["metrics"])
    observation = out.get("observation")
    if isinstance(observation, dict):
        observation = out["observation"] = dict(observation)
        if isinstance(observation.get("results"), list):
            observation["results"] = [
                _result_copy(r) if isinstance(r, dict) else r for r in observation["results"]
            ]
    return out


def _result_copy(result: Doc) -> Doc:
    out = dict(result)
    if isinstance(out.get("content"), list):
        out["content"] = list(out["content"])
    refs_ = out.get("subagent_trajectory_ref")
    if isinstance(refs_, list):
        out["subagent_trajectory_ref"] = [dict(r) if isinstance(r, dict) else r for r in refs_]
    return out
