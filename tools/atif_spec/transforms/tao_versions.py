"""Migration between TAO versions: one :class:`atif_spec.transforms.driver.Step` per adjacent pair
of ``opentraces-schema`` releases (0.1.0 ↔ 0.2.0 ↔ 0.3.0 ↔ 0.6.0 ↔ 0.7.0 ↔ 0.9.0).

Every step has the same two mappings, :func:`_move` parametrized by the versions (RFC.md §4.5;
spec/tao/DECISIONS.md D38):

- ``schema_version`` becomes the target's spelling;
- the fields the source version defines and the target does not are taken out (the driver
  stashes those that are not what the way back writes), keys neither version defines stay;
- up from 0.3.0, ``outcome.patch`` (removed in 0.6.0) is migrated as the wheel's
  ``opentraces_schema.migrations.migrate_record`` does it: ``patches[]`` rebuilt from the
  unified diff, one per file, the diff kept under ``metadata.legacy.patch``; down to 0.3.0 a
  record whose ``patches[]`` is exactly that rebuild gets its ``outcome.patch`` back;
- a record written as opentraces writes it (every field of its version, defaults included,
  :func:`atif_spec.formats.tao.fill`) is written filled in the target version too;
- a record that carries a ``content_hash`` gets the hash of what is written
  (:func:`atif_spec.formats.tao.content_hash` under the target version; the stash keeps a
  source's own hash when the way back would not compute it).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import re
from typing import Any

from atif_spec.formats.tao import (
    VERSIONS,
    UnloadableRecordError,
    content_hash,
    detect,
    normalize,
    schema,
    spelling,
)
from atif_spec.jsonio.jsonequal import same_json
from atif_spec.transforms import driver
from atif_spec.transforms.changes import ChangeReport
from atif_spec.transforms.driver import Context, Step
from atif_spec.transforms.mapping import Row, Table
from atif_spec.transforms.stash import StashError, attach, detach, holder
from atif_spec.validation.findings import input_finding

Doc = dict[str, Any]

RECONSTRUCTED_CAPTURE_METHOD = "legacy_outcome_patch_migration"
RECONSTRUCTED_LIMITATION = "reconstructed_from_outcome_patch"
_PATCH_REMOVED = "v0.6.0"
"""The first version without ``Outcome.patch``."""

_FILE_HEADER = re.compile(r"^--- (?P<old>.+)$")
_NEW_FILE = re.compile(r"^\+\+\+ (?P<new>.+)$")


# --- outcome.patch <-> patches[] (opentraces-schema 0.6.0 migrations.py) --------------------------


def _strip_ab_prefix(path: str) -> str:
    path = path.strip().split("\t", 1)[0]
    return path[2:] if path.startswith(("a/", "b/")) else path


def _blocks(diff: str) -> list[list[str]]:
    """The diff's lines split into per-file blocks, each starting at a ``--- `` header."""
    blocks: list[list[str]] = []
    for line in diff.splitlines():
        if _FILE_HEADER.match(line):
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
    return blocks


def _file_path(block: list[str]) -> str:
    """The post-image path of a block, else its pre-image path; ``""`` for neither."""
    old = _strip_ab_prefix(block[0][len("--- ") :])
    new = next((_strip_ab_prefix(m["new"]) for m in map(_NEW_FILE.match, block[1:]) if m), "")
    path = new or old
    if not path or path == "/dev/null":
        path = old if old and old != "/dev/null" else new
    return "" if path == "/dev/null" else path


def reconstruct_patches(diff: str) -> list[Doc]:
    """One ``Patch`` per file of a unified diff, as ``reconstruct_patches_from_unified_diff``
    of opentraces-schema 0.6.0 makes them (``patch_id``: SHA-256 of the path, a newline and the
    file's block); ``[]`` for text that is not a unified diff."""
    if not diff.strip():
        return []
    patches = []
    for block in _blocks(diff):
        path = _file_path(block)
        if path:
            text = "\n".join(block)
            patch_id = hashlib.sha256(f"{path}\n{text}".encode()).hexdigest()
            patches.append(
                {
                    "patch_id": patch_id,
                    "file_path": path,
                    "capture_method": [RECONSTRUCTED_CAPTURE_METHOD],
                    "limitations": [RECONSTRUCTED_LIMITATION],
                }
            )
    return patches


def _patch_up(doc: Doc) -> Doc:
    """``migrate_record`` of opentraces-schema 0.6.0 on ``doc`` (a new record): a non-empty
    ``outcome.patch`` goes to ``metadata.legacy.patch`` (unless one is there) and, when the
    record has no ``patches``, to ``patches[]``; ``outcome.patch`` is taken out."""
    outcome = doc.get("outcome")
    diff = outcome.get("patch") if isinstance(outcome, dict) else None
    if not diff:
        return doc
    out = dict(doc)
    metadata = out.setdefault("metadata", {})
    if isinstance(metadata, dict):
        legacy = metadata.get("legacy", {})
        if isinstance(legacy, dict):
            out["metadata"] = {**metadata, "legacy": {**legacy}}
            out["metadata"]["legacy"].setdefault("patch", diff)
    if not out.get("patches") and isinstance(diff, str):
        rebuilt = reconstruct_patches(diff)
        if rebuilt:
            out["patches"] = rebuilt
    assert isinstance(outcome, dict)
    out["outcome"] = {k: v for k, v in outcome.items() if k != "patch"}
    return out


def _legacy_patch(doc: Doc) -> str | None:
    """The diff under ``metadata.legacy.patch``, when ``patches`` is exactly its rebuild."""
    metadata = doc.get("metadata")
    legacy = metadata.get("legacy") if isinstance(metadata, dict) else None
    diff = legacy.get("patch") if isinstance(legacy, dict) else None
    if not isinstance(diff, str) or not diff:
        return None
    rebuilt = reconstruct_patches(diff)
    return diff if same_json(doc.get("patches", []), rebuilt) else None


def _patch_down(doc: Doc) -> Doc:
    """The inverse of :func:`_patch_up` on a record it wrote: ``outcome.patch`` from
    ``metadata.legacy.patch``, the rebuilt ``patches`` and the legacy entry taken out (and
    ``metadata`` when nothing else is in it)."""
    diff = _legacy_patch(doc)
    outcome = doc.get("outcome", {})
    if diff is None or not isinstance(outcome, dict):
        return doc
    out = {k: v for k, v in doc.items() if k != "patches"}
    metadata = dict(doc["metadata"])
    legacy = {k: v for k, v in metadata.pop("legacy").items() if k != "patch"}
    if legacy:
        metadata["legacy"] = legacy
    if metadata:  # else the way up made it (a filled record gets its default back)
        out["metadata"] = metadata
    else:
        del out["metadata"]
    out["outcome"] = {**outcome, "patch": diff}
    return out


# --- the generic parts -------------------------------------------------------------------------


def _properties(root: Doc, node: Any) -> dict[str, Any]:
    """The properties of a (resolved) object node; ``{}`` for a free-form one."""
    if not isinstance(node, dict):
        return {}
    ref = node.get("$ref")
    if isinstance(ref, str):
        node = root["$defs"][ref.rsplit("/", 1)[-1]]
    for branch in node.get("anyOf", ()):
        if "$ref" in branch:
            return _properties(root, branch)
    props = node.get("properties")
    return props if isinstance(props, dict) else {}


def _items(root: Doc, node: Any) -> Any:
    """The ``items`` node of an array node (through an ``anyOf`` with null)."""
    if not isinstance(node, dict):
        return None
    for branch in (node, *node.get("anyOf", ())):
        if isinstance(branch, dict) and isinstance(branch.get("items"), dict):
            return branch["items"]
    return None


def _prune(value: Any, nodes: tuple[Any, Any], roots: tuple[Doc, Doc]) -> Any:
    """``value`` without the members the source schema defines and the target does not (at
    every level both define); other members are kept. ``nodes`` are the source's and the
    target's schema nodes for ``value``."""
    if isinstance(value, list):
        items = (_items(roots[0], nodes[0]), _items(roots[1], nodes[1]))
        if items[0] is None or items[1] is None:
            return value
        return [_prune(v, items, roots) for v in value]
    if not isinstance(value, dict):
        return value
    old, new = _properties(roots[0], nodes[0]), _properties(roots[1], nodes[1])
    if not old or not new:
        return value
    return {
        k: _prune(v, (old[k], new[k]), roots) if k in old and k in new else v
        for k, v in value.items()
        if k not in old or k in new
    }


def _filled(doc: Doc, version: str) -> bool:
    """Whether ``doc`` is written as opentraces writes a record of ``version``: every field of
    the model at every level, defaults included, nothing else (``content_hash`` aside)."""
    if not all(key in doc for key in schema(version)["properties"]):
        return False
    try:
        normal = normalize(doc, version)
    except UnloadableRecordError:
        return False
    normal.pop("content_hash", None)
    return same_json(normal, {k: v for k, v in doc.items() if k != "content_hash"})


def _with_version(doc: Doc, version: str) -> Doc:
    """``doc`` declaring ``version``, ``schema_version`` first when it had none."""
    if "schema_version" in doc:
        return {**doc, "schema_version": spelling(version)}
    return {"schema_version": spelling(version), **doc}


def _hashed(doc: Doc, version: str) -> Doc:
    """``doc`` with the ``content_hash`` of ``version`` over it (as it is when unloadable)."""
    try:
        return {**doc, "content_hash": content_hash(doc, version)}
    except UnloadableRecordError:
        return doc


def _move(doc: Doc, source: str, target: str) -> Doc:
    """The one mapping of every step: ``doc`` of ``source`` as a record of ``target``."""
    filled = _filled(doc, source)
    i, j = VERSIONS.index(source), VERSIONS.index(target)
    out = doc
    if i < j and target == _PATCH_REMOVED:
        out = _patch_up(out)
    elif j < i and source == _PATCH_REMOVED:
        out = _patch_down(out)
    roots = (schema(source), schema(target))
    out = _with_version(_prune(out, roots, roots), target)
    if filled:
        with contextlib.suppress(UnloadableRecordError):
            out = normalize(out, target)
    if isinstance(doc.get("content_hash"), str):
        out = _hashed(out, target)
    return out


def _finish(target: str) -> Any:
    def finish(made: Doc, written: Doc) -> Doc:
        """The written record's ``content_hash`` covering what it says (its stash included),
        where the mapping computed it (never a hash the stash's patch put back)."""
        hashed = made.get("content_hash")
        if written is made or not isinstance(hashed, str):
            return written
        if written.get("content_hash") != hashed:
            return written
        return _hashed(written, target)

    return finish


def _step(source: str, target: str) -> Step:
    """The step from ``source`` to ``target`` (adjacent versions, either way)."""

    def forward(doc: Doc, ctx: Context) -> Doc:
        return _move(doc, source, target)

    def backward(doc: Doc, ctx: Context) -> Doc:
        return _move(doc, target, source)

    return Step(f"tao@{source}", f"tao@{target}", forward, backward, _finish(target))


UP = tuple(_step(a, b) for a, b in itertools.pairwise(VERSIONS))
"""One step per adjacent pair of versions, oldest first."""
DOWN = tuple(_step(b, a) for a, b in itertools.pairwise(VERSIONS))
"""The same pairs the other way (``DOWN[i]`` undoes ``UP[i]``; each hashes for its target,
which :attr:`Step.inverse` would not)."""


def _paths(root: Doc, node: Any, at: str = "") -> set[str]:
    """The member paths (``outcome.patch``, ``steps[].context_node_id``) a schema node defines
    at every level, as :func:`_prune` walks them."""
    found: set[str] = set()
    for key, child in _properties(root, node).items():
        here = f"{at}.{key}" if at else key
        found.add(here)
        found |= _paths(root, child, here)
        items = _items(root, child)
        if items is not None:
            found |= _paths(root, items, f"{here}[]")
    return found


def _tops(paths: set[str]) -> list[str]:
    """``paths`` without those below another of them (``git_links[].branch`` below
    ``git_links``), sorted."""
    return sorted(p for p in paths if not any(p.startswith((f"{q}.", f"{q}[]")) for q in paths))


def _rows() -> tuple[Row, ...]:
    """What each step between adjacent versions does with the members one side defines only
    (computed from the schemas: the rule is :func:`_prune`'s)."""
    rows = []
    for old, new in itertools.pairwise(VERSIONS):
        before, after = (_paths(schema(v), schema(v)) for v in (old, new))
        removed_patch = new == _PATCH_REMOVED
        for path in _tops(after - before):
            note = f"Added in {new}: taken out (and stashed) going down to {old}."
            if removed_patch and path.startswith("patches"):
                note += " Going up, rebuilt from `outcome.patch` as `migrate_record` does."
            rows.append(Row(f"`{path}`", "—", "stashed", note))
        for path in _tops(before - after):
            note = f"Removed in {new}: taken out (and stashed) going up from {old}."
            if removed_patch and path == "outcome.patch":
                note = (
                    f"Removed in {new}: going up, `patches[]` is rebuilt from the diff (one per "
                    "file) and the diff kept under `metadata.legacy.patch`; going down, given "
                    "back where `patches[]` is exactly that rebuild (DECISIONS D38)."
                )
                rows.append(Row(f"`{path}`", "`patches[]`, `metadata.legacy.patch`", note=note))
                continue
            rows.append(Row(f"`{path}`", "—", "stashed", note))
    return tuple(rows)


MAPPING_TABLES = (
    Table(
        id="tao-versions",
        steps=tuple(step.name for step in (*UP, *DOWN)),
        columns=("Member (one version defines it)", "Other version"),
        rows=_rows(),
    ),
)


def plan(source: str, target: str) -> list[Step]:
    """The steps from ``source`` to ``target`` (``v0.2.0``), in order; empty when equal."""
    i, j = VERSIONS.index(source), VERSIONS.index(target)
    if i <= j:
        return list(UP[i:j])
    return list(reversed(DOWN[j:i]))


def run(
    doc: Doc, source: str, target: str, report: ChangeReport, options: driver.Options, kind: str
) -> Doc:
    """``doc`` (TAO ``source``) migrated to ``target`` through the driver, step by step; raises
    :class:`atif_spec.transforms.driver.Refused` when a step refuses it."""
    for step in plan(source, target):
        doc = driver.run(step, _hash_without_stash(doc, step.source), report, options, kind)
    return doc


def _hash_without_stash(doc: Doc, source: str) -> Doc:
    """``doc`` whose ``content_hash`` is taken over the record without its stash, where it was
    right over the record with it (as a step writes it): the mappings never see the stash, so
    the way back can only compute that one. Any other hash is the record's own and stays."""
    hashed = doc.get("content_hash")
    try:
        record, layers = detach(doc, holder(source))
        if not layers or not isinstance(hashed, str) or content_hash(doc, _v(source)) != hashed:
            return doc
        return attach(_hashed(record, _v(source)), holder(source), layers)
    except (StashError, UnloadableRecordError):
        return doc


def _v(target: str) -> str:
    """``v0.2.0`` of ``tao@v0.2.0``."""
    return target.partition("@")[2]


def migrate(doc: Any, to: str, report: ChangeReport, options: driver.Options) -> Doc | None:
    """``doc``, a TAO record of any version, migrated to ``to`` (``tao@v0.9.0``); None when it
    is refused, with the reason in ``report.errors`` (not a TAO record, an unknown version, a
    step's refusal). Raises ValueError for a target that is not a published TAO version."""
    target = to.partition("@")[2]
    found = detect(doc)
    if target not in VERSIONS:  # as for an ATIF target (migrations.parse_version)
        raise ValueError(f"not a TAO version: {to!r} (known: {', '.join(VERSIONS)})")
    if not isinstance(doc, dict) or found is None:
        report.errors.append(input_finding("unknown-format", "not an opentraces TAO record"))
    elif found == "unknown":
        message = f"unknown `schema_version` {doc.get('schema_version')!r}"
        report.errors.append(input_finding("unknown-schema-version", message, "/schema_version"))
    else:
        report.from_ = f"tao@{found}"
        try:
            return run(doc, found, target, report, options, "migrate")
        except driver.Refused as exc:
            report.errors.append(exc.finding)
    return None


def tao_target(text: str) -> str | None:
    """``tao@v0.9.0`` for ``tao@v0.9.0``, ``tao@0.9.0``, ``v0.9.0`` or ``0.9.0`` (a published TAO
    version); None for any other text (an ATIF version, say)."""
    fmt, _, version = text.rpartition("@")
    version = version if version.startswith("v") else f"v{version}"
    return f"tao@{version}" if fmt in ("", "tao") and version in VERSIONS else None
