"""The schema catalog: every schema the package ships, its pinned ``$id`` and status."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from atif_spec.schemas.targets import Target

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

CATALOG_FILE = "catalog.json"


@dataclass(frozen=True, slots=True)
class SchemaEntry:
    """One schema file listed in ``spec/catalog.json``."""

    format: str
    version: str | None
    name: str
    kind: str
    path: str
    id: str
    status: str
    primary: bool = False
    bundle: str = ""
    """URL of the compound bundle: the schema as one file that loads with no further fetch
    (what a validator fetches; RFC.md §8)."""
    editor: str = ""
    """URL of the editor bundle (references inlined; what an editor fetches)."""
    note: str = ""
    """Why a draft is not released (what it waits for); empty on a released schema."""

    @property
    def target(self) -> str:
        """The ``FORMAT@VERSION`` spelling of this entry (dispatchers have no version)."""
        return self.format if self.version is None else f"{self.format}@{self.version}"


@dataclass(frozen=True, slots=True)
class FormatInfo:
    """What the catalog says about one format."""

    name: str
    title: str
    latest: str
    version_field: str | None


class UnknownSchemaError(LookupError):
    """Raised when a target names no schema in the catalog."""


@dataclass(frozen=True)
class Catalog:
    """The parsed catalog."""

    base_url: str
    formats: dict[str, FormatInfo]
    entries: tuple[SchemaEntry, ...]

    def __iter__(self) -> Iterator[SchemaEntry]:
        return iter(self.entries)

    def versions(self, fmt: str) -> list[str]:
        """Versions of a format in catalog order."""
        seen: list[str] = []
        for e in self.entries:
            if e.format == fmt and e.kind == "document" and e.version and e.version not in seen:
                seen.append(e.version)
        return seen

    def find(self, target: Target | str, name: str | None = None) -> SchemaEntry:
        """The document schema for ``FORMAT@VERSION`` (or the named one of that version)."""
        t = Target.parse(target) if isinstance(target, str) else target
        if t.format is None:
            raise UnknownSchemaError(f"target {t} names no format")
        if t.format not in self.formats and not any(e.format == t.format for e in self.entries):
            known = ", ".join(sorted(self.formats))
            raise UnknownSchemaError(f"unknown format {t.format!r} (known: {known})")
        version = t.version
        if version is None:
            info = self.formats.get(t.format)
            version = info.latest if info else None
        candidates = [
            e
            for e in self.entries
            if e.format == t.format and e.version == version and e.kind in ("document", "tooling")
        ]
        if name is not None:
            candidates = [e for e in candidates if e.name == name]
        if not candidates:
            known = ", ".join(self.versions(t.format)) or "none"
            raise UnknownSchemaError(
                f"no schema for {t.format}@{version}"
                + (f" named {name!r}" if name else "")
                + f" (versions: {known})"
            )
        primary = [e for e in candidates if e.primary]
        return (primary or candidates)[0]

    def by_id(self, schema_id: str) -> SchemaEntry:
        """The entry with this ``$id``."""
        for e in self.entries:
            if e.id == schema_id:
                return e
        raise UnknownSchemaError(f"no schema with $id {schema_id}")


def spec_root() -> Traversable:
    """The packaged ``spec/`` folder (works for wheels and editable installs)."""

    from importlib import resources  # noqa: PLC0415 - start-up: see _spec_folder

    return resources.files("atif_spec.spec")


@functools.cache
def _spec_folder() -> Path | None:
    """The packaged ``spec/`` folder when it is a plain folder on disk (an installed wheel, an
    editable install), else None. Reading schemas from it spares a run the import of
    ``importlib.resources`` (a noticeable part of ``atif validate``'s start-up)."""

    found = find_spec("atif_spec.spec")
    places = list(found.submodule_search_locations or ()) if found is not None else []
    if len(places) == 1 and Path(places[0]).is_dir():
        return Path(places[0])
    return None


def bundle_file(entry: SchemaEntry, kind: str = "compound") -> Traversable:
    """The generated self-contained file of a schema: ``compound`` (every schema it refers to
    embedded with its ``$id``) or ``editor`` (references inlined); see
    ``atif_spec.codegen.bundles``."""

    from importlib import resources  # noqa: PLC0415 - start-up: see _spec_folder

    node = resources.files("atif_spec.bundles").joinpath(kind)
    for part in entry.path.split("/"):
        node = node.joinpath(part)
    return node


def read_spec_json(path: str) -> Any:
    """Parse one JSON file below ``spec/``."""
    folder = _spec_folder()
    if folder is not None:
        return orjson.loads(folder.joinpath(*path.split("/")).read_bytes())
    node = spec_root()
    for part in path.split("/"):
        node = node.joinpath(part)
    return orjson.loads(node.read_bytes())


@functools.cache
def load_catalog() -> Catalog:
    """Load and cache ``spec/catalog.json``."""
    raw = read_spec_json(CATALOG_FILE)
    formats = {
        name: FormatInfo(
            name=name,
            title=info["title"],
            latest=info["latest"],
            version_field=info.get("version_field"),
        )
        for name, info in raw["formats"].items()
    }
    entries = tuple(
        SchemaEntry(
            format=e["format"],
            version=e["version"],
            name=e["name"],
            kind=e["kind"],
            path=e["path"],
            id=e["id"],
            status=e["status"],
            primary=bool(e.get("primary", False)),
            bundle=e["bundle"],
            editor=e["editor"],
            note=e.get("note", ""),
        )
        for e in raw["schemas"]
    )
    return Catalog(base_url=raw["base_url"], formats=formats, entries=entries)


@functools.cache
def schema_by_id(schema_id: str) -> dict[str, Any]:
    """The parsed schema with this ``$id``."""
    entry = load_catalog().by_id(schema_id)
    schema: dict[str, Any] = read_spec_json(entry.path)
    return schema


def schema_for(entry: SchemaEntry) -> dict[str, Any]:
    """The parsed schema of a catalog entry."""
    return schema_by_id(entry.id)


def all_schemas() -> list[tuple[str, dict[str, Any]]]:
    """``($id, schema)`` for every schema in the catalog."""
    return [(e.id, schema_by_id(e.id)) for e in load_catalog()]


def node_at(uri: str) -> Any:
    """The schema node at an absolute keyword location (``<$id>#/json/pointer``)."""
    base, _, fragment = uri.partition("#")
    node: Any = schema_by_id(base)
    for token in fragment.split("/")[1:] if fragment else []:
        key = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            node = node[int(key)]
        elif isinstance(node, dict):
            node = node[key]
        else:
            raise LookupError(uri)
    return node
