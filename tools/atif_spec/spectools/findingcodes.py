"""The recorded list of finding codes, ``spec/finding-codes.json`` (RFC.md §4.2).

Every code a finding can carry, with its name, level, format and meaning (the rule's or code's
summary), and whether it is ``released``: a registry rule when every version it applies to is
released in the catalog, an ``input:*`` or ``schema:*`` code always (the validation report is
released), a ``migrate:*`` or ``convert:*`` code when the change report is. A released code is a
contract: it never disappears and never changes its name, level, format or meaning; a new meaning
is a new code. Codes are only added.

:func:`update` makes the list from the registry (``atif_spec.validation.rules.REGISTRY``) and
``atif_spec.validation.codes``, keeping the list as recorded: it refuses, with one problem per
code, to drop or change a released entry. ``python -m atif_spec.spectools.docgen`` writes it
(``--check``: fails when it is out of date or a released code changed).
"""

from __future__ import annotations

from typing import Any

from atif_spec.jsonio import jsontext
from atif_spec.schemas.catalog import Catalog, load_catalog
from atif_spec.validation.codes import INPUT_CODES, SCHEMA_CODES, TRANSFORM_CODES
from atif_spec.validation.rules import REGISTRY

PATH = "spec/finding-codes.json"
"""The list, from the checkout's root."""
FROZEN = ("name", "level", "format", "meaning")
"""What a released code keeps forever."""
RELEASED, DRAFT = "released", "draft"
COMMENT = (
    "Every finding code (RFC.md §4.2). A released code never disappears and never changes its "
    "name, level, format or meaning: a new meaning is a new code. Generated from the rule "
    "registry and atif_spec.validation.codes by `python -m atif_spec.spectools.docgen`, which "
    "adds new codes and refuses to change a released one."
)


def _released_targets(catalog: Catalog) -> set[str]:
    return {e.target for e in catalog if e.kind == "document" and e.status == RELEASED}


def current(catalog: Catalog | None = None) -> list[dict[str, Any]]:
    """Every code as the sources define it now, with the status the catalog gives it."""
    catalog = catalog or load_catalog()
    released = _released_targets(catalog)
    changes = catalog.find("atif-spec@v1", "change-report").status
    out = [
        _entry(
            r.code,
            r.name,
            str(r.level),
            r.format,
            r.summary,
            all(f"{r.format}@{v}" in released for v in r.versions),
        )
        for r in REGISTRY
    ]
    out += [_entry(c.code, c.name, str(c.level), None, c.summary, True) for c in INPUT_CODES]
    out += [_entry(c.code, c.name, str(c.level), None, c.summary, True) for c in SCHEMA_CODES]
    out += [
        _entry(c.code, c.name, str(c.level), None, c.summary, changes == RELEASED)
        for c in TRANSFORM_CODES
    ]
    return out


def _entry(
    code: str, name: str, level: str, fmt: str | None, meaning: str, released: bool
) -> dict[str, Any]:
    return {
        "code": code,
        "name": name,
        "level": level,
        "format": fmt,
        "meaning": " ".join(meaning.split()),
        "status": RELEASED if released else DRAFT,
    }


def update(
    recorded: list[dict[str, Any]], now: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """The new list (``now``, a code released before staying released) and the problems: a
    released code of ``recorded`` that ``now`` lacks or changed."""
    before = {e["code"]: e for e in recorded if e.get("status") == RELEASED}
    problems = []
    out = []
    for entry in now:
        old = before.pop(entry["code"], None)
        if old is not None:
            changed = [k for k in FROZEN if old.get(k) != entry[k]]
            if changed:
                problems.append(
                    f"{entry['code']}: a released finding code changed its "
                    f"{', '.join(changed)} (was {', '.join(repr(old.get(k)) for k in changed)}, "
                    f"now {', '.join(repr(entry[k]) for k in changed)}): a released code never "
                    "changes; give the new meaning a new code (only a rewording that keeps the "
                    f"meaning may be made in {PATH} by hand)"
                )
            entry = {**entry, "status": RELEASED}
        out.append(entry)
    problems += [
        f"{code}: a released finding code disappeared (a released code is never withdrawn; "
        "keep producing it, or keep the rule registered)"
        for code in before
    ]
    return out, problems


def render(entries: list[dict[str, Any]]) -> bytes:
    """The file's bytes."""
    return jsontext.dumps({"$comment": COMMENT, "codes": entries}, indent=True) + b"\n"


def recorded(text: bytes) -> list[dict[str, Any]]:
    """The entries of the file's text."""
    codes: list[dict[str, Any]] = jsontext.loads(text)["codes"]
    return codes
