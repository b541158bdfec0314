"""The typed decode of ATIF: documents that need no rule, recognised while they are decoded.

For each ATIF version, :mod:`atif_spec.validation.typed.structs` turns the packaged schema into
msgspec Structs narrowed twice: by the version's *screen* (``atif_spec.validation.rules.screen``:
string messages and result contents, no token ids or logprobs, no subagent references, timestamps
with an offset; ``extra.context_management`` is checked below) and by what
``rules.atif.quick_clean`` needs of a root (a string ``session_id``, no ``$schema``, no embedded
subagents). The roots of each version have ``schema_version`` as a required ``Literal`` member; the
first ``"schema_version"`` in the text picks which version's Structs to decode into.

:func:`clean_version` then runs :func:`quick_clean` — the same pass as
``rules.atif.quick_clean``, on the Structs — and answers the version only when no rule can find
anything. Every other document (a decode error, a version whose schema the builder cannot
translate, a step the quick pass is not sure about) gets None, and the caller validates it the
reference way, so the fast path decides no finding: it only skips work on clean documents.
``tests/validation/typed/test_atif.py`` checks that on the conformance suite and on generated
documents.
"""

from __future__ import annotations

import datetime
import functools
import math
import re
from typing import Annotated, Any, Union

import msgspec

from atif_spec.formats.atif import PREFIX, VERSIONS
from atif_spec.schemas.catalog import load_catalog, schema_by_id
from atif_spec.validation.typed.structs import (
    DROP,
    Builder,
    NullWhen,
    Override,
    Required,
    Unsupported,
    keep_types,
)

SCHEMA_TIMESTAMP = (
    "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    "T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]+)?)?"
    "(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?$"
)
"""The schemas' step timestamp pattern (with ``not: {pattern: "\\n"}``) that the override
below was written for; a schema with another one gets no typed decode until it is updated."""

TIMESTAMP_WITH_OFFSET = (
    r"\A[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]+)?)?"
    r"(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])\Z"
)
"""The schema's pattern with the offset required (the screen's narrowing). Python's ``$``
also matches before a final newline, so the end is ``\\Z``; no character class admits one."""
_TIMESTAMP = re.compile(TIMESTAMP_WITH_OFFSET).match

_DIGITS_TO_ZERO = bytes(48 if 48 <= i <= 57 else i for i in range(256))
STAMP_SHAPES = frozenset(
    f"0000-00-00T00:00:00{fraction}{offset}".encode()
    for fraction in ("", *("." + "0" * k for k in range(1, 10)))
    for offset in ("Z", "+00:00", "-00:00")
)
"""Timestamps with ASCII digits written ``0``: the common spellings of TIMESTAMP_WITH_OFFSET."""
_AWARE = msgspec.json.Decoder(list[Annotated[datetime.datetime, msgspec.Meta(tz=True)]])
_SEPARATOR = '","'


def timestamps_match(stamps: list[str]) -> bool:
    """Whether every string of ``stamps`` matches TIMESTAMP_WITH_OFFSET.

    Quicker than the pattern string by string: when the shape of each (its ASCII digits
    written ``0``) is one of STAMP_SHAPES and msgspec reads them all as dates and times with an
    offset (which checks every field's range: month 01-12, hour 00-23, offset 00-23:00-59, ...),
    each one matches. Otherwise each is matched with the pattern.
    ``tests/validation/typed/test_atif.py`` checks that the quick answer never says yes where
    the pattern says no."""
    joined = _SEPARATOR.join(stamps).encode()
    shapes = joined.translate(_DIGITS_TO_ZERO).split(b'","')
    # As many shapes as strings: no string held the separator.
    if len(shapes) == len(stamps) and STAMP_SHAPES.issuperset(shapes):
        try:
            _AWARE.decode(b'["' + joined + b'"]')
            return True
        except (msgspec.MsgspecError, ValueError):
            pass
    return all(_TIMESTAMP(stamp) is not None for stamp in stamps)


def _keep(*kinds: str) -> Override:
    def narrow(builder: Builder, node: dict[str, Any], ptr: str) -> Any:
        return builder.plain_type(keep_types(node, set(kinds)), ptr)

    return narrow


def _required_string(builder: Builder, node: dict[str, Any], ptr: str) -> Any:
    return Required(builder.plain_type(keep_types(node, {"string"}), ptr))


def _timestamp(builder: Builder, node: dict[str, Any], ptr: str) -> Any:
    expected = {
        "type": ["string", "null"],
        "pattern": SCHEMA_TIMESTAMP,
        "not": {"type": "string", "pattern": "\n"},
    }
    if {k: v for k, v in node.items() if k in ("type", "pattern", "not")} != expected or set(
        node
    ) - {"type", "pattern", "not", "title", "description"}:
        raise Unsupported(f"{ptr}: not the timestamp schema the override was written for")
    # A string here; quick_clean matches it with TIMESTAMP_WITH_OFFSET (msgspec's own pattern
    # check costs about three times as much as calling the compiled pattern directly).
    return Union[str, None]  # noqa: UP007


def _drop(builder: Builder, node: dict[str, Any], ptr: str) -> Any:
    return DROP


STEP = "#/$defs/Step/properties"
OVERRIDES: dict[str, Override] = {
    # what quick_clean asks of a root
    "#/properties/$schema": _drop,  # ATIF104 compares it with schema_version
    "#/properties/session_id": _required_string,  # ATIF102
    "#/properties/subagent_trajectories": _keep("null"),  # embedded nodes, ATIF501
    # the screen (atif_spec.validation.rules.screen.atif_screen)
    f"{STEP}/message": _keep("string"),
    f"{STEP}/timestamp": _timestamp,
    "#/$defs/Metrics/properties/prompt_token_ids": _keep("null"),
    "#/$defs/Metrics/properties/completion_token_ids": _keep("null"),
    "#/$defs/Metrics/properties/logprobs": _keep("null"),
    "#/$defs/ObservationResult/properties/content": _keep("string", "null"),
    "#/$defs/ObservationResult/properties/subagent_trajectory_ref": _keep("null"),
}
"""JSON pointer → narrowing (the screen's ``extra.context_management`` is checked by
:func:`quick_clean`, as it sits inside a free-form object)."""


READS = {
    "#": ("agent", "steps", "final_metrics", "notes"),
    "Agent": ("tool_definitions",),
    "Step": (
        "step_id",
        "timestamp",
        "extra",
        "metrics",
        "is_copied_context",
        "tool_calls",
        "observation",
    ),
    "Metrics": ("prompt_tokens", "cached_tokens", "completion_tokens", "cost_usd"),
    "FinalMetrics": (
        "total_steps",
        "total_prompt_tokens",
        "total_completion_tokens",
        "total_cached_tokens",
        "total_cost_usd",
    ),
    "ToolCall": ("tool_call_id",),
    "Observation": ("results",),
    "ObservationResult": ("source_call_id",),
}
"""The members :func:`quick_clean` reads, per definition: a version whose schema lacks one
(before v1.5: no ``tool_definitions``, no ``is_copied_context``) gets no typed decode."""


@functools.cache
def root_type(version: str) -> tuple[type, tuple[NullWhen, ...]]:
    """The root Struct of one version and its runtime checks;
    raises :class:`Unsupported` when the version's schema has what the builder cannot say."""

    schema = schema_by_id(load_catalog().find(f"atif@{version}").id)
    for ptr in OVERRIDES:
        parts = ptr.split("/")
        if parts[1] == "$defs" and parts[2] not in schema.get("$defs", {}):
            raise Unsupported(f"{ptr}: no such definition (renamed? the narrowing would be lost)")
    for name, members in READS.items():
        node = schema if name == "#" else schema.get("$defs", {}).get(name, {})
        missing = set(members) - set(node.get("properties", {}))
        if missing:
            raise Unsupported(f"{name}: no {sorted(missing)} for the quick pass to read")
    builder = Builder(schema, f"ATIF_{version.replace('.', '_')}_", OVERRIDES)
    tag = schema.get("properties", {}).get("schema_version", {})
    if tag.get("const") != PREFIX + version or "schema_version" not in schema.get("required", ()):
        raise Unsupported("#/properties/schema_version: not the const of this version")
    if set(schema) - {"$schema", "$id", "title", "description", "type", "additionalProperties",
                      "required", "properties", "$defs"}:  # fmt: skip
        raise Unsupported("#: the root has keywords beyond a closed object")
    # schema_version stays a required member (a Literal): a lone tagged Struct would accept a
    # document without its tag.
    root = builder.make(f"ATIF_{version.replace('.', '_')}", builder.fields(schema, "#"))
    return root, tuple(builder.null_when)


@functools.cache
def decoder(
    version: str,
) -> tuple[msgspec.json.Decoder[Any], dict[type, list[NullWhen]], tuple[str, Any] | None] | None:
    """The decoder of one version, the runtime checks of its step Structs and their common
    trigger (see :func:`quick_clean`), or None when the version's schema has what the builder
    cannot translate (built on first use)."""
    try:
        root, null_when = root_type(version)
        decode: msgspec.json.Decoder[Any] = msgspec.json.Decoder(root)
    except (Unsupported, TypeError):  # msgspec refuses some unions (two untagged Structs)
        return None
    checks: dict[type, list[NullWhen]] = {}
    for check in null_when:
        checks.setdefault(check.struct, []).append(check)
    triggers = {(check.when, check.value) for check in null_when}
    return decode, checks, triggers.pop() if len(triggers) == 1 else None


def typed_versions() -> list[str]:
    """The ATIF versions that have a typed decode."""
    return [version for version in VERSIONS if decoder(version) is not None]


_KEY = b'"schema_version"'
_QUOTED = {(f'"{PREFIX}{v}"').encode(): v for v in VERSIONS}
_LEADING = {
    f'{{"schema_version":{space}"{PREFIX}{v}"'.encode(): v for v in VERSIONS for space in ("", " ")
}
"""A document that opens with its ``schema_version`` (as serialisers write ATIF), compact or
with ``json.dumps``' spacing: the version is read from the first bytes with one lookup."""
_LEADING_SIZES = sorted({len(opening) for opening in _LEADING})


def _version_of(data: bytes) -> str | None:
    """The version named by the first ``"ATIF-vX.Y"`` after the first ``"schema_version"``."""
    for size in _LEADING_SIZES:
        version = _LEADING.get(data[:size])
        if version is not None:
            return version
    at = data.find(_KEY)
    if at < 0:
        return None
    start = data.find(b'"ATIF-', at + len(_KEY), at + 64)
    end = data.find(b'"', start + 1, start + 16) if start >= 0 else -1
    return _QUOTED.get(data[start : end + 1]) if end >= 0 else None


def clean_version(data: bytes) -> str | None:
    """The version of a document that decodes into the Structs and on which no ATIF rule can
    find anything; None when either is not certain (then validate it the reference way).

    The first ``"ATIF-vX.Y"`` after the first ``"schema_version"`` in the text picks the
    decoder, whose root requires that value, so a wrong guess (a nested member, an unusual
    spelling) only costs a failed decode."""
    version = _version_of(data)
    if version is None:
        return None
    typed = decoder(version)
    if typed is None:
        return None
    decode, checks, trigger = typed
    try:
        root = decode.decode(data)
    except (msgspec.MsgspecError, ValueError, RecursionError, OverflowError):
        return None  # not JSON, not of the Structs (msgspec raises UnicodeDecodeError on bad UTF-8)
    return version if quick_clean(root, checks, trigger) else None


# --- the quick pass on Structs (rules.atif.quick_clean, read from attributes) ---------------------


def _function_shaped(definition: dict[str, Any]) -> bool:
    if definition.get("type") != "function":
        return False
    function = definition.get("function")
    return isinstance(function, dict) and isinstance(function.get("name"), str)


def quick_clean(  # noqa: C901 - the typed fast path: one flat pass over every step, measured in bench/bench_validate.py
    root: Any, checks: dict[type, list[NullWhen]], trigger: tuple[str, Any] | None = None
) -> bool:
    """``rules.atif.quick_clean`` on a decoded root: True only when no rule can find anything.

    The Structs already hold what the screen and ``quick_clean`` ask of the types, of a root's
    ``session_id``, ``$schema`` and subagents; this adds the checks that sit in free-form
    objects (function-shaped tool definitions, a step's ``extra.context_management``), the
    step timestamps (the schema's pattern with the offset required), the
    schema's conditionals that the Structs cannot say (``checks``: no metrics or reasoning on an
    ``llm_call_count: 0`` agent step), and the quick pass itself, which mirrors
    ``rules.atif._quick_pass`` line for line. ``trigger`` (``(member, value)`` that every check
    of ``checks`` starts with) lets a step skip the checks with one read.
    """
    when, value = trigger if trigger is not None else (None, None)
    every_step = bool(checks) and trigger is None
    definitions = root.agent.tool_definitions
    if definitions and not all(_function_shaped(d) for d in definitions):
        return False
    # Token counts are ints (the Structs say so), so they are summed as they come; the costs
    # (ints or floats) are kept for math.fsum, as the rules add them up.
    prompt = completion = cached = 0
    cost: list[Any] = []
    stamps: list[str] = []
    for position, step in enumerate(root.steps, 1):
        stamp = step.timestamp
        if stamp is not None:
            stamps.append(stamp)
        extra = step.extra
        if extra is not None and extra.get("context_management") is not None:
            return False
        if every_step or (when is not None and getattr(step, when) == value):
            for check in checks.get(type(step), ()):
                if getattr(step, check.when) == check.value and any(
                    getattr(step, member) is not None for member in check.fields
                ):
                    return False
        metrics = step.metrics
        if metrics is not None:
            p, k = metrics.prompt_tokens, metrics.cached_tokens
            if step.is_copied_context is not True:
                c, u = metrics.completion_tokens, metrics.cost_usd
                if p is not None:
                    prompt += p
                if c is not None:
                    completion += c
                if u is not None:
                    cost.append(u)
                if k is not None:
                    cached += k
            if k is not None and p is not None and k > p:
                return False
        if step.step_id != position:
            return False
        calls = step.tool_calls
        n = len(calls) if calls else 0
        a = b = None
        ids: Any = ()
        if n == 1:
            a = b = calls[0].tool_call_id
        elif n == 2:
            a, b = calls[0].tool_call_id, calls[1].tool_call_id
            if a == b:
                return False
        elif n > 2:
            ids = {call.tool_call_id for call in calls}
            if len(ids) < n:
                return False
        observation = step.observation
        if observation is not None:
            for result in observation.results:
                ref = result.source_call_id
                if ref is not None and ref != a and ref != b and ref not in ids:
                    return False
    if stamps and not timestamps_match(stamps):
        return False
    final = root.final_metrics
    notes = root.notes
    if final is None or not (notes is None or not notes.strip()):
        return True
    total_steps = final.total_steps
    if total_steps is not None and total_steps != len(root.steps):
        return False
    total = final.total_prompt_tokens
    if total is not None and total != prompt:
        return False
    total = final.total_completion_tokens
    if total is not None and total != completion:
        return False
    total = final.total_cached_tokens
    if total is not None and total != cached:
        return False
    total_cost = final.total_cost_usd
    if total_cost is None:
        return True
    if type(total_cost) is not float:
        return False  # an integer cost: the rules decide
    try:
        return math.isclose(total_cost, math.fsum(cost), rel_tol=1e-6)
    except (OverflowError, TypeError):
        return False
