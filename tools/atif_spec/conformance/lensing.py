"""Producers' documents through atif-spec's lenses: there and back, the same JSON value.

A valid document a producer wrote (ATIF, or a step-substep run log) is converted with the public
API (``atif_spec.convert(doc, to=...)``) to every other format atif-spec writes, the result is
validated as that target, converted back to the document's own format and version and validated
again, and the document that comes back must equal the one that went in as JSON values (RFC.md
§4.6: every member, string and number of its kind; key order aside), the stash of RFC.md §4.5
carrying what the other format has no field for. A lens that fails one of these on a document
atif-spec itself calls valid is atif-spec's bug, named by the first place the two documents
differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import atif_spec
from atif_spec.formats import detect
from atif_spec.jsonio import jsontext
from atif_spec.jsonio.jsonequal import difference

LENSES = ("atif@v1.7", "tao@v0.2.0", "trajectory-sdk@v0.4", "step-substep@v1.0")
"""One target per format atif-spec writes; a document goes through those of the other formats."""


@dataclass(frozen=True, slots=True)
class RoundTrip:
    """One document through one lens and back."""

    target: str
    outcome: str
    """``passed``, ``refused`` (a documented refusal of the lens) or ``failed``."""
    detail: str | None = None


def _errors(document: Any, target: str) -> list[str]:
    report = atif_spec.validate(document, as_target=target)
    return [f"{f.code} at {f.pointer or '(root)'}" for f in report.errors]


def round_trip(document: dict[str, Any], target: str) -> RoundTrip:
    """``document`` (valid) to ``target`` and back to its own format and version."""
    found = detect(document)
    if found is None:
        return RoundTrip(target, "failed", "no format recognises the document")
    home = "@".join(found)
    original = jsontext.dumps(document)
    try:
        there, _ = atif_spec.convert(document, to=target)
    except ValueError as exc:  # ConversionError / MigrationError: the lens refuses, by design
        return RoundTrip(target, "refused", str(exc).splitlines()[0][:200])
    if jsontext.dumps(document) != original:
        return RoundTrip(target, "failed", "the input document was modified")
    errors = _errors(there, target)
    if errors:
        return RoundTrip(target, "failed", f"{target} output invalid: {'; '.join(errors[:3])}")
    try:
        back, _ = atif_spec.convert(there, to=home)
    except ValueError as exc:
        return RoundTrip(target, "failed", f"back to {home} refused: {str(exc)[:200]}")
    errors = _errors(back, home)
    if errors:
        return RoundTrip(target, "failed", f"back in {home} invalid: {'; '.join(errors[:3])}")
    changed = difference(document, back)
    if changed is not None:
        return RoundTrip(target, "failed", changed)
    return RoundTrip(target, "passed")


def round_trips(documents: list[Any]) -> list[RoundTrip]:
    """Every lens to another format on a producer's documents: one result per lens, the first
    failure (or refusal) among the documents if any, named by the document's index when there are
    several."""
    homes = {found[0] for d in documents if (found := detect(d)) is not None}
    out = []
    for target in LENSES:
        if target.split("@")[0] in homes:
            continue
        result = RoundTrip(target, "passed")
        for index, document in enumerate(documents):
            if not isinstance(document, dict) or detect(document) is None:
                continue
            got = round_trip(document, target)
            if got.outcome != "passed":
                where = f"document {index}: " if len(documents) > 1 else ""
                result = RoundTrip(target, got.outcome, where + (got.detail or ""))
                if got.outcome == "failed":
                    break
        out.append(result)
    return out
