"""``atif rules``: the rule registry, every check beyond JSON Schema, and the other codes."""

from __future__ import annotations

import inspect
import re
import shutil
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from atif_spec.cli import terminal
from atif_spec.jsonio import jsontext


@click.command("rules")
@click.argument("code", required=False)
@click.option(
    "--format", "output", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--for",
    "target",
    metavar="FORMAT[@VERSION]",
    help="Only the rules that apply to this format/version.",
)
@click.option(
    "--suite",
    "suite_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Conformance suite to take a rule's example from (default: the checkout's).",
)
def rules_command(
    code: str | None, output: str, target: str | None, suite_dir: Path | None
) -> None:
    """List every finding code (registry rules, then input:*, schema:*, migrate:* and
    convert:*), or explain CODE.

    atif rules ATIF101 prints what the rule checks, why, its spec section, and an example and
    its fix taken from the rule's conformance cases.
    """

    from atif_spec.schemas.targets import Target, TargetError
    from atif_spec.validation.codes import OTHER_CODES
    from atif_spec.validation.rules import REGISTRY

    if code is not None:
        _explain(code, output, suite_dir)
        return
    selected = list(REGISTRY)
    others = list(OTHER_CODES)
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
        others = []  # input:*, schema:* and the transforms' codes belong to no format
    if output == "json":
        for r in selected:
            click.echo(jsontext.dumps(r.to_dict()).decode())
        for c in others:
            click.echo(jsontext.dumps(_other_dict(c)).decode())
        return
    rows = [
        (r.code, str(r.level), f"{r.format}@{_version_span(r.versions)}", r.name, plain(r.summary))
        for r in selected
    ]
    rows += [(c.code, str(c.level), "any", c.name, plain(c.summary)) for c in others]
    width = shutil.get_terminal_size((100, 24)).columns
    for line in _table(rows, width):
        click.echo(terminal.clean(line))


HEADER = ("CODE", "LEVEL", "APPLIES TO")


def _table(rows: Sequence[tuple[str, str, str, str, str]], width: int) -> list[str]:
    """A header, then per row its code, level and targets in aligned columns, and below them
    its name and summary wrapped to ``width`` columns (at least 40 wide), indented to the level."""
    if not rows:
        return []
    cells = [HEADER, *(row[:3] for row in rows)]
    widths = [max(len(cell[i]) for cell in cells) for i in range(2)]

    def line(cell: Sequence[str]) -> str:
        return "  ".join([*(c.ljust(w) for c, w in zip(cell, widths, strict=False)), cell[2]])

    indent = " " * (widths[0] + 2)
    room = max(width - len(indent), 40)
    out = [line(HEADER), f"{indent}name: summary (atif rules CODE explains one)"]
    for code, level, targets, name, summary in rows:
        out.append(line((code, level, targets)))
        out.extend(indent + text for text in textwrap.wrap(f"{name}: {summary}", room))
    return out


def _other_dict(code: Any) -> dict[str, Any]:
    return {
        "code": code.code,
        "name": code.name,
        "level": str(code.level),
        "format": None,
        "versions": [],
        "section": code.section,
        "summary": code.summary,
        "needs_file": False,
    }


def _version_span(versions: tuple[str, ...]) -> str:
    if not versions:
        return "-"
    return versions[0] if len(versions) == 1 else f"{versions[0]}..{versions[-1]}"


def _explain(code: str, output: str, suite_dir: Path | None) -> None:
    """Print one code's explanation (``atif rules CODE``); an unknown code is a usage error."""

    from atif_spec.validation.codes import OTHER_CODES
    from atif_spec.validation.rules import REGISTRY

    wanted = code.strip()
    rule = next((r for r in REGISTRY if r.code.lower() == wanted.lower()), None)
    other = next((c for c in OTHER_CODES if c.code.lower() == wanted.lower()), None)
    if rule is None and other is None:
        raise click.BadParameter(
            f"no finding code {code!r} (atif rules lists them all)", param_hint="CODE"
        )
    if rule is None:
        assert other is not None
        if output == "json":
            click.echo(jsontext.dumps(_other_dict(other)).decode())
            return
        click.echo(
            f"{other.code} {other.name} ({other.level})\n\n{other.summary}\n\n"
            f"Spec: {plain(other.section)}"
        )
        return
    example = _example(rule.code, suite_dir)
    if output == "json":
        click.echo(jsontext.dumps(rule.to_dict() | {"doc": rule.doc, "example": example}).decode())
        return
    versions = _version_span(rule.versions)
    lines = [
        f"{rule.code} {rule.name} ({rule.level}, {rule.format}@{versions})",
        "",
        rule.summary,
        "",
        *_described(plain(_dedent(rule.doc)), plain(rule.section)),
    ]
    if example.get("invalid"):
        lines += ["", "From the conformance suite:", *_example_lines(example)]
    elif example.get("note"):
        lines += ["", example["note"]]
    for line in "\n".join(lines).splitlines():
        click.echo(terminal.clean(line))


def _dedent(text: str) -> str:
    return inspect.cleandoc(text)


_LITERAL = re.compile(r"``(.+?)``", re.DOTALL)
_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


def plain(text: str) -> str:
    """Docstring markup (reStructuredText ``literals``, Sphinx :role:`targets`) as plain text:
    the literal's text, the target's last name when written ``~a.b``, else the whole target."""
    text = _ROLE.sub(
        lambda m: m.group(1).rsplit(".", 1)[-1] if "~" in m.group(0) else m.group(1), text
    )
    return _LITERAL.sub(lambda m: m.group(1), text)


def _described(doc: str, section: str) -> list[str]:
    """The rule's docstring, its spec references once: the docstring's ``Spec:`` paragraph,
    and what the registry's section adds to it (this project's own documents), or the section
    as ``Spec:`` when the docstring has none."""
    if "\nSpec:" not in f"\n{doc}":
        return [doc, "", f"Spec: {section}"]
    spec = doc[doc.index("Spec:") :]
    extra = [p.strip() for p in section.split(";") if p.strip() and p.strip() not in spec]
    own = [p for p in extra if p.startswith(("RFC.md", "spec/", "DECISIONS"))]
    return [doc, *([f"See also: {'; '.join(own)}"] if own else [])]


def _suite_root(suite_dir: Path | None) -> Path | None:
    """The conformance suite: ``--suite``, else the default one (a checkout's or the installed)."""
    from atif_spec.conformance.suite import default_suite, manifests

    if suite_dir is None:
        return default_suite()
    return suite_dir if manifests(suite_dir) else None


def _example(code: str, suite_dir: Path | None) -> dict[str, Any]:
    """The smallest case the rule fails alone and a valid case on its boundary, each with the
    value at the finding's pointer."""
    from atif_spec.conformance.suite import SuiteError, load_suite

    root = _suite_root(suite_dir)
    if root is None:
        return {"note": "No conformance suite found for examples (give --suite PATH)."}
    try:
        cases = load_suite(root)
    except SuiteError as exc:
        return {"note": f"No examples: {exc}"}
    failing = [c for c in cases if c.expected and {k for k, _ in c.expected} == {code}]
    if not failing:
        return {"note": "No conformance case fails by this rule alone."}
    bad = min(failing, key=lambda c: (c.document.stat().st_size, c.id))
    pointer = next(p for k, p in bad.expected if k == code)
    out: dict[str, Any] = {"invalid": _shown(bad, pointer)}
    near = [c for c in cases if c.category == "valid" and code in c.boundary_of]
    if near:
        good = min(
            near,
            key=lambda c: (
                (c.format, c.version) != (bad.format, bad.version),
                c.document.stat().st_size,
                c.id,
            ),
        )
        out["valid"] = _shown(good, pointer)
    return out


def _shown(case: Any, pointer: str) -> dict[str, Any]:
    from atif_spec.conformance.suite import read_document

    doc = read_document(case.document)  # an ATOF stream: the list of its events
    value, where = _at(doc, pointer)
    text = jsontext.dumps(value, indent=True).decode()
    if len(text) > 600:
        text = text[:599] + "…"
    try:
        file = str(case.document.relative_to(Path.cwd()))
    except ValueError:
        file = str(case.document)
    return {"case": case.id, "file": file, "pointer": where, "value": text}


def _at(doc: Any, pointer: str) -> tuple[Any, str]:
    """The value at ``pointer``, or at its nearest existing parent (with that parent's pointer)."""
    node, reached = doc, ""
    for raw in pointer.split("/")[1:] if pointer else []:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            break
        reached += "/" + raw
    return node, reached


def _example_lines(example: dict[str, Any]) -> list[str]:
    bad = example["invalid"]
    lines = [
        f"  Example ({bad['case']}, {bad['file']}):",
        f"    at {bad['pointer'] or '/'}:",
        *("      " + line for line in bad["value"].splitlines()),
    ]
    good = example.get("valid")
    if good:
        lines += [
            f"  Fix, as in {good['case']} ({good['file']}):",
            f"    at {good['pointer'] or '/'}:",
            *("      " + line for line in good["value"].splitlines()),
        ]
    return lines
