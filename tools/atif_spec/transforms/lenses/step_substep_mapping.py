"""The mapping tables of the step-substep lenses (:mod:`atif_spec.transforms.mapping`): the rows
the lenses run (named keys; the run log's usage keys the ATIF→run-log lens fills), rendered into
``spec/step-substep/MAPPING.md`` beside that file's own tables of the structural mapping."""

from __future__ import annotations

from atif_spec.transforms.fields import rows
from atif_spec.transforms.lenses.step_substep import common
from atif_spec.transforms.mapping import Row, Table

_KEPT = Row(
    "`substeps` of type `tool_retry`, `status_update`, `artifact`",
    f"step `extra.{common.SUBSTEPS_KEY}[]`",
    "named",
    "ATIF has no event for them: each substep, whole and unchanged, in substep order (each "
    "element a named key); the way back puts each at the index its `substep_index` gives. A "
    "retried call also carries `extra.retry_of_call_id` (§4).",
    key=f"/steps/*/extra/{common.SUBSTEPS_KEY}/*",
)
_USAGE = (
    Row(
        "`agent.model_name`, `final_metrics`",
        "run `extra.model`, `extra.final_metrics`",
        note="The run log's own usage keys (SSL-17), which the run-log→ATIF lens lifts back "
        "(§2.1): a mapping, no stash entry. `final_metrics` only when its totals agree with the "
        "steps' (the lift's condition); otherwise it is named at the same key.",
        key="/extra/model",
    ),
    Row(
        "`agent.version`",
        "run `extra.agent_version`",
        note="The run log's key for it, which the run-log→ATIF lens lifts back (§2.1): a mapping, "
        'no stash entry. Not for `"unknown"`, which the way back writes anyway.',
        key="/extra/agent_version",
    ),
)
_CALL, _RESULT = "`ToolCall`", "`ObservationResult`"
MAPPING_TABLES = (
    Table(
        "step-substep-steps",
        (common.TO_ATIF,),
        ("Run-log step", "ATIF step"),
        (common.ROLE_NAMED.row("step"), *rows(common.STEP_NAMED, "step"), _KEPT),
    ),
    Table(
        "step-substep-substeps",
        (common.TO_ATIF,),
        ("Run-log substep", "ATIF"),
        (
            *rows(common.CALL_PAYLOAD_NAMED, _CALL),
            *rows(common.RESULT_PAYLOAD_NAMED, _RESULT),
            *rows(common.CALL_NAMED, _CALL),
            *rows(common.RESULT_NAMED, _RESULT),
        ),
    ),
    Table(
        "step-substep-from-atif",
        (common.TO_SSL,),
        ("ATIF v1.7", "Run log"),
        (
            *_USAGE,
            *rows(common.ROOT_NAMED, "run"),
            common.PARTS_NAMED.row("step"),
            *rows(common.ATIF_STEP_NAMED, "step"),
            common.REF_NAMED.row("substep"),
        ),
    ),
)
