"""Turns JSON Schema validation errors into findings.

One finding per problem, pointing at the value to fix: a missing property is reported at the
pointer where it should be, an unknown key at the key itself. Failures of ``anyOf`` are
unpacked: when only one branch fits the value's JSON type (``X`` or ``null``, ``string`` or
``array``), that branch's own errors are reported instead of the ``anyOf``. A schema node may
have a custom message for failures directly beneath it (``atif_spec.validation.schema_messages``,
keyed by schema location, so that the published schemas use standard keywords only).

Call :func:`findings_of`: it also reports a value nested too deeply for the schema engine to
describe (``input:too-deep``) instead of letting the engine's ``ValueError`` through.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from atif_spec.formats import all_formats
from atif_spec.jsonio.pointers import join, parse_pointer, pointer
from atif_spec.schemas.catalog import node_at
from atif_spec.validation.findings import Finding, input_finding, schema_finding
from atif_spec.validation.schema_messages import message_at

_KEYWORDS = {
    "AdditionalItems": "additionalItems",
    "AdditionalProperties": "additionalProperties",
    "AnyOf": "anyOf",
    "Constant": "const",
    "Contains": "contains",
    "Enum": "enum",
    "ExclusiveMaximum": "exclusiveMaximum",
    "ExclusiveMinimum": "exclusiveMinimum",
    "FalseSchema": "false",
    "Format": "format",
    "MaxItems": "maxItems",
    "MaxLength": "maxLength",
    "MaxProperties": "maxProperties",
    "Maximum": "maximum",
    "MinItems": "minItems",
    "MinLength": "minLength",
    "MinProperties": "minProperties",
    "Minimum": "minimum",
    "MultipleOf": "multipleOf",
    "Not": "not",
    "OneOfMultipleValid": "oneOf",
    "OneOfNotValid": "oneOf",
    "Pattern": "pattern",
    "PropertyNames": "propertyNames",
    "Required": "required",
    "Type": "type",
    "UnevaluatedItems": "unevaluatedItems",
    "UnevaluatedProperties": "unevaluatedProperties",
    "UniqueItems": "uniqueItems",
}

_JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}


def json_type(value: Any) -> str:
    """The JSON type name of a parsed value."""
    return _JSON_TYPES.get(type(value), type(value).__name__)


def short(value: Any, limit: int = 60) -> str:
    """A compact rendering of a value for messages (never the whole of a large object)."""
    if isinstance(value, dict):
        return "an object" if value else "{}"
    if isinstance(value, list):
        return "an array" if value else "[]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _custom_message(err: Any) -> str | None:
    location: str = err.absolute_keyword_location or ""
    parent = location.rsplit("/", 1)[0] if "#" in location else ""
    return message_at(parent) if parent else None


def _only_type_mismatch(branch: list[Any], depth: int) -> bool:
    return (
        len(branch) == 1
        and type(branch[0].kind).__name__ == "Type"
        and len(branch[0].instance_path) == depth
    )


def _types_of(branches: Iterable[list[Any]]) -> list[str]:
    names: list[str] = []
    for branch in branches:
        for t in branch[0].kind.as_dict().get("types", []):
            if t not in names:
                names.append(t)
    return _null_last(names)


def _null_last(names: list[str]) -> list[str]:
    return [n for n in names if n != "null"] + [n for n in names if n == "null"]


# Beside a ``^...$`` pattern, these make ``$`` mean the end of the string in every regex dialect
# (Python's ``$`` also matches before a final line break; ECMA-262's and Rust's do not).
_LINE_BREAK_GUARDS = (
    {"type": "string", "pattern": "\n"},
    {"type": "string", "pattern": "^\n"},
)

_GENERIC_ANY_OF = "is not valid under any of the allowed shapes"


def findings_from_errors(errors: Iterable[Any], base: str = "") -> list[Finding]:
    """Findings for jsonschema-rs validation errors (``base`` prefixes every pointer).

    One finding per problem: identical ``(code, pointer)`` pairs reached through several
    branches are reported once, a ``const`` failure is dropped where an ``enum`` failure names the
    same value, and a generic ``anyOf`` failure is dropped when another finding already points
    inside the same value (e.g. a content part's ``if``/``then`` reports the bad ``media_type``
    that also made the ``source`` fit no branch). A line-break guard's ``not`` failure is dropped
    where the ``pattern`` beside it fails too.
    """
    unique: dict[tuple[str, str], Finding] = {}
    for err in errors:
        for f in _convert(err, base):
            unique.setdefault((f.code, f.pointer), f)
    found = list(unique.values())
    drop: set[int] = set()
    for f in found:
        if f.code == "schema:anyOf" and f.message.endswith(_GENERIC_ANY_OF):
            if any(g.pointer.startswith(f.pointer + "/") for g in found):
                drop.add(id(f))
        elif f.code == "schema:const" and ("schema:enum", f.pointer) in unique:
            drop.add(id(f))  # one value checked by two branches: the enum failure says it all
        elif f.code == "schema:not" and ("schema:pattern", f.pointer) in unique:
            drop.add(id(f))  # a line break the pattern refuses too: one finding is enough
    return [f for f in found if id(f) not in drop]


def _convert(err: Any, base: str) -> Iterator[Finding]:
    kind_name = type(err.kind).__name__
    keyword = _KEYWORDS.get(kind_name) or (
        str(err.schema_path[-1]) if err.schema_path else kind_name
    )
    path = list(err.instance_path)
    ptr = base + pointer(*path)
    details: dict[str, Any] = err.kind.as_dict()
    custom = _custom_message(err)

    if kind_name == "AnyOf" and custom is None:
        branches: list[list[Any]] = list(err.kind.context)
        fitting = [b for b in branches if not _only_type_mismatch(b, len(path))]
        if len(fitting) == 1:
            for sub in fitting[0]:
                yield from _convert(sub, base)
            return
        if not fitting:
            expected = " or ".join(_types_of(branches))
            yield schema_finding("type", ptr, f"expected {expected}, got {json_type(err.instance)}")
            return
    if kind_name == "AdditionalProperties":
        location = err.absolute_keyword_location or ""
        for key in details.get("unexpected", []):
            elsewhere = _versions_with(location, key)
            yield schema_finding(
                keyword,
                join(ptr, key),
                f"unknown field {key!r} in {elsewhere[0]} (it is defined in {elsewhere[1]}: "
                "declare that version or migrate the document)"
                if elsewhere
                else f"unknown field {key!r} (custom data belongs in an `extra` object)",
            )
        return
    if kind_name == "UnevaluatedProperties":
        for key in details.get("unexpected", []):
            yield schema_finding(keyword, join(ptr, key), f"unknown field {key!r}")
        return
    if kind_name == "Required":
        prop = str(details.get("property", ""))
        yield schema_finding(
            keyword, join(ptr, prop), custom or f"required field {prop!r} is missing"
        )
        return
    yield schema_finding(keyword, ptr, custom or _message(kind_name, details, err))


_SCHEMA_URI = re.compile(
    r"^(?P<head>.*/schemas/(?P<format>[^/]+)/)(?P<version>v[^/]+)(?P<tail>/.*)$"
)


@functools.cache
def _versions_with(location: str, key: str) -> tuple[str, str] | None:
    """For an ``additionalProperties`` failure at ``location``: the failing version and the
    other versions of the same format whose schema defines ``key`` at the same place (as
    ``("atif@v1.2", "v1.6..v1.8")``), or None when no version does."""

    match = _SCHEMA_URI.match(location.removesuffix("/additionalProperties"))
    spec = all_formats().get(match.group("format")) if match else None
    if match is None or spec is None:
        return None
    having = []
    for version in spec.versions:
        uri = f"{match.group('head')}{version}{match.group('tail')}"
        try:
            node = node_at(uri)
        except (LookupError, ValueError, KeyError, IndexError):
            continue
        props = node.get("properties") if isinstance(node, dict) else None
        if isinstance(props, dict) and key in props and version != match.group("version"):
            having.append(version)
    if not having:
        return None
    first = spec.versions.index(having[0])
    contiguous = list(spec.versions[first : first + len(having)]) == having
    span = (
        having[0]
        if len(having) == 1
        else f"{having[0]}..{having[-1]}"
        if contiguous
        else ", ".join(having)
    )
    return f"{spec.name}@{match.group('version')}", span


def _message(kind_name: str, details: dict[str, Any], err: Any) -> str:
    value = err.instance
    describe = _MESSAGES.get(kind_name)
    text = describe(details, value) if describe is not None else None
    if text is not None:
        return text
    message: str = err.message
    return message if len(message) <= 200 else message[:199] + "…"


def _type_message(details: dict[str, Any], value: Any) -> str:
    """A value of a type the schema does not allow."""
    expected = " or ".join(_null_last(list(details.get("types", []))))
    return f"expected {expected}, got {json_type(value)}"


def _enum_message(details: dict[str, Any], value: Any) -> str:
    """A value that is not one of an ``enum``'s options."""
    options = ", ".join(short(o) for o in details.get("options", []))
    return f"{short(value)} is not one of: {options}"


def _not_message(details: dict[str, Any], value: Any) -> str | None:
    """A line break where a line-break guard forbids one; None for any other ``not``."""
    if details.get("schema") in _LINE_BREAK_GUARDS:
        return f"{short(value)} must not contain a line break"
    return None


def _minimum_message(details: dict[str, Any], value: Any) -> str:
    """A number below its minimum (inclusive or exclusive)."""
    return f"{short(value)} is below the minimum {details.get('limit')}"


def _maximum_message(details: dict[str, Any], value: Any) -> str:
    """A number above its maximum (inclusive or exclusive)."""
    return f"{short(value)} is above the maximum {details.get('limit')}"


_MESSAGES: dict[str, Callable[[dict[str, Any], Any], str | None]] = {
    "Type": _type_message,
    "Enum": _enum_message,
    "Constant": lambda details, value: (
        f"expected {short(details.get('expected_value'))}, got {short(value)}"
    ),
    "Pattern": lambda details, value: (
        f"{short(value)} does not have the required form ({details.get('pattern')})"
    ),
    "Minimum": _minimum_message,
    "ExclusiveMinimum": _minimum_message,
    "Maximum": _maximum_message,
    "ExclusiveMaximum": _maximum_message,
    "MinItems": lambda details, value: (
        f"needs at least {details.get('limit')} item(s), has {len(value)}"
    ),
    "MinLength": lambda details, value: (
        f"must be at least {details.get('limit')} character(s) long"
    ),
    "AnyOf": lambda details, value: f"{short(value)} {_GENERIC_ANY_OF}",
    "Not": _not_message,
}
"""Error kind -> its message from the error's details and the failing value (None, or a kind
not listed: jsonschema-rs's own message)."""


ENGINE_DEPTH = 255
"""Levels of nesting jsonschema-rs's Python binding converts back to Python: ``iter_errors``
raises ``ValueError: Recursion limit reached`` for a failing value nested deeper (``is_valid``
has no such limit, so a deep value the schema accepts is checked in full)."""

_ENGINE_REFUSAL = "Recursion limit reached"

CUT_DEPTH = ENGINE_DEPTH - 15
"""Where :func:`findings_of` cuts a document the engine cannot report on: each container this
deep is replaced by an empty one of its type. No schema looks that deep (it would take some
thirty levels of embedded subagents), so the cut changes no finding above it."""


def findings_of(validator: Any, instance: Any, base: str = "") -> list[Finding]:
    """The findings of ``instance`` against a compiled schema (``base`` prefixes every pointer).

    Where the engine cannot report (a value it refuses is nested more than
    :data:`ENGINE_DEPTH` levels deep), the findings are those of a copy cut at
    :data:`CUT_DEPTH`, and each finding about a value that was cut short becomes one
    ``input:too-deep`` finding at that value's pointer, quoting what the schema says of it
    (or, when the cut copy shows nothing, one at ``base``). Findings come in document order.
    """
    try:
        found = findings_from_errors(validator.iter_errors(instance), base)
    except ValueError as exc:
        if str(exc) != _ENGINE_REFUSAL:
            raise
        found = _cut_short_findings(validator, instance, base)
    return _in_document_order(found, instance, base) if len(found) > 1 else found


def _cut_short_findings(validator: Any, instance: Any, base: str) -> list[Finding]:
    cut_short: set[str] = set()
    shallow = _cut(instance, base, 0, cut_short)
    found: dict[tuple[str, str], Finding] = {}
    for f in findings_from_errors(validator.iter_errors(shallow), base):
        if f.pointer not in cut_short:
            found.setdefault((f.code, f.pointer), f)
        elif ("input:too-deep", f.pointer) not in found:
            message = f"nested too deeply to check (over {CUT_DEPTH} levels): {f.message}"
            found["input:too-deep", f.pointer] = input_finding("too-deep", message, f.pointer)
    if not found:
        message = f"nested too deeply to check (over {CUT_DEPTH} levels) where refused"
        return [input_finding("too-deep", message, base)]
    return list(found.values())


def _in_document_order(found: list[Finding], instance: Any, base: str) -> list[Finding]:
    """``found`` in the order of the values they point at in ``instance`` (a missing member after
    its object's own), then by pointer and code: the engine's own order changes between its
    releases, and a document built in Python has no text to place findings by."""
    members: dict[int, dict[str, int]] = {}  # each object's keys, numbered once

    def place(f: Finding) -> tuple[list[int], str, str]:
        node, where = instance, []
        for token in parse_pointer(f.pointer[len(base) :]):
            if isinstance(node, dict):
                keys = members.get(id(node))
                if keys is None:
                    keys = members[id(node)] = {key: i for i, key in enumerate(node)}
                where.append(keys.get(token, len(keys)))
                node = node.get(token)
            elif isinstance(node, list) and token.isdigit():
                where.append(int(token))
                node = node[int(token)] if int(token) < len(node) else None
            else:
                break
        return where, f.pointer, f.code

    return sorted(found, key=place)


def _cut(value: Any, ptr: str, depth: int, cut_short: set[str]) -> Any:
    """``value`` (at ``ptr``, ``depth`` levels down) with each container :data:`CUT_DEPTH` deep
    replaced by an empty one of its type; adds to ``cut_short`` the pointer of each value that
    lost part of itself (the replaced containers and all that hold them)."""
    if not isinstance(value, (dict, list)):
        return value
    if depth >= CUT_DEPTH:
        cut_short.add(ptr)
        return {} if isinstance(value, dict) else []
    before = len(cut_short)
    out: Any
    if isinstance(value, dict):  # loops, not comprehensions: one stack frame per level
        out = {}
        for key, item in value.items():
            out[key] = _cut(item, join(ptr, key), depth + 1, cut_short)
    else:
        out = []
        for i, item in enumerate(value):
            out.append(_cut(item, join(ptr, i), depth + 1, cut_short))
    if len(cut_short) > before:
        cut_short.add(ptr)
    return out
