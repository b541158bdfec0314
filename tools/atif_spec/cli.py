"""The ``atif`` command: argument parsing and output only; the work happens in the library."""

from __future__ import annotations

import sys
from typing import Any, ClassVar

import click

from atif_spec import __version__
from atif_spec.cli_options import lines_option, max_bytes_option
from atif_spec.engines.cli import engine_options


class _LazyGroup(click.Group):
    """A group whose larger subcommands are imported only when used (``atif validate`` in a
    pre-commit hook must start fast)."""

    LAZY: ClassVar[dict[str, str]] = {
        "conformance": "atif_spec.conformance.cli:conformance",
        "convert": "atif_spec.transform_cli:convert",
        "export-sft": "atif_spec.sft_cli:export_sft",
        "migrate": "atif_spec.transform_cli:migrate",
        "spec": "atif_spec.spec_cli:spec",
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.LAZY})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.LAZY and cmd_name not in self.commands:
            import importlib

            module, _, attr = self.LAZY[cmd_name].partition(":")
            command = getattr(importlib.import_module(module), attr)
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="atif")
def main() -> None:
    """Validate, inspect and migrate agent trajectories (ATIF and sibling formats)."""


# --------------------------------------------------------------------------- validate


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--format",
    "output",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: one line per finding; json: one JSON object per document (JSON Lines).",
)
@click.option("--strict", is_flag=True, help="Warnings make the run fail too.")
@click.option(
    "--as",
    "as_target",
    metavar="FORMAT@VERSION",
    help="Validate as this format/version instead of detecting it.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Validate in N processes.",
)
@click.option(
    "--follow-refs",
    is_flag=True,
    help="Also validate trajectory_path subagent files and continuation files.",
)
@click.option(
    "--no-check-files", is_flag=True, help="Do not check that referenced media files exist."
)
@click.option(
    "--allow-outside",
    is_flag=True,
    help="Let referenced files resolve outside the document's folder.",
)
@click.option(
    "--check-duplicate-keys",
    is_flag=True,
    help="Warn about repeated object keys (a second, slower parse).",
)
@lines_option
@max_bytes_option
@click.option(
    "-q", "--quiet", is_flag=True, help="Print nothing but the summary line (text format)."
)
@engine_options
def validate(
    paths: tuple[str, ...],
    output: str,
    strict: bool,
    as_target: str | None,
    jobs: int,
    follow_refs: bool,
    no_check_files: bool,
    allow_outside: bool,
    check_duplicate_keys: bool,
    lines: bool | None,
    max_bytes: int | None,
    quiet: bool,
    engine: str,
    ray_address: str | None,
    summary_path: str | None,
    column: str,
) -> None:
    """Validate trajectory files, directories (recursively: *.json, *.jsonl) or stdin (-).

    Datasets: Parquet files (one trajectory per row, as JSON text in --column) and URIs
    (s3://, gs://, ...) too; --engine ray runs on a Ray cluster, --summary writes the
    dataset summary. Both engines report the same findings and exit with the same status.

    Exit status: 0 when every document is valid, 1 when any is invalid (or has warnings with
    --strict), 2 for usage errors and unreadable paths.
    """
    from atif_spec.engines.cli import is_dataset_run
    from atif_spec.output import Counts, JsonRenderer, TextRenderer
    from atif_spec.reader import DEFAULT_MAX_BYTES, UnreadablePath, check_paths
    from atif_spec.runner import run_validation
    from atif_spec.targets import Target, TargetError
    from atif_spec.validation import Options

    if as_target:
        try:
            Target.parse(as_target)
        except TargetError as exc:
            raise click.UsageError(str(exc)) from exc
    options = Options(
        as_target=as_target,
        check_files=not no_check_files,
        allow_outside=allow_outside,
        follow_refs=follow_refs,
        check_duplicate_keys=check_duplicate_keys,
        max_bytes=max_bytes or DEFAULT_MAX_BYTES,
    )
    renderer = JsonRenderer() if output == "json" else TextRenderer(quiet=quiet, strict=strict)
    summary: Counts
    try:
        if is_dataset_run(paths, engine, summary_path):  # the engines list the inputs themselves
            from atif_spec.engines import cli as engines_cli

            summary = engines_cli.validate(
                paths,
                options,
                engine=engine,
                jobs=jobs,
                lines=lines,
                column=column,
                summary_path=summary_path,
                ray_address=ray_address,
                sink=renderer.document,
            )
        else:
            files = check_paths(paths)
            summary = run_validation(files, options, jobs=jobs, lines=lines, sink=renderer.document)
    except UnreadablePath as exc:
        click.echo(f"atif: {exc}", err=True)
        sys.exit(2)
    renderer.finish(summary)
    failed = summary.invalid or (strict and summary.with_warnings)
    sys.exit(1 if failed else 0)


# --------------------------------------------------------------------------- rules


@main.command("rules")
@click.option(
    "--format", "output", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--for",
    "target",
    metavar="FORMAT[@VERSION]",
    help="Only the rules that apply to this format/version.",
)
def rules_command(output: str, target: str | None) -> None:
    """List the rule registry: every check beyond JSON Schema."""
    import orjson

    from atif_spec.rules import REGISTRY
    from atif_spec.targets import Target, TargetError

    selected = list(REGISTRY)
    if target:
        try:
            t = Target.parse(target)
        except TargetError as exc:
            raise click.UsageError(str(exc)) from exc
        selected = [
            r
            for r in selected
            if (t.format is None or r.format == t.format)
            and (t.version is None or t.version in r.versions)
        ]
    if output == "json":
        for r in selected:
            click.echo(orjson.dumps(r.to_dict()).decode())
        return
    for r in selected:
        versions = _version_span(r.versions)
        click.echo(f"{r.code}  {r.name:<42} {r.level!s:<8} {r.format}@{versions}  {r.summary}")


def _version_span(versions: tuple[str, ...]) -> str:
    if not versions:
        return "-"
    return versions[0] if len(versions) == 1 else f"{versions[0]}..{versions[-1]}"


# --------------------------------------------------------------------------- render


def _load_input(path: str) -> Any:
    """A parsed input: one JSON document, or the list of events of a JSON Lines log."""
    import orjson

    from atif_spec.reader import is_jsonl

    try:
        data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()  # noqa: SIM115
    except OSError as exc:
        click.echo(f"atif: cannot read {path}: {exc.strerror or exc}", err=True)
        sys.exit(2)
    if path != "-" and is_jsonl(path):
        from atif_spec.stepsubstep.cli_hooks import parse_jsonl

        try:
            return parse_jsonl(data)
        except ValueError as exc:
            click.echo(f"atif: {path}: {exc}", err=True)
            sys.exit(1)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        from atif_spec.stepsubstep.cli_hooks import parse_jsonl

        try:
            return parse_jsonl(data)
        except ValueError as exc:
            click.echo(f"atif: {path}: not JSON or JSON Lines ({exc})", err=True)
            sys.exit(1)


@main.command()
@click.argument("input_path", metavar="INPUT")
@click.option(
    "-v", "--verbose", is_flag=True, help="Show every substep (S<n>.<m>), not only steps."
)
def render(input_path: str, verbose: bool) -> None:
    """Print the timeline of a run log, a legacy turn log, or an ATIF trajectory.

    Compact by default (one line per step, anchored S<n>); --verbose adds every substep.
    Colour on a terminal, plain text when piped.
    """
    from rich.console import Console

    from atif_spec.stepsubstep.cli_hooks import UnrenderableError
    from atif_spec.stepsubstep.cli_hooks import render as render_timeline

    value = _load_input(input_path)
    try:
        lines = render_timeline(value, verbose=verbose)
    except UnrenderableError as exc:
        click.echo(f"atif: {input_path}: {exc}", err=True)
        sys.exit(1)
    console = Console(highlight=False, soft_wrap=True)
    for line in lines:
        console.print(line)


# --------------------------------------------------------------------------- schema


@main.group()
def schema() -> None:
    """The packaged schemas: list them, print one, or print its path."""


@schema.command("list")
@click.option(
    "--format", "output", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def schema_list(output: str) -> None:
    """Print the catalog: every schema with its pinned $id and status."""
    import orjson

    from atif_spec.catalog import load_catalog

    catalog = load_catalog()
    if output == "json":
        from atif_spec.catalog import read_spec_json

        click.echo(
            orjson.dumps(read_spec_json("catalog.json"), option=orjson.OPT_INDENT_2).decode()
        )
        return
    for e in catalog:
        latest = catalog.formats.get(e.format)
        mark = " (latest)" if latest and latest.latest == e.version and e.kind == "document" else ""
        click.echo(f"{e.target + '/' + e.name:<40} {e.status:<10} {e.id}{mark}")


def _entry(target: str, name: str | None) -> Any:
    from atif_spec.catalog import UnknownSchemaError, load_catalog
    from atif_spec.targets import TargetError

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
    from atif_spec.catalog import spec_root

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

    from atif_spec.catalog import bundle_file

    with as_file(bundle_file(_entry(target, name), "editor" if editor else "compound")) as p:
        click.echo(str(p))


if __name__ == "__main__":  # pragma: no cover
    main()
