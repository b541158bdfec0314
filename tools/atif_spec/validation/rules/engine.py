"""Runs the registry's rules over a document and its embedded documents."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from atif_spec.formats import get_format
from atif_spec.validation.findings import Finding
from atif_spec.validation.rules import REGISTRY, Rule, RuleContext, RuleOptions
from atif_spec.validation.rules.atif import quick_clean

QUICK_CLEAN: dict[str, Callable[[dict[str, Any]], bool]] = {"atif": quick_clean}
"""Format name → a one-pass test that no rule can find anything on a vouched root (True), or
"not sure" (False). It lets the common clean document skip the rules one by one."""


@functools.cache
def rules_for(fmt: str, version: str, *, with_files: bool) -> tuple[Rule, ...]:
    """The rules that apply to one format and version (computed once per combination)."""
    return tuple(
        r
        for r in REGISTRY
        if r.format == fmt and version in r.versions and (with_files or not r.needs_file)
    )


_DEFAULT_OPTIONS = RuleOptions()


def run_rules(
    doc: Any,
    fmt: str,
    version: str,
    *,
    path: Path | None = None,
    options: RuleOptions | None = None,
    vouched: bool = False,
) -> list[Finding]:
    """Findings of every applicable rule, on the document and on each embedded document.

    Embedded documents (ATIF subagents) are checked under the version they declare; one that
    declares no known version is left to the schema check. ``vouched`` says that the screen of
    the document's schema accepted it (see ``rules.screen``); the vouch covers the root and the
    embedded documents of the same version, which that schema validated through its own root.
    Rules rely on it (they may read a vouched node without type checks): pass it only as
    ``validate_document`` does, after the screen said yes. A vouched document that the
    format's ``QUICK_CLEAN`` test clears gets no finding without running the rules one by one.
    """
    opts = options or _DEFAULT_OPTIONS
    if vouched and not opts.follow_refs:
        clean = QUICK_CLEAN.get(fmt)
        if clean is not None and clean(doc):
            return []
    with_files = path is not None and opts.check_files
    nodes: list[tuple[str, Any, str, bool]] = [("", doc, version, True)]
    spec = get_format(fmt)
    if spec.embedded is not None:
        nodes.extend(
            (ptr, node, declared, False)
            for ptr, node, declared in spec.embedded(doc, "")
            if declared is not None
        )
    findings: list[Finding] = []
    for base, node, node_version, is_root in nodes:
        rules = rules_for(fmt, node_version, with_files=with_files)
        ctx = RuleContext(
            node, base, node_version, is_root, path, opts, vouched and node_version == version
        )
        for r in rules:
            for ptr, message in r.check(ctx):
                findings.append(Finding(r.code, r.name, r.level, ptr, message))
    return findings
