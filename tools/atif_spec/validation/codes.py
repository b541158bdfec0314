"""Finding codes outside the rule registry: ``input:*`` (the input itself) and ``schema:*``
(a JSON Schema keyword), as data for ``atif rules``.

Registry rules describe themselves (``atif_spec.validation.rules.REGISTRY``); these codes are
produced by the reader, format detection and the schema check. ``tests/cli/test_hostile_inputs.py``
checks that every ``input_finding`` in the sources is listed here.
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
OTHER_CODES: tuple[Code, ...] = INPUT_CODES + SCHEMA_CODES
