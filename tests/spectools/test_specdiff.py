"""`atif spec diff`: every change class on synthetic schema pairs, the ATIF history, the gate."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from atif_spec.cli.spec import spec
from atif_spec.schemas.catalog import Catalog, load_catalog
from atif_spec.spectools.specdiff import KINDS, BrokenSchemaError, diff_schemas, diff_targets
from atif_spec.spectools.specgate import check_all, check_changelogs, check_released, lock_line
from tests.support import ROOT
from tests.support.documents import ATIF_VERSIONS


def closed(props: dict[str, Any], required: list[str] | None = None, **kw: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": props,
        "required": required or [],
        **kw,
    }


def kinds(old: Any, new: Any, **kw: Any) -> list[tuple[str, str]]:
    """``(kind, location)`` of every change except documentation."""
    d = diff_schemas(old, new, loader=None, **kw)
    return [(c.kind, c.location) for c in d.changes if c.kind != "annotation-changed"]


S = {"type": "string"}
S_OR_NULL = {"type": ["string", "null"]}

# (id, old, new, expected (kind, location) pairs, expected overall impact)
CASES: list[tuple[str, Any, Any, list[tuple[str, str]], str]] = [
    (
        "field-added-to-open-object",
        {"type": "object", "properties": {"a": S}},
        {"type": "object", "properties": {"a": S, "b": S}},
        [("field-added", "/b")],
        "compatible",
    ),
    (
        "closed-object-gained-field",
        closed({"a": S}),
        closed({"a": S, "b": S}),
        [("closed-object-gained-field", "/b")],
        "breaking-readers",
    ),
    (
        "field-removed-from-closed-object",
        closed({"a": S, "b": S}),
        closed({"a": S}),
        [("field-removed", "/b")],
        "breaking-writers",
    ),
    (
        "field-removed-from-open-object",
        {"type": "object", "properties": {"a": S, "b": S}},
        {"type": "object", "properties": {"a": S}},
        [("open-object-lost-field", "/b")],
        "breaking-readers",
    ),
    (
        "required-added",
        closed({"a": S}),
        closed({"a": S}, ["a"]),
        [("required-added", "/a")],
        "breaking-writers",
    ),
    (
        "required-removed",
        closed({"a": S}, ["a"]),
        closed({"a": S}),
        [("required-removed", "/a")],
        "breaking-readers",
    ),
    (
        "type-widened",
        closed({"a": S}),
        closed({"a": S_OR_NULL}),
        [("type-widened", "/a")],
        "breaking-readers",
    ),
    (
        "type-narrowed",
        closed({"a": S_OR_NULL}),
        closed({"a": S}),
        [("type-narrowed", "/a")],
        "breaking-writers",
    ),
    (
        "type-changed",
        closed({"a": S}),
        closed({"a": {"type": "integer"}}),
        [("type-changed", "/a")],
        "breaking-both",
    ),
    (
        "integer-widened-to-number",
        closed({"a": {"type": "integer"}}),
        closed({"a": {"type": "number"}}),
        [("type-widened", "/a")],
        "breaking-readers",
    ),
    (
        "enum-values-added",
        closed({"a": {"type": "string", "enum": ["x"]}}),
        closed({"a": {"type": "string", "enum": ["x", "y"]}}),
        [("enum-values-added", "/a")],
        "breaking-readers",
    ),
    (
        "enum-values-removed",
        closed({"a": {"type": "string", "enum": ["x", "y"]}}),
        closed({"a": {"type": "string", "enum": ["x"]}}),
        [("enum-values-removed", "/a")],
        "breaking-writers",
    ),
    (
        "enum-values-changed",
        closed({"a": {"enum": ["x"]}}),
        closed({"a": {"enum": ["y"]}}),
        [("enum-values-changed", "/a")],
        "breaking-both",
    ),
    (
        "const-added",
        closed({"a": S}),
        closed({"a": {"type": "string", "const": "x"}}),
        [("constraint-tightened", "/a")],
        "breaking-writers",
    ),
    (
        "min-length-raised",
        closed({"a": {"type": "string", "minLength": 1}}),
        closed({"a": {"type": "string", "minLength": 2}}),
        [("constraint-tightened", "/a")],
        "breaking-writers",
    ),
    (
        "maximum-added",
        closed({"a": {"type": "integer"}}),
        closed({"a": {"type": "integer", "maximum": 10}}),
        [("constraint-tightened", "/a")],
        "breaking-writers",
    ),
    (
        "minimum-lowered",
        closed({"a": {"type": "integer", "minimum": 1}}),
        closed({"a": {"type": "integer", "minimum": 0}}),
        [("constraint-loosened", "/a")],
        "breaking-readers",
    ),
    (
        "max-items-removed",
        closed({"a": {"type": "array", "maxItems": 3}}),
        closed({"a": {"type": "array"}}),
        [("constraint-loosened", "/a")],
        "breaking-readers",
    ),
    (
        "pattern-added",
        closed({"a": S}),
        closed({"a": {"type": "string", "pattern": "^x"}}),
        [("constraint-tightened", "/a")],
        "breaking-writers",
    ),
    (
        "pattern-changed",
        closed({"a": {"type": "string", "pattern": "^x"}}),
        closed({"a": {"type": "string", "pattern": "^y"}}),
        [("constraint-changed", "/a")],
        "breaking-both",
    ),
    (
        "object-closed",
        {"type": "object", "properties": {"a": S}},
        closed({"a": S}),
        [("object-closed", "")],
        "breaking-writers",
    ),
    (
        "object-opened",
        closed({"a": S}),
        {"type": "object", "properties": {"a": S}},
        [("object-opened", "")],
        "breaking-readers",
    ),
    (
        "array-items-narrowed",
        closed({"a": {"type": "array", "items": S_OR_NULL}}),
        closed({"a": {"type": "array", "items": S}}),
        [("type-narrowed", "/a/*")],
        "breaking-writers",
    ),
    (
        "annotation-only",
        closed({"a": {"type": "string", "description": "old"}}),
        closed({"a": {"type": "string", "description": "new"}}),
        [],
        "compatible",
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "expected", "impact"),
    [pytest.param(o, n, e, i, id=name) for name, o, n, e, i in CASES],
)
def test_change_classes(old: Any, new: Any, expected: list[tuple[str, str]], impact: str) -> None:
    assert kinds(old, new) == expected
    assert diff_schemas(old, new, loader=None).impact == impact


def test_every_kind_has_a_synthetic_case_or_a_dedicated_test() -> None:
    covered = {k for _, _, _, exp, _ in CASES for k, _ in exp}
    dedicated = {
        "branch-added",
        "branch-removed",
        "constraint-loosened",
        "conditional-added-for-new-values",
        "conditional-removed-for-old-values",
        "annotation-changed",
        "version-marker",
    }
    assert set(KINDS) <= covered | dedicated


def _defs_schema(item_def: dict[str, Any], **defs: Any) -> dict[str, Any]:
    return {
        **closed({"items": {"type": "array", "items": {"$ref": "#/$defs/Item"}}}),
        "$defs": {"Item": item_def, **defs},
    }


def test_change_inside_a_def_is_found_through_ref() -> None:
    old = _defs_schema(closed({"name": S}))
    new = _defs_schema(closed({"name": S, "size": {"type": "integer"}}))
    assert kinds(old, new) == [("closed-object-gained-field", "/items/*/size")]


def test_def_reached_by_two_paths_is_reported_once() -> None:
    def schema(item: dict[str, Any]) -> dict[str, Any]:
        return {
            **closed({"a": {"$ref": "#/$defs/Item"}, "b": {"$ref": "#/$defs/Item"}}),
            "$defs": {"Item": item},
        }

    changes = kinds(schema(closed({"x": S})), schema(closed({"x": S_OR_NULL})))
    assert changes == [("type-widened", "/a/x")]


def test_recursive_schema_terminates() -> None:
    def schema(extra: dict[str, Any]) -> dict[str, Any]:
        return closed({"child": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}, **extra})

    assert kinds(schema({}), schema({"n": S})) == [("closed-object-gained-field", "/n")]


def _union(*branches: str) -> dict[str, Any]:
    defs = {
        "Image": closed({"kind": {"const": "image"}, "path": S}, ["kind"]),
        "Audio": closed({"kind": {"const": "audio"}, "path": S}, ["kind"]),
        "Video": closed({"kind": {"const": "video"}, "path": S}, ["kind"]),
    }
    return {
        **closed({"media": {"anyOf": [{"$ref": f"#/$defs/{b}"} for b in branches]}}),
        "$defs": defs,
    }


def test_any_of_branch_added_and_removed() -> None:
    assert kinds(_union("Image"), _union("Image", "Audio")) == [("branch-added", "/media")]
    assert kinds(_union("Image", "Audio"), _union("Image")) == [("branch-removed", "/media")]
    d = diff_schemas(_union("Image", "Audio"), _union("Image", "Video"), loader=None)
    assert d.impact == "breaking-both"


def test_one_of_branches_are_compared_like_any_of() -> None:
    old = closed({"v": {"oneOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]}})
    new = closed({"v": {"oneOf": [{"type": "string"}, {"type": "integer", "minimum": 1}]}})
    assert kinds(old, new) == [("constraint-tightened", "/v")]


def test_type_list_versus_any_of_is_matched_per_type() -> None:
    old = closed({"c": {"type": ["string", "null"]}})
    new = closed({"c": {"anyOf": [{"type": "string"}, {"type": "array"}, {"type": "null"}]}})
    assert kinds(old, new) == [("type-widened", "/c")]


def _conditional(*conds: tuple[str, list[str]]) -> dict[str, Any]:
    """A closed object with `kind` in (a, b) and one if/then per (kind value, required fields)."""
    return closed(
        {"kind": {"enum": ["a", "b"]}, "x": S, "y": S},
        ["kind"],
        allOf=[
            {"if": {"properties": {"kind": {"const": k}}}, "then": {"required": req}}
            for k, req in conds
        ],
    )


def test_if_then_inside_all_of_is_compared() -> None:
    old = _conditional(("a", ["x"]))
    new = _conditional(("a", ["x", "y"]))
    assert kinds(old, new) == [("required-added", "/y")]


def test_conditional_added_on_existing_values_breaks_writers() -> None:
    old = _conditional(("a", ["x"]))
    new = _conditional(("a", ["x"]), ("b", ["y"]))
    assert kinds(old, new) == [("constraint-tightened", "")]
    assert kinds(new, old) == [("constraint-loosened", "")]


def test_conditional_for_new_values_is_compatible() -> None:
    old = _conditional(("a", ["x"]))
    new = copy.deepcopy(_conditional(("a", ["x"]), ("c", ["y"])))
    new["properties"]["kind"]["enum"].append("c")
    assert kinds(old, new) == [
        ("conditional-added-for-new-values", ""),
        ("enum-values-added", "/kind"),
    ]
    assert kinds(new, old) == [
        ("conditional-removed-for-old-values", ""),
        ("enum-values-removed", "/kind"),
    ]


def test_ref_beside_keywords_is_a_constraint() -> None:
    resolvable = {"anyOf": [{"required": ["id"]}, {"required": ["path"]}]}
    old = {**closed({"id": S, "path": S}), "$defs": {"Resolvable": resolvable}}
    new = {**old, "$ref": "#/$defs/Resolvable"}
    assert kinds(old, new) == [("constraint-tightened", "")]
    changed = copy.deepcopy(new)
    changed["$defs"]["Resolvable"]["anyOf"].append({"required": ["name"]})
    assert ("branch-added", "") in kinds(new, changed)


def test_ref_to_another_document_is_resolved_with_the_loader() -> None:
    docs = {
        "https://x.test/a.json": closed({"n": S}),
        "https://x.test/b.json": closed({"n": S_OR_NULL}),
    }
    old = closed({"part": {"$ref": "https://x.test/a.json"}})
    new = closed({"part": {"$ref": "https://x.test/b.json"}})
    d = diff_schemas(old, new, loader=docs.__getitem__)
    assert [(c.kind, c.location) for c in d.changes] == [("type-widened", "/part/n")]


def test_version_field_changes_are_the_version_marker() -> None:
    old = closed({"schema_version": {"const": "X-v1"}, "a": S}, ["schema_version"])
    new = closed({"schema_version": {"const": "X-v2"}, "a": S}, ["schema_version"])
    assert kinds(old, new) == [("enum-values-changed", "/schema_version")]
    marked = kinds(old, new, version_field="schema_version")
    assert marked == [("version-marker", "/schema_version")]
    assert diff_schemas(old, new, loader=None, version_field="schema_version").impact == (
        "compatible"
    )


def test_annotation_changes_are_listed_as_compatible() -> None:
    old = closed({"a": {"type": "string", "title": "A"}})
    new = closed({"a": {"type": "string", "title": "The A"}})
    d = diff_schemas(old, new, loader=None)
    assert [(c.kind, c.impact) for c in d.changes] == [("annotation-changed", "compatible")]
    assert d.significant() == []


# --------------------------------------------------------------------------- ATIF history

HISTORY = {
    "v1.1": "breaking for readers",
    "v1.2": "compatible",
    "v1.3": "breaking for readers",
    "v1.4": "breaking for readers",
    "v1.5": "breaking for readers",
    "v1.6": "breaking for readers",
    "v1.7": "breaking for writers and readers",
    "v1.8": "breaking for readers",
}


@pytest.mark.parametrize(("old", "new"), list(itertools.pairwise(ATIF_VERSIONS)))
def test_atif_history_matches_the_rfc(old: str, new: str) -> None:
    d = diff_targets(f"atif@{old}", f"atif@{new}")
    assert d.classification == HISTORY[new]
    rfc = (ROOT / "RFC.md").read_text(encoding="utf-8")
    assert f"| {old} → {new} | {HISTORY[new]} |" in rfc
    changelog = (ROOT / "spec/atif/CHANGELOG.md").read_text(encoding="utf-8")
    section = changelog.split(f"## {new}\n", 1)[1].split("\n## ", 1)[0]
    assert f"Classification: **{HISTORY[new]}**" in section


def test_v1_7_ref_change_breaks_writers_and_readers() -> None:
    d = diff_targets("atif@v1.6", "atif@v1.7")
    ref = "/steps/*/observation/results/*/subagent_trajectory_ref/*"
    found = {(c.kind, c.location) for c in d.changes}
    assert ("constraint-tightened", ref) in found  # a session_id-only ref is now invalid
    assert ("required-removed", f"{ref}/session_id") in found
    assert ("closed-object-gained-field", f"{ref}/trajectory_id") in found
    writers = [c for c in d.changes if "writers" in c.breaks]
    assert [c.subject for c in writers] == ["SubagentTrajectoryRef"]


def test_v1_8_audio_rules_do_not_break_writers() -> None:
    d = diff_targets("atif@v1.7", "atif@v1.8")
    assert "writers" not in d.breaks
    assert ("conditional-added-for-new-values", "/steps/*/message/*") in {
        (c.kind, c.location) for c in d.changes
    }


def test_tao_history() -> None:
    d = diff_targets("tao@v0.1.0", "tao@v0.2.0")
    assert {(c.kind, c.location) for c in d.significant()} == {
        ("field-added", "/execution_context"),
        ("field-added", "/outcome/terminal_state"),
        ("field-added", "/outcome/reward"),
        ("field-added", "/outcome/reward_source"),
        ("open-object-lost-field", "/attribution/version"),
    }


# --------------------------------------------------------------------------- CLI


def test_cli_diff_text_and_json() -> None:
    runner = CliRunner()
    text = runner.invoke(spec, ["diff", "atif@v1.6", "atif@v1.7", "--no-annotations"])
    assert text.exit_code == 0, text.output
    assert text.output.startswith("atif@v1.6 -> atif@v1.7: breaking for writers and readers\n")
    assert "annotation-changed" not in text.output
    out = runner.invoke(spec, ["diff", "atif@v1.7", "atif@v1.8", "--format", "json"])
    data = json.loads(out.output)
    assert data["impact"] == "breaking-readers"
    assert data["breaking_for_writers"] is False
    assert {"kind", "impact", "location", "schema_pointer", "subject", "message"} <= set(
        data["changes"][0]
    )


def test_cli_fail_on() -> None:
    runner = CliRunner()
    args = ["diff", "atif@v1.7", "atif@v1.8", "--fail-on"]
    assert runner.invoke(spec, [*args, "writers"]).exit_code == 0
    assert runner.invoke(spec, [*args, "readers"]).exit_code == 1
    assert (
        runner.invoke(spec, ["diff", "atif@v1.1", "atif@v1.2", "--fail-on", "any"]).exit_code == 0
    )


def test_cli_diff_working_tree_file_against_baseline(tmp_path: Path) -> None:
    draft = json.loads((ROOT / "spec/atif/v1.8/trajectory.schema.json").read_text())
    draft["$defs"]["Agent"]["required"].append("model_name")
    path = tmp_path / "trajectory.schema.json"
    path.write_text(json.dumps(draft))
    result = CliRunner().invoke(spec, ["diff", str(path), "--no-annotations"])
    assert result.exit_code == 0, result.output
    # No version is released yet: the file is compared with the version before v1.8.
    assert "comparing with atif@v1.7" in result.output
    assert "required-added" in result.output and "/agent/model_name" in result.output
    two = CliRunner().invoke(spec, ["diff", "atif@v1.8", str(path), "--fail-on", "writers"])
    assert two.exit_code == 1


def test_cli_rejects_unknown_input() -> None:
    result = CliRunner().invoke(spec, ["diff", "nope@v9", "atif@v1.8"])
    assert result.exit_code == 2


def _nested_items(levels: int, leaf: str) -> str:
    """A schema of arrays of arrays ``levels`` deep (as text: too deep for ``json.dumps``)."""
    head = '{"type": "array", "items": ' * levels
    return head + f'{{"type": "{leaf}"}}' + "}" * levels


UNRESOLVABLE = {
    "missing $defs entry": "#/$defs/missing",
    "unknown schema": "https://example.com/nope.schema.json",
    "past a string": "#/properties/x/type/0",
}


@pytest.mark.parametrize("ref", sorted(UNRESOLVABLE))
def test_unresolvable_ref_is_a_broken_schema(ref: str) -> None:
    """Was: ``UnknownSchemaError`` (or ``KeyError``) from the resolver."""
    broken = closed({"x": S, "y": {"$ref": UNRESOLVABLE[ref]}})
    with pytest.raises(BrokenSchemaError, match="resolves to nothing"):
        diff_schemas(closed({"x": S, "y": S}), broken)


@pytest.mark.parametrize("ref", sorted(UNRESOLVABLE))
def test_cli_unresolvable_ref_is_one_error_line_and_exit_2(ref: str, tmp_path: Path) -> None:
    """Was: an ``UnknownSchemaError`` traceback, exit 1."""
    old = tmp_path / "old.json"
    old.write_text(json.dumps(closed({"x": S, "y": S})))
    new = tmp_path / "new.json"
    new.write_text(json.dumps(closed({"x": S, "y": {"$ref": UNRESOLVABLE[ref]}})))
    for pair in ([str(old), str(new)], [str(new), str(old)]):
        result = CliRunner().invoke(spec, ["diff", *pair])
        assert result.exit_code == 2, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        [line] = result.output.splitlines()
        assert line.startswith(f"atif: spec diff {pair[0]} {pair[1]}: $ref ")
        assert f"at {new}#/properties/y resolves to nothing" in line


def test_cli_schema_too_deep_to_compare_is_one_error_line_and_exit_2(tmp_path: Path) -> None:
    """Was: ``RecursionError`` on a 900-deep schema, exit 1."""
    old = tmp_path / "old.json"
    old.write_text(_nested_items(900, "string"))
    new = tmp_path / "new.json"
    new.write_text(_nested_items(900, "integer"))
    result = CliRunner().invoke(spec, ["diff", str(old), str(new)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    [line] = result.output.splitlines()
    assert line.endswith("the schemas nest too deeply to compare (beyond Python's recursion limit)")
    old.write_text(_nested_items(50, "string"))
    new.write_text(_nested_items(50, "integer"))
    result = CliRunner().invoke(spec, ["diff", str(old), str(new)])
    assert result.exit_code == 0, result.output
    assert "type-changed" in result.output


# --------------------------------------------------------------------------- the gate


def test_gate_passes_today() -> None:
    assert check_all() == []
    result = CliRunner().invoke(spec, ["check"])
    assert result.exit_code == 0, result.output


def _catalog_with(released: set[str]) -> Catalog:
    """The catalog with exactly the schemas at these spec paths released."""
    base = load_catalog()
    entries = tuple(
        dataclasses.replace(e, status="released" if e.path in released else "draft") for e in base
    )
    return Catalog(base_url=base.base_url, formats=base.formats, entries=entries)


def _spec_copy(tmp_path: Path) -> Path:
    """A copy of ``spec/`` whose lock records nothing (its comments only): the catalogs of
    these tests release what they name. The real lock: ``tests/spectools/test_specgate.py``."""
    root = tmp_path / "spec"
    shutil.copytree(ROOT / "spec", root, ignore=shutil.ignore_patterns("__pycache__"))
    lock = root / "RELEASED.sha256"
    lock.write_text("".join(s for s in lock.read_text().splitlines(True) if s.startswith("#")))
    return root


def _bundles_copy(tmp_path: Path) -> Path:
    root = tmp_path / "bundles"
    shutil.copytree(ROOT / "generated/bundles", root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


V10 = "atif/v1.0/trajectory.schema.json"


def test_gate_released_schema_and_its_bundles_must_be_locked_and_unchanged(
    tmp_path: Path,
) -> None:
    root, bundles = _spec_copy(tmp_path), _bundles_copy(tmp_path)
    released = _catalog_with({V10})
    problems = check_released(released, root, bundles)
    locked = [V10, f"bundles/compound/{V10}", f"bundles/editor/{V10}"]
    assert [p.partition(":")[0] for p in problems] == locked
    assert all("not recorded" in p for p in problems)
    printed = CliRunner().invoke(spec, ["lock", V10]).output
    assert [line.split("  ")[1] for line in printed.splitlines()] == locked
    lock = root / "RELEASED.sha256"
    lock.write_text(lock.read_text() + printed)
    assert check_released(released, root, bundles) == []
    # What the editor URL serves changed: refused, though the schema itself did not change.
    editor = bundles / "editor" / V10
    kept = editor.read_bytes()
    editor.write_bytes(kept.replace(b'"Notes"', b'"Run notes"'))
    problems = check_released(released, root, bundles)
    assert len(problems) == 1 and problems[0].startswith(f"bundles/editor/{V10}: the bundle")
    editor.write_bytes(kept)
    schema = root / V10
    schema.write_text(schema.read_text().replace('"Notes"', '"Run notes"'))
    problems = check_released(released, root, bundles)
    assert len(problems) == 1 and "released schema changed" in problems[0]
    withdrawn = check_released(_catalog_with(set()), root, bundles)
    assert len(withdrawn) == 3 and all("cannot be withdrawn" in p for p in withdrawn)


def test_gate_a_released_schema_reaches_only_released_schemas(tmp_path: Path) -> None:
    """v1.8 embeds v1.7 in its bundles: releasing v1.8 alone would lock bytes that change with
    the draft v1.7."""
    root = _spec_copy(tmp_path)
    v17, v18 = "atif/v1.7/trajectory.schema.json", "atif/v1.8/trajectory.schema.json"
    lock = root / "RELEASED.sha256"
    lock.write_text(
        lock.read_text()
        + "".join(
            lock_line(root, p) + "\n"
            for schema in [v17, v18]
            for p in [schema, f"bundles/compound/{schema}", f"bundles/editor/{schema}"]
        )
    )
    problems = check_released(_catalog_with({v17, v18}), root)
    assert problems == []
    problems = [p for p in check_released(_catalog_with({v18}), root) if "withdrawn" not in p]
    assert problems == [
        f"{v18}: released, but it refers to https://atif-spec.org/schemas/{v17}, which is not: "
        "its bundles embed that schema (release both)"
    ]


def test_gate_changelog_must_name_each_change(tmp_path: Path) -> None:
    root = _spec_copy(tmp_path)
    assert check_changelogs(root=root) == []
    log = root / "atif/CHANGELOG.md"
    text = log.read_text()
    log.write_text(re.sub(r"`llm_call_count`", "the call count", text))
    problems = check_changelogs(root=root)
    assert problems == [
        "spec/atif/CHANGELOG.md: section v1.7 does not mention `llm_call_count` "
        "(closed-object-gained-field from atif@v1.6, trajectory)"
    ]
    log.write_text(text.replace("## v1.4\n", "## Version 1.4\n"))
    assert check_changelogs(root=root) == ["spec/atif/CHANGELOG.md: no '## v1.4' section"]
    (root / "tao/CHANGELOG.md").unlink()
    assert "spec/tao/CHANGELOG.md: missing" in check_changelogs(root=root)
