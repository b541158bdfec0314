"""Fields of later ATIF versions present with ``null`` in an older document (DECISIONS.md D-15),
tolerated by the validator's dispatch, not by the schemas: which keys are tolerated depends on
the newest version, which a version's schema, fixed when it is released, cannot know.

Writers built on the newest models dump every field, ``None`` included (harbor's
``to_json_dict(exclude_none=False)``), whatever ``schema_version`` they write: a v1.6 file then
carries ``"trajectory_id": null`` or ``"llm_call_count": null``. A ``null`` means "absent"
(D-4), so such a key says nothing the declared version cannot hold. The validator's dispatch
drops the declared version's ``schema:additionalProperties`` finding for a key whose value is
``null`` when the newest version's schema knows that key at that place; any other unknown key,
or a later field with a value, is still an error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from atif_spec.formats.atif import VERSIONS, spelling
from atif_spec.jsonio.pointers import value_at
from atif_spec.validation.findings import Finding


def tolerate(
    doc: Any, version: str, findings: list[Finding], check: Callable[[str, Any], list[Finding]]
) -> list[Finding]:
    """``findings`` (the schema findings of ``doc`` as ATIF ``version``) without those about
    ``null`` keys that the newest version defines; ``check(version, doc)`` gives schema
    findings."""
    newest = VERSIONS[-1]
    candidates = [
        f
        for f in findings
        if f.code == "schema:additionalProperties" and value_at(doc, f.pointer) is None
    ]
    if version == newest or not candidates or not isinstance(doc, dict):
        return findings
    as_newest = {**doc, "schema_version": spelling(newest)}
    unknown_there = {
        f.pointer for f in check(newest, as_newest) if f.code == "schema:additionalProperties"
    }
    dropped = {id(f) for f in candidates if f.pointer not in unknown_there}
    return [f for f in findings if id(f) not in dropped]
