"""The TAO lenses' generated tables of ``spec/tao/MAPPING.md`` (:mod:`.transforms.mapping`)."""

from __future__ import annotations

from atif_spec.transforms.lenses.tao import rows
from atif_spec.transforms.lenses.tao.common import INTO_ATIF, INTO_TAO
from atif_spec.transforms.lenses.tao.tokens import CACHE_WRITES
from atif_spec.transforms.mapping import Row, Table

_METADATA = "the record's"
"""How MAPPING.md names the owner of ATIF → TAO's named keys (the record's ``metadata``)."""


def _named_here(kind: str, prefix: str = "") -> Row:
    """The row that sends one kind of owner's members without an ATIF field to §2.6."""
    members = ", ".join(f"`{row.member}`" for row in rows.NAMED[kind])
    return Row(prefix + members, f"named keys of {rows.WHERE[kind]} `extra` (§2.6)")


def _named_rows() -> tuple[Row, ...]:
    """The TAO → ATIF named keys (:mod:`.tao.rows`), by kind of owner."""
    out: list[Row] = []
    for kind, named in rows.NAMED.items():
        out.extend(row.row(rows.WHERE[kind]) for row in named)
        if kind == "step":
            out.append(rows.PROMPT_KEY.row(rows.WHERE[kind]))
    return (*out, rows.STYLE.row(rows.WHERE["record"]))


MAPPING_TABLES: tuple[Table, ...] = (
    Table(
        id="tao-tokens",
        steps=(INTO_ATIF, INTO_TAO),
        columns=("TAO `token_usage`", "ATIF `metrics`"),
        rows=(
            Row(
                "`cache_write_tokens`",
                f"`extra.{CACHE_WRITES}`",
                "field",
                "The Anthropic name ATIF producers use for cache writes.",
                key=f"/extra/{CACHE_WRITES}",
            ),
            rows.NAMED["usage"][0].row(rows.WHERE["usage"]),
        ),
    ),
    Table(
        id="tao-record",
        steps=(INTO_ATIF,),
        columns=("TAO", "ATIF v1.7"),
        rows=(
            rows.AGENT_NAME.row(),
            rows.AGENT_MODEL.row(),
            rows.TOOL_DEFINITIONS.row(),
            _named_here("record"),
        ),
    ),
    Table(
        id="tao-step",
        steps=(INTO_ATIF,),
        columns=("TAO `Step`", "ATIF `Step`"),
        rows=(
            rows.ROLE.row(),
            rows.REASONING.row(),
            rows.MODEL.row(),
            rows.TIMESTAMP.row(),
            *(field.row() for field in rows.TOOL_CALL),
            _named_here("call", "`tool_calls[]`: "),
            _named_here("observation", "`observations[]`: "),
            _named_here("step"),
        ),
    ),
    Table(
        id="tao-named",
        steps=(INTO_ATIF,),
        columns=("TAO member", "ATIF named key"),
        rows=_named_rows(),
    ),
    Table(
        id="tao-from-atif",
        steps=(INTO_TAO,),
        columns=("ATIF v1.7", "TAO 0.2.0"),
        rows=(
            rows.AGENT_NAME.row(back=True, note=""),
            rows.AGENT_MODEL.row(back=True, note=""),
            rows.TOOL_DEFINITIONS.row(back=True, note="When a list."),
            rows.ROLE.row(back=True, note=""),
            rows.REASONING.row(back=True, note=""),
            rows.MODEL.row(back=True, note=""),
            rows.TIMESTAMP.row(back=True, note=""),
            *(field.row(back=True, note="") for field in rows.TOOL_CALL),
            rows.STEP_COSTS.row(_METADATA),
            rows.STEP_FIELDS.row(_METADATA),
            rows.SYSTEM_STEPS.row(_METADATA),
            rows.SUBAGENT_AGENTS.row(_METADATA),
            rows.TRAJECTORY.row(_METADATA),
        ),
    ),
)
