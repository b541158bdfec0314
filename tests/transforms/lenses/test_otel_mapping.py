from __future__ import annotations

from atif_spec.transforms.lenses import otel_mapping
from atif_spec.transforms.lenses.otel import common as c
from atif_spec.transforms.mapping import named_keys


def _text() -> str:
    return " ".join(
        f"{row.source} {row.target} {row.note}"
        for table in otel_mapping.MAPPING_TABLES
        for row in table.rows
    )


def test_every_attribute_the_lens_writes_has_a_row() -> None:
    text = _text()
    names = [v for k, v in vars(c).items() if k.startswith("A_") and isinstance(v, str)]
    names += [a for _, a in (*c.USAGE, *c.USAGE_EXTRA)]
    names += [c.STASH_ATTRIBUTE, c.PROVIDER, c.TOOL_CALL_ID, c.TOOL_RESULT, c.INPUT_MESSAGES]
    missing = [n for n in names if f"`{n}`" not in text]
    assert missing == []


def test_the_named_keys_are_those_the_reader_writes() -> None:
    kept = {f"{p}/extra/{c.KEPT_KEY}" for p in ("", "/steps/*", "/steps/*/tool_calls/*")}
    assert named_keys(c.TO_ATIF) == {f"/extra/{k}" for k in c.ROOT_NAMED} | kept
    assert named_keys(c.TO_OTEL) == frozenset()
