"""The ATIF step fields TAO has no field for, kept in ``metadata.atif_step_fields`` (D31): what
ATIF → TAO keeps of a step (:func:`kept`), and how TAO → ATIF puts it back (:func:`put_back`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from atif_spec.jsonio.jsonequal import same_json
from atif_spec.jsonio.jsonvalues import text_of
from atif_spec.jsonio.pointers import escape_token, join
from atif_spec.transforms.lenses.tao import common, tokens
from atif_spec.transforms.lenses.tao.common import Doc
from atif_spec.transforms.lenses.tao.rows import STEP_FIELDS


@dataclass(frozen=True, slots=True)
class Keep:
    """ATIF → TAO's producer's members of an ``extra`` and record of a value it carries."""

    producers: Callable[[Any, str], Doc]
    member: Callable[..., None]


_KEPT = frozenset((*common.FIELDS, "message", "metrics", "tool_calls", "observation"))
"""The members of an ATIF step that may hold something to keep."""
_PARTS = frozenset(("extra", "subagent_trajectory_ref"))
"""The members of a call or result kept (besides a content-part ``content``)."""


def kept(step: Doc, ptr: str, index: str, launched: str | None, keep: Keep) -> Doc:
    """The step's fields TAO has none for, as a partial ATIF step (``launched``: its subagent)."""
    fields: Doc = {}
    for key in [key for key in step if key in _KEPT]:  # each pointer made only where it is used
        value = step[key]
        if key in common.FIELDS or (key == "message" and isinstance(value, list)):
            here = f"{ptr}/{escape_token(key)}"
            value = keep.producers(value, here) if key == "extra" else value
            if key != "extra" or value:  # content parts: TAO's content is their text
                fields[key] = value
                keep.member(here, STEP_FIELDS.key, index, key)
        elif key == "metrics" and isinstance(value, dict):
            partial_metrics = _metrics(value, ptr, keep, index)
            if partial_metrics:
                fields[key] = partial_metrics
        elif key == "tool_calls" and isinstance(value, list):
            partial = _partials(ptr, list(enumerate(value)), {}, keep, index, key)
            if partial:
                fields[key] = partial
        elif key == "observation" and isinstance(value, dict):
            partial = _results(step, value, ptr, launched, keep, index)
            if partial:
                fields[key] = {"results": partial}
    return fields


def _metrics(metrics: Doc, ptr: str, keep: Keep, index: str) -> Doc:
    """The token ids, log probabilities and the producer's own ``extra`` keys of the ``metrics``
    of the step at ``ptr``."""
    kept = {k: v for k, v in metrics.items() if k in common.METRIC_FIELDS}
    for k in kept:
        keep.member(f"{ptr}/metrics/{k}", STEP_FIELDS.key, index, "metrics", k)
    extra = metrics.get("extra")
    own = keep.producers(extra, f"{ptr}/metrics/extra") if extra else {}
    own.pop(tokens.CACHE_WRITES, None)
    for k in own:
        where = f"{ptr}/metrics/extra/{escape_token(k)}"
        keep.member(where, STEP_FIELDS.key, index, "metrics", "extra", k)
    if own:
        kept["extra"] = own
    return kept


def _results(
    step: Doc, observation: Doc, ptr: str, launched: str | None, keep: Keep, index: str
) -> list[Doc]:
    """Partial results, without the inlined subagent's reference TAO → ATIF writes anyway."""
    results = observation.get("results")
    items = [
        (k, r) for k, r in enumerate(results if isinstance(results, list) else ()) if not carrier(r)
    ]
    first = common.first_launcher([r for _, r in items], step) if launched else None
    plain = {first: [{"trajectory_id": launched}]} if launched and first is not None else {}
    return _partials(ptr, items, plain, keep, index, "observation", "results")


def _partials(
    ptr: str,
    items: list[tuple[int, Any]],
    plain: dict[int, Any],
    keep: Keep,
    index: str,
    *below: str,
) -> list[Doc]:
    """Partial calls or results (at ``below`` the step at ``ptr``), one per TAO call or
    observation (``plain``: position → the reference TAO → ATIF writes there anyway); ``[]`` when
    all are empty."""
    out: list[Doc] = []
    for k, (i, item) in enumerate(items):
        partial: Doc = {}
        out.append(partial)
        if not isinstance(item, dict):
            continue
        if _PARTS.isdisjoint(item) and not isinstance(item.get("content"), list):
            continue  # most calls and results: nothing to keep
        for member, value in item.items():
            if member == "extra":
                value = keep.producers(value, join(ptr, *below, i, "extra"))
            elif member == "subagent_trajectory_ref":
                if k in plain and same_json(value, plain[k]):
                    continue
            elif member != "content" or not isinstance(value, list):
                continue
            if value:
                partial[member] = value
                here = join(ptr, *below, i, member)
                keep.member(here, STEP_FIELDS.key, index, *below, str(k), member)
    return out if any(out) else []


def carrier(result: Any) -> bool:
    """Whether an ATIF result only carries a reference (ATIF → TAO writes no observation)."""
    return isinstance(result, dict) and len(result) == 1 and "subagent_trajectory_ref" in result


def _parts_of(parts: Any, text: Any) -> bool:
    """Whether ``parts`` are content parts whose text is ``text`` (not edited since)."""
    return isinstance(parts, list) and isinstance(text, str) and text_of(parts) == text


def _merge_partials(items: Any, partials: Any) -> None:
    """Put back the ``extra``, content parts and references kept for each call or result."""
    if not isinstance(items, list) or not isinstance(partials, list):
        return
    for item, partial in zip(items, partials, strict=False):
        if not isinstance(item, dict) or not isinstance(partial, dict):
            continue
        for member, value in partial.items():
            if member == "content" and _parts_of(value, item.get("content")):
                item["content"] = value
            elif member in ("extra", "subagent_trajectory_ref") and member not in item:
                item[member] = value


def put_back(out: Doc, fields: Doc) -> None:
    """Put back the step fields ATIF → TAO kept under :data:`.rows.STEP_FIELDS`."""
    for key, value in fields.items():
        if key in common.FIELDS and key not in out:
            out[key] = value
        elif key == "metrics" and isinstance(value, dict) and "metrics" in out:
            metrics = out["metrics"]
            for k, v in value.items():
                if k in common.METRIC_FIELDS and k not in metrics:
                    metrics[k] = v
            own = value.get("extra")
            made = metrics.get("extra")
            made = made if isinstance(made, dict) else {}
            if isinstance(own, dict) and not set(own) & set(made):
                metrics["extra"] = {**own, **made}
        elif key == "message" and _parts_of(value, out["message"]):
            out["message"] = value
        elif key == "tool_calls":
            _merge_partials(out.get("tool_calls"), value)
        elif key == "observation" and isinstance(value, dict):
            made_obs = out.get("observation")
            made_results = made_obs.get("results") if isinstance(made_obs, dict) else None
            _merge_partials(made_results, value.get("results"))
