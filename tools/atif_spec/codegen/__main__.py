"""``python -m atif_spec.codegen {generate,check} [--root DIR]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from atif_spec.codegen import pydantic_models, typescript_types
from atif_spec.codegen.driver import LANGUAGES, check, generate
from atif_spec.codegen.prepare import BindingError


def main(argv: list[str] | None = None) -> int:
    """Run the command; 0 = done / up to date, 1 = stale files, 2 = could not generate."""
    parser = argparse.ArgumentParser(prog="python -m atif_spec.codegen", description=__doc__)
    parser.add_argument("command", choices=("generate", "check"))
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="repository root")
    parser.add_argument("--only", choices=LANGUAGES, help="one output instead of all", default=None)
    parser.add_argument("--node-modules", type=Path, default=None, help="npm packages folder")
    args = parser.parse_args(argv)
    languages = (args.only,) if args.only else LANGUAGES
    try:
        if args.command == "generate":
            changed = generate(args.root, languages, args.node_modules)
            for rel in changed:
                print(f"updated generated/{rel}")
            print(f"{len(changed)} file(s) updated")
            return 0
        stale = check(args.root, languages, args.node_modules)
    except (
        BindingError,
        pydantic_models.GeneratorError,
        typescript_types.NodeError,
        OSError,
    ) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for rel in stale:
        print(f"generated/{rel} differs from what the schemas produce")
    if stale:
        print("run `nox -s generate` and commit the result", file=sys.stderr)
        return 1
    print("generated/ is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
