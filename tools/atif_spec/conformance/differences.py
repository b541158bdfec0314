"""Explained differences per implementation: ``conformance/known-differences/<name>.toml``.

Each file holds groups (several releases of one package may share a file; a group that holds
for only some of them names those peers in ``peers``); a group explains a set of differing
items (suite cases, documents we wrote, native logs produced) named by shell-style patterns over
their ids. A group names the RFC section that decides it, the side at fault (``ours`` or
``theirs``), a minimal fixture, and for ``theirs`` the file and line in the peer's pinned
source. A differing item no group explains, and a group that explains nothing (stale), both
fail the interop run.
"""

from __future__ import annotations

import fnmatch
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

SIDES = ("ours", "theirs")
REQUIRED = ("name", "patterns", "rfc", "side", "fixture", "explanation")


class DifferencesError(ValueError):
    """A known-differences file that breaks the rules above."""


@dataclass(frozen=True, slots=True)
class Group:
    """One explained difference."""

    name: str
    patterns: tuple[str, ...]
    rfc: str
    side: str
    fixture: str
    explanation: str
    source: str | None = None
    """``path/in/package.py:LINE`` in the peer's pinned release (``theirs`` only)."""
    peers: tuple[str, ...] = ()
    """The peers (``peers.toml`` names) the group holds for; empty: every peer of the file."""

    def explains(self, item_id: str) -> bool:
        """Whether ``item_id`` matches one of the group's patterns."""
        return any(fnmatch.fnmatchcase(item_id, p) for p in self.patterns)


def _bare(pattern: str) -> bool:
    """A pattern that matches (nearly) everything: ``*``, or only wildcards and a prefix."""
    literal = pattern.replace("*", "").replace("?", "")
    return literal in ("", "written:", "produce:", "lens:", "written:atif-", "produce:claude-code/")


def load(path: Path, root: Path, peer: str | None = None) -> list[Group]:
    """The groups of one file; ``root`` is the repository (fixtures are relative to it). With
    ``peer``, only the groups that hold for that peer (their ``peers`` name it, or are empty)."""
    if not path.exists():
        return []
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    groups = []
    for raw in data.get("group", []):
        missing = [k for k in REQUIRED if not raw.get(k)]
        if missing:
            raise DifferencesError(f"{path}: group {raw.get('name')!r} lacks {missing}")
        if raw["side"] not in SIDES:
            raise DifferencesError(f"{path}: group {raw['name']!r}: side must be ours or theirs")
        if raw["side"] == "theirs" and not raw.get("source"):
            raise DifferencesError(f"{path}: group {raw['name']!r}: `theirs` needs `source`")
        bare = [p for p in raw["patterns"] if _bare(p)]
        if bare:
            raise DifferencesError(f"{path}: group {raw['name']!r}: bare patterns {bare}")
        if not (root / raw["fixture"]).exists():
            raise DifferencesError(f"{path}: group {raw['name']!r}: no fixture {raw['fixture']}")
        peers = raw.get("peers", [])
        if not isinstance(peers, list) or not all(isinstance(p, str) and p for p in peers):
            raise DifferencesError(f"{path}: group {raw['name']!r}: peers must be a list of names")
        if peer is not None and peers and peer not in peers:
            continue
        groups.append(
            Group(
                raw["name"],
                tuple(raw["patterns"]),
                raw["rfc"],
                raw["side"],
                raw["fixture"],
                raw["explanation"],
                raw.get("source"),
                tuple(peers),
            )
        )
    return groups


def explain(
    groups: list[Group], differing: Iterable[str]
) -> tuple[dict[str, str], list[str], list[str]]:
    """``(item id → group name, unexplained ids, stale group names)``."""
    by_item: dict[str, str] = {}
    unexplained: list[str] = []
    used: set[str] = set()
    for item in differing:
        group = next((g for g in groups if g.explains(item)), None)
        if group is None:
            unexplained.append(item)
        else:
            by_item[item] = group.name
            used.add(group.name)
    stale = [g.name for g in groups if g.name not in used]
    return by_item, unexplained, stale
