/**
 * Generated file: do not edit by hand.
 * Schema: https://atif-spec.org/schemas/tao/v0.6.0/trace-record.schema.json
 *   (spec/tao/v0.6.0/trace-record.schema.json)
 * Generator: json-schema-to-typescript 16.0.0 through atif_spec.codegen, options in
 *   [tool.atif-spec.json-schema-to-typescript]
 * Regenerate: nox -s generate
 */

/**
 * One agent session in the opentraces trace record format, schema 0.6.0: identity, task, agent, environment, the model calls as TAO (thought, action, observation) steps, outcome and totals. Records are stored one per JSONL line. Version 0.6.0 removes `outcome.patch` (the session's unified diff) and adds `patches`, `context_tree_summary` and `steps[].context_node_id`; version 0.3.0 added, to 0.2.0, `lifecycle`, `generation_index`, `git_links`, `task.repository_url`, the cache totals of `metrics`, and revision, change and provider-id fields to `attribution`. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface TraceRecord {
  /**
   * Version of the record format as a free string, `0.6.0` when written by this version. Optional; readers keep whatever value was written (records tagged `0.1.1` use the 0.1.0 model). Defaults to `0.6.0`.
   */
  schema_version?: string;
  /**
   * Identifier of this record; parsers use a random UUIDv4. Left out of `content_hash`, so the same session parsed twice hashes the same. Required.
   */
  trace_id: string;
  /**
   * The agent's own identifier for the session. Required.
   */
  session_id: string;
  /**
   * SHA-256 of the record for deduplication: 64 lowercase hex digits, no prefix, taken over the record with every default filled in and `trace_id` and `content_hash` left out, serialized as JSON with sorted keys, `", "` and `": "` separators and ASCII escapes. Defaults to null.
   */
  content_hash?: string | null;
  /**
   * When the session began, as an ISO 8601 string. Defaults to null.
   */
  timestamp_start?: string | null;
  /**
   * When the session ended, as an ISO 8601 string. Defaults to null.
   */
  timestamp_end?: string | null;
  /**
   * What kind of agent produced the record: `devtime` (a coding agent producing code) or `runtime` (an agent acting in browsers, APIs or RL environments). Null marks data from before 0.2.0, which is treated as devtime. Defaults to null. New in 0.2.0.
   */
  execution_context?: "devtime" | "runtime" | null;
  task?: Task;
  agent: Agent;
  environment?: Environment;
  /**
   * Each distinct system prompt of the session, stored once, keyed by a hash of its text; steps point here through `system_prompt_hash`. The key format is not fixed (parsers use e.g. the first 16 hex digits of a SHA-256, or the first 12 of an MD5). Defaults to an empty object.
   */
  system_prompts?: {
    [k: string]: string;
  };
  /**
   * Schemas of the tools offered to the agent, as free-form objects. Defaults to an empty list.
   *
   * Items: One tool's schema as the producer wrote it, commonly a name, a description and an input schema.
   */
  tool_definitions?: {
    [k: string]: unknown;
  }[];
  /**
   * The session's model calls in order, sub-agent calls inlined. May be empty. Defaults to an empty list.
   */
  steps?: Step[];
  outcome?: Outcome;
  /**
   * Dependencies of the project worked on. Defaults to an empty list.
   */
  dependencies?: string[];
  metrics?: Metrics;
  security?: SecurityMetadata;
  /**
   * Experimental line attribution of the files the session changed, or null. Defaults to null.
   */
  attribution?: Attribution | null;
  /**
   * `provisional` before the session is tied to a revision, `final` once a post-commit hook has pinned it. Defaults to `provisional`. New in 0.3.0.
   */
  lifecycle?: "provisional" | "final";
  /**
   * Generation of this record among the records of its `session_id`, counting from 0. Generations are replacement snapshots, not supersets: readers wanting the latest take the highest per session. Defaults to 0. New in 0.3.0.
   */
  generation_index?: number;
  /**
   * The changes the session made, one per edit of one file; `outcome.committed`, `outcome.commit_sha` and `git_links` are derived from them. Defaults to an empty list. New in 0.6.0.
   */
  patches?: Patch[];
  /**
   * Commits or revisions this session contributed to, each with its evidence tier. Defaults to an empty list. New in 0.3.0.
   */
  git_links?: GitLink[];
  /**
   * Summary of the context tree at trace time, as free-form data (keys such as `node_count`, `layer_count`). Defaults to an empty object. New in 0.6.0.
   */
  context_tree_summary?: {
    [k: string]: unknown;
  };
  /**
   * Free-form key-value data from the producer. Defaults to an empty object.
   */
  metadata?: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
/**
 * What the session set out to do, for filtering and grouping records. Every field may be null. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface Task {
  /**
   * The task in words. Parsers usually take the first user message, cut to 500 characters. Defaults to null.
   */
  description?: string | null;
  /**
   * Where the task came from; a free string such as `user_prompt`, `cli_arg` or `skill`. Defaults to null.
   */
  source?: string | null;
  /**
   * The repository worked on, written `owner/repo`. Defaults to null.
   */
  repository?: string | null;
  /**
   * Canonical remote URL of the repository, for example `https://github.com/org/repo`. New in 0.3.0. Defaults to null.
   */
  repository_url?: string | null;
  /**
   * Commit SHA the session started from. Defaults to null.
   */
  base_commit?: string | null;
  [k: string]: unknown;
}
/**
 * The agent program that produced the session. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface Agent {
  /**
   * Name of the agent program, for example `claude-code`, `codex` or `cursor`. Required.
   */
  name: string;
  /**
   * Version of the agent program. Defaults to null.
   */
  version?: string | null;
  /**
   * Main model of the session, written `provider/model-name` (for example `anthropic/claude-sonnet-4-20250514`). Defaults to null.
   */
  model?: string | null;
  [k: string]: unknown;
}
/**
 * The machine and workspace the agent ran in. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface Environment {
  /**
   * Operating system name, for example `darwin` or `linux`. Defaults to null.
   */
  os?: string | null;
  /**
   * Shell the agent's commands ran in, for example `zsh` or `bash`. Defaults to null.
   */
  shell?: string | null;
  vcs?: VCS;
  /**
   * Programming ecosystems present in the workspace, for example `python` or `typescript`. Defaults to an empty list.
   */
  language_ecosystem?: string[];
  [k: string]: unknown;
}
/**
 * The version-control state of the working directory. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface VCS {
  /**
   * `git` inside a git repository, `none` otherwise. Not nullable; defaults to `none`.
   */
  type?: "git" | "none";
  /**
   * Commit checked out when the session began. Defaults to null.
   */
  base_commit?: string | null;
  /**
   * Branch checked out when the session began. Defaults to null.
   */
  branch?: string | null;
  /**
   * Uncommitted changes as a unified diff. Defaults to null.
   */
  diff?: string | null;
  [k: string]: unknown;
}
/**
 * One model API call (request and response) in the thought-action-observation loop, together with the tool results it led to. Sub-agent calls are stored inline as steps of their own. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface Step {
  /**
   * Sequence number of the step. No start value is fixed (examples start at 0); indexes are expected to be unique and increasing through the list, and other fields (`parent_step`, `source_step`) refer to steps by it. Required.
   */
  step_index: number;
  /**
   * Who produced the step: `system`, `user` or `agent` (never `assistant`). Required.
   */
  role: "system" | "user" | "agent";
  /**
   * The message text. May be empty or null, for example on a step that only calls tools or on a warm-up call. Defaults to null.
   */
  content?: string | null;
  /**
   * The model's visible reasoning or extended thinking for this call. Defaults to null.
   */
  reasoning_content?: string | null;
  /**
   * Model that served this call, written `provider/model-name`. Defaults to null.
   */
  model?: string | null;
  /**
   * Key into the record's `system_prompts` map naming the system prompt this call was sent with. Defaults to null.
   */
  system_prompt_hash?: string | null;
  /**
   * Which agent made the call; a free string such as `main`, `explore`, `plan` or `general`. Defaults to null.
   */
  agent_role?: string | null;
  /**
   * For a sub-agent step, the `step_index` of the earlier step that launched the sub-agent. Defaults to null.
   */
  parent_step?: number | null;
  /**
   * Kind of call: `main` for the primary agent, `subagent` for a call made by a sub-agent, `warmup` for a cache-priming call with no useful output. Defaults to null.
   */
  call_type?: "main" | "subagent" | "warmup" | null;
  /**
   * On a step that launched a sub-agent, a reference to the sub-agent's transcript. Documented as the sub-agent's session id; the Claude Code parser writes the sub-agent's transcript file stem. Defaults to null.
   */
  subagent_trajectory_ref?: string | null;
  /**
   * Tool names for this step. Documented as the tools offered to the model; the Claude Code parser records the tools actually called. Defaults to an empty list.
   */
  tools_available?: string[];
  /**
   * Tool invocations the model requested in this call. Defaults to an empty list.
   */
  tool_calls?: ToolCall[];
  /**
   * Results of this step's tool calls, each naming its call through `source_call_id`. Defaults to an empty list.
   */
  observations?: Observation[];
  /**
   * Code blocks extracted from this step's tool results or response. Defaults to an empty list.
   */
  snippets?: Snippet[];
  token_usage?: TokenUsage;
  /**
   * When the call happened, as an ISO 8601 string. Defaults to null.
   */
  timestamp?: string | null;
  /**
   * Id (`sha256:<hex>`) of the context-tree node of the model's view at this step, when the context tree was captured. New in 0.6.0. Defaults to null.
   */
  context_node_id?: string | null;
  [k: string]: unknown;
}
/**
 * One tool invocation requested by the model in a step. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface ToolCall {
  /**
   * Identifier of the call. Observations answer it by quoting it in `source_call_id`. Required.
   */
  tool_call_id: string;
  /**
   * Name of the tool called, for example `Bash`, `Read` or `Edit`. Required.
   */
  tool_name: string;
  /**
   * The call's parameters as a free-form object. Defaults to an empty object.
   */
  input?: {
    [k: string]: unknown;
  };
  /**
   * Wall-clock time the tool took, in milliseconds. Defaults to null.
   */
  duration_ms?: number | null;
  [k: string]: unknown;
}
/**
 * The result of one tool call, stored on the step that made the call. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface Observation {
  /**
   * The `tool_call_id` of the call this result answers; it names a call in the same step's `tool_calls`. Required.
   */
  source_call_id: string;
  /**
   * The tool's full output (parsers cut it to 10,000 characters). Defaults to null.
   */
  content?: string | null;
  /**
   * A short preview of the output so readers can judge relevance without the full text (parsers write the first 200 characters followed by `...`). Defaults to null.
   */
  output_summary?: string | null;
  /**
   * What went wrong, when the call failed or never returned; parsers use values such as `tool_error`, `exit_code:1`, `interrupted`, `no_result` or `unlinked_response`. Null when the call succeeded. Defaults to null.
   */
  error?: string | null;
  [k: string]: unknown;
}
/**
 * A block of code lifted out of a tool result or a model response. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface Snippet {
  /**
   * Path of the file the code belongs to. Required.
   */
  file_path: string;
  /**
   * First line of the block in the file. Defaults to null.
   */
  start_line?: number | null;
  /**
   * Last line of the block in the file. Defaults to null.
   */
  end_line?: number | null;
  /**
   * Programming language of the block. Defaults to null.
   */
  language?: string | null;
  /**
   * The code itself. Defaults to null.
   */
  text?: string | null;
  /**
   * `step_index` of the step the block came from. Defaults to null.
   */
  source_step?: number | null;
  [k: string]: unknown;
}
/**
 * Token counts of one step's model call, as the provider reported them. Missing counts are 0. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface TokenUsage {
  /**
   * Input tokens as reported by the provider. With Anthropic usage this does NOT include tokens read from or written to the prompt cache, unlike ATIF's `prompt_tokens`. Defaults to 0.
   */
  input_tokens?: number;
  /**
   * Tokens the model generated. Defaults to 0.
   */
  output_tokens?: number;
  /**
   * Input tokens served from the prompt cache. Defaults to 0.
   */
  cache_read_tokens?: number;
  /**
   * Input tokens written into the prompt cache. Defaults to 0.
   */
  cache_write_tokens?: number;
  /**
   * Tokens reused through prefix caching (upstream parsers leave it at 0). Defaults to 0.
   */
  prefix_reuse_tokens?: number;
  [k: string]: unknown;
}
/**
 * How the session ended, as a signal for evaluation and reward modelling. `committed`, `commit_sha` and `patch` matter for devtime records; `terminal_state`, `reward` and `reward_source` for runtime records. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface Outcome {
  /**
   * Whether the session reached its goal; null when unknown. Defaults to null.
   */
  success?: boolean | null;
  /**
   * Where the outcome signal came from; a free string such as `deterministic`, `result_message`, `source_metadata` or `rl_environment`. Not nullable; defaults to `deterministic`.
   */
  signal_source?: string;
  /**
   * How the outcome was established: `derived` (extracted deterministically), `inferred` (guessed by a heuristic) or `annotated` (given by a person or CI). Not nullable; defaults to `derived`.
   */
  signal_confidence?: "derived" | "inferred" | "annotated";
  /**
   * The outcome in words. Defaults to null.
   */
  description?: string | null;
  /**
   * Whether the changes were committed to git. Not nullable; defaults to false.
   */
  committed?: boolean;
  /**
   * SHA of the commit holding the changes. Derived from `patches[].anchor` by the producer. Defaults to null.
   */
  commit_sha?: string | null;
  /**
   * How a runtime trajectory ended: `goal_reached`, `interrupted` (budget or context ran out, or the run was cut short), `error`, or `abandoned` (the agent gave up). Defaults to null. New in 0.2.0.
   */
  terminal_state?: "goal_reached" | "interrupted" | "error" | "abandoned" | null;
  /**
   * Numeric reward given by an RL environment or an evaluator. Defaults to null. New in 0.2.0.
   */
  reward?: number | null;
  /**
   * Who gave the reward; a free string, canonically `rl_environment`, `judge`, `human_annotation` or `orchestrator`. Defaults to null. New in 0.2.0.
   */
  reward_source?: string | null;
  [k: string]: unknown;
}
/**
 * Totals over the whole session. Counts left unfilled are 0. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface Metrics {
  /**
   * Number of steps. Defaults to 0.
   */
  total_steps?: number;
  /**
   * Sum of the steps' `input_tokens` (same cache-exclusive meaning). Defaults to 0.
   */
  total_input_tokens?: number;
  /**
   * Sum of the steps' `output_tokens`. Defaults to 0.
   */
  total_output_tokens?: number;
  /**
   * Sum of the steps' `cache_read_tokens`. Defaults to 0. New in 0.3.0.
   */
  total_cache_read_tokens?: number;
  /**
   * Sum of the steps' `cache_write_tokens`. Defaults to 0. New in 0.3.0.
   */
  total_cache_creation_tokens?: number;
  /**
   * Wall-clock length of the session in seconds. Defaults to null.
   */
  total_duration_s?: number | null;
  /**
   * Share of input served from the prompt cache, between 0 and 1. Defaults to null.
   */
  cache_hit_rate?: number | null;
  /**
   * An estimate of what the session cost in US dollars, not a billed amount. Defaults to null.
   */
  estimated_cost_usd?: number | null;
  [k: string]: unknown;
}
/**
 * What the secret and personal-data scan did to the record before it was shared. There is no `tier` field, whatever some documentation examples show. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface SecurityMetadata {
  /**
   * Whether the scan ran. Defaults to false.
   */
  scanned?: boolean;
  /**
   * Number of scan findings a reviewer looked at. Defaults to 0.
   */
  flags_reviewed?: number;
  /**
   * Number of values replaced by `[REDACTED]`. Defaults to 0.
   */
  redactions_applied?: number;
  /**
   * Version of the scanning pipeline, which is versioned separately from the record format. Defaults to null.
   */
  classifier_version?: string | null;
  [k: string]: unknown;
}
/**
 * Record of which lines of which files the session wrote, in a shape compatible with Agent Trace. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface Attribution {
  /**
   * Marks the attribution block as experimental. Defaults to true.
   */
  experimental?: boolean;
  /**
   * The commit or revision the attribution is pinned to, as string pairs (`vcs_type` `git` or `jj`, `revision`). Defaults to null. New in 0.3.0.
   */
  revision?: {
    [k: string]: string;
  } | null;
  /**
   * Per-file line attribution. Defaults to an empty list.
   */
  files?: AttributionFile[];
  /**
   * Files changed at commit time whose changes no tracked edit produced (for example edits made through a shell). Defaults to null. New in 0.3.0.
   */
  unaccounted_files?: string[] | null;
  [k: string]: unknown;
}
/**
 * Line attribution for one file. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface AttributionFile {
  /**
   * Path of the file. Required.
   */
  path: string;
  /**
   * Contributors to the file and their line runs. Defaults to an empty list.
   */
  conversations?: AttributionConversation[];
  [k: string]: unknown;
}
/**
 * One contributor's share of a file. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface AttributionConversation {
  /**
   * Who wrote the lines, as string pairs such as `{"type": "ai", "model_id": "anthropic/claude-sonnet-4-20250514"}`. Defaults to an empty object.
   */
  contributor?: {
    [k: string]: string;
  };
  /**
   * Where the conversation can be found, for example `opentraces://<trace_id>/step_<N>`. Defaults to null.
   */
  url?: string | null;
  /**
   * The provider's own identifiers of the conversation, each a string or a list of strings, for example `{"anthropic": "msg_01xyz"}`. Defaults to null. New in 0.3.0.
   */
  ids?: {
    [k: string]: string | string[];
  } | null;
  /**
   * Links to broader resources, each a string map such as `{"type": "plan", "url": "opentraces://t/plan_3"}`. Defaults to null. New in 0.3.0.
   */
  related?:
    | {
        [k: string]: string;
      }[]
    | null;
  /**
   * The line runs credited to this contributor. Defaults to an empty list.
   */
  ranges?: AttributionRange[];
  [k: string]: unknown;
}
/**
 * A run of lines in a file credited to one conversation. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface AttributionRange {
  /**
   * First line of the run. Required.
   */
  start_line: number;
  /**
   * Last line of the run. Required.
   */
  end_line: number;
  /**
   * Short hash of the lines' text, used to follow them as the file changes (documented as murmur3; CLIs of this era wrote the first 8 hex digits of an MD5). Unrelated to the record's `content_hash`. Defaults to null.
   */
  content_hash?: string | null;
  /**
   * How sure the attribution is: `high`, `medium` or `low`. Defaults to null.
   */
  confidence?: "high" | "medium" | "low" | null;
  /**
   * Nature of the change: `addition`, `modification` or `deletion`. Defaults to `addition`. New in 0.3.0.
   */
  change_type?: "addition" | "modification" | "deletion";
  /**
   * The range before a formatter or a person rewrote the agent's output, as free-form data (keys `start_line`, `end_line`, `content_hash`). Defaults to null. New in 0.3.0.
   */
  original?: {
    [k: string]: unknown;
  } | null;
  /**
   * Who wrote this range, as string pairs, overriding the conversation's `contributor`; null means the conversation's applies. Defaults to null. New in 0.3.0.
   */
  contributor?: {
    [k: string]: string;
  } | null;
  [k: string]: unknown;
}
/**
 * One change the session made (one edit of one file), the authoritative record of the session's output. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface Patch {
  /**
   * Content-addressed id of the patch. Required.
   */
  patch_id: string;
  /**
   * Path of the file when the patch was made. Required.
   */
  file_path: string;
  /**
   * `step_index` of the step that made the change. Defaults to null.
   */
  step_index?: number | null;
  /**
   * `tool_call_id` of the call that made the change, within that step. Defaults to null.
   */
  tool_call_id?: string | null;
  /**
   * How the patch was captured, for example `hook_pretooluse` and `hook_posttooluse`, `watcher_backstop`, or `legacy_outcome_patch_migration` for a patch rebuilt from a 0.3.0 `outcome.patch`. Defaults to an empty list.
   */
  capture_method?: string[];
  /**
   * Id of the workspace snapshot before the change. Defaults to null.
   */
  snapshot_before_id?: string | null;
  /**
   * Id of the workspace snapshot after the change. Defaults to null.
   */
  snapshot_after_id?: string | null;
  /**
   * Where the patch was found in Git; null until the first search. Defaults to null.
   */
  anchor?: GitAnchor | null;
  /**
   * Commit SHAs of earlier anchors replaced by an amend, rebase or squash, newest first. Defaults to an empty list.
   */
  superseded_by?: string[];
  /**
   * Flags for the quality of the capture, for example `reconstructed_from_outcome_patch`. Defaults to an empty list.
   */
  limitations?: string[];
  [k: string]: unknown;
}
/**
 * Where a patch was found in Git, and when it was last searched for. `found` false means searched without a match; the commit fields are meaningful only when `found` is true. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface GitAnchor {
  /**
   * When the search ran, as an ISO 8601 string. Required.
   */
  last_searched_at: string;
  /**
   * Whether a matching commit was found. Required.
   */
  found: boolean;
  /**
   * The latest commit the patch was matched into. Defaults to null.
   */
  commit_sha?: string | null;
  /**
   * Path of the file in that commit (may differ from the patch's `file_path` after a rename). Defaults to null.
   */
  path?: string | null;
  /**
   * Git blob id of the file in that commit. Defaults to null.
   */
  blob_sha?: string | null;
  /**
   * Git's own patch id, stable across rebases. Defaults to null.
   */
  git_patch_id?: string | null;
  /**
   * How the match was made, from the strongest (`exact_blob_hash`) to none (`orphan`, `unknown`). Defaults to null.
   */
  evidence_tier?:
    | "exact_blob_hash"
    | "exact_range_hash"
    | "git_clean_range_hash"
    | "patch_id"
    | "structural_symbol"
    | "formatter_divergent"
    | "overlapping_hunk"
    | "time_file_overlap"
    | "orphan"
    | "unknown"
    | null;
  /**
   * How firm the evidence is: observed, provisional, asserted by a person, or inferred by a rule, a model or statistics. Defaults to null.
   */
  evidence_firmness?:
    | "firm_observed"
    | "provisional"
    | "human_asserted"
    | "rule_inferred"
    | "model_inferred"
    | "statistically_inferred"
    | "unknown"
    | null;
  [k: string]: unknown;
}
/**
 * A commit or revision the session contributed to, with the tier of the evidence for the link. Keys this version does not define are accepted but carry no meaning: upstream readers drop them, and they do not count towards `content_hash`.
 */
export interface GitLink {
  /**
   * Version-control system: `git` or `jj`. Defaults to `git`.
   */
  vcs_type?: "git" | "jj";
  /**
   * Commit SHA or change id. Required.
   */
  revision: string;
  /**
   * Remote URL of the repository. Defaults to null.
   */
  repo_url?: string | null;
  /**
   * Branch of the revision. Defaults to null.
   */
  branch?: string | null;
  /**
   * Evidence for the link: `tool_emitted` (hashes of the agent's edits appear in the commit), `tool_emitted_with_divergence` (the files match but the committed bytes do not), `overlapping` (files and time window overlap, no hash match) or `orphan` (no viable commit). Required.
   */
  tier: "tool_emitted" | "tool_emitted_with_divergence" | "overlapping" | "orphan";
  /**
   * Whether the commit is still reachable (false after a force push); computed when read. Defaults to null.
   */
  commit_reachable?: boolean | null;
  /**
   * Whether the agent's lines still appear at the head revision; computed when read. Defaults to null.
   */
  content_alive?: boolean | null;
  [k: string]: unknown;
}
