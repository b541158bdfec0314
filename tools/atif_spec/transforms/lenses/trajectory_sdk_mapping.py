"""The field tables of the trajectory-sdk lenses (:mod:`atif_spec.transforms.mapping`), rendered
into ``spec/trajectory-sdk/MAPPING.md``: the rows of :mod:`.trajectory_sdk.table` and the members
the SDK's builder writes itself. MAPPING.md describes the structural rest by hand."""

from __future__ import annotations

from dataclasses import replace

from atif_spec.transforms.fields import rows
from atif_spec.transforms.lenses.trajectory_sdk import TO_ATIF, TO_SDK, table
from atif_spec.transforms.mapping import Row, Table

_ROOT = (
    table.SESSION.row(),
    table.TASK_ID.row(),
    table.MODEL.row(),
    table.COST.row(),
    *rows(table.ROOT_NAMES, ""),
    table.SNAPSHOTS.row(""),
)

_MESSAGES = (
    table.REASONING.row(),
    *rows(table.STEP_NAMES, "the step's"),
    *rows(table.RESULT_NAMES, "the result's"),
    Row(
        "a new context after a `summarization_boundary` step",
        "the boundary system step's `extra.context_management`",
        note="ATIF's context-management convention (RFC.md §2.1): the policy the ATIF→SDK lens "
        "named in the first system message's `metadata.context_management`, else "
        '`{"type": "compaction", "boundary": "replace"}`, decided (§5)',
        key="/steps/*/extra/context_management",
    ),
)

_TO_SDK = (
    table.REASONING.row(back=True),
    table.SESSION.row(
        back=True,
        note='`task.data_source` = `telemetry.source` = `"atif"`; `task.id` = '
        '`"atif:<conversation_id>"`',
    ),
    Row(
        "the converted document",
        "`telemetry.data.conversation_id`",
        note="the SDK's own telemetry identity, as its builder writes it: the `session_id`",
        key="/telemetry/data/conversation_id",
    ),
    Row(
        "the converted document",
        "`telemetry.data.content_hash`",
        note="the SDK's own telemetry member: the SHA-256 its builder computes over the trajectory",
        key="/telemetry/data/content_hash",
    ),
    Row(
        "the converted document",
        "`telemetry.data.idempotency_key`",
        note='the SDK\'s own telemetry member: `"atif:<conversation_id>:<content_hash>"`',
        key="/telemetry/data/idempotency_key",
    ),
    table.MODEL.row(back=True),
    table.COST.row(back=True),
    *rows(table.SDK_STEP_NAMES, "its message's"),
    table.BOUNDARY.row("the first system message of the new context:"),
    *rows(table.SDK_ROOT_NAMES, ""),
    replace(table.EMBEDDED.row(""), nests=True),
    table.REF.row("its tool message's"),
)

MAPPING_TABLES: tuple[Table, ...] = (
    Table("trajectory-sdk-root", (TO_ATIF,), ("trajectory-sdk", "ATIF"), _ROOT),
    Table("trajectory-sdk-messages", (TO_ATIF,), ("trajectory-sdk message", "ATIF"), _MESSAGES),
    Table("trajectory-sdk-from-atif", (TO_SDK,), ("ATIF", "trajectory-sdk message"), _TO_SDK),
)
