"""ATIF: versions v1.0 to v1.8, identified by the ``schema_version`` field."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from atif_spec.formats import FormatSpec
from atif_spec.jsonio.pointers import join
from atif_spec.schemas.catalog import load_catalog, schema_for

VERSIONS = ("v1.0", "v1.1", "v1.2", "v1.3", "v1.4", "v1.5", "v1.6", "v1.7", "v1.8")
PREFIX = "ATIF-"


def version_of(value: Any) -> str | None:
    """``v1.7`` for ``"ATIF-v1.7"``; None for anything else."""
    if isinstance(value, str) and value.startswith(PREFIX) and value[len(PREFIX) :] in VERSIONS:
        return value[len(PREFIX) :]
    return None


def spelling(version: str) -> str:
    """``ATIF-v1.7`` for ``v1.7``."""
    return PREFIX + version


def _misspelled(declared: Any) -> bool:
    """A known ATIF version without its ``ATIF-`` prefix (``"1.7"``, ``"v1.7"``)."""
    return isinstance(declared, str) and "v" + declared.strip().removeprefix("v") in VERSIONS


def detect(doc: Any) -> str | None:
    """An object with an ``ATIF-v*`` ``schema_version`` (known or not), or ATIF-shaped."""
    if not isinstance(doc, dict):
        return None
    declared = doc.get("schema_version")
    if isinstance(declared, str) and declared.upper().startswith("ATIF"):
        return version_of(declared) or "unknown"
    if _misspelled(declared) and "steps" in doc and "agent" in doc:
        return "unknown"  # "1.7" or "v1.7": ATIF, whose version check then suggests ATIF-v1.7
    if "schema_version" not in doc and "steps" in doc and "agent" in doc and "trace_id" not in doc:
        return "unknown"
    return None


def embedded(doc: Any, base: str) -> Iterator[tuple[str, Any, str | None]]:
    """Every embedded subagent trajectory below ``doc`` (depth first), with its version."""
    if not isinstance(doc, dict):
        return
    subs = doc.get("subagent_trajectories")
    if not isinstance(subs, list):
        return
    for i, sub in enumerate(subs):
        if isinstance(sub, dict):
            ptr = join(base, "subagent_trajectories", i)
            yield ptr, sub, version_of(sub.get("schema_version"))
            yield from embedded(sub, ptr)


FORMAT = FormatSpec(
    name="atif",
    title="Agent Trajectory Interchange Format",
    versions=VERSIONS,
    detect=detect,
    version_field="schema_version",
    version_spelling=spelling,
    priority=0,
    embedded=embedded,
)


@functools.cache
def key_order(version: str, definition: str | None = None) -> tuple[str, ...]:
    """The members of an ATIF object in the order its schema lists them, which is the order a
    native producer writes: the trajectory's (``definition`` None) or a ``$defs`` entry's."""

    node = schema_for(load_catalog().find(f"atif@{version}"))
    if definition is not None:
        node = node["$defs"][definition]
    return tuple(node["properties"])
