"""The ``atif`` command line: argument parsing and output only; the work happens in the library.

One module per command group; each is imported only when its command runs (``atif validate`` in
a pre-commit hook must start fast). Nothing outside this package prints.
"""

from __future__ import annotations

from typing import ClassVar

import click

from atif_spec import __version__


class _LazyGroup(click.Group):
    """A group whose subcommands are imported only when used."""

    LAZY: ClassVar[dict[str, str]] = {
        "conformance": "atif_spec.cli.conformance:conformance",
        "convert": "atif_spec.cli.transform:convert",
        "export-sft": "atif_spec.cli.sft:export_sft",
        "migrate": "atif_spec.cli.transform:migrate",
        "render": "atif_spec.cli.render:render",
        "rules": "atif_spec.cli.rules:rules_command",
        "schema": "atif_spec.cli.schema:schema",
        "spec": "atif_spec.cli.spec:spec",
        "stats": "atif_spec.cli.stats:stats",
        "validate": "atif_spec.cli.validate:validate",
        "view": "atif_spec.cli.view:view",
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
