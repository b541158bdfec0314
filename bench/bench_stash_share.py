"""Stash share per lens (run by `nox -s bench`; not a timing).

Prints, for every lens, the compact bytes of `_atif_stash` members against the compact bytes of
the outputs, summed over the valid conformance fixtures of the lens's source format (RFC.md §4.5:
a lens writes what a native producer writes; the stash keeps the residue).
"""

from __future__ import annotations

from pathlib import Path

from atif_spec.transforms.lenses.share import format_table, lens_table

ROOT = Path(__file__).resolve().parent.parent / "conformance"


def main() -> None:
    """Print the table."""
    print("stash share per lens (valid fixtures of the source format):")
    print(format_table(lens_table(ROOT)))


if __name__ == "__main__":
    main()
