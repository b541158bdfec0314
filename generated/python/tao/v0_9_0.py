# Generated file: do not edit by hand.
# Schema: https://atif-spec.org/schemas/tao/v0.9.0/trace-record.schema.json
#   (spec/tao/v0.9.0/trace-record.schema.json)
# Generator: datamodel-code-generator 0.89.0 through atif_spec.codegen, options in
#   [tool.datamodel-codegen]
# Regenerate: nox -s generate

from __future__ import annotations

from typing import Any, Literal

from atif_spec.bindings.models_base import JsonInteger, StrictModel
from pydantic import ConfigDict, Field


class Agent(StrictModel):
    """
    The agent program that produced the session. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    name: str = Field(
        ...,
        description="Name of the agent program, for example `claude-code`, `codex` or `cursor`. Required.",
        title="Name",
    )
    version: str | None = Field(
        default=None, description="Version of the agent program. Defaults to null.", title="Version"
    )
    model: str | None = Field(
        default=None,
        description="Main model of the session, written `provider/model-name` (for example `anthropic/claude-sonnet-4-20250514`). Defaults to null.",
        title="Model",
    )


class AttributionRange(StrictModel):
    """
    A run of lines in a file credited to one conversation. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    start_line: JsonInteger = Field(
        ..., description="First line of the run. Required.", title="Start line"
    )
    end_line: JsonInteger = Field(
        ..., description="Last line of the run. Required.", title="End line"
    )
    content_hash: str | None = Field(
        default=None,
        description="Short hash of the lines' text, used to follow them as the file changes (documented as murmur3; CLIs of this era wrote the first 8 hex digits of an MD5). Unrelated to the record's `content_hash`. Defaults to null.",
        title="Content hash",
    )
    confidence: Literal["high", "medium", "low"] | None = Field(
        default=None,
        description="How sure the attribution is: `high`, `medium` or `low`. Defaults to null.",
        title="Confidence",
    )
    change_type: Literal["addition", "modification", "deletion"] = Field(
        default="addition",
        description="Nature of the change: `addition`, `modification` or `deletion`. Defaults to `addition`. New in 0.3.0.",
        title="Change type",
    )
    original: dict[str, Any] | None = Field(
        default=None,
        description="The range before a formatter or a person rewrote the agent's output, as free-form data (keys `start_line`, `end_line`, `content_hash`). Defaults to null. New in 0.3.0.",
        title="Original",
    )
    contributor: dict[str, Any] | None = Field(
        default=None,
        description="Who wrote this range, as string pairs, overriding the conversation's `contributor`; null means the conversation's applies. Defaults to null. New in 0.3.0.",
        title="Contributor",
    )


class GitAnchor(StrictModel):
    """
    Where a patch was found in Git, and when it was last searched for. `found` false means searched without a match; the commit fields are meaningful only when `found` is true. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    last_searched_at: str = Field(
        ...,
        description="When the search ran, as an ISO 8601 string. Required.",
        title="Last searched at",
    )
    found: bool = Field(
        ..., description="Whether a matching commit was found. Required.", title="Found"
    )
    commit_sha: str | None = Field(
        default=None,
        description="The latest commit the patch was matched into. Defaults to null.",
        title="Commit SHA",
    )
    path: str | None = Field(
        default=None,
        description="Path of the file in that commit (may differ from the patch's `file_path` after a rename). Defaults to null.",
        title="Path",
    )
    blob_sha: str | None = Field(
        default=None,
        description="Git blob id of the file in that commit. Defaults to null.",
        title="Blob SHA",
    )
    git_patch_id: str | None = Field(
        default=None,
        description="Git's own patch id, stable across rebases. Defaults to null.",
        title="Git patch id",
    )
    evidence_tier: (
        Literal[
            "exact_blob_hash",
            "exact_range_hash",
            "git_clean_range_hash",
            "patch_id",
            "structural_symbol",
            "formatter_divergent",
            "overlapping_hunk",
            "time_file_overlap",
            "orphan",
            "unknown",
        ]
        | None
    ) = Field(
        default=None,
        description="How the match was made, from the strongest (`exact_blob_hash`) to none (`orphan`, `unknown`). Defaults to null.",
        title="Evidence tier",
    )
    evidence_firmness: (
        Literal[
            "firm_observed",
            "provisional",
            "human_asserted",
            "rule_inferred",
            "model_inferred",
            "statistically_inferred",
            "unknown",
        ]
        | None
    ) = Field(
        default=None,
        description="How firm the evidence is: observed, provisional, asserted by a person, or inferred by a rule, a model or statistics. Defaults to null.",
        title="Evidence firmness",
    )


class GitLink(StrictModel):
    """
    A commit or revision the session contributed to, with the tier of the evidence for the link. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    vcs_type: Literal["git", "jj"] = Field(
        default="git",
        description="Version-control system: `git` or `jj`. Defaults to `git`.",
        title="VCS type",
    )
    revision: str = Field(..., description="Commit SHA or change id. Required.", title="Revision")
    repo_url: str | None = Field(
        default=None,
        description="Remote URL of the repository. Defaults to null.",
        title="Repository URL",
    )
    branch: str | None = Field(
        default=None, description="Branch of the revision. Defaults to null.", title="Branch"
    )
    tier: Literal["tool_emitted", "tool_emitted_with_divergence", "overlapping", "orphan"] = Field(
        ...,
        description="Evidence for the link: `tool_emitted` (hashes of the agent's edits appear in the commit), `tool_emitted_with_divergence` (the files match but the committed bytes do not), `overlapping` (files and time window overlap, no hash match) or `orphan` (no viable commit). Required.",
        title="Tier",
    )
    commit_reachable: bool | None = Field(
        default=None,
        description="Whether the commit is still reachable (false after a force push); computed when read. Defaults to null.",
        title="Commit reachable",
    )
    content_alive: bool | None = Field(
        default=None,
        description="Whether the agent's lines still appear at the head revision; computed when read. Defaults to null.",
        title="Content alive",
    )


class Interpreter(StrictModel):
    """
    The interpreter the session ran on. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    name: str | None = Field(
        default=None,
        description="Interpreter name, for example `cpython` or `pypy`. Defaults to null.",
        title="Name",
    )
    version: str | None = Field(
        default=None,
        description="Interpreter version, for example `3.11.6`. Defaults to null.",
        title="Version",
    )


class Metrics(StrictModel):
    """
    Totals over the whole session. Counts left unfilled are 0. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    total_steps: JsonInteger = Field(
        default=0, description="Number of steps. Defaults to 0.", title="Total steps"
    )
    total_input_tokens: JsonInteger = Field(
        default=0,
        description="Sum of the steps' `input_tokens` (same cache-exclusive meaning). Defaults to 0.",
        title="Total input tokens",
    )
    total_output_tokens: JsonInteger = Field(
        default=0,
        description="Sum of the steps' `output_tokens`. Defaults to 0.",
        title="Total output tokens",
    )
    total_cache_read_tokens: JsonInteger = Field(
        default=0,
        description="Sum of the steps' `cache_read_tokens`. Defaults to 0. New in 0.3.0.",
        title="Total cache read tokens",
    )
    total_cache_creation_tokens: JsonInteger = Field(
        default=0,
        description="Sum of the steps' `cache_write_tokens`. Defaults to 0. New in 0.3.0.",
        title="Total cache creation tokens",
    )
    total_duration_s: int | float | None = Field(
        default=None,
        description="Wall-clock length of the session in seconds. Defaults to null.",
        title="Total duration (s)",
    )
    cache_hit_rate: int | float | None = Field(
        default=None,
        description="Share of input served from the prompt cache, between 0 and 1. Defaults to null.",
        ge=0.0,
        le=1.0,
        title="Cache hit rate",
    )
    estimated_cost_usd: int | float | None = Field(
        default=None,
        description="An estimate of what the session cost in US dollars, not a billed amount. Defaults to null.",
        title="Estimated cost (USD)",
    )


class Observation(StrictModel):
    """
    The result of one tool call, stored on the step that made the call. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    source_call_id: str = Field(
        ...,
        description="The `tool_call_id` of the call this result answers; it names a call in the same step's `tool_calls`. Required.",
        title="Source call id",
    )
    content: str | None = Field(
        default=None,
        description="The tool's full output (parsers cut it to 10,000 characters). Defaults to null.",
        title="Content",
    )
    output_summary: str | None = Field(
        default=None,
        description="A short preview of the output so readers can judge relevance without the full text (parsers write the first 200 characters followed by `...`). Defaults to null.",
        title="Output summary",
    )
    error: str | None = Field(
        default=None,
        description="What went wrong, when the call failed or never returned; parsers use values such as `tool_error`, `exit_code:1`, `interrupted`, `no_result` or `unlinked_response`. Null when the call succeeded. Defaults to null.",
        title="Error",
    )


class Outcome(StrictModel):
    """
    How the session ended, as a signal for evaluation and reward modelling. `committed`, `commit_sha` and `patch` matter for devtime records; `terminal_state`, `reward` and `reward_source` for runtime records. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    success: bool | None = Field(
        default=None,
        description="Whether the session reached its goal; null when unknown. Defaults to null.",
        title="Success",
    )
    signal_source: str = Field(
        default="deterministic",
        description="Where the outcome signal came from; a free string such as `deterministic`, `result_message`, `source_metadata` or `rl_environment`. Not nullable; defaults to `deterministic`.",
        title="Signal source",
    )
    signal_confidence: Literal["derived", "inferred", "annotated"] = Field(
        default="derived",
        description="How the outcome was established: `derived` (extracted deterministically), `inferred` (guessed by a heuristic) or `annotated` (given by a person or CI). Not nullable; defaults to `derived`.",
        title="Signal confidence",
    )
    description: str | None = Field(
        default=None, description="The outcome in words. Defaults to null.", title="Description"
    )
    committed: bool = Field(
        default=False,
        description="Whether the changes were committed to git. Not nullable; defaults to false.",
        title="Committed",
    )
    commit_sha: str | None = Field(
        default=None,
        description="SHA of the commit holding the changes. Derived from `patches[].anchor` by the producer. Defaults to null.",
        title="Commit SHA",
    )
    terminal_state: Literal["goal_reached", "interrupted", "error", "abandoned"] | None = Field(
        default=None,
        description="How a runtime trajectory ended: `goal_reached`, `interrupted` (budget or context ran out, or the run was cut short), `error`, or `abandoned` (the agent gave up). Defaults to null. New in 0.2.0.",
        title="Terminal state",
    )
    reward: int | float | None = Field(
        default=None,
        description="Numeric reward given by an RL environment or an evaluator. Defaults to null. New in 0.2.0.",
        title="Reward",
    )
    reward_source: str | None = Field(
        default=None,
        description="Who gave the reward; a free string, canonically `rl_environment`, `judge`, `human_annotation` or `orchestrator`. Defaults to null. New in 0.2.0.",
        title="Reward source",
    )


class Patch(StrictModel):
    """
    One change the session made (one edit of one file), the authoritative record of the session's output. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    patch_id: str = Field(
        ..., description="Content-addressed id of the patch. Required.", title="Patch id"
    )
    file_path: str = Field(
        ..., description="Path of the file when the patch was made. Required.", title="File path"
    )
    step_index: JsonInteger | None = Field(
        default=None,
        description="`step_index` of the step that made the change. Defaults to null.",
        title="Step index",
    )
    tool_call_id: str | None = Field(
        default=None,
        description="`tool_call_id` of the call that made the change, within that step. Defaults to null.",
        title="Tool call id",
    )
    capture_method: list[str] = Field(
        default=[],
        description="How the patch was captured, for example `hook_pretooluse` and `hook_posttooluse`, `watcher_backstop`, or `legacy_outcome_patch_migration` for a patch rebuilt from a 0.3.0 `outcome.patch`. Defaults to an empty list.",
        title="Capture method",
    )
    snapshot_before_id: str | None = Field(
        default=None,
        description="Id of the workspace snapshot before the change. Defaults to null.",
        title="Snapshot before",
    )
    snapshot_after_id: str | None = Field(
        default=None,
        description="Id of the workspace snapshot after the change. Defaults to null.",
        title="Snapshot after",
    )
    anchor: GitAnchor | None = Field(
        default=None,
        description="Where the patch was found in Git; null until the first search. Defaults to null.",
        title="Anchor",
    )
    superseded_by: list[str] = Field(
        default=[],
        description="Commit SHAs of earlier anchors replaced by an amend, rebase or squash, newest first. Defaults to an empty list.",
        title="Superseded by",
    )
    limitations: list[str] = Field(
        default=[],
        description="Flags for the quality of the capture, for example `reconstructed_from_outcome_patch`. Defaults to an empty list.",
        title="Limitations",
    )


class PinRecord(StrictModel):
    """
    One resolved dependency pin (`name==version`, optionally with a hash). Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    name: str = Field(..., description="Package name. Required.", title="Name")
    version: str | None = Field(
        default=None,
        description="Exact resolved version, for example `2.31.0`. Defaults to null.",
        title="Version",
    )
    hash: str | None = Field(
        default=None,
        description="Artifact hash, for example `sha256:…`. Defaults to null.",
        title="Hash",
    )
    marker: str | None = Field(
        default=None,
        description="PEP 508 environment marker, for example `python_version >= '3.8'`. Defaults to null.",
        title="Marker",
    )
    source: str | None = Field(
        default=None,
        description="Resolver or index the pin came from. Defaults to null.",
        title="Source",
    )


class SecurityMetadata(StrictModel):
    """
    What the secret and personal-data scan did to the record before it was shared. There is no `tier` field, whatever some documentation examples show. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    scanned: bool = Field(
        default=False, description="Whether the scan ran. Defaults to false.", title="Scanned"
    )
    flags_reviewed: JsonInteger = Field(
        default=0,
        description="Number of scan findings a reviewer looked at. Defaults to 0.",
        title="Flags reviewed",
    )
    redactions_applied: JsonInteger = Field(
        default=0,
        description="Number of values replaced by `[REDACTED]`. Defaults to 0.",
        title="Redactions applied",
    )
    classifier_version: str | None = Field(
        default=None,
        description="Version of the scanning pipeline, which is versioned separately from the record format. Defaults to null.",
        title="Classifier version",
    )


class Snippet(StrictModel):
    """
    A block of code lifted out of a tool result or a model response. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    file_path: str = Field(
        ..., description="Path of the file the code belongs to. Required.", title="File path"
    )
    start_line: JsonInteger | None = Field(
        default=None,
        description="First line of the block in the file. Defaults to null.",
        title="Start line",
    )
    end_line: JsonInteger | None = Field(
        default=None,
        description="Last line of the block in the file. Defaults to null.",
        title="End line",
    )
    language: str | None = Field(
        default=None,
        description="Programming language of the block. Defaults to null.",
        title="Language",
    )
    text: str | None = Field(
        default=None, description="The code itself. Defaults to null.", title="Text"
    )
    source_step: JsonInteger | None = Field(
        default=None,
        description="`step_index` of the step the block came from. Defaults to null.",
        title="Source step",
    )


class Task(StrictModel):
    """
    What the session set out to do, for filtering and grouping records. Every field may be null. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    description: str | None = Field(
        default=None,
        description="The task in words. Parsers usually take the first user message, cut to 500 characters. Defaults to null.",
        title="Description",
    )
    source: str | None = Field(
        default=None,
        description="Where the task came from; a free string such as `user_prompt`, `cli_arg` or `skill`. Defaults to null.",
        title="Source",
    )
    repository: str | None = Field(
        default=None,
        description="The repository worked on, written `owner/repo`. Defaults to null.",
        title="Repository",
    )
    repository_url: str | None = Field(
        default=None,
        description="Canonical remote URL of the repository, for example `https://github.com/org/repo`. New in 0.3.0. Defaults to null.",
        title="Repository URL",
    )
    base_commit: str | None = Field(
        default=None,
        description="Commit SHA the session started from. Defaults to null.",
        title="Base commit",
    )


class TokenUsage(StrictModel):
    """
    Token counts of one step's model call, as the provider reported them. Missing counts are 0. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    input_tokens: JsonInteger = Field(
        default=0,
        description="Input tokens as reported by the provider. With Anthropic usage this does NOT include tokens read from or written to the prompt cache, unlike ATIF's `prompt_tokens`. Defaults to 0.",
        title="Input tokens",
    )
    output_tokens: JsonInteger = Field(
        default=0, description="Tokens the model generated. Defaults to 0.", title="Output tokens"
    )
    cache_read_tokens: JsonInteger = Field(
        default=0,
        description="Input tokens served from the prompt cache. Defaults to 0.",
        title="Cache read tokens",
    )
    cache_write_tokens: JsonInteger = Field(
        default=0,
        description="Input tokens written into the prompt cache. Defaults to 0.",
        title="Cache write tokens",
    )
    prefix_reuse_tokens: JsonInteger = Field(
        default=0,
        description="Tokens reused through prefix caching (upstream parsers leave it at 0). Defaults to 0.",
        title="Prefix reuse tokens",
    )


class ToolCall(StrictModel):
    """
    One tool invocation requested by the model in a step. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    tool_call_id: str = Field(
        ...,
        description="Identifier of the call. Observations answer it by quoting it in `source_call_id`. Required.",
        title="Tool call id",
    )
    tool_name: str = Field(
        ...,
        description="Name of the tool called, for example `Bash`, `Read` or `Edit`. Required.",
        title="Tool name",
    )
    input: dict[str, Any] = Field(
        default={},
        description="The call's parameters as a free-form object. Defaults to an empty object.",
        title="Input",
    )
    duration_ms: JsonInteger | None = Field(
        default=None,
        description="Wall-clock time the tool took, in milliseconds. Defaults to null.",
        title="Duration (ms)",
    )


class VCS(StrictModel):
    """
    The version-control state of the working directory. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    type: Literal["git", "none"] = Field(
        default="none",
        description="`git` inside a git repository, `none` otherwise. Not nullable; defaults to `none`.",
        title="Type",
    )
    base_commit: str | None = Field(
        default=None,
        description="Commit checked out when the session began. Defaults to null.",
        title="Base commit",
    )
    branch: str | None = Field(
        default=None,
        description="Branch checked out when the session began. Defaults to null.",
        title="Branch",
    )
    diff: str | None = Field(
        default=None,
        description="Uncommitted changes as a unified diff. Defaults to null.",
        title="Diff",
    )


class AttributionConversation(StrictModel):
    """
    One contributor's share of a file. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    contributor: dict[str, str] = Field(
        default={},
        description='Who wrote the lines, as string pairs such as `{"type": "ai", "model_id": "anthropic/claude-sonnet-4-20250514"}`. Defaults to an empty object.',
        title="Contributor",
    )
    url: str | None = Field(
        default=None,
        description="Where the conversation can be found, for example `opentraces://<trace_id>/step_<N>`. Defaults to null.",
        title="URL",
    )
    ids: dict[str, Any] | None = Field(
        default=None,
        description='The provider\'s own identifiers of the conversation, each a string or a list of strings, for example `{"anthropic": "msg_01xyz"}`. Defaults to null. New in 0.3.0.',
        title="Ids",
    )
    related: list[dict[str, str]] | None = Field(
        default=None,
        description='Links to broader resources, each a string map such as `{"type": "plan", "url": "opentraces://t/plan_3"}`. Defaults to null. New in 0.3.0.',
        title="Related",
    )
    ranges: list[AttributionRange] = Field(
        default=[],
        description="The line runs credited to this contributor. Defaults to an empty list.",
        title="Ranges",
        validate_default=True,
    )


class AttributionFile(StrictModel):
    """
    Line attribution for one file. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    path: str = Field(..., description="Path of the file. Required.", title="Path")
    conversations: list[AttributionConversation] = Field(
        default=[],
        description="Contributors to the file and their line runs. Defaults to an empty list.",
        title="Conversations",
        validate_default=True,
    )


class Environment(StrictModel):
    """
    The machine and workspace the agent ran in. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    os: str | None = Field(
        default=None,
        description="Operating system name, for example `darwin` or `linux`. Defaults to null.",
        title="Operating system",
    )
    shell: str | None = Field(
        default=None,
        description="Shell the agent's commands ran in, for example `zsh` or `bash`. Defaults to null.",
        title="Shell",
    )
    vcs: VCS = Field(
        default={"type": "none", "base_commit": None, "branch": None, "diff": None},
        description="Version-control state of the workspace. Not nullable; when missing, every field takes its default (`type` `none`).",
        title="Version control",
        validate_default=True,
    )
    language_ecosystem: list[str] = Field(
        default=[],
        description="Programming ecosystems present in the workspace, for example `python` or `typescript`. Defaults to an empty list.",
        title="Language ecosystems",
    )
    resolved_dependencies: list[PinRecord] | None = Field(
        default=None,
        description="Exact resolved pins of the session's dependency closure, or null when not resolved. Defaults to null. New in 0.9.0.",
        title="Resolved dependencies",
    )
    interpreter: Interpreter | None = Field(
        default=None,
        description="Name and version of the interpreter the session ran on, or null. Defaults to null. New in 0.9.0.",
        title="Interpreter",
    )
    arch: str | None = Field(
        default=None,
        description="CPU architecture, for example `arm64` or `x86_64`. Defaults to null. New in 0.9.0.",
        title="Architecture",
    )
    platform: str | None = Field(
        default=None,
        description="Platform tag, for example `macosx_14_0_arm64` or `linux`. Defaults to null. New in 0.9.0.",
        title="Platform",
    )
    abi_tag: str | None = Field(
        default=None,
        description="Python ABI tag, for example `cp311`. Defaults to null. New in 0.9.0.",
        title="ABI tag",
    )


class Step(StrictModel):
    """
    One model API call (request and response) in the thought-action-observation loop, together with the tool results it led to. Sub-agent calls are stored inline as steps of their own. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    step_index: JsonInteger = Field(
        ...,
        description="Sequence number of the step. No start value is fixed (examples start at 0); indexes are expected to be unique and increasing through the list, and other fields (`parent_step`, `source_step`) refer to steps by it. Required.",
        title="Step index",
    )
    role: Literal["system", "user", "agent"] = Field(
        ...,
        description="Who produced the step: `system`, `user` or `agent` (never `assistant`). Required.",
        title="Role",
    )
    content: str | None = Field(
        default=None,
        description="The message text. May be empty or null, for example on a step that only calls tools or on a warm-up call. Defaults to null.",
        title="Content",
    )
    reasoning_content: str | None = Field(
        default=None,
        description="The model's visible reasoning or extended thinking for this call. Defaults to null.",
        title="Reasoning content",
    )
    model: str | None = Field(
        default=None,
        description="Model that served this call, written `provider/model-name`. Defaults to null.",
        title="Model",
    )
    system_prompt_hash: str | None = Field(
        default=None,
        description="Key into the record's `system_prompts` map naming the system prompt this call was sent with. Defaults to null.",
        title="System prompt hash",
    )
    agent_role: str | None = Field(
        default=None,
        description="Which agent made the call; a free string such as `main`, `explore`, `plan` or `general`. Defaults to null.",
        title="Agent role",
    )
    parent_step: JsonInteger | None = Field(
        default=None,
        description="For a sub-agent step, the `step_index` of the earlier step that launched the sub-agent. Defaults to null.",
        title="Parent step",
    )
    call_type: Literal["main", "subagent", "warmup"] | None = Field(
        default=None,
        description="Kind of call: `main` for the primary agent, `subagent` for a call made by a sub-agent, `warmup` for a cache-priming call with no useful output. Defaults to null.",
        title="Call type",
    )
    subagent_trajectory_ref: str | None = Field(
        default=None,
        description="On a step that launched a sub-agent, a reference to the sub-agent's transcript. Documented as the sub-agent's session id; the Claude Code parser writes the sub-agent's transcript file stem. Defaults to null.",
        title="Sub-agent trajectory reference",
    )
    tools_available: list[str] = Field(
        default=[],
        description="Tool names for this step. Documented as the tools offered to the model; the Claude Code parser records the tools actually called. Defaults to an empty list.",
        title="Tools available",
    )
    tool_calls: list[ToolCall] = Field(
        default=[],
        description="Tool invocations the model requested in this call. Defaults to an empty list.",
        title="Tool calls",
        validate_default=True,
    )
    observations: list[Observation] = Field(
        default=[],
        description="Results of this step's tool calls, each naming its call through `source_call_id`. Defaults to an empty list.",
        title="Observations",
        validate_default=True,
    )
    snippets: list[Snippet] = Field(
        default=[],
        description="Code blocks extracted from this step's tool results or response. Defaults to an empty list.",
        title="Snippets",
        validate_default=True,
    )
    token_usage: TokenUsage = Field(
        default={
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_read_tokens": 0,
            "cache_write_tokens": 0,
            "prefix_reuse_tokens": 0,
        },
        description="Token counts of this call. Not nullable; defaults to every count 0 (as does `{}`).",
        title="Token usage",
        validate_default=True,
    )
    timestamp: str | None = Field(
        default=None,
        description="When the call happened, as an ISO 8601 string. Defaults to null.",
        title="Timestamp",
    )
    context_node_id: str | None = Field(
        default=None,
        description="Id (`sha256:<hex>`) of the context-tree node of the model's view at this step, when the context tree was captured. New in 0.6.0. Defaults to null.",
        title="Context node id",
    )


class Attribution(StrictModel):
    """
    Record of which lines of which files the session wrote, in a shape compatible with Agent Trace. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    experimental: bool = Field(
        default=True,
        description="Marks the attribution block as experimental. Defaults to true.",
        title="Experimental",
    )
    revision: dict[str, Any] | None = Field(
        default=None,
        description="The commit or revision the attribution is pinned to, as string pairs (`vcs_type` `git` or `jj`, `revision`). Defaults to null. New in 0.3.0.",
        title="Revision",
    )
    files: list[AttributionFile] = Field(
        default=[],
        description="Per-file line attribution. Defaults to an empty list.",
        title="Files",
        validate_default=True,
    )
    unaccounted_files: list[str] | None = Field(
        default=None,
        description="Files changed at commit time whose changes no tracked edit produced (for example edits made through a shell). Defaults to null. New in 0.3.0.",
        title="Unaccounted files",
    )


class TraceRecord(StrictModel):
    """
    One agent session in the opentraces trace record format, schema 0.9.0: identity, task, agent, environment, the model calls as TAO (thought, action, observation) steps, outcome and totals. Records are stored one per JSONL line. Version 0.9.0 adds the environment's `platform`, `arch`, `abi_tag`, `interpreter` and `resolved_dependencies`; 0.6.0 removed `outcome.patch` (the session's unified diff) and added `patches`, `context_tree_summary` and `steps[].context_node_id`; version 0.3.0 added, to 0.2.0, `lifecycle`, `generation_index`, `git_links`, `task.repository_url`, the cache totals of `metrics`, and revision, change and provider-id fields to `attribution`. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    schema_version: str = Field(
        default="0.9.0",
        description="Version of the record format as a free string, `0.9.0` when written by this version. Optional; readers keep whatever value was written (records tagged `0.1.1` use the 0.1.0 model). Defaults to `0.9.0`.",
        examples=["0.9.0"],
        title="Schema version",
    )
    trace_id: str = Field(
        ...,
        description="Identifier of this record; parsers use a random UUIDv4. Left out of `content_hash`, so the same session parsed twice hashes the same. Required.",
        title="Trace id",
    )
    session_id: str = Field(
        ..., description="The agent's own identifier for the session. Required.", title="Session id"
    )
    content_hash: str | None = Field(
        default=None,
        description='SHA-256 of the record for deduplication: 64 lowercase hex digits, no prefix, taken over the record with every default filled in and `trace_id` and `content_hash` left out, serialized as JSON with sorted keys, `", "` and `": "` separators and ASCII escapes. Defaults to null.',
        title="Content hash",
    )
    timestamp_start: str | None = Field(
        default=None,
        description="When the session began, as an ISO 8601 string. Defaults to null.",
        title="Start time",
    )
    timestamp_end: str | None = Field(
        default=None,
        description="When the session ended, as an ISO 8601 string. Defaults to null.",
        title="End time",
    )
    execution_context: Literal["devtime", "runtime"] | None = Field(
        default=None,
        description="What kind of agent produced the record: `devtime` (a coding agent producing code) or `runtime` (an agent acting in browsers, APIs or RL environments). Null marks data from before 0.2.0, which is treated as devtime. Defaults to null. New in 0.2.0.",
        title="Execution context",
    )
    task: Task = Field(
        default={
            "description": None,
            "source": None,
            "repository": None,
            "repository_url": None,
            "base_commit": None,
        },
        description="What the session set out to do. Not nullable; defaults to a task with every field null.",
        title="Task",
        validate_default=True,
    )
    agent: Agent = Field(
        ..., description="The agent program that produced the session. Required.", title="Agent"
    )
    environment: Environment = Field(
        default={
            "os": None,
            "shell": None,
            "vcs": {"type": "none", "base_commit": None, "branch": None, "diff": None},
            "language_ecosystem": [],
            "resolved_dependencies": None,
            "interpreter": None,
            "arch": None,
            "platform": None,
            "abi_tag": None,
        },
        description="Machine and workspace details. Not nullable; when missing, every field takes its default.",
        title="Environment",
        validate_default=True,
    )
    system_prompts: dict[str, str] = Field(
        default={},
        description="Each distinct system prompt of the session, stored once, keyed by a hash of its text; steps point here through `system_prompt_hash`. The key format is not fixed (parsers use e.g. the first 16 hex digits of a SHA-256, or the first 12 of an MD5). Defaults to an empty object.",
        title="System prompts",
    )
    tool_definitions: list[dict[str, Any]] = Field(
        default=[],
        description="Schemas of the tools offered to the agent, as free-form objects. Defaults to an empty list.",
        title="Tool definitions",
    )
    steps: list[Step] = Field(
        default=[],
        description="The session's model calls in order, sub-agent calls inlined. May be empty. Defaults to an empty list.",
        title="Steps",
        validate_default=True,
    )
    outcome: Outcome = Field(
        default={
            "success": None,
            "signal_source": "deterministic",
            "signal_confidence": "derived",
            "description": None,
            "committed": False,
            "commit_sha": None,
            "terminal_state": None,
            "reward": None,
            "reward_source": None,
        },
        description="How the session ended. Not nullable; when missing, every field takes its default.",
        title="Outcome",
        validate_default=True,
    )
    dependencies: list[str] = Field(
        default=[],
        description="Dependencies of the project worked on. Defaults to an empty list.",
        title="Dependencies",
    )
    metrics: Metrics = Field(
        default={
            "total_steps": 0,
            "total_input_tokens": 0,
            "total_output_tokens": 0,
            "total_cache_read_tokens": 0,
            "total_cache_creation_tokens": 0,
            "total_duration_s": None,
            "cache_hit_rate": None,
            "estimated_cost_usd": None,
        },
        description="Session totals. Not nullable; defaults to counts of 0 and null for the rest.",
        title="Metrics",
        validate_default=True,
    )
    security: SecurityMetadata = Field(
        default={
            "scanned": False,
            "flags_reviewed": 0,
            "redactions_applied": 0,
            "classifier_version": None,
        },
        description="What the secret and personal-data scan did. Not nullable; when missing, every field takes its default.",
        title="Security",
        validate_default=True,
    )
    attribution: Attribution | None = Field(
        default=None,
        description="Experimental line attribution of the files the session changed, or null. Defaults to null.",
        title="Attribution",
    )
    lifecycle: Literal["provisional", "final"] = Field(
        default="provisional",
        description="`provisional` before the session is tied to a revision, `final` once a post-commit hook has pinned it. Defaults to `provisional`. New in 0.3.0.",
        title="Lifecycle",
    )
    generation_index: JsonInteger = Field(
        default=0,
        description="Generation of this record among the records of its `session_id`, counting from 0. Generations are replacement snapshots, not supersets: readers wanting the latest take the highest per session. Defaults to 0. New in 0.3.0.",
        ge=0,
        title="Generation index",
    )
    patches: list[Patch] = Field(
        default=[],
        description="The changes the session made, one per edit of one file; `outcome.committed`, `outcome.commit_sha` and `git_links` are derived from them. Defaults to an empty list. New in 0.6.0.",
        title="Patches",
        validate_default=True,
    )
    git_links: list[GitLink] = Field(
        default=[],
        description="Commits or revisions this session contributed to, each with its evidence tier. Defaults to an empty list. New in 0.3.0.",
        title="Git links",
        validate_default=True,
    )
    context_tree_summary: dict[str, Any] = Field(
        default={},
        description="Summary of the context tree at trace time, as free-form data (keys such as `node_count`, `layer_count`). Defaults to an empty object. New in 0.6.0.",
        title="Context tree summary",
    )
    metadata: dict[str, Any] = Field(
        default={},
        description="Free-form key-value data from the producer. Defaults to an empty object.",
        title="Metadata",
    )


# Each model also checks its input against its schema definition: the conditionals
# and other rules that field types cannot express
# (atif_spec.bindings.models_base.StrictModel).
StrictModel.bind_schema_locations(
    "https://atif-spec.org/schemas/tao/v0.9.0/trace-record.schema.json",
    {
        Agent: "#/$defs/Agent",
        AttributionRange: "#/$defs/AttributionRange",
        GitAnchor: "#/$defs/GitAnchor",
        GitLink: "#/$defs/GitLink",
        Interpreter: "#/$defs/Interpreter",
        Metrics: "#/$defs/Metrics",
        Observation: "#/$defs/Observation",
        Outcome: "#/$defs/Outcome",
        Patch: "#/$defs/Patch",
        PinRecord: "#/$defs/PinRecord",
        SecurityMetadata: "#/$defs/SecurityMetadata",
        Snippet: "#/$defs/Snippet",
        Task: "#/$defs/Task",
        TokenUsage: "#/$defs/TokenUsage",
        ToolCall: "#/$defs/ToolCall",
        VCS: "#/$defs/VCS",
        AttributionConversation: "#/$defs/AttributionConversation",
        AttributionFile: "#/$defs/AttributionFile",
        Environment: "#/$defs/Environment",
        Step: "#/$defs/Step",
        Attribution: "#/$defs/Attribution",
        TraceRecord: "#",
    },
)
