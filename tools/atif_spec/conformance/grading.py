"""Whether an answer meets a case: the pass rules of PROTOCOL.md ("Passing a case")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from atif_spec.conformance.protocol import Capabilities
from atif_spec.conformance.suite import Case
from atif_spec.conformance.summary import mismatches

PASSED, FAILED, SKIPPED, ERRORED = "passed", "failed", "skipped", "errored"
INFORMATIONAL = "informational"
"""Protocol 2: an invalid case read by a consumer; recorded, never graded."""
OUTCOMES = (PASSED, FAILED, SKIPPED, ERRORED, INFORMATIONAL)

Pair = tuple[str, str]


@dataclass(slots=True)
class CaseResult:
    """The outcome of one case, ready for the report."""

    case: Case
    outcome: str
    reason: str | None = None
    valid: bool | None = None
    missing: list[Pair] = field(default_factory=list)
    unexpected: list[Pair] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    summary: dict[str, Any] | None = None
    """A consumer's summary of what it read (``read`` answers only)."""
    mismatches: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """One ``case`` line of the JSON Lines report."""

        def pairs(items: list[Pair] | tuple[Pair, ...]) -> list[dict[str, str]]:
            return [{"code": c, "pointer": p} for c, p in items]

        c = self.case
        extra: dict[str, Any] = (
            {}
            if self.summary is None and not self.mismatches
            else {"summary": self.summary, "mismatches": self.mismatches}
        )
        return {
            "type": "case",
            "id": c.id,
            "format": c.format,
            "version": c.version,
            "category": c.category,
            "profiles": list(c.profiles),
            "outcome": self.outcome,
            "reason": self.reason,
            "valid": self.valid,
            "expected": pairs(c.expected),
            "missing": pairs(self.missing),
            "unexpected": pairs(self.unexpected),
            "messages": self.messages,
            **extra,
        }


def _pairs(findings: Any) -> list[Pair]:
    return [(str(f["code"]), str(f["pointer"])) for f in findings or []]


def compare_findings(
    reported: Iterable[Pair], expected: Iterable[Pair]
) -> tuple[list[Pair], list[Pair]]:
    """``(missing, unexpected)``: findings compared as a multiset of ``(code, pointer)``."""
    got, want = Counter(reported), Counter(expected)
    return sorted((want - got).elements()), sorted((got - want).elements())


def _verdict_word(valid: bool) -> str:
    return "valid" if valid else "invalid"


def grade(case: Case, caps: Capabilities, answer: dict[str, Any]) -> CaseResult:
    """Grade a checked answer (a verdict, ``skipped`` or ``errored``) to ``case``."""
    messages = [str(m) for m in answer.get("messages", [])]
    if "skipped" in answer:
        return CaseResult(case, SKIPPED, f"declined: {answer['skipped']}", messages=messages)
    if "errored" in answer:
        return CaseResult(case, ERRORED, str(answer["errored"]), messages=messages)
    valid = bool(answer["valid"])
    result = CaseResult(case, PASSED, valid=valid, messages=messages)
    if caps.findings:
        reported = _pairs(answer.get("errors"))
        if "should" in caps.profiles:
            reported += _pairs(answer.get("warnings"))
        result.missing, result.unexpected = compare_findings(reported, case.expected)
    problems = []
    if valid != case.expected_valid:
        problems.append(
            f"answered {_verdict_word(valid)}, the case is {_verdict_word(case.expected_valid)}"
        )
    if result.missing or result.unexpected:
        problems.append(
            f"findings differ ({len(result.missing)} missing, {len(result.unexpected)} unexpected)"
        )
    if problems:
        result.outcome, result.reason = FAILED, "; ".join(problems)
    return result


def grade_read(case: Case, answer: dict[str, Any], document: Any) -> CaseResult:
    """Grade a consumer's checked answer to ``read``: a document the suite says is valid must be
    read with a summary that agrees with it (:mod:`atif_spec.conformance.summary`); an invalid
    one is :data:`INFORMATIONAL` whatever the consumer did."""

    messages = [str(m) for m in answer.get("messages", [])]
    if "skipped" in answer:
        return CaseResult(case, SKIPPED, f"declined: {answer['skipped']}", messages=messages)
    if "errored" in answer:
        return CaseResult(case, ERRORED, str(answer["errored"]), messages=messages)
    ok = bool(answer["ok"])
    summary = answer.get("summary") if ok else None
    result = CaseResult(case, PASSED, valid=ok, messages=messages, summary=summary)
    if ok:
        result.mismatches = mismatches(case.format, summary or {}, document)
    elif "error" in answer:
        result.messages.insert(0, str(answer["error"]))
    if not case.expected_valid:
        said = "read it" if ok else f"refused it: {answer.get('error', 'no reason given')}"
        result.outcome, result.reason = INFORMATIONAL, f"invalid case; the consumer {said}"
    elif not ok:
        result.outcome = FAILED
        result.reason = f"could not read a valid document: {answer.get('error', 'no reason')}"
    elif result.mismatches:
        result.outcome = FAILED
        result.reason = f"read it differently ({len(result.mismatches)} summary keys differ)"
    return result
