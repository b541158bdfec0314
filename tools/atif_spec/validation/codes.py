"""Finding codes outside the rule registry: ``input:*`` (the input itself), ``schema:*`` (a JSON
Schema keyword) and ``migrate:*``/``convert:*`` (what a transform refuses or warns about), as data
for ``atif rules`` and ``spec/finding-codes.json``.

Registry rules describe themselves (``atif_spec.validation.rules.REGISTRY``); the other codes are
produced by the reader, format detection, the schema check and the transforms.
``tests/cli/test_hostile_inputs.py`` checks that every ``input_finding`` in the sources is listed
here, ``tests/validation/test_codes.py`` every transform code.
"""

from __future__ import annotations

from dataclasses import dataclass

from atif_spec.validation.findings import Level, schema_finding


@dataclass(frozen=True, slots=True)
class Code:
    """One finding code that no registry rule produces."""

    code: str
    name: str
    level: Level
    summary: str
    section: str


_INPUT = {
    "invalid-json": (Level.ERROR, "The bytes are not JSON (or are cut short: truncated JSON)."),
    "invalid-utf8": (
        Level.ERROR,
        "The bytes are not valid UTF-8 (a document built in Python: a string or key holds a lone "
        "surrogate, at its pointer).",
    ),
    "non-finite-number": (Level.ERROR, "NaN or Infinity, which JSON does not have, is a value."),
    "too-deep": (
        Level.ERROR,
        "Nesting is deeper than the parser's limit of 1024 levels, too deep to transform, or too "
        "deep to check at a place the schema refuses (over 240 levels: at that value's pointer).",
    ),
    "too-large": (Level.ERROR, "The document is larger than --max-bytes."),
    "byte-order-mark": (Level.WARNING, "The document starts with a UTF-8 byte order mark."),
    "duplicate-key": (Level.WARNING, "An object repeats a key (--check-duplicate-keys)."),
    "not-an-object": (Level.ERROR, "The document is not a JSON object (an array, null, ...)."),
    "not-a-stream": (
        Level.ERROR,
        "A document read as an event stream (--as atof@v0.1) is not a list of events.",
    ),
    "unknown-format": (Level.ERROR, "No known format recognises the document (use --as)."),
    "missing-schema-version": (Level.ERROR, "The version field is missing (use --as)."),
    "unknown-schema-version": (
        Level.ERROR,
        "The version field names no known version (a misspelling gets a suggestion).",
    ),
    "unknown-version": (Level.ERROR, "The format's version cannot be told."),
    "missing-timestamp": (
        Level.WARNING,
        "atif migrate from a legacy step-substep log: the source records no time for a field.",
    ),
    "provider-stream": (
        Level.WARNING,
        "A JSON Lines file is a provider's event stream (Codex, Claude Code, Gemini CLI): one "
        "finding for the file, naming the `atif convert --to step-substep@v1.0` command.",
    ),
    "legacy-event": (
        Level.WARNING,
        "atif migrate from a legacy step-substep log: a line is not a legacy event; kept in extra.",
    ),
}

_SCHEMA_KEYWORDS = (
    "additionalItems",
    "additionalProperties",
    "anyOf",
    "const",
    "contains",
    "enum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "false",
    "format",
    "maxItems",
    "maxLength",
    "maxProperties",
    "maximum",
    "minItems",
    "minLength",
    "minProperties",
    "minimum",
    "multipleOf",
    "not",
    "oneOf",
    "pattern",
    "propertyNames",
    "required",
    "type",
    "unevaluatedItems",
    "unevaluatedProperties",
)

INPUT_CODES: tuple[Code, ...] = tuple(
    Code(f"input:{what}", what, level, summary, "RFC.md §4.2 Findings")
    for what, (level, summary) in _INPUT.items()
)
SCHEMA_CODES: tuple[Code, ...] = tuple(
    Code(
        f"schema:{keyword}",
        schema_finding(keyword, "", "").name,
        Level.ERROR,
        f"The document breaks the `{keyword}` keyword of its version's JSON Schema.",
        "RFC.md §4.2 Findings; the version's schema in spec/ (ATIF fields: RFC.md §2.3)",
    )
    for keyword in _SCHEMA_KEYWORDS
)

_TRANSFORMS = "RFC.md §4.3 Reports (change report); RFC.md §4.5 The stash"
_BOTH = ("migrate", "convert")
_TRANSFORM: dict[str, tuple[tuple[str, ...], Level, str]] = {
    "would-lose-data": (
        _BOTH,
        Level.ERROR,
        "--fail-on-loss: the target cannot hold a value of the document (it would be stashed or "
        "dropped).",
    ),
    "needs-decision": (
        _BOTH,
        Level.ERROR,
        "--fail-on-decision: a value would be written by a documented policy (decided).",
    ),
    "stash-collision": (
        _BOTH,
        Level.ERROR,
        "The stash cannot be read or written: its holder is not an object, or the reserved stash "
        "key holds something that is not a stash.",
    ),
    "stash-version": (
        _BOTH,
        Level.ERROR,
        "The stash was written by an earlier atif-spec (stash version 1), which is not read any "
        "more: convert the source document again.",
    ),
    "stash-patch": (
        _BOTH,
        Level.ERROR,
        "The patch of the stash's top layer does not give a document back.",
    ),
    "context-only-step": (
        ("migrate",),
        Level.WARNING,
        "Below v1.5 / v1.7 a context-only step's is_copied_context / llm_call_count is kept in "
        "the step's extra under the same name (spec/atif/DECISIONS.md D-11).",
    ),
    "session-only-ref": (
        ("migrate",),
        Level.ERROR,
        "A v1.6 subagent reference holding only a session_id, migrated to v1.7 or later without "
        "--session-ref-path (spec/atif/DECISIONS.md D-10).",
    ),
    "no-conversion": (
        ("convert",),
        Level.ERROR,
        "No conversion leads from the document's format and version to the target.",
    ),
    "bad-target": (("convert",), Level.ERROR, "The target names no known format and version."),
    "invalid-source": (
        ("convert",),
        Level.ERROR,
        "The document is not valid under its source schema, which the conversion needs.",
    ),
    "no-steps": (
        ("convert",),
        Level.ERROR,
        "The event stream holds no event that is a step of ATIF (ATOF to ATIF).",
    ),
    "otel-no-spans": (
        ("convert",),
        Level.ERROR,
        "The OTLP/JSON line holds no span (OpenTelemetry to ATIF).",
    ),
    "otel-trace-lines": (
        ("convert",),
        Level.WARNING,
        "The spans of the converted trace come from several lines of the OTLP/JSON file, which "
        "the finding names (an exporter writes a line per batch; RFC.md §7.1 item 2).",
    ),
    "otel-several-traces": (
        ("convert",),
        Level.ERROR,
        "The OTLP/JSON document holds spans of several traces; one document is one trace "
        "(`atif convert` reads a file one trace per document; spec/otel/DECISIONS.md OTEL-2).",
    ),
    "unlinked-tool-response": (
        ("convert",),
        Level.ERROR,
        "A trajectory-sdk tool message answers no earlier tool call (TSDK201, TSDK203).",
    ),
    "broken-prefix": (
        ("convert",),
        Level.ERROR,
        "A trajectory-sdk step does not repeat the messages of the step before it (TSDK101).",
    ),
    "output-too-large": (
        ("convert",),
        Level.ERROR,
        "The trajectory-sdk document would be larger than --max-bytes-out.",
    ),
    "large-output": (
        ("convert",),
        Level.WARNING,
        "The trajectory-sdk document is large (each snapshot repeats every message before it).",
    ),
}

TRANSFORM_CODES: tuple[Code, ...] = tuple(
    Code(f"{kind}:{what}", what, level, summary, _TRANSFORMS)
    for what, (kinds, level, summary) in _TRANSFORM.items()
    for kind in kinds
)
OTHER_CODES: tuple[Code, ...] = INPUT_CODES + SCHEMA_CODES + TRANSFORM_CODES
