"""Generated regions of RFC.md (the rule table from the registry, field tables from schemas),
README.md (the size of the conformance suite) and the MAPPING.md files (``mapping-<id>``: the
tables of :mod:`atif_spec.transforms.mapping`), and the list of finding codes
(``spec/finding-codes.json``, :mod:`atif_spec.spectools.findingcodes`).

A region sits between ``<!-- BEGIN GENERATED: name (python -m atif_spec.spectools.docgen) -->`` and
``<!-- END GENERATED: name -->``. ``python -m atif_spec.spectools.docgen`` rewrites them in place;
``--check`` exits 1 when the file differs from what the registry and schemas produce. Without
file arguments both also bring the list of finding codes up to date, and fail when a released
code changed or disappeared.
"""

from __future__ import annotations

import itertools
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from atif_spec.conformance.suite import load_suite
from atif_spec.jsonio.atomic import write_atomic
from atif_spec.schemas.catalog import load_catalog, schema_by_id, spec_root
from atif_spec.spectools import findingcodes
from atif_spec.spectools.specdiff import diff_targets
from atif_spec.transforms.mapping import render as mapping_table
from atif_spec.validation.rules import REGISTRY

_REGION = re.compile(
    r"(<!-- BEGIN GENERATED: (?P<name>[a-z0-9-]+) \(python -m atif_spec\.spectools\.docgen\) -->\n)"
    r"(?P<body>.*?)"
    r"(<!-- END GENERATED: (?P=name) -->)",
    re.DOTALL,
)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _span(versions: tuple[str, ...]) -> str:
    if not versions:
        return "-"
    return versions[0] if len(versions) == 1 else f"{versions[0]} to {versions[-1]}"


def rule_table() -> str:
    """Markdown table of every registry rule."""

    lines = [
        "| Code | Name | Level | Format | Versions | Section | Summary |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in REGISTRY:
        lines.append(
            f"| `{r.code}` | `{r.name}` | {r.level} | {r.format} | {_span(r.versions)} | "
            f"{_cell(r.section)} | {_cell(r.summary)} |"
        )
    return "\n".join(lines) + "\n"


def _type_of(node: dict[str, Any]) -> str:
    if "$ref" in node:
        return str(node["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in node:
        parts = [_type_of(b) for b in node["anyOf"]]
        return " \\| ".join(p for p in parts if p)
    t = node.get("type")
    if t is None and "enum" in node:
        return "enum"
    types = t if isinstance(t, list) else [t] if t else []
    out = []
    for name in types:
        if name == "array" and isinstance(node.get("items"), dict):
            out.append(f"array of {_type_of(node['items'])}")
        else:
            out.append(str(name))
    return " \\| ".join(out)


def field_tables(target: str) -> str:
    """One table per object of a schema: field, type, required, description."""
    entry = load_catalog().find(target)
    schema = schema_by_id(entry.id)
    objects = [("Trajectory (root)", schema)] + [
        (name, d) for name, d in schema.get("$defs", {}).items() if d.get("type") == "object"
    ]
    chunks = [f"Generated from `spec/{entry.path}` (`{entry.id}`).\n"]
    for name, node in objects:
        if name == "EmbeddedSubagent":
            continue
        required = set(node.get("required", []))
        chunks.append(f"\n**{name}** — {_cell(node.get('description', ''))}\n")
        chunks.append("\n| Field | Type | Required | Description |\n|---|---|---|---|\n")
        for field, sub in node.get("properties", {}).items():
            enum = sub.get("enum")
            kind = _type_of(sub) + (f" ({', '.join(f'`{e}`' for e in enum)})" if enum else "")
            if "const" in sub:
                kind += f" (`{sub['const']}`)"
            desc = sub.get("description", "")
            if not desc and "$ref" in sub:
                target_def = schema.get("$defs", {}).get(str(sub["$ref"]).rsplit("/", 1)[-1], {})
                desc = target_def.get("description", "")
            chunks.append(
                f"| `{field}` | {kind} | {'yes' if field in required else ''} | {_cell(desc)} |\n"
            )
    return "".join(chunks)


def version_deltas(fmt: str) -> str:
    """Table of ``atif spec diff`` between consecutive versions of a format's document schema."""

    catalog = load_catalog()
    versions = catalog.versions(fmt)
    lines = [
        "| Step | `atif spec diff` classification | Changes (where in a document; kind) |",
        "|---|---|---|",
    ]
    for old, new in itertools.pairwise(versions):
        diff = diff_targets(f"{fmt}@{old}", f"{fmt}@{new}")
        shown = [c for c in diff.significant() if not c.kind.startswith("conditional-")]
        cells = [f"`{c.location or '/'}` {c.kind}" for c in shown]
        lines.append(
            f"| {old} → {new} | {diff.classification} | "
            f"{_cell('; '.join(cells)) if cells else 'documentation only'} |"
        )
    return "\n".join(lines) + "\n"


def sibling_formats() -> str:
    """Table of the formats other than ATIF: versions, schemas, rules, mapping and decisions."""

    catalog = load_catalog()
    lines = [
        "| Format | Versions | Schemas | Rules | Mapping to ATIF | Decisions |",
        "|---|---|---|---|---|---|",
    ]
    root = spec_root()
    for name, info in catalog.formats.items():
        if name == "atif":
            continue
        entries = [e for e in catalog if e.format == name and e.kind == "document"]
        schemas = ", ".join(f"`{e.target}/{e.name}`" for e in entries)
        codes = [r.code for r in REGISTRY if r.format == name]
        rules = f"`{codes[0]}` to `{codes[-1]}` ({len(codes)})" if codes else "none"
        mapping = (
            f"[spec/{name}/MAPPING.md](spec/{name}/MAPPING.md)"
            if root.joinpath(name).joinpath("MAPPING.md").is_file()
            else "—"
        )
        decisions = f"[spec/{name}/DECISIONS.md](spec/{name}/DECISIONS.md)"
        lines.append(
            f"| `{name}` — {_cell(info.title)} | {', '.join(catalog.versions(name))} | "
            f"{schemas} | {rules} | {mapping} | {decisions} |"
        )
    return "\n".join(lines) + "\n"


def fixture_count() -> str:
    """The size of the conformance suite, for README.md (indented: it sits in a list item)."""

    cases = load_suite(Path(__file__).resolve().parents[3] / "conformance")  # the checkout's
    by = Counter(c.category for c in cases)
    manifests = len({c.manifest for c in cases})
    return (
        f"  {len(cases)} fixtures ({by['valid']} valid, {by['invalid']} invalid, "
        f"{by['warning']} warning) in {manifests} manifests.\n  "
    )


GENERATORS: dict[str, Callable[[], str]] = {
    "fixture-count": fixture_count,
    "rule-table": rule_table,
    "atif-fields": lambda: field_tables("atif"),
    "atif-version-deltas": lambda: version_deltas("atif"),
    "sibling-formats": sibling_formats,
}


def render(text: str) -> str:
    """The text with every generated region refreshed."""

    def replace(m: re.Match[str]) -> str:
        name = m.group("name")
        if name.startswith("mapping-"):
            return m.group(1) + mapping_table(name.removeprefix("mapping-")) + m.group(4)
        if name not in GENERATORS:
            raise KeyError(f"unknown generated region {name!r}")
        return m.group(1) + GENERATORS[name]() + m.group(4)

    return _REGION.sub(replace, text)


DOCUMENTS = (
    "RFC.md",
    "README.md",
    "spec/tao/MAPPING.md",
    "spec/trajectory-sdk/MAPPING.md",
    "spec/step-substep/MAPPING.md",
    "spec/otel/MAPPING.md",
)
"""The checkout's files with generated regions (paths from the checkout's root)."""


def finding_codes(check: bool, root: Path | None = None) -> list[str]:
    """Bring ``spec/finding-codes.json`` (below ``root``, default the working directory) up to
    date, or with ``check`` only compare it; the problems (a released code changed, or the file
    is out of date under ``check``)."""
    path = (root or Path()) / findingcodes.PATH
    old = path.read_bytes() if path.is_file() else b""
    entries, problems = findingcodes.update(
        findingcodes.recorded(old) if old else [], findingcodes.current()
    )
    if problems:
        return [f"{findingcodes.PATH}: {p}" for p in problems]
    new = findingcodes.render(entries)
    if new == old:
        return []
    if check:
        return [
            f"{findingcodes.PATH}: out of date: new finding codes are recorded by "
            "`python -m atif_spec.spectools.docgen` (`nox -s generate`)"
        ]
    write_atomic(path, new)
    return []


def main(argv: list[str] | None = None) -> int:
    """``python -m atif_spec.spectools.docgen [--check] [FILE ...]`` (default:
    :data:`DOCUMENTS`)."""
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    files = [a for a in args if a != "--check"] or list(DOCUMENTS)
    stale = []
    for name in files:
        path = Path(name)
        old = path.read_text(encoding="utf-8")
        new = render(old)
        if new != old:
            if check:
                stale.append(name)
            else:
                write_atomic(path, new.encode())
    for name in stale:
        print(f"{name}: generated regions are out of date (run `nox -s generate`)", file=sys.stderr)
    problems = [] if files != list(DOCUMENTS) else finding_codes(check)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if stale or problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
