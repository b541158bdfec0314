"""The catalog and the schema files agree: ids, paths, base URL, status, offline resolution."""

from __future__ import annotations

import json
import tomllib

import pytest

from atif_spec.schemas.catalog import load_catalog, schema_by_id
from atif_spec.schemas.compiled import referencing_registry
from tests.support import ROOT

CATALOG = json.loads((ROOT / "spec" / "catalog.json").read_text())
SCHEMA_FILES = sorted(
    p.relative_to(ROOT / "spec").as_posix() for p in (ROOT / "spec").rglob("*.schema.json")
)


def test_every_schema_file_is_in_the_catalog_once() -> None:
    listed = [e["path"] for e in CATALOG["schemas"]]
    assert sorted(listed) == SCHEMA_FILES
    assert len(set(listed)) == len(listed)


@pytest.mark.parametrize("entry", CATALOG["schemas"], ids=lambda e: e["path"])
def test_id_is_base_url_plus_path(entry: dict[str, str]) -> None:
    schema = json.loads((ROOT / "spec" / entry["path"]).read_text())
    assert entry["id"] == f"{CATALOG['base_url']}/{entry['path']}"
    # The self-contained files a validator and an editor fetch (RFC.md §8).
    assert entry["bundle"] == f"{CATALOG['base_url']}/bundles/compound/{entry['path']}"
    assert entry["editor"] == f"{CATALOG['base_url']}/bundles/editor/{entry['path']}"
    assert schema["$id"] == entry["id"]
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("entry", CATALOG["schemas"], ids=lambda e: e["path"])
def test_versioned_path_names_format_and_version(entry: dict[str, str]) -> None:
    if entry["kind"] == "document":
        assert entry["path"] == f"{entry['format']}/{entry['version']}/{entry['name']}.schema.json"


def test_a_draft_says_why_and_only_a_draft_has_a_note() -> None:
    """The catalog says why each draft is not released (issue 33): what it waits for."""
    catalog = load_catalog()
    assert [e.path for e in catalog if e.status == "draft" and not e.note] == []
    assert [e.path for e in catalog if e.status != "draft" and e.note] == []


def test_latest_versions_exist() -> None:
    catalog = load_catalog()
    for name, info in catalog.formats.items():
        assert info.latest in catalog.versions(name), name


@pytest.mark.parametrize("entry", CATALOG["schemas"], ids=lambda e: e["path"])
def test_every_reference_resolves_offline(entry: dict[str, str]) -> None:
    """Every $ref in every schema resolves inside the packaged registry (no network)."""
    registry = referencing_registry()
    resolver = registry.resolver(base_uri=entry["id"])

    def refs(node: object) -> list[str]:
        if isinstance(node, dict):
            found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
            return found + [r for v in node.values() for r in refs(v)]
        if isinstance(node, list):
            return [r for v in node for r in refs(v)]
        return []

    for ref in refs(schema_by_id(entry["id"])):
        resolver.lookup(ref)


def test_atif_refs_out_of_a_file_only_to_pinned_ids() -> None:
    """A version's schema refers out of its file only by a pinned, earlier-version $id."""
    for entry in CATALOG["schemas"]:
        if entry["format"] != "atif" or entry["kind"] != "document":
            continue
        text = (ROOT / "spec" / entry["path"]).read_text()
        for other in CATALOG["schemas"]:
            if other["id"] != entry["id"] and f'"$ref": "{other["id"]}"' in text:
                assert other["format"] == "atif" and other["version"] < entry["version"]


def test_every_object_and_field_has_title_and_description() -> None:
    missing: list[str] = []

    def walk(node: object, where: str) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object" or "object" in (node.get("type") or []):
                for key in ("title", "description"):
                    if key not in node:
                        missing.append(f"{where} lacks {key}")
            for name, sub in (node.get("properties") or {}).items():
                if isinstance(sub, dict) and "$ref" not in sub:
                    for key in ("title", "description"):
                        if key not in sub:
                            missing.append(f"{where}/properties/{name} lacks {key}")
            for k, v in node.items():
                if k not in ("if", "then", "else", "anyOf", "allOf", "oneOf", "not"):
                    walk(v, f"{where}/{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{where}/{i}")

    for path in SCHEMA_FILES:
        walk(json.loads((ROOT / "spec" / path).read_text()), path)
    assert not missing, missing[:20]


def test_packages_listed_in_pyproject_match_the_tree() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {
        ".".join(p.relative_to(ROOT / "tools").parent.parts)
        for p in (ROOT / "tools").rglob("__init__.py")
    } | {
        ".".join(
            ("atif_spec", "models", *p.relative_to(ROOT / "generated" / "python").parent.parts)
        )
        for p in (ROOT / "generated" / "python").rglob("__init__.py")
    }
    assert found <= listed, f"unlisted packages: {sorted(found - listed)}"
