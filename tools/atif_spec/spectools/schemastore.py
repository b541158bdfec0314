"""The SchemaStore catalog entry of the site (``schemas/schemastore-catalog.json``).

One entry per format, in SchemaStore's catalog format, pointing at what an editor should fetch:
the editor bundle of each schema (``entry.editor`` in ``spec/catalog.json``: one file, every
reference inlined, no nested ``$id``), never the bare ``$id``, which may refer to other files
(RFC.md §8).
"""

from __future__ import annotations

from typing import Any

from atif_spec.schemas.catalog import Catalog, SchemaEntry

SCHEMASTORE_SCHEMA = "https://www.schemastore.org/schema-catalog.json"
"""The ``$schema`` of SchemaStore's own ``catalog.json`` (its current catalog URL)."""

HARBOR_NATIVE_LOGS = (
    "antigravity-cli.trajectory.json",
    "gemini-cli.trajectory.json",
    "mini-swe-agent.trajectory.json",
    "openhands.trajectory.json",
    "swe-agent.trajectory.json",
)
"""Files Harbor 0.26 writes into a trial's ``agent/`` folder that end in ``.trajectory.json`` but
hold an agent's native log, not ATIF (its installed agents copy them beside the ATIF file)."""

ATIF_FILE_MATCH = (
    "**/agent/trajectory.json",
    "**/agent/trajectory.*.json",
    "*.atif.json",
    "*.trajectory.json",
    "*.trajectory.*.json",
    *(f"!{name}" for name in HARBOR_NATIVE_LOGS),
)
"""SchemaStore ``fileMatch`` of ATIF, from the names producers write:

* Harbor 0.26: ``<trial>/agent/trajectory.json``, its continuations ``trajectory.cont-N.json``
  and its subagents ``trajectory.summarization-N-{summary,questions,answers}.json`` (Harbor's own
  tools read every ``agent/trajectory.*.json`` as a subagent or continuation file), and
  ``trajectory-<session>.atif.json`` (the relay of its ``fabric`` agent);
* atif-make 0.10: ``<input>.trajectory.json``, its split subagents
  ``<input>.trajectory.<agent>.json`` (``--split-subagents``; also inside ``--bundle`` zips and
  the ``<folder>.atif/`` of a folder run);
* anyone: the explicit suffix ``.atif.json``.

Not a bare ``trajectory.json`` (unrelated projects use that name) nor ``trajectory.*.json``
outside ``agent/`` (it matches ``trajectory.schema.json``). The ``!`` patterns take Harbor's
native logs back out (VS Code: a later matching pattern decides). SchemaStore's lint: a glob with
``/`` starts with ``**/`` (so an exclusion names a file, not a folder)."""


def _primary_by_version(catalog: Catalog, fmt: str) -> dict[str, SchemaEntry]:
    """The document schema a bare ``FORMAT@VERSION`` selects, by version, in catalog order."""
    primary: dict[str, SchemaEntry] = {}
    for e in catalog:
        if e.format != fmt or e.kind != "document" or e.version is None:
            continue
        if e.version not in primary or e.primary:
            primary[e.version] = e
    return primary


def schemastore_catalog(catalog: Catalog) -> dict[str, Any]:
    """One SchemaStore catalog entry per format: the editor bundle of the any-version (or latest)
    schema and a ``versions`` map of editor bundles; ATIF also gets the file names producers
    write."""
    entries = []
    for name, info in catalog.formats.items():
        primary = _primary_by_version(catalog, name)
        if not primary:
            continue
        dispatchers = [e for e in catalog if e.format == name and e.kind == "dispatcher"]
        main = dispatchers[0] if dispatchers else primary[info.latest]
        # SchemaStore's lint: no "schema" in name or description, no trailing ",. -"
        entry: dict[str, Any] = {
            "name": info.title,
            "description": f"{info.title} ({name}), versions {', '.join(primary)}, "
            "published by atif-spec",
        }
        if name == "atif":
            entry["fileMatch"] = list(ATIF_FILE_MATCH)
        entry["url"] = main.editor
        entry["versions"] = {v: e.editor for v, e in primary.items()}
        entries.append(entry)
    return {"$schema": SCHEMASTORE_SCHEMA, "version": 1, "schemas": entries}
