"""The validation pipeline: detect → schema → rules → report.

Pure functions from a parsed document (or bytes) to a :class:`Report`; reading files,
processes and printing live in the CLI.
"""

from __future__ import annotations

import functools
import gc
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atif_spec.formats import all_formats, detect, is_event_stream
from atif_spec.formats.streams import convert_hint
from atif_spec.jsonio.jsonvalues import lone_surrogates
from atif_spec.schemas.catalog import UnknownSchemaError, load_catalog
from atif_spec.schemas.targets import Target
from atif_spec.validation.findings import Finding, Level, Report, input_finding
from atif_spec.validation.locations import place
from atif_spec.validation.reader import (
    DEFAULT_MAX_BYTES,
    RawDocument,
    duplicate_keys,
    parse,
    parse_stream,
    whole_file,
)

if TYPE_CHECKING:  # the check itself lives with the rules that read referenced files
    from atif_spec.jsonio.samefile import FileId


@dataclass(frozen=True, slots=True)
class Options:
    """How to validate: the switches of ``atif validate`` as plain data."""

    as_target: str | None = None
    """``FORMAT@VERSION`` (or a bare ``vX.Y``) that overrides detection."""
    check_files: bool = True
    """Check that referenced media files exist (only when validating a file)."""
    allow_outside: bool = False
    """Let media and referenced trajectories resolve outside the file's folder."""
    follow_refs: bool = False
    """Also validate ``trajectory_path`` subagent files and continuation files."""
    check_duplicate_keys: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES
    outputs: frozenset[FileId] = frozenset()
    """Files this run writes (:func:`atif_spec.jsonio.samefile.file_ids`): reading one as a
    referenced file raises :class:`atif_spec.jsonio.atomic.OutputError`."""


def _json_kind(value: Any) -> str:
    """How a parsed JSON value is called in messages: ``null``, ``a string``, ``an array``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


_NUMBER = re.compile(r"\d+(?:\.\d+)*")


def _did_you_mean(given: Any, versions: tuple[str, ...], spelled: list[str]) -> str:
    """`` (did you mean ATIF-v1.7?)`` when ``given`` names a known version's number in
    another spelling (``"1.7"``, ``"v1.7"``, ``"atif-v1.7"``); empty otherwise."""
    if not isinstance(given, (str, int, float)) or isinstance(given, bool):
        return ""
    number = _NUMBER.search(str(given))
    if number is None:
        return ""
    for version, spelling in zip(versions, spelled, strict=True):
        if version.lstrip("v") == number.group() and spelling != given:
            return f" (did you mean {spelling}?)"
    return ""


def _identify(doc: Any, options: Options) -> tuple[str | None, str | None, list[Finding]]:
    """Format and version of a document, or the finding that says why neither is known."""
    forced = Target.parse(options.as_target) if options.as_target else None
    detected = detect(doc)
    fmt = (forced.format if forced else None) or (detected[0] if detected else None)
    if fmt is None:
        if not isinstance(doc, dict):
            kind = _json_kind(doc)
            hint = (
                " (a file holding several trajectories should be JSON Lines)"
                if isinstance(doc, list)
                else ""
            )
            return (
                None,
                None,
                [input_finding("not-an-object", f"the document is {kind}, not an object{hint}")],
            )
        return (
            None,
            None,
            [
                input_finding(
                    "unknown-format", "not a document of any known format (use --as FORMAT@VERSION)"
                )
            ],
        )
    if fmt not in all_formats():
        return None, None, [input_finding("unknown-format", f"unknown format {fmt!r}")]
    version = forced.version if forced and forced.version else None
    if version is None and detected and detected[0] == fmt:
        version = detected[1]
    spec = all_formats()[fmt]
    if spec.stream and not isinstance(doc, list):
        return (
            fmt,
            version,
            [input_finding("not-a-stream", f"a {fmt} document is a list of events")],
        )
    if not spec.stream and not isinstance(doc, dict):
        return fmt, version, [input_finding("not-an-object", f"a {fmt} document is a JSON object")]
    if version is None or version == "unknown" or version not in spec.versions:
        field = spec.version_field
        if field and field not in doc:
            return (
                fmt,
                None,
                [
                    input_finding(
                        "missing-schema-version",
                        f"no `{field}`: the version cannot be identified (use --as {fmt}@VERSION)",
                    )
                ],
            )
        if field:
            spelled = [
                spec.version_spelling(v) if spec.version_spelling else v for v in spec.versions
            ]
            given = doc.get(field)
            hint = _did_you_mean(given, spec.versions, spelled)
            known = ", ".join(spelled)
            return (
                fmt,
                None,
                [
                    input_finding(
                        "unknown-schema-version",
                        f"unknown `{field}` {given!r}{hint} (known: {known})",
                        f"/{field}",
                    )
                ],
            )
        return (
            fmt,
            None,
            [input_finding("unknown-version", f"cannot tell which {fmt} version this is")],
        )
    return fmt, version, []


@dataclass(frozen=True, slots=True)
class _Plan:
    """What validating one ``FORMAT@VERSION`` needs, looked up once (see :func:`_plan`)."""

    schema_id: str
    screen: Any
    """The compiled screen (``rules.screen``), or None when the format has none."""


@functools.cache
def _plan(fmt: str, version: str) -> _Plan | UnknownSchemaError:
    """The schema and screen of one target, or why there is none (cached per target)."""
    from atif_spec.validation.rules.screen import screen_validator  # noqa: PLC0415 - start-up: the screens compile schemas

    try:
        entry = load_catalog().find(Target(fmt, version))
    except UnknownSchemaError as exc:
        return exc
    return _Plan(entry.id, screen_validator(fmt, entry.id))


@functools.cache
def _rule_options(opts: Options) -> Any:
    """The rule switches of ``opts`` (one object per distinct set of options)."""
    from atif_spec.validation.rules import RuleOptions  # noqa: PLC0415 - start-up: importing the rules registers every rule

    return RuleOptions(
        check_files=opts.check_files,
        allow_outside=opts.allow_outside,
        follow_refs=opts.follow_refs,
        max_bytes=opts.max_bytes,
        validate_file=functools.partial(_validate_referenced, opts),
        outputs=opts.outputs,
    )


def _validate_referenced(opts: Options, path: Path, data: bytes) -> Report:
    """A file a document references (a subagent or a continuation), validated with the file
    switches of ``opts`` and its own references followed (``--follow-refs``)."""
    options = Options(
        check_files=opts.check_files,
        allow_outside=opts.allow_outside,
        follow_refs=True,
        max_bytes=opts.max_bytes,
        outputs=opts.outputs,
    )
    return validate_raw(RawDocument(str(path), data, None, path), options)


_DEFAULT = Options()


def validate_document(
    doc: Any,
    *,
    source: str = "<object>",
    line: int | None = None,
    path: Path | None = None,
    options: Options | None = None,
) -> Report:
    """Validate one parsed document and collect every finding.

    A document built in Python may hold a lone surrogate (``"\\ud800"``), which no parsed text
    can: where the schema engine or a rule meets one, the report holds an ``input:invalid-utf8``
    finding at each string or key that holds one, and nothing else is checked.
    """
    opts = options or _DEFAULT
    fmt, version, problems = _identify(doc, opts)
    report = Report(source, line, fmt, version, problems)
    if problems or fmt is None or version is None:
        return report
    plan = _plan(fmt, version)
    if isinstance(plan, UnknownSchemaError):
        problems.append(input_finding("unknown-version", str(plan)))
        return report
    try:
        problems.extend(_check(doc, fmt, version, plan, path, opts))
    except UnicodeEncodeError:
        unwritable = list(lone_surrogates(doc))
        if not unwritable:
            raise
        problems.extend(
            input_finding(
                "invalid-utf8",
                f"the {what} holds a lone surrogate (U+{ord(char):04X}), which is not Unicode "
                "text: no JSON text can hold it and the schema check cannot read it",
                ptr,
            )
            for ptr, what, char in unwritable
        )
    return report


def _check(
    doc: Any, fmt: str, version: str, plan: _Plan, path: Path | None, opts: Options
) -> list[Finding]:
    """The schema findings and rule findings of an identified document. A document built in
    Python (the API) may hold a lone surrogate, which no parsed text can: the schema engine
    then raises :class:`UnicodeEncodeError` (see :func:`validate_document`)."""
    found: list[Finding] = []
    # A document the screen accepts is schema-valid, and most rules may skip its steps.
    vouched = plan.screen is not None and plan.screen.is_valid(doc)
    if not vouched:
        from atif_spec.schemas.compiled import rs_validator  # noqa: PLC0415 - start-up: only a document the typed decode and the screen cannot vouch for needs it

        validator = rs_validator(plan.schema_id)
        if all_formats()[fmt].stream:
            found.extend(_event_findings(doc, validator))
        elif not validator.is_valid(doc):
            found.extend(_schema_findings(doc, fmt, version, validator))
    found.extend(
        _run_rules()(doc, fmt, version, path=path, options=_rule_options(opts), vouched=vouched)
    )
    return found


def _event_findings(events: list[Any], validator: Any) -> list[Finding]:
    """The schema findings of each event of a stream, at ``/i/...`` for the ``i``-th event."""
    from atif_spec.validation.schema_findings import findings_of  # noqa: PLC0415 - start-up: only a schema-invalid document needs it

    found: list[Finding] = []
    for index, event in enumerate(events):
        if not validator.is_valid(event):
            found.extend(findings_of(validator, event, f"/{index}"))
    return found


def _schema_findings(doc: Any, fmt: str, version: str, validator: Any) -> list[Finding]:
    """The schema findings of a document its schema refused, with the ATIF dispatch's
    tolerances: embedded subagents newer than the parent checked against their own version
    (DECISIONS.md D-7), later versions' fields set to null in an older document (D-8)."""
    from atif_spec.validation.schema_findings import findings_of  # noqa: PLC0415 - start-up: only a schema-invalid document needs it

    if fmt != "atif":
        return findings_of(validator, doc)
    from atif_spec.validation.later_nulls import tolerate  # noqa: PLC0415 - start-up: only a schema-invalid document needs it
    from atif_spec.validation.newer_embedded import newer_children, schema_findings  # noqa: PLC0415 - start-up: only a schema-invalid document needs it

    if newer_children(doc, version):
        found = schema_findings(doc, version, _atif_schema_check)
    else:
        found = findings_of(validator, doc)
    return tolerate(doc, version, found, _atif_schema_check)


@functools.cache
def _run_rules() -> Any:
    """``rules.engine.run_rules``, imported on first use (``atif --help`` loads no rule)."""
    from atif_spec.validation.rules.engine import run_rules  # noqa: PLC0415 - start-up: importing the rules registers every rule

    return run_rules


def _atif_schema_check(version: str, doc: Any) -> list[Finding]:
    """The schema findings of ``doc`` against ATIF ``version``'s schema."""
    from atif_spec.schemas.compiled import rs_validator  # noqa: PLC0415 - start-up: only a schema-invalid document needs it
    from atif_spec.validation.schema_findings import findings_of  # noqa: PLC0415 - start-up: only a schema-invalid document needs it

    entry = load_catalog().find(Target("atif", version))
    return findings_of(rs_validator(entry.id), doc)


PAUSE_GC_FROM = 256 * 1024
"""Documents of at least this many bytes are parsed and checked with the cyclic GC paused."""


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC (if on) for a stretch of work that builds no cycles, such as a batch
    of documents in a run of ``atif validate``, which owns its process; restored as found."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def validate_raw(raw: RawDocument, options: Options | None = None) -> Report:
    """Parse and validate one document read by :mod:`atif_spec.validation.reader`.

    Each finding gets its line and column in ``raw`` and the findings come in document order
    (:func:`atif_spec.validation.locations.place`; nothing to do for a valid document).

    A document of at least ``PAUSE_GC_FROM`` bytes is parsed and checked with Python's cyclic
    garbage collector paused. Parsing allocates one container per JSON object and array; the
    collector, triggered by those allocations, keeps traversing the freshly built tree although
    it cannot hold a cycle. That is a tenth of the parse time of a 9 MB trajectory. The collector
    is restored as found on the way out (documents are freed by reference counting, not by it).
    The switch is interpreter-wide: a thread that turns the collector off while another validates
    a large document may find it back on afterwards.
    """
    opts = options or _DEFAULT
    if len(raw.data) < PAUSE_GC_FROM:
        return place(_validate_raw(raw, opts), raw)
    with gc_paused():
        return place(_validate_raw(raw, opts), raw)


TYPED = True
"""Whether :func:`validate_raw` tries the typed decode first (tests turn it off to compare)."""


@functools.cache
def _clean_version() -> Any:
    """``typed.atif.clean_version``, imported on first use (it builds its Structs then)."""
    from atif_spec.validation.typed.atif import clean_version  # noqa: PLC0415 - start-up: it builds its Structs on import

    return clean_version


def _validate_raw(raw: RawDocument, opts: Options) -> Report:
    # The typed decode answers only for documents on which nothing can be found; any other
    # document (and any the options send elsewhere) is validated the reference way below.
    if TYPED and opts.as_target is None and not opts.follow_refs and raw.oversize is None:
        version = _clean_version()(raw.data) if raw.stream is None else None
        if version is not None:
            report = Report(raw.source, raw.line, "atif", version, [])
            if opts.check_duplicate_keys:
                report.findings.extend(duplicate_keys(raw.data))
            return report
    if raw.stream is not None and not is_event_stream(raw.stream):
        hint = convert_hint(raw.source, raw.stream)
        warning = input_finding("provider-stream", hint, "", Level.WARNING)
        return Report(source=raw.source, line=None, findings=[warning])
    reader = parse if raw.stream is None else parse_stream
    doc, problems = reader(raw, opts.max_bytes)
    if problems and any(p.level == "error" for p in problems):
        return Report(source=raw.source, line=raw.line, findings=problems)
    report = validate_document(doc, source=raw.source, line=raw.line, path=raw.path, options=opts)
    if opts.check_duplicate_keys:
        problems.extend(duplicate_keys(raw.data))
    if problems:
        report.findings[:0] = problems
    return report


@functools.lru_cache(maxsize=64)
def _options(
    as_target: str | None, check_files: bool, allow_outside: bool, follow_refs: bool
) -> Options:
    """The :class:`Options` of :func:`validate`'s switches (one object per combination)."""
    return Options(as_target, check_files, allow_outside, follow_refs)


def validate(
    obj_or_path: Any,
    *,
    as_target: str | None = None,
    check_files: bool = True,
    allow_outside: bool = False,
    follow_refs: bool = False,
) -> Report:
    """Validate a parsed document, a JSON string/bytes, or a path to a JSON file.

    >>> validate({"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"},
    ...           "steps": [{"step_id": 1, "source": "user", "message": "hi"}]}).errors
    []
    """
    options = _options(as_target, check_files, allow_outside, follow_refs)
    if type(obj_or_path) is dict:
        return validate_document(obj_or_path, options=options)
    if isinstance(obj_or_path, Path):
        return validate_raw(whole_file(obj_or_path), options)
    if isinstance(obj_or_path, (bytes, bytearray)):
        return validate_raw(RawDocument("<bytes>", bytes(obj_or_path)), options)
    if isinstance(obj_or_path, str):
        if obj_or_path.lstrip().startswith(("{", "[")):
            # A lone surrogate passes into the bytes, where it is invalid UTF-8 (a finding).
            data = obj_or_path.encode("utf-8", "surrogatepass")
            return validate_raw(RawDocument("<string>", data), options)
        return validate_raw(whole_file(Path(obj_or_path), obj_or_path), options)
    return validate_document(obj_or_path, options=options)
