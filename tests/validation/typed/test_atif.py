"""The typed decode (``atif_spec.validation.typed``) against the reference path.

The promise: ``validate_raw`` reports exactly the same with the typed decode as without it.
The decode only ever answers "clean" (otherwise the reference path runs), so the checks are:
what the Structs accept the version's schema and screen accept; what the typed quick pass
clears ``rules.atif.quick_clean`` clears too; and whole reports are equal on the conformance
suite, on generated documents (with planted rule violations) and on byte-level oddities (big
integers, integral floats, duplicate keys, NaN, bad UTF-8, lone surrogates, ``$schema``,
embedded subagents, a byte order mark, escaped keys, ...).
"""

from __future__ import annotations

import copy
import re
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atif_spec.jsonio import jsontext
from atif_spec.schemas.catalog import load_catalog
from atif_spec.schemas.compiled import rs_validator
from atif_spec.validation import pipeline as validation
from atif_spec.validation.findings import Report
from atif_spec.validation.pipeline import Options, validate_raw
from atif_spec.validation.reader import RawDocument
from atif_spec.validation.rules.atif import quick_clean as dict_quick_clean
from atif_spec.validation.rules.screen import screen_validator
from atif_spec.validation.typed import atif as typed
from atif_spec.validation.typed.structs import Builder, Unsupported, keep_types
from tests.support import ROOT
from tests.support.strategies import trajectories
from tests.support.strategies_screen import planted

TYPED = ("v1.5", "v1.6", "v1.7", "v1.8")


def _documents() -> list[tuple[str, bytes]]:
    """Every conformance document (each JSON Lines record on its own), as bytes."""
    out = []
    for path in sorted((ROOT / "conformance").rglob("*.json*")):
        data = path.read_bytes()
        name = str(path.relative_to(ROOT))
        if path.suffix == ".jsonl":
            out.extend(
                (f"{name}:{n}", line) for n, line in enumerate(data.split(b"\n"), 1) if line.strip()
            )
        elif path.suffix == ".json":
            out.append((name, data))
    return out


DOCUMENTS = _documents()


def _reference(raw: RawDocument, options: Options | None = None) -> Report:
    validation.TYPED = False
    try:
        return validate_raw(raw, options)
    finally:
        validation.TYPED = True


def _same(data: bytes, options: Options | None = None) -> Report:
    """Asserts that both paths report the same on ``data``; returns the report."""
    raw = RawDocument("<t>", data)
    got = validate_raw(raw, options)
    assert got == _reference(raw, options)
    return got


def _decoded(data: bytes) -> tuple[str, Any] | None:
    """``(version, root)`` when a typed decoder accepts ``data``."""
    for version in TYPED:
        found = typed.decoder(version)
        assert found is not None
        try:
            return version, found[0].decode(data)
        except (msgspec.MsgspecError, ValueError):
            continue
    return None


def _schema(version: str) -> Any:
    return rs_validator(load_catalog().find(f"atif@{version}").id)


def _screen(version: str) -> Any:
    return screen_validator("atif", load_catalog().find(f"atif@{version}").id)


def _conditionals_hold(root: Any, checks: dict[type, Any]) -> bool:
    """The schema conditionals and patterns the Structs leave to the quick pass hold on
    ``root``."""
    stamps = [step.timestamp for step in root.steps if step.timestamp is not None]
    if not all(re.match(typed.TIMESTAMP_WITH_OFFSET, stamp) for stamp in stamps):
        return False
    return not any(
        getattr(step, c.when) == c.value and any(getattr(step, m) is not None for m in c.fields)
        for step in root.steps
        for c in checks.get(type(step), ())
    )


def _check_narrowing(data: bytes) -> bool:
    """What a decoder accepts its schema and screen accept, and a root the typed quick pass
    clears ``rules.atif.quick_clean`` clears; True when the decode answered "clean"."""
    decoded = _decoded(data)
    if decoded is None:
        assert typed.clean_version(data) is None
        return False
    version, root = decoded
    doc = jsontext.loads(data)  # as the reader parses: integers beyond 64 bits keep their digits
    _, checks, trigger = typed.decoder(version)  # type: ignore[misc]
    if _conditionals_hold(root, checks):
        assert _schema(version).is_valid(doc), "the Structs accepted what the schema rejects"
    clean = typed.quick_clean(root, checks)
    assert typed.quick_clean(root, checks, trigger) is clean  # the trigger skips nothing
    if _screen(version).is_valid(doc):
        assert clean is dict_quick_clean(doc)
    else:
        assert not clean, "the typed pass cleared a document the screen turns away"
    return clean


# --- what has a typed decode ---------------------------------------------------------------------


def test_the_versions_real_data_uses_have_a_typed_decode() -> None:
    """v1.5 to v1.8 translate; before v1.5 the schemas lack members the quick pass reads."""
    assert typed.typed_versions() == list(TYPED)
    for version in ("v1.0", "v1.4"):
        with pytest.raises(Unsupported):
            typed.root_type(version)


def test_the_builder_refuses_what_it_cannot_say() -> None:
    for schema in (
        {"type": "object", "additionalProperties": False, "properties": {"a": {"not": {}}}},
        {"type": "object", "properties": {"a": {"type": "string"}}},  # open object
        {
            "type": "object",
            "additionalProperties": False,
            "properties": {"a": {"type": "string", "pattern": "x"}},
        },
        {
            "type": "object",
            "additionalProperties": False,
            "properties": {"a": {"type": "integer", "multipleOf": 2}},
        },
        {
            "type": "object",
            "additionalProperties": False,
            "properties": {"a": {"type": ["string", "integer"], "const": "x"}},
        },
    ):
        with pytest.raises(Unsupported):
            Builder(schema, "T", {}).fields(schema, "#")


def test_keep_types_only_drops_alternatives() -> None:
    node = {"type": ["array", "null"], "items": {"type": "integer"}, "minItems": 1}
    assert keep_types(node, {"null"}) == {"type": "null"}
    union = {"anyOf": [{"type": "string"}, {"type": "array"}, {"type": "null"}]}
    assert keep_types(union, {"string", "null"}) == {
        "anyOf": [{"type": "string"}, {"type": "null"}]
    }
    with pytest.raises(Unsupported):
        keep_types(union, {"boolean"})


# --- the conformance suite -----------------------------------------------------------------------


@pytest.mark.parametrize(("name", "data"), DOCUMENTS, ids=[n for n, _ in DOCUMENTS])
def test_fixtures_report_the_same(name: str, data: bytes) -> None:
    _same(data)
    _check_narrowing(data)


def test_the_suite_exercises_the_typed_decode() -> None:
    cleared = [name for name, data in DOCUMENTS if typed.clean_version(data)]
    assert len(cleared) >= 150, len(cleared)
    assert {typed.clean_version(d) for _, d in DOCUMENTS} >= {"v1.7", "v1.8"}


# --- generated documents -------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(TYPED).flatmap(trajectories))
def test_general_documents_report_the_same(doc: dict[str, Any]) -> None:
    data = orjson.dumps(doc)
    _same(data)
    _check_narrowing(data)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(planted())
def test_planted_violations_report_the_same(case: tuple[str, dict[str, Any], list[str]]) -> None:
    _, doc, _ = case
    data = orjson.dumps(doc)
    report = _same(data)
    if _check_narrowing(data):
        assert not report.findings


# --- byte-level cases ----------------------------------------------------------------------------


def _plain() -> dict[str, Any]:
    return {
        "schema_version": "ATIF-v1.8",
        "session_id": "s",
        "agent": {
            "name": "a",
            "version": "1",
            "tool_definitions": [{"type": "function", "function": {"name": "f"}}],
        },
        "steps": [
            {"step_id": 1, "source": "user", "message": "go"},
            {
                "step_id": 2,
                "timestamp": "2025-10-11T10:30:00Z",
                "source": "agent",
                "message": "m",
                "tool_calls": [{"tool_call_id": "c", "function_name": "f", "arguments": {"x": 1}}],
                "observation": {"results": [{"source_call_id": "c", "content": "out"}]},
                "metrics": {"prompt_tokens": 30, "cached_tokens": 10, "cost_usd": 0.5},
                "llm_call_count": 1,
                "extra": {"k": 1},
            },
        ],
        "final_metrics": {"total_prompt_tokens": 30, "total_cost_usd": 0.5, "total_steps": 2},
    }


PLAIN = orjson.dumps(_plain())


def test_the_plain_document_takes_the_typed_path() -> None:
    assert typed.clean_version(PLAIN) == "v1.8"
    assert _same(PLAIN).findings == []


def _swap(old: bytes, new: bytes) -> bytes:
    assert old in PLAIN, old
    return PLAIN.replace(old, new, 1)


BYTE_CASES = {
    "big prompt count": _swap(b'"prompt_tokens":30', b'"prompt_tokens":%d' % (2**70)),
    "big total": _swap(b'"total_prompt_tokens":30', b'"total_prompt_tokens":%d' % (2**64)),
    "big counts that match": _swap(b'"prompt_tokens":30', b'"prompt_tokens":%d' % (2**70)).replace(
        b'"total_prompt_tokens":30', b'"total_prompt_tokens":%d' % (2**70)
    ),
    "big argument": _swap(b'{"x":1}', b'{"x":%d}' % (2**70)),
    "negative big argument": _swap(b'{"x":1}', b'{"x":-%d}' % (2**64)),
    "integral float step id": _swap(b'"step_id":2', b'"step_id":2.0'),
    "integral float tokens": _swap(b'"prompt_tokens":30', b'"prompt_tokens":30.0'),
    "integral float total": _swap(b'"total_prompt_tokens":30', b'"total_prompt_tokens":30.0'),
    "integer cost": _swap(b'"cost_usd":0.5', b'"cost_usd":1').replace(
        b'"total_cost_usd":0.5', b'"total_cost_usd":1'
    ),
    "duplicate step id, wrong last": _swap(b'"step_id":2', b'"step_id":2,"step_id":5'),
    "duplicate step id, right last": _swap(b'"step_id":2', b'"step_id":5,"step_id":2'),
    "duplicate step id, bad first": _swap(b'"step_id":2', b'"step_id":"x","step_id":2'),
    "duplicate message": _swap(b'"message":"m"', b'"message":[],"message":"m"'),
    "NaN argument": _swap(b'{"x":1}', b'{"x":NaN}'),
    "Infinity cost": _swap(b'"cost_usd":0.5', b'"cost_usd":Infinity'),
    "huge exponent argument": _swap(b'{"x":1}', b'{"x":1e400}'),
    "huge exponent cost": _swap(b'"cost_usd":0.5', b'"cost_usd":1e400'),
    "bad UTF-8 message": _swap(b'"message":"m"', b'"message":"\xff"'),
    "bad UTF-8 argument": _swap(b'{"x":1}', b'{"x":"\xc3"}'),
    "bad UTF-8 key": _swap(b'{"x":1}', b'{"\xed\xa0\x80":1}'),
    "lone surrogate content": _swap(b'"content":"out"', b'"content":"\\ud800"'),
    "lone surrogate argument": _swap(b'{"x":1}', b'{"x":"\\udc00"}'),
    "surrogate pair": _swap(b'"content":"out"', b'"content":"\\ud83d\\ude00"'),
    "control character": _swap(b'"content":"out"', b'"content":"a\x01b"'),
    "escaped key": _swap(b'"step_id":2', b'"step\\u005fid":2'),
    "escaped wrong key": _swap(b'"step_id":2', b'"step\\u005fiD":2'),
    "$schema": _swap(b'{"schema_version"', b'{"$schema":"x","schema_version"'),
    "$schema of another version": _swap(
        b'{"schema_version"',
        b'{"$schema":"https://atif-spec.org/schemas/atif/v1.7/trajectory.schema.json",'
        b'"schema_version"',
    ),
    "byte order mark": b"\xef\xbb\xbf" + PLAIN,
    "trailing garbage": PLAIN + b" x",
    "trailing whitespace": PLAIN + b" \n",
    "timestamp with newline": _swap(b'00Z"', b'00Z\\n"'),
    "timestamp without offset": _swap(b'00Z"', b'00"'),
    "timestamp with unicode digit": _swap(b'"2025-', b'"\xd9\xa2025-'),
    "llm_call_count 0 with metrics": _swap(b'"llm_call_count":1', b'"llm_call_count":0'),
    "llm_call_count 0 as float": _swap(b'"llm_call_count":1', b'"llm_call_count":0.0'),
    "context management": _swap(
        b'"extra":{"k":1}', b'"extra":{"context_management":{"type":"compaction"}}'
    ),
    "context management null": _swap(b'"extra":{"k":1}', b'"extra":{"context_management":null}'),
    "tool definition not a function": _swap(b'"type":"function"', b'"type":"tool"'),
    "agent field on a user step": _swap(
        b'"source":"user","message":"go"', b'"source":"user","message":"go","model_name":"x"'
    ),
    "null agent field on a user step": _swap(
        b'"source":"user","message":"go"', b'"source":"user","message":"go","model_name":null'
    ),
    "unknown source": _swap(b'"source":"user"', b'"source":"tool"'),
    "no source": _swap(b'"source":"user",', b""),
    "session id null": _swap(b'"session_id":"s"', b'"session_id":null'),
    "no session id": _swap(b'"session_id":"s",', b""),
    "empty subagents": _swap(b'"final_metrics"', b'"subagent_trajectories":[],"final_metrics"'),
    "unknown member": _swap(b'"llm_call_count":1', b'"llm_call_count":1,"zzz":1'),
    "version spelled twice": _swap(
        b'"session_id":"s"', b'"session_id":"s","schema_version":"ATIF-v1.7"'
    ),
    "nested version first": b'{"extra":{"schema_version":"ATIF-v1.7"},' + PLAIN[1:],
    "spaced opening": _swap(b'{"schema_version":"', b'{"schema_version": "'),
    "spaced opening of an older version": _swap(
        b'{"schema_version":"ATIF-v1.8"', b'{"schema_version": "ATIF-v1.7"'
    ),
    "older version first": _swap(
        b'{"schema_version":"ATIF-v1.8"', b'{"schema_version":"ATIF-v1.7"'
    ),
    "unknown version first": _swap(
        b'{"schema_version":"ATIF-v1.8"', b'{"schema_version":"ATIF-v9.9"'
    ),
    "opening with a space inside": _swap(b'{"schema_version"', b'{ "schema_version"'),
    "cached above prompt": _swap(b'"cached_tokens":10', b'"cached_tokens":31'),
    "dangling source call": _swap(b'"source_call_id":"c"', b'"source_call_id":"d"'),
    "total steps off": _swap(b'"total_steps":2', b'"total_steps":3'),
    "cost total off": _swap(b'"total_cost_usd":0.5', b'"total_cost_usd":0.6'),
    "empty steps": _swap(b'"steps":[', b'"steps":[],"x":['),
    "a list": b"[" + PLAIN + b"]",
    "empty": b"",
}


@pytest.mark.parametrize("name", sorted(BYTE_CASES))
@pytest.mark.parametrize("duplicates", [False, True])
def test_byte_level_cases_report_the_same(name: str, duplicates: bool) -> None:
    data = BYTE_CASES[name]
    _same(data, Options(check_duplicate_keys=duplicates))
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        assert typed.clean_version(data) is None
        return
    _check_narrowing(data)


def _searched_version(data: bytes) -> str | None:
    """The version the way ``clean_version`` documents it: the first ``"ATIF-vX.Y"`` after the
    first ``"schema_version"``, by a regular expression."""
    found = re.search(rb'"schema_version"[^"]{0,46}"(ATIF-v[0-9.]+)"', data)
    if found is None or found.start(1) - 1 > data.find(b'"schema_version"') + 64:
        return None
    name = found.group(1).decode()
    return name.removeprefix("ATIF-") if name.removeprefix("ATIF-") in typed.VERSIONS else None


@pytest.mark.parametrize("name", sorted(BYTE_CASES))
def test_the_quick_version_lookup_finds_what_the_search_finds(name: str) -> None:
    """Documents that open with their version are read from the first bytes; the answer is
    the one the search through the text gives."""
    data = BYTE_CASES[name]
    assert typed._version_of(data) == _searched_version(data)


def test_big_integers_keep_their_digits_on_the_typed_path() -> None:
    assert typed.clean_version(BYTE_CASES["big counts that match"]) == "v1.8"
    assert typed.clean_version(BYTE_CASES["big prompt count"]) is None
    assert {f.code for f in _same(BYTE_CASES["big prompt count"]).findings} == {"ATIF306"}


def test_options_that_need_the_reference_path_skip_the_typed_decode() -> None:
    raw = RawDocument("<t>", PLAIN)
    for options in (Options(as_target="atif@v1.8"), Options(follow_refs=True)):
        assert validate_raw(raw, options) == _reference(raw, options)


def test_every_subagent_document_takes_the_reference_path() -> None:
    doc = _plain()
    sub = copy.deepcopy(doc)
    sub["trajectory_id"] = "t"
    doc["subagent_trajectories"] = [sub]
    data = orjson.dumps(doc)
    assert typed.clean_version(data) is None
    _same(data)


def test_the_byte_cases_that_stay_on_the_typed_path() -> None:
    """The oddities that change nothing the rules read stay on the typed path (and are compared
    above); every other case falls back to the reference path."""
    assert {name for name, data in BYTE_CASES.items() if typed.clean_version(data)} == {
        "big counts that match",
        "big argument",
        "negative big argument",
        "duplicate step id, right last",
        "surrogate pair",
        "escaped key",
        "trailing whitespace",
        "context management null",
        "null agent field on a user step",
        "spaced opening",
        "opening with a space inside",
        "older version first",
        "spaced opening of an older version",
    }


# --- the quick timestamp check -------------------------------------------------------------------


def _pattern(stamp: str) -> bool:
    return re.match(typed.TIMESTAMP_WITH_OFFSET, stamp) is not None


BASES = ("2025-10-11T10:30:00Z", "2025-10-11T10:30:00.123+05:30", "2025-10-11T10:30:00.5-00:00")


@pytest.mark.parametrize("base", BASES)
def test_every_two_digit_field_value_is_judged_as_the_pattern_judges_it(base: str) -> None:
    """Month, day, hour, minute, second and the offset's hour and minute, each at 00 to 99."""
    fields = [5, 8, 11, 14, 17] + ([len(base) - 5, len(base) - 2] if base[-1] != "Z" else [])
    for at in fields:
        for value in range(100):
            stamp = f"{base[:at]}{value:02d}{base[at + 2 :]}"
            assert typed.timestamps_match([stamp]) is _pattern(stamp), stamp


STAMP_TEXT = st.text(alphabet='0123456789-T:.Z+tz ,\n\u0663"\\', min_size=10, max_size=32)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(BASES) | STAMP_TEXT, min_size=1, max_size=4))
def test_the_quick_timestamp_check_agrees_with_the_pattern(stamps: list[str]) -> None:
    assert typed.timestamps_match(stamps) is all(_pattern(s) for s in stamps)


@pytest.mark.parametrize(
    "stamp",
    [
        "2025-10-11t10:30:00Z",
        "2025-10-11T10:30:00z",
        "2025-10-11 10:30:00Z",
        "2025-10-11T10:30:00+0530",
        "2025-10-11T10:30:00",
        "2025-02-30T10:30:00Z",  # the pattern allows it; msgspec does not (the pattern decides)
        "0000-01-01T00:00:00Z",
        "2025-10-11T10:30Z",
        "2025-10-11T10:30:00.1234567890123Z",
        '2025-10-11T10:30:00Z","2025-10-11T10:30:00Z',
        "2025-10-11T10:30:00Z\n",
        "\u0662025-10-11T10:30:00Z",
    ],
)
def test_spellings_msgspec_reads_differently(stamp: str) -> None:
    assert typed.timestamps_match([stamp]) is _pattern(stamp)
    assert typed.timestamps_match([BASES[0], stamp]) is _pattern(stamp)
