"""Embedded ATIF subagents newer than their parent (DECISIONS.md D-14), tolerated by the
validator's dispatch: a version's schema cannot name the schemas of versions published after it.

A version's schema bounds an embedded subagent's ``schema_version`` by its parent's version and
checks the child with the parent's own root schema. Real producers embed newer children (harbor
writes v1.8 subagents into v1.7 parents), and the RFC reads an embedded subagent as a complete
trajectory of the version it declares. So the validator's dispatch, not the schema, decides: the
parent's schema findings inside such a child are dropped, and the child is checked against the
schema of the version it declares (its own newer children in turn). Rules already run under each
embedded document's declared version (``rules.engine``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from atif_spec.formats.atif import VERSIONS, version_of
from atif_spec.jsonio.pointers import join
from atif_spec.validation.findings import Finding

SchemaCheck = Callable[[str, Any], list[Finding]]
"""``(version, document) -> schema findings`` of one ATIF version's schema."""


def newer_children(doc: Any, version: str) -> list[tuple[int, str]]:
    """``(index, declared version)`` of each direct embedded subagent newer than ``version``."""
    subs = doc.get("subagent_trajectories") if isinstance(doc, dict) else None
    if not isinstance(subs, list) or version not in VERSIONS:
        return []
    out = []
    for i, sub in enumerate(subs):
        declared = version_of(sub.get("schema_version")) if isinstance(sub, dict) else None
        if declared in VERSIONS and VERSIONS.index(declared) > VERSIONS.index(version):
            out.append((i, declared))
    return out


def _inside(pointer: str, base: str) -> bool:
    return pointer == base or pointer.startswith(base + "/")


def schema_findings(doc: Any, version: str, check: SchemaCheck, base: str = "") -> list[Finding]:
    """``check(version, doc)``, with every newer embedded child checked under its own version
    instead of its parent's (recursively); pointers are prefixed with ``base``."""
    found = check(version, doc)
    for i, declared in newer_children(doc, version):
        child = join("", "subagent_trajectories", i)
        found = [f for f in found if not _inside(f.pointer, child)]
        found += schema_findings(doc["subagent_trajectories"][i], declared, check, child)
    if not base:
        return found
    return [dataclasses.replace(f, pointer=base + f.pointer) for f in found]
