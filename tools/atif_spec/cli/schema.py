"""``atif schema``: the packaged schemas (list, show, path)."""

from __future__ import annotations

from typing import Any

import click

from atif_spec.jsonio import jsontext


@click.group()
def schema() -> None:
    """The packaged schemas: list them, print one, or print its path."""


@schema.command("list")
@click.option(
    "--format", "output", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def schema_list(output: str) -> None:
    """Print the catalog: every schema with its pinned $id and status."""

    from atif_spec.schemas.catalog import load_catalog

    catalog = load_catalog()
    if output == "json":
        from atif_spec.schemas.catalog import read_spec_json

        click.echo(jsontext.dumps(read_spec_json("catalog.json"), indent=True).decode())
        return
    for e in catalog:
        latest = catalog.formats.get(e.format)
        mark = " (latest)" if latest and latest.latest == e.version and e.kind == "document" else ""
        click.echo(f"{e.target + '/' + e.name:<40} {e.status:<10} {e.id}{mark}")


def _entry(target: str, name: str | None) -> Any:
    from atif_spec.schemas.catalog import UnknownSchemaError, load_catalog
    from atif_spec.schemas.targets import TargetError

    try:
        if "@" not in target and not target.startswith("v"):
            catalog = load_catalog()
            dispatchers = [e for e in catalog if e.format == target and e.kind == "dispatcher"]
            if dispatchers and name is None:
                return dispatchers[0]
        return load_catalog().find(target, name)
    except (UnknownSchemaError, TargetError) as exc:
        raise click.UsageError(str(exc)) from exc


def _schema_file(target: str, name: str | None) -> Any:
    """The packaged file (a Traversable) of the schema a target names."""
    from atif_spec.schemas.catalog import spec_root

    node = spec_root()
    for part in _entry(target, name).path.split("/"):
        node = node.joinpath(part)
    return node


@schema.command("show")
@click.argument("target")
@click.option("--name", help="Which schema of that version (when a version has several).")
def schema_show(target: str, name: str | None) -> None:
    """Print the schema of FORMAT@VERSION (a bare FORMAT prints its any-version schema)."""
    click.echo(_schema_file(target, name).read_text(encoding="utf-8"), nl=False)


@schema.command("path")
@click.argument("target")
@click.option("--name", help="Which schema of that version (when a version has several).")
@click.option("--editor", is_flag=True, help="The variant for editors (no nested $id).")
def schema_path(target: str, name: str | None, editor: bool) -> None:
    """Print the path of a schema file that works as is, offline (for check-jsonschema
    --schemafile, Ajv, jsonschema-rs): the compound bundle, which embeds every schema the
    schema refers to (``--editor``: the inlined variant for editors such as VS Code)."""
    from importlib.resources import as_file

    from atif_spec.schemas.catalog import bundle_file

    with as_file(bundle_file(_entry(target, name), "editor" if editor else "compound")) as p:
        click.echo(str(p))
