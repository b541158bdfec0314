"""Type-mutation property test: every rule of every format survives any JSON type anywhere.

For each format and version, the valid and warning conformance cases are the seeds. Every
field path they hold (array indices folded, so ``/steps/*/message`` is one path) is replaced,
once per JSON type, by a value of that type, and the mutated document is validated with every
rule switched on (a file path, file checks and ``--follow-refs``). Nothing may raise.

The enumeration is exhaustive and ordered (derandomized: no seed, no sampling). Budget: at most
10 s of CPU time in the README test run (measured: 11 000 mutations in 7.8 s of user time; the
wall time grows with the machine's load).
"""

from __future__ import annotations

import copy
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from atif_spec.conformance.suite import read_document
from atif_spec.validation.pipeline import Options, validate_document
from tests.support import ROOT

MANIFESTS = sorted((ROOT / "conformance").glob("*/*/manifest.json"))

VALUES: dict[str, Any] = {
    "null": None,
    "boolean": True,
    "integer": 7,
    "number": 1.5,
    "string": "x",
    "array": [],
    "array-of-arrays": [[]],
    "object": {},
}
"""One value per JSON type (plus an array holding an array, which item checks index into)."""


def _paths(node: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """Every path to a member or item below ``node``, parents before children."""
    items: Any = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for key, child in items:
        here = (*path, key)
        yield here
        yield from _paths(child, here)


def _shape(path: tuple[str | int, ...]) -> str:
    return "/" + "/".join("*" if isinstance(k, int) else k for k in path)


def _replace(doc: Any, path: tuple[str | int, ...], value: Any) -> Any:
    out = copy.deepcopy(doc)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = copy.deepcopy(value)
    return out


def _seeds(manifest: Path) -> list[Any]:
    cases = orjson.loads(manifest.read_bytes())["cases"]
    docs = []
    for case in cases:
        if case["category"] in ("valid", "warning") and case["path"].endswith((".json", ".jsonl")):
            docs.append(read_document(manifest.parent / case["path"]))  # a stream: its events
    return docs


def mutations(manifest: Path) -> Iterator[tuple[str, bool, Any]]:
    """``(label, at_root, document)`` for every field path of the seeds and every JSON type,
    once (``at_root``: the mutation is the root or one of its members)."""
    seen: set[str] = set()
    for kind, value in VALUES.items():
        yield f"/ as {kind}", True, value
    for seed in _seeds(manifest):
        for path in _paths(seed):
            shape = _shape(path)
            if shape in seen:
                continue
            seen.add(shape)
            for kind, value in VALUES.items():
                yield f"{shape} as {kind}", len(path) == 1, _replace(seed, path, value)


@pytest.mark.parametrize(
    "manifest", MANIFESTS, ids=[f"{m.parent.parent.name}@{m.parent.name}" for m in MANIFESTS]
)
def test_no_rule_raises_on_any_type_anywhere(manifest: Path, tmp_path: Path) -> None:
    """Each mutated document gets a report, never an exception (all crashes listed at once).

    Every mutation is validated as the seed's format and version (``--as``); those of the
    root's members, which may change what is detected, also with detection.
    """
    fmt, version = manifest.parent.parent.name, manifest.parent.name
    options = Options(
        as_target=f"{fmt}@{version}", check_files=True, follow_refs=True, allow_outside=False
    )
    path = tmp_path / "trajectory.json"
    path.write_bytes(b"{}")
    crashes: list[str] = []
    count = 0
    detect = Options(check_files=True, follow_refs=True)
    for label, at_root, doc in mutations(manifest):
        count += 1
        for opts in (options, detect) if at_root else (options,):
            try:
                validate_document(doc, source="mutant", path=path, options=opts)
            except Exception:  # the test lists every crash
                crashes.append(f"{label}: {traceback.format_exc(limit=-2)}")
    assert count > len(VALUES), "no seeds found"
    assert not crashes, f"{len(crashes)} crash(es) of {count} mutations:\n" + "\n".join(
        crashes[:20]
    )
