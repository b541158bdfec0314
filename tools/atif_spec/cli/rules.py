"""``atif rules``: the rule registry, every check beyond JSON Schema."""

from __future__ import annotations

import click


@click.command("rules")
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
