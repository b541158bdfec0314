"""The runner protocol's messages: building requests, checking responses (PROTOCOL.md).

Requests and responses are described by ``conformance-request.schema.json`` and
``conformance-response.schema.json`` in ``spec/atif-spec/v1/``; responses are checked
against the latter before anything is read from them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jsonschema_rs

from atif_spec.conformance.suite import Case
from atif_spec.schemas.catalog import read_spec_json
from atif_spec.validation.schema_findings import findings_of

if TYPE_CHECKING:
    import jsonschema_rs

PROTOCOL_VERSION = 2
"""The version the runner speaks; it falls back to 1 for an adapter that refuses 2."""
ACCEPTED_VERSIONS = (2, 1)
ROLES = ("validator", "consumer", "producer")
SCHEMA_DIR = "atif-spec/v1"


class ProtocolError(Exception):
    """A response that is not what the protocol allows at this point."""


@functools.cache
def schema(name: str) -> dict[str, Any]:
    """A packaged conformance schema (``request``, ``response``, ``report``, ``manifest``)."""
    loaded: dict[str, Any] = read_spec_json(f"{SCHEMA_DIR}/conformance-{name}.schema.json")
    return loaded


@functools.cache
def _response_validator() -> jsonschema_rs.Validator:

    return jsonschema_rs.validator_for(schema("response"))


def check_response(message: Any) -> dict[str, Any]:
    """``message`` if it is a valid response object, else :class:`ProtocolError`."""
    validator = _response_validator()
    if not validator.is_valid(message):
        first = findings_of(validator, message)[0]  # also for values nested too deeply
        where = first.pointer or "root"
        raise ProtocolError(f"not a protocol response ({where}: {first.message[:200]})")
    assert isinstance(message, dict)
    return message


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What an implementation said about itself in answer to ``start``."""

    raw: dict[str, Any]

    @property
    def name(self) -> str:
        """The implementation's name."""
        return str(self.raw["implementation"]["name"])

    @property
    def version(self) -> str:
        """The implementation's version."""
        return str(self.raw["implementation"]["version"])

    @property
    def profiles(self) -> frozenset[str]:
        """Profiles the implementation implements."""
        return frozenset(self.raw["profiles"])

    @property
    def findings(self) -> bool:
        """Whether its verdicts list findings that are compared."""
        return bool(self.raw["findings"])

    @property
    def protocol(self) -> int:
        """The protocol version it speaks."""
        return int(self.raw["protocol"])

    @property
    def roles(self) -> frozenset[str]:
        """``validator``, ``consumer``, ``producer`` (protocol 1: a validator)."""
        return frozenset(self.raw.get("roles", ["validator"]))

    @property
    def sources(self) -> tuple[str, ...]:
        """The kinds of native log a producer converts."""
        return tuple(self.raw.get("sources", ()))

    def reads(self, fmt: str, version: str) -> bool:
        """Whether a consumer reads documents of ``fmt@version``."""
        claimed = set(self.raw.get("reads", self.raw["formats"]))
        return "consumer" in self.roles and (fmt in claimed or f"{fmt}@{version}" in claimed)

    def unsupported(self, case: Case) -> str | None:
        """Why the implementation cannot validate ``case`` (never sent to it), or None."""
        if "validator" not in self.roles:
            return "not a validator"
        formats = set(self.raw["formats"])
        if case.format not in formats and case.suite_target not in formats:
            return f"format {case.suite_target} not supported"
        missing = [p for p in case.profiles if p not in self.profiles]
        if missing:
            return f"profile {', '.join(missing)} not supported"
        return None

    def unreadable(self, case: Case) -> str | None:
        """Why the implementation cannot read ``case``'s document (never sent), or None."""
        if "consumer" not in self.roles:
            return "not a consumer"
        if not self.reads(case.format, case.version):
            return f"does not read {case.suite_target}"
        return None


def start_request(version: int = PROTOCOL_VERSION) -> dict[str, Any]:
    """The first request of a session."""
    return {"cmd": "start", "protocol": version}


def stop_request() -> dict[str, Any]:
    """The last request of a session."""
    return {"cmd": "stop"}


def run_request(case: Case, document: Any) -> dict[str, Any]:
    """The request for one case: a ``read`` request's keys, plus its target and options."""
    request = {**read_request(case, document), "cmd": "run"}
    if case.target:
        request["target"] = case.target
    if case.options:
        request["options"] = dict(case.options)
    return request


def read_request(case: Case, document: Any) -> dict[str, Any]:
    """The protocol-2 request asking a consumer to read one case's (or written) document."""
    return {
        "cmd": "read",
        "id": case.id,
        "format": case.format,
        "version": case.version,
        "document": document,
        "folder": str(case.document.parent),
        "filename": case.document.name,
    }


def produce_request(item_id: str, source: str, path: str) -> dict[str, Any]:
    """The protocol-2 request asking a producer to convert one native log."""
    return {"cmd": "produce", "id": item_id, "source": source, "path": path}


class Refused(ProtocolError):
    """The implementation answered ``start`` with ``errored`` (e.g. an unknown version)."""


def started(message: Any) -> Capabilities:
    """The capabilities in an answer to ``start``, or :class:`ProtocolError`."""
    answer = check_response(message)
    if "errored" in answer:
        raise Refused(f"the implementation refused to start: {answer['errored']}")
    if "implementation" not in answer:
        raise ProtocolError("expected the answer to start, got a case answer")
    return Capabilities(answer)


def answer_for(case: Case, message: Any, expect: str = "valid") -> dict[str, Any]:
    """A checked answer to ``case``'s request, or :class:`ProtocolError`. ``expect`` is the key
    of the answer kind the request asks for (``valid``, ``ok``, ``documents``); ``skipped`` and
    ``errored`` are always allowed."""
    return answer_to(case.id, message, expect)


def answer_to(item_id: str, message: Any, expect: str) -> dict[str, Any]:
    """A checked answer to the request for ``item_id`` (see :func:`answer_for`)."""
    answer = check_response(message)
    if "implementation" in answer:
        raise ProtocolError("expected an answer to a request, got an answer to start")
    if answer.get("id", item_id) != item_id:
        raise ProtocolError(f"answer is for case {answer['id']!r}, not {item_id!r}")
    if not any(k in answer for k in (expect, "skipped", "errored")):
        raise ProtocolError(f"expected an answer with `{expect}`, got {sorted(answer)}")
    return answer
