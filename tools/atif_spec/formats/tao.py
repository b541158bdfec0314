"""opentraces TAO trace records, schema 0.1.0 to 0.9.0: detection, defaults and ``content_hash``.

A record declares its version in ``schema_version`` as ``"0.2.0"`` (targets spell it ``v0.2.0``);
the field is optional. Upstream readers fill every missing field with its default and drop keys
their model does not define; :func:`normalize` does the same, driven by the ``default`` keywords
and properties of the version's JSON Schema, so the schema stays the one place those facts live.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import Any

from atif_spec.formats import FormatSpec
from atif_spec.jsonio import jsontext
from atif_spec.jsonio.pointers import join
from atif_spec.schemas.catalog import read_spec_json

VERSIONS = ("v0.1.0", "v0.2.0", "v0.3.0", "v0.6.0", "v0.7.0", "v0.9.0")
"""The releases of PyPI ``opentraces-schema`` whose trace-record models differ in a field or in
``SCHEMA_VERSION`` (0.4.0, 0.5.0 and 0.8.0 were never published)."""
LATEST = VERSIONS[-1]

_DECLARED = {
    spelling: f"v{spelling}" for spelling in ("0.1.0", "0.2.0", "0.3.0", "0.6.0", "0.7.0", "0.9.0")
}
_DECLARED["0.1.1"] = "v0.1.0"
"""``schema_version`` values and the model that reads them (0.1.1 has the 0.1.0 models)."""

_UNDECLARED = "v0.2.0"
"""The version of a record that declares none and has no field of a later one: 0.2.0 reads every
0.1 record, and keeps the meaning such records have had in atif-spec since 0.2.0 was the newest."""

_ROOT_KEYS = frozenset({"trace_id", "session_id", "agent"})
"""Required root keys; a TAO-shaped document has at least one of them."""

_FOREIGN_STEP_KEYS = frozenset(
    {"step_id", "source", "message", "messages", "substeps", "message_role", "message_text"}
)
"""Step keys of ATIF, trajectory-sdk and step/substep run logs, never written in TAO steps."""

_V02_OUTCOME_KEYS = ("terminal_state", "reward", "reward_source")
_ROOT_V03 = frozenset({"lifecycle", "generation_index", "git_links"})
_METRICS_V03 = frozenset({"total_cache_read_tokens", "total_cache_creation_tokens"})
_ROOT_V06 = frozenset({"patches", "context_tree_summary"})
_ENVIRONMENT_V09 = frozenset(
    {"resolved_dependencies", "interpreter", "arch", "platform", "abi_tag"}
)


def spelling(version: str) -> str:
    """``0.2.0`` for ``v0.2.0``: the value written in ``schema_version``."""
    return version.removeprefix("v")


def _is_tao_shaped(doc: dict[str, Any], declared: str | None) -> bool:
    """True when the document looks like a trace record rather than another format."""
    steps = doc.get("steps")
    if isinstance(steps, list):
        for step in steps:
            if isinstance(step, dict) and not _FOREIGN_STEP_KEYS.isdisjoint(step):
                return False
    markers = _ROOT_KEYS.intersection(doc)
    if not markers:
        return False
    if declared is not None or ("agent" in markers and len(markers) > 1):
        return True
    return isinstance(steps, list) and any(
        isinstance(s, dict) and "step_index" in s and "role" in s for s in steps
    )


def _member_keys(doc: dict[str, Any], key: str) -> set[str]:
    """The keys of the object ``doc[key]`` (none when it is not an object)."""
    value = doc.get(key)
    return set(value) if isinstance(value, dict) else set()


def _later_version(doc: dict[str, Any]) -> str | None:
    """The newest version after 0.2.0 one of whose new fields appears (0.6.0 and 0.7.0 have the
    same fields; the first of them is named), else None."""
    if _ENVIRONMENT_V09.intersection(_member_keys(doc, "environment")):
        return "v0.9.0"
    steps = doc.get("steps")
    on_steps = isinstance(steps, list) and any(
        isinstance(s, dict) and "context_node_id" in s for s in steps
    )
    if on_steps or not _ROOT_V06.isdisjoint(doc):
        return "v0.6.0"
    if (
        not _ROOT_V03.isdisjoint(doc)
        or "repository_url" in _member_keys(doc, "task")
        or _METRICS_V03.intersection(_member_keys(doc, "metrics"))
    ):
        return "v0.3.0"
    return None


def _version_from_fields(doc: dict[str, Any]) -> str:
    """The newest version whose own fields appear; else 0.1.0 when only its field appears;
    else 0.2.0, which reads every 0.1 record."""
    later = _later_version(doc)
    if later is not None:
        return later
    outcome = doc.get("outcome")
    has_v02 = "execution_context" in doc or (
        isinstance(outcome, dict) and any(k in outcome for k in _V02_OUTCOME_KEYS)
    )
    attribution = doc.get("attribution")
    has_v01 = isinstance(attribution, dict) and "version" in attribution
    return "v0.1.0" if has_v01 and not has_v02 else _UNDECLARED


def detect(doc: Any) -> str | None:
    """The version (``v0.2.0``) of a trace record, ``unknown`` for an unsupported one, else None.

    ATIF documents (``schema_version`` ``ATIF-…``), trajectory-sdk documents (steps of
    ``messages``, no ``agent``) and step/substep run logs (``step_id``/``substeps``) are not
    trace records.
    """
    if not isinstance(doc, dict):
        return None
    declared = doc.get("schema_version")
    if isinstance(declared, str) and declared.upper().startswith("ATIF"):
        return None
    known = _DECLARED.get(declared) if isinstance(declared, str) else None
    if not _is_tao_shaped(doc, known):
        return None
    if known is not None:
        return known
    if isinstance(declared, str) and declared.startswith("0."):
        return "unknown"
    return _version_from_fields(doc)


# --- the upstream model, read from the schema -------------------------------------------------


class UnloadableRecordError(ValueError):
    """The record would not load into the upstream model (missing required field, wrong type)."""


@functools.cache
def schema(version: str) -> dict[str, Any]:
    """The trace-record JSON Schema of one version (``v0.2.0``)."""
    loaded: dict[str, Any] = read_spec_json(f"tao/{version}/trace-record.schema.json")
    return loaded


def _resolve(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """Follow a local ``#/$defs/Name`` reference (sibling keywords only annotate)."""
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target: dict[str, Any] = root["$defs"][ref.removeprefix("#/$defs/")]
        return target
    return node


def _types(node: dict[str, Any]) -> tuple[str, ...]:
    t = node.get("type")
    if isinstance(t, str):
        return (t,)
    return tuple(t) if isinstance(t, list) else ()


def _type_fits(node: dict[str, Any], value: Any) -> bool:
    """Whether the value's JSON type is one the (resolved) node allows."""
    types = _types(node)
    if not types:
        return True
    if value is None:
        return "null" in types
    if isinstance(value, bool):
        return "boolean" in types
    if isinstance(value, int):
        return "integer" in types or "number" in types
    if isinstance(value, float):
        return "number" in types or ("integer" in types and value.is_integer())
    if isinstance(value, str):
        return "string" in types
    if isinstance(value, list):
        return "array" in types
    return isinstance(value, dict) and "object" in types


def _normalize(root: dict[str, Any], node: dict[str, Any], value: Any) -> Any:
    node = _resolve(root, node)
    branches = node.get("anyOf")
    if isinstance(branches, list):
        return _normalize_any_of(root, branches, value)
    if not _type_fits(node, value):
        raise UnloadableRecordError(f"wrong type: {type(value).__name__}")
    if "enum" in node and value not in node["enum"]:
        raise UnloadableRecordError(f"not an allowed value: {value!r}")
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return _normalize_number(node, value)
    if isinstance(value, list):
        items = node.get("items")
        return [_normalize(root, items, v) for v in value] if isinstance(items, dict) else value
    return _normalize_object(root, node, value)


def _normalize_any_of(root: dict[str, Any], branches: list[Any], value: Any) -> Any:
    """``value`` normalized by the first branch of an ``anyOf`` that loads it."""
    for branch in branches:
        try:
            return _normalize(root, branch, value)
        except UnloadableRecordError:
            continue
    raise UnloadableRecordError("no alternative fits")


def _normalize_number(node: dict[str, Any], value: int | float) -> int | float:
    """A number as ``int`` in an integer field, else ``float``, checked against its bounds."""
    number = int(value) if "integer" in _types(node) else float(value)
    if ("minimum" in node and number < node["minimum"]) or (
        "maximum" in node and number > node["maximum"]
    ):
        raise UnloadableRecordError(f"out of range: {value!r}")
    return number


def _normalize_object(root: dict[str, Any], node: dict[str, Any], value: dict[str, Any]) -> Any:
    """An object: its defined members (defaults filled), or every member of a free-form map."""
    props = node.get("properties")
    if isinstance(props, dict):
        out: dict[str, Any] = {}
        for name, sub in props.items():
            if name in value:
                out[name] = _normalize(root, sub, value[name])
            elif "default" in sub:
                out[name] = _normalize(root, sub, sub["default"])
            else:
                raise UnloadableRecordError(f"missing required field {name!r}")
        return out
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        return {k: _normalize(root, extra, v) for k, v in value.items()}
    return value


def normalize(doc: Any, version: str) -> dict[str, Any]:
    """The record as upstream's model of ``version`` holds it: defaults filled, unknown keys gone.

    Integral numbers in integer fields become ``int`` and numbers in float fields ``float``, as
    the upstream parser's coercion does. Raises :class:`UnloadableRecordError` for a record that
    model would reject.
    """
    root = schema(version)
    result = _normalize(root, root, doc)
    if not isinstance(result, dict):
        raise UnloadableRecordError("a trace record is a JSON object")
    return result


def twins(before: Any, after: Any) -> Iterator[tuple[Any, Any]]:
    """(object of ``before``, the object of ``after`` at the same place) for every object and
    array the two share a place for: members of the same name, items of arrays of one length.
    Pairs ``doc`` with :func:`fill`'s result, so that a caller tracking objects by identity can
    follow them into the filled record."""
    if isinstance(before, dict) and isinstance(after, dict):
        yield before, after
        for key, value in before.items():
            if key in after:
                yield from twins(value, after[key])
    elif isinstance(before, list) and isinstance(after, list):
        yield before, after
        if len(before) == len(after):
            for b, a in zip(before, after, strict=True):
                yield from twins(b, a)


def fill(doc: dict[str, Any], version: str) -> dict[str, Any]:
    """``doc`` written the way opentraces' ``TraceRecord.to_jsonl_line()`` writes it: every field
    of the version's model, in declaration order, defaults and nulls included, and
    ``content_hash`` computed. A new record; ``doc`` is left as it is (:func:`twins` pairs
    their objects). Raises :class:`UnloadableRecordError` like :func:`normalize`.
    """
    filled = normalize(doc, version)
    filled["content_hash"] = content_hash(filled, version)
    return filled


def _object_node(root: dict[str, Any], node: dict[str, Any], value: Any) -> dict[str, Any]:
    """The (resolved) schema node that describes ``value``: the branch of an ``anyOf`` whose
    type fits it, or ``node`` itself."""
    node = _resolve(root, node)
    branches = node.get("anyOf")
    if isinstance(branches, list):
        for branch in branches:
            resolved = _resolve(root, branch)
            if _type_fits(resolved, value) and _types(resolved) != ("null",):
                return resolved
    return node


def _unfill(root: dict[str, Any], node: dict[str, Any], value: Any, pairs: dict[int, Any]) -> Any:
    node = _object_node(root, node, value)
    if isinstance(value, list):
        items = node.get("items")
        out_list = [_unfill(root, items, v, pairs) if isinstance(items, dict) else v for v in value]
        pairs[id(out_list)] = value
        return out_list
    if not isinstance(value, dict):
        return value
    props = node.get("properties")
    if not isinstance(props, dict):
        out_free = {k: v for k, v in value.items()}  # free-form: kept whole, one level copied
        pairs[id(out_free)] = value
        return out_free
    out: dict[str, Any] = {}
    for name, member in value.items():
        sub = props.get(name)
        if isinstance(sub, dict) and "default" in sub and _same(member, sub["default"]):
            continue
        out[name] = _unfill(root, sub, member, pairs) if isinstance(sub, dict) else member
    pairs[id(out)] = value
    return out


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON, type included (``0`` is neither ``false`` nor ``0.0``)."""

    return jsontext.canonical_json(a) == jsontext.canonical_json(b)


def unfill(doc: dict[str, Any], version: str) -> tuple[dict[str, Any], dict[int, Any]]:
    """``doc`` without the members that hold their field's default: the inverse of :func:`fill`
    on a filled record (``fill(unfill(r)[0])`` is ``r`` for every record :func:`fill` wrote,
    ``content_hash`` aside). A new record and ``id(its object)`` → the object of ``doc`` it
    stands for; ``doc`` is left as it is. Members the version's model does not define are kept.
    """
    pairs: dict[int, Any] = {}
    root = schema(version)
    sparse = _unfill(root, root, doc, pairs)
    assert isinstance(sparse, dict)
    return sparse, pairs


def canonical_json(doc: Any, version: str) -> str:
    """The exact text ``content_hash`` is taken over (see ``spec/tao/DECISIONS.md``).

    The filled record minus ``content_hash`` and ``trace_id``, serialized like Python's
    ``json.dumps(data, sort_keys=True)``: keys sorted at every level, ``", "`` and ``": "``
    separators, non-ASCII written as ``\\uXXXX`` escapes.
    """
    data = normalize(doc, version)
    data.pop("content_hash", None)
    data.pop("trace_id", None)
    return json.dumps(data, sort_keys=True, ensure_ascii=True)


def content_hash(doc: Any, version: str) -> str:
    """SHA-256 (64 lowercase hex digits) of :func:`canonical_json`."""
    import hashlib  # noqa: PLC0415 - start-up: every run imports this module to detect formats, few hash

    return hashlib.sha256(canonical_json(doc, version).encode("utf-8")).hexdigest()


def unknown_keys(doc: Any, version: str, base: str = "") -> Iterator[str]:
    """Pointers of keys the version's model does not define (upstream readers drop them).

    Free-form objects (``input``, ``metadata``, ``tool_definitions`` items, …) hold any key.
    Subtrees of the wrong type are skipped; the schema check reports those.
    """
    root = schema(version)
    yield from _unknown(root, root, doc, base)


def _unknown(root: dict[str, Any], node: dict[str, Any], value: Any, ptr: str) -> Iterator[str]:
    node = _resolve(root, node)
    branches = node.get("anyOf")
    if isinstance(branches, list):
        yield from _unknown_any_of(root, branches, value, ptr)
        return
    if isinstance(value, list):
        items = node.get("items")
        if isinstance(items, dict) and "array" in _types(node):
            for i, v in enumerate(value):
                yield from _unknown(root, items, v, join(ptr, i))
        return
    if not isinstance(value, dict) or "object" not in _types(node):
        return
    props = node.get("properties")
    if isinstance(props, dict):
        yield from _unknown_members(root, props, value, ptr)


def _unknown_any_of(
    root: dict[str, Any], branches: list[Any], value: Any, ptr: str
) -> Iterator[str]:
    """The unknown keys of ``value`` under the first branch of an ``anyOf`` its type fits."""
    for branch in branches:
        resolved = _resolve(root, branch)
        if _type_fits(resolved, value):
            yield from _unknown(root, resolved, value, ptr)
            return


def _unknown_members(
    root: dict[str, Any], props: dict[str, Any], value: dict[str, Any], ptr: str
) -> Iterator[str]:
    """The keys of an object that ``props`` does not define, and those inside its members."""
    for key, v in value.items():
        sub = props.get(key)
        if sub is None:
            yield join(ptr, key)
        else:
            yield from _unknown(root, sub, v, join(ptr, key))


FORMAT = FormatSpec(
    name="tao",
    title="opentraces TAO trace record",
    versions=VERSIONS,
    detect=detect,
    version_field="schema_version",
    version_spelling=spelling,
    priority=50,
)
