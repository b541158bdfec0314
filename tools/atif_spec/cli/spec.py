"""``atif spec``: the contributors' commands over ``spec/`` (compare versions, run the gate)."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

import click

from atif_spec.jsonio import jsontext


@click.group("spec")
def spec() -> None:
    """Compare schema versions and check the rules for changing spec/."""


def _load(arg: str, name: str | None) -> tuple[dict[str, Any], str, Any]:
    """``(schema, label, catalog entry or None)`` for a file path or a ``FORMAT@VERSION``."""
    import orjson

    from atif_spec.schemas.catalog import UnknownSchemaError, load_catalog, schema_by_id
    from atif_spec.schemas.targets import TargetError

    catalog = load_catalog()
    path = Path(arg)
    if path.is_file():
        try:
            schema = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise click.UsageError(f"{arg}: not JSON ({exc})") from exc
        if not isinstance(schema, dict):
            raise click.UsageError(f"{arg}: not a JSON Schema object")
        entry = None
        with contextlib.suppress(UnknownSchemaError):
            entry = catalog.by_id(str(schema.get("$id", "")))
        return schema, arg, entry
    try:
        entry = catalog.find(arg, name)
    except (UnknownSchemaError, TargetError) as exc:
        raise click.UsageError(f"{arg}: neither a file nor a known target ({exc})") from exc
    return schema_by_id(entry.id), entry.target, entry


def _format_of(schema: dict[str, Any], entry: Any) -> str | None:
    from atif_spec.schemas.catalog import load_catalog

    if entry is not None:
        return str(entry.format)
    base = load_catalog().base_url.rstrip("/") + "/"
    sid = str(schema.get("$id", ""))
    return sid[len(base) :].split("/", 1)[0] if sid.startswith(base) else None


def _baseline(entry: Any, fmt: str | None, schema: dict[str, Any]) -> tuple[str, str]:
    """The schema a lone NEW is compared with: the last released one before it, else the
    previous catalog version. Returns ``(target, why)``."""
    from atif_spec.schemas.catalog import load_catalog

    catalog = load_catalog()
    if fmt is None:
        raise click.UsageError("cannot tell the format of NEW: name OLD explicitly")
    name = entry.name if entry is not None else None
    candidates = [e for e in catalog if e.format == fmt and e.kind == "document" and e.version]
    if name is not None:
        candidates = [e for e in candidates if e.name == name]
    if entry is not None and entry in candidates:
        candidates = candidates[: candidates.index(entry)]
    released = [e for e in candidates if e.status == "released"]
    if released:
        return released[-1].target, "last released version"
    if candidates:
        return candidates[-1].target, "previous version (none is released yet)"
    raise click.UsageError(f"no earlier {fmt} schema to compare with: name OLD explicitly")


@spec.command("diff")
@click.argument("old_or_new", metavar="[OLD]")
@click.argument("new", required=False)
@click.option("--name", help="Which schema of a version (when a version has several).")
@click.option(
    "--format", "output", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option("--no-annotations", is_flag=True, help="Leave out title/description changes.")
@click.option(
    "--fail-on",
    type=click.Choice(["never", "writers", "readers", "any"]),
    default="never",
    show_default=True,
    help="Exit 1 when the changes break writers, readers, or either.",
)
def diff_command(
    old_or_new: str,
    new: str | None,
    name: str | None,
    output: str,
    no_annotations: bool,
    fail_on: str,
) -> None:
    """Classify every change from OLD to NEW as breaking for writers, for readers, or compatible.

    OLD and NEW are schema files or packaged targets (atif@v1.6). With NEW alone, it is compared
    with the last released schema of its format (or the previous version, when none is released).
    """

    from atif_spec.spectools.specdiff import READERS, WRITERS, BrokenSchemaError, diff_schemas

    if new is None:
        new_schema, new_label, new_entry = _load(old_or_new, name)
        fmt = _format_of(new_schema, new_entry)
        old_target, why = _baseline(new_entry, fmt, new_schema)
        click.echo(f"atif: comparing with {old_target} ({why})", err=True)
        old_schema, old_label, _ = _load(old_target, name or getattr(new_entry, "name", None))
    else:
        old_schema, old_label, old_entry = _load(old_or_new, name)
        new_schema, new_label, new_entry = _load(new, name)
        fmt = _format_of(new_schema, new_entry)
        old_fmt = _format_of(old_schema, old_entry)
        if fmt is not None and old_fmt is not None and fmt != old_fmt:
            raise click.UsageError(
                f"{old_label} is {old_fmt} and {new_label} is {fmt}: spec diff compares two "
                "versions of one format (to move documents between formats, use atif convert)"
            )
    from atif_spec.schemas.catalog import load_catalog

    info = load_catalog().formats.get(fmt or "")
    try:
        result = diff_schemas(
            old_schema,
            new_schema,
            old_name=old_label,
            new_name=new_label,
            version_field=info.version_field if info else None,
        )
    except BrokenSchemaError as exc:  # the schemas given are broken: a usage error
        click.echo(f"atif: spec diff {old_label} {new_label}: {exc}", err=True)
        sys.exit(2)
    if output == "json":
        click.echo(jsontext.dumps(result.to_dict(), indent=True).decode())
    else:
        click.echo(result.render_text(annotations=not no_annotations), nl=False)
    breaks = result.breaks
    failed = (
        (fail_on == "writers" and WRITERS in breaks)
        or (fail_on == "readers" and READERS in breaks)
        or (fail_on == "any" and bool(breaks))
    )
    sys.exit(1 if failed else 0)


@spec.command("check")
def check_command() -> None:
    """The gate: released schemas unchanged, every version's changes in its CHANGELOG.md."""
    from atif_spec.spectools.specgate import check_all

    problems = check_all()
    for p in problems:
        click.echo(f"spec-check: {p}", err=True)
    if problems:
        click.echo(f"spec-check: {len(problems)} problem(s)", err=True)
        sys.exit(1)
    click.echo("spec-check: released schemas unchanged; every change is in a changelog")


@spec.command("lock")
@click.argument("paths", nargs=-1)
def lock_command(paths: tuple[str, ...]) -> None:
    """Print RELEASED.sha256 lines for the catalog's released schemas (or the given spec paths):
    each schema's file and its two bundles (what its `$id`, `bundle` and `editor` URLs serve)."""
    from atif_spec.schemas.catalog import load_catalog, spec_root
    from atif_spec.spectools.specgate import lock_line, locked_paths

    catalog = load_catalog()
    by_path = {e.path: e for e in catalog}
    chosen = [by_path.get(p, p) for p in paths] or [e for e in catalog if e.status == "released"]
    for item in chosen:
        for path in [item] if isinstance(item, str) else locked_paths(item):
            click.echo(lock_line(spec_root(), path))


if __name__ == "__main__":  # pragma: no cover
    spec()
