"""The generated self-contained schemas (generated/bundles) work offline, as they are."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
import pytest
import referencing.exceptions

from atif_spec.schemas.catalog import bundle_file, load_catalog, schema_by_id
from tests.support import ROOT

ENTRIES = list(load_catalog())


def _load(entry: Any, kind: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(bundle_file(entry, kind).read_text(encoding="utf-8"))
    return loaded


def _nodes(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for value in node:
            yield from _nodes(value)


def _refused(uri: str) -> Any:
    raise referencing.exceptions.NoSuchResource(uri)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.path)
def test_compound_bundle_embeds_each_published_schema_once_and_unchanged(entry: Any) -> None:
    bundle = _load(entry, "compound")
    ids = [n["$id"] for n in _nodes(bundle) if isinstance(n.get("$id"), str)]
    assert len(ids) == len(set(ids)), ids
    assert ids[0] == entry.id
    for node in _nodes(bundle):
        if node is not bundle and "$id" in node:
            assert node == schema_by_id(node["$id"])
    root = {k: v for k, v in bundle.items() if k != "$defs"}
    assert root == {k: v for k, v in schema_by_id(entry.id).items() if k != "$defs"}
    for node in _nodes(bundle):
        base = node.get("$ref", "#").partition("#")[0]
        assert not base or base in ids, f"{base} is referred to but not embedded"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.path)
def test_editor_bundle_has_one_id_and_local_references_only(entry: Any) -> None:
    bundle = _load(entry, "editor")
    assert [n for n in _nodes(bundle) if "$id" in n and n is not bundle] == []
    for node in _nodes(bundle):
        ref = node.get("$ref")
        if isinstance(ref, str):
            assert ref.startswith("#"), ref
            target: Any = bundle
            for token in ref[1:].split("/")[1:]:
                target = target[token]
            assert isinstance(target, dict)


@pytest.mark.parametrize("kind", ["compound", "editor"])
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.path)
def test_bundles_compile_without_a_registry(entry: Any, kind: str) -> None:
    bundle = _load(entry, kind)
    jsonschema.Draft202012Validator.check_schema(bundle)
    registry: referencing.Registry[Any] = referencing.Registry(retrieve=_refused)
    jsonschema.Draft202012Validator(bundle, registry=registry).is_valid({})
    jsonschema_rs.validator_for(bundle).is_valid({})


def _embedded_v18() -> Path:
    return ROOT / "conformance/atif/v1.8/valid/embedded-subagent-older-version.json"


def test_readme_check_jsonschema_recipe_runs_offline() -> None:
    """docs/INTEGRATIONS.md: ``check-jsonschema --schemafile "$(atif schema path atif@v1.8)" FILE``, with
    every proxy pointing at a closed port (any download would fail)."""
    bin_dir = Path(sys.executable).parent
    path = subprocess.run(
        [str(bin_dir / "atif"), "schema", "path", "atif@v1.8"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(path).is_file()
    dead = "http://127.0.0.1:9"
    done = subprocess.run(
        [str(bin_dir / "check-jsonschema"), "--schemafile", path, str(_embedded_v18())],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": str(bin_dir), "HTTPS_PROXY": dead, "HTTP_PROXY": dead, "ALL_PROXY": dead},
    )
    assert done.returncode == 0, done.stdout + done.stderr
