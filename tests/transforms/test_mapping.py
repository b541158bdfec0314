"""The mapping registry (RFC.md §4.5.5): generated tables, and no unregistered named key.

Every named key that a migration step or a lens writes on the conformance fixtures (the ``wrote``
list of its stash layer) must be registered for that step in :mod:`atif_spec.transforms.mapping`,
so a converted document carries no free-form key that the MAPPING tables do not document.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import atif_spec
from atif_spec.spectools import docgen
from atif_spec.transforms.lenses import ConversionError
from atif_spec.transforms.mapping import (
    Row,
    Table,
    is_named,
    render,
    tables,
)
from atif_spec.transforms.migrations import MigrationError
from atif_spec.transforms.stash import STASH_KEY
from tests.support import ROOT
from tests.support.documents import dispatch_only

TARGETS = {
    "atif": (
        "atif@v1.0",
        "atif@v1.4",
        "atif@v1.6",
        "tao@v0.2.0",
        "step-substep@v1.0",
        "trajectory-sdk@v0.4",
    ),
    "tao": ("atif@v1.7",),
    "trajectory-sdk": ("atif@v1.7",),
    "step-substep": ("atif@v1.7",),
}


def _wrote(node: Any) -> Iterator[tuple[str, str]]:
    """(step signature, pointer) of every named key listed in the stashes below ``node``."""
    pending = [node]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key == STASH_KEY and isinstance(value, dict):
                    for layer in value.get("layers", []):
                        yield from ((layer["by"], p) for p in layer.get("wrote", []))
                pending.append(value)
        elif isinstance(item, list):
            pending.extend(item)


QUADRATIC_STEPS = 500
"""Above this many steps a document is not converted to trajectory-sdk here: that output repeats
every earlier step in each one, and the 3,000-step fixture took over ten minutes of the suite
(in the v1 stash's named-key declaration and the change report's leaf count, both quadratic in
it; issue 30). Every smaller fixture still covers the lens's named keys."""


def _valid_fixtures() -> Iterator[tuple[str, Path]]:
    for fmt in TARGETS:
        for path in sorted((ROOT / "conformance" / fmt).glob("*/valid/*.json")):
            if not dispatch_only(path):
                yield fmt, path


@pytest.mark.parametrize(("fmt", "path"), list(_valid_fixtures()), ids=lambda v: str(v)[-60:])
def test_every_named_key_written_is_registered(fmt: str, path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    for to in TARGETS[fmt]:
        if to.startswith("trajectory-sdk@") and len(doc.get("steps", ())) > QUADRATIC_STEPS:
            continue  # its output grows with the square of the steps (minutes here, not a check)
        try:
            if to.startswith("atif@") and fmt == "atif":
                out, _ = atif_spec.migrate(doc, to=to)
            else:
                out, _ = atif_spec.convert(doc, to=to)
        except (ConversionError, MigrationError):
            continue
        for step, pointer in _wrote(out):
            if not in_free_form(pointer):
                continue  # a value lifted into a native field (MAPPING.md): a field mapping
            assert is_named(step, pointer), f"{to}: {step} wrote unregistered {pointer}"


def test_the_downgrade_named_keys_are_found_by_the_check() -> None:
    """The check above sees a move where one happens (it cannot pass vacuously)."""
    doc = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "a", "version": "1"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "hi"},
            {"step_id": 2, "source": "agent", "message": "ok", "llm_call_count": 0},
        ],
    }
    out, report = atif_spec.migrate(doc, to="atif@v1.6")
    assert list(_wrote(out)) == [("atif@v1.7->atif@v1.6", "/steps/1/extra/llm_call_count")]
    assert is_named("atif@v1.7->atif@v1.6", "/steps/1/extra/llm_call_count")
    assert [i.to for i in report.named] == ["/steps/1/extra/llm_call_count"]


def test_every_table_renders_into_some_document() -> None:
    text = "".join((ROOT / d).read_text(encoding="utf-8") for d in docgen.DOCUMENTS)
    for table_id in tables():
        assert f"<!-- BEGIN GENERATED: mapping-{table_id} " in text, table_id


def test_every_generated_document_is_current() -> None:
    for name in docgen.DOCUMENTS:
        text = (ROOT / name).read_text(encoding="utf-8")
        assert docgen.render(text) == text, f"{name} is stale: run `nox -s generate`"


def test_render_marks_kinds_and_escapes_cells() -> None:
    table = Table(
        "t",
        ("a->b",),
        ("A", "B"),
        (
            Row("`x|y`", "`z`", "named", "n", key="/extra/z"),
            Row("`w`", "—", "stashed"),
        ),
    )
    tables()["t"] = table
    try:
        assert render("t").splitlines() == [
            "| A | B | Notes |",
            "|---|---|---|",
            "| `x\\|y` | `z` (named) | n |",
            "| `w` | — (stash) |  |",
        ]
    finally:
        del tables()["t"]


def in_free_form(pointer: str) -> bool:
    """True when ``pointer`` names a member of a free-form object (a named key's place)."""
    parent = pointer.rsplit("/", 1)[0]
    free_form = ("extra", "metadata", "telemetry/data")  # RFC.md §4.5.1
    return any(parent == f"/{name}" or parent.endswith(f"/{name}") for name in free_form)


def test_free_form_places() -> None:
    assert in_free_form("/steps/2/extra/llm_call_count")
    assert in_free_form("/metadata/tao_outcome")
    assert in_free_form("/telemetry/data/x")
    assert not in_free_form("/steps/1/model_name")
    assert not in_free_form("/extra")


def test_a_named_row_needs_a_key() -> None:
    with pytest.raises(ValueError, match="needs a key"):
        Row("a", "b", "named")
    with pytest.raises(ValueError, match="only a named or field row"):
        Row("a", "b", "stashed", key="/extra/b")
    # a field row may document a conventional free-form member; it is no named key
    row = Row("a", "b", "field", key="/extra/b")
    assert row.key == "/extra/b"


def test_a_star_in_a_named_key_matches_array_indexes_only() -> None:
    step = "step-substep@v1.0->atif@v1.7"
    assert is_named(step, "/steps/3/extra/outcome")
    assert is_named(step, "/steps/0/extra/run_log_substeps/2")
    assert not is_named(step, "/steps/x/extra/outcome")
    assert not is_named(step, "/steps/3/extra/outcomes")
    assert is_named(step, "/steps/3/extra/outcome/0")  # a member inside a named key is its
    assert is_named(step, "/subagent_trajectories/1/steps/3/extra/outcome")  # same rules below
    assert not is_named(step, "/subagent_trajectories/x/steps/3/extra/outcome")
