"""What the conservation checker accepts beyond equal values: its own table of correspondences.

``tests/support/conservation.py`` matches leaves by value. Some input leaves are carried in another
spelling (a renamed enum value), by structure (a position), by a recomputation (a total), by a
conversion (token counts) or are the default the way back writes. Each row below is narrow: a
pointer pattern (one field) and a value rule the checker verifies on the input and the output
itself. Nothing here imports or calls the lenses or their mapping registry (issue 15, item 3): the
rows restate the MAPPING.md sections they cite, so a lens that stops doing what its MAPPING says
makes the leaf leak again.

A row marked ``default`` accepts a leaf only when the way back (the output converted back to the
source format, computed by the test) holds the same value at the same pointer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from atif_spec.jsonio.jsontext import canonical_json
from atif_spec.jsonio.jsonvalues import text_of

MISSING = object()


def resolve(doc: Any, ptr: str) -> Any:
    """The value at JSON pointer ``ptr`` of ``doc``, or :data:`MISSING`."""
    node = doc
    for raw in ptr.split("/")[1:] if ptr else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return MISSING
    return node


def same(a: Any, b: Any) -> bool:
    """Equal as JSON, type included (``1`` is not ``true``)."""
    return a is not MISSING and b is not MISSING and canonical_json(a) == canonical_json(b)


@dataclass(frozen=True)
class Context:
    """What a rule may look at: the input, the output's carried values and the way back."""

    source: Any
    carries: Callable[[Any], bool]
    """Whether the output holds the value outside its stashes."""
    holds: Callable[[Any], bool]
    """Whether the output's stashes hold the value (a composed lens stashes what the hub format
    had no place for, in the hub's spelling: a converted value kept there is kept)."""
    back: Any

    def keeps(self, value: Any) -> bool:
        """Carried or stashed: where a converted value may legitimately sit."""
        return self.carries(value) or self.holds(value)


Accept = Callable[[Context, "re.Match[str]", Any], bool]


@dataclass(frozen=True)
class Rule:
    """One correspondence: a field (pointer pattern) and the value rule that accepts a leaf."""

    name: str
    pattern: re.Pattern[str]
    accept: Accept
    default: bool = False
    """Accepted only when the way back holds the same value at the same pointer."""

    def accepts(self, ctx: Context, ptr: str, value: Any) -> bool:
        m = self.pattern.fullmatch(ptr)
        if m is None or not self.accept(ctx, m, value):
            return False
        return not self.default or same(resolve(ctx.back, ptr), value)


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _num(obj: Any, name: str) -> int:
    v: Any = obj.get(name) if isinstance(obj, dict) else None
    return int(v) if _int(v) else 0


def _parent(ctx: Context, m: re.Match[str]) -> Any:
    """The object the matched field belongs to (the match's ``obj`` group)."""
    return resolve(ctx.source, m["obj"])


def rename(old: Any, new: Any) -> Accept:
    """A renamed enum value: ``old`` in the input, ``new`` carried by the output."""
    return lambda ctx, m, v: same(v, old) and ctx.carries(new)


def position(base: int, fmt: str | None = None, *groups: str) -> Accept:
    """A value carried by position: the matched list indices plus ``base`` (a number, or
    ``fmt`` over them)."""
    names = groups or ("i",)

    def accept(ctx: Context, m: re.Match[str], v: Any) -> bool:
        nums = [int(m[g]) + base for g in names]
        if fmt is None:
            return _int(v) and len(nums) == 1 and v == nums[0]
        return isinstance(v, str) and v == fmt.format(*nums)

    return accept


def constant(value: Any) -> Accept:
    """A documented default (rows using it are ``default``: the way back must write it too)."""
    return lambda ctx, m, v: same(v, value)


def _steps(traj: Any) -> list[Any]:
    steps = traj.get("steps") if isinstance(traj, dict) else None
    return steps if isinstance(steps, list) else []


def _counted(step: Any) -> bool:
    """RFC.md §2.4 rules 2 and 3: copied context and steps without inference do not count."""
    if not isinstance(step, dict):
        return False
    raw = step.get("extra")
    extra: dict[str, Any] = raw if isinstance(raw, dict) else {}
    copied = step.get("is_copied_context") is True or extra.get("is_copied_context") is True
    return not copied and step.get("llm_call_count") != 0


def _atif_sums(traj: Any, name: str, nested: bool) -> int:
    total = sum(_num(s.get("metrics"), name) for s in _steps(traj) if _counted(s))
    subs = traj.get("subagent_trajectories") if isinstance(traj, dict) else None
    if nested and isinstance(subs, list):
        total += sum(_atif_sums(t, name, True) for t in subs)
    return total


def atif_total(ctx: Context, m: re.Match[str], v: Any) -> bool:
    """RFC.md §2.4: a total equals the sum of the counted steps' metrics (rule 5: with the
    embedded subagents, or of the steps alone); ``total_steps`` the number of steps."""
    if not _int(v):
        return False
    traj = resolve(ctx.source, m["obj"])
    if m["steps"]:
        return bool(v == len(_steps(traj)))
    field = f"{m['name']}_tokens"
    return v in (_atif_sums(traj, field, True), _atif_sums(traj, field, False))


def tao_total(ctx: Context, m: re.Match[str], v: Any) -> bool:
    """TAO's totals as the way back recomputes them (spec/tao/MAPPING.md §2.5)."""
    steps = _steps(ctx.source)
    if m["steps"]:
        return _int(v) and v == len(steps)
    field = f"{m['name']}_tokens"
    return _int(v) and v == sum(
        _num(s.get("token_usage"), field) for s in steps if isinstance(s, dict)
    )


def atif_prompt_less_cache(ctx: Context, m: re.Match[str], v: Any) -> bool:
    """ATIF ``prompt_tokens`` includes cached and cache-creation tokens; TAO ``input_tokens``
    (Anthropic style) excludes them: the difference must be carried."""
    metrics = _parent(ctx, m)
    if not _int(v) or not isinstance(metrics, dict):
        return False
    rest = (
        v
        - _num(metrics, "cached_tokens")
        - _num(metrics.get("extra"), "cache_creation_input_tokens")
    )
    return _int(v) and rest >= 0 and ctx.carries(rest)


def tao_input_plus_cache(ctx: Context, m: re.Match[str], v: Any) -> bool:
    """TAO ``input_tokens`` + ``cache_read_tokens`` + ``cache_write_tokens`` = ATIF
    ``prompt_tokens``, which must be carried (spec/tao/MAPPING.md §2.5)."""
    usage = _parent(ctx, m)
    total = v + _num(usage, "cache_read_tokens") + _num(usage, "cache_write_tokens")
    return _int(v) and ctx.keeps(total)


def _tao_step(ctx: Context, m: re.Match[str]) -> dict[str, Any]:
    step = resolve(ctx.source, f"/steps/{m['i']}")
    return step if isinstance(step, dict) else {}


def tao_content_hash(ctx: Context, m: re.Match[str], v: Any) -> bool:
    """A ``content_hash`` that is the hash of the record itself: the filled and hashed styles of
    ATIF → TAO compute it again (spec/tao/DECISIONS.md D32, D34)."""
    from atif_spec.formats.tao import UnloadableRecordError, content_hash, detect

    version = detect(ctx.source)  # a 0.1.x record is hashed as 0.1.0 hashes it (D34)
    try:
        return isinstance(v, str) and v == content_hash(
            ctx.source, version if version in ("v0.1.0", "v0.2.0") else "v0.2.0"
        )
    except UnloadableRecordError:
        return False


def tao_call_type(ctx: Context, m: re.Match[str], v: Any) -> bool:
    """``main`` on a main agent step (and, in the filled style, on a user step: D33; the row is
    ``default``, so the way back must write it), ``subagent`` on a step with a ``parent_step``."""
    step = _tao_step(ctx, m)
    if step.get("parent_step") is not None:
        return bool(v == "subagent")
    return v == "main" and step.get("role") in ("agent", "user")


def tao_main_role(ctx: Context, m: re.Match[str], v: Any) -> bool:
    step = _tao_step(ctx, m)
    return v == "main" and step.get("role") == "agent" and step.get("parent_step") is None


def tao_prompt_hash(ctx: Context, m: re.Match[str], v: Any) -> bool:
    """The hash names a prompt of ``system_prompts`` whose text the output carries."""
    prompts = ctx.source.get("system_prompts") if isinstance(ctx.source, dict) else None
    text = prompts.get(v) if isinstance(prompts, dict) and isinstance(v, str) else None
    return isinstance(text, str) and ctx.keeps(text)


def tao_unlinked_error(ctx: Context, m: re.Match[str], v: Any) -> bool:
    """``unlinked_response`` on an observation whose ``source_call_id`` names no call of its
    step."""
    step = _tao_step(ctx, m)
    obs = _parent(ctx, m)
    raw = step.get("tool_calls")
    calls: list[Any] = raw if isinstance(raw, list) else []
    ids = {c.get("tool_call_id") for c in calls if isinstance(c, dict)}
    return (
        v == "unlinked_response" and isinstance(obs, dict) and obs.get("source_call_id") not in ids
    )


def tao_parent(ctx: Context, m: re.Match[str], v: Any) -> bool:
    """A sub-agent step's ``parent_step`` names the ``step_index`` of another step of the
    record: carried by the embedding, the way back writes it again (rows are ``default``)."""
    steps = _steps(ctx.source)
    own = _tao_step(ctx, m)
    return _int(v) and any(
        isinstance(s, dict) and s is not own and same(s.get("step_index"), v) for s in steps
    )


def atif_system_step(ctx: Context, m: re.Match[str], v: Any) -> bool:
    """A system step becomes a TAO system prompt: its message text (content parts: their text
    parts joined by newlines, tao §3) must be carried."""
    msg = resolve(ctx.source, f"{m['obj']}/message")
    if isinstance(msg, list):
        msg = text_of(msg)
    return v == "system" and isinstance(msg, str) and ctx.carries(msg)


def atif_empty_with_calls(ctx: Context, m: re.Match[str], v: Any) -> bool:
    step = _parent(ctx, m)
    if not isinstance(step, dict):
        return False
    calls = step.get("tool_calls")
    return v == "" and step.get("source") == "agent" and isinstance(calls, list) and bool(calls)


def _payload(sub: Any) -> dict[str, Any]:
    p = sub.get("payload") if isinstance(sub, dict) else None
    return p if isinstance(p, dict) else {}


def _is_error(payload: dict[str, Any]) -> bool:
    """SSL-22 as spec/step-substep/MAPPING.md §4 states it."""
    code = payload.get("exit_code")
    return payload.get("is_error") is True or (_int(code) and code != 0) or "message" in payload


def substep_type(ctx: Context, m: re.Match[str], v: Any) -> bool:
    """``tool_call`` for a call (a payload with ``tool_name``); ``tool_error`` / ``tool_output``
    for a result, as SSL-22 infers them."""
    payload = _payload(_parent(ctx, m))
    if "tool_name" in payload:
        return bool(v == "tool_call")
    return bool(v == ("tool_error" if _is_error(payload) else "tool_output"))


def substep_source(ctx: Context, m: re.Match[str], v: Any) -> bool:
    """The spec's emitter of the event: ``provider`` for a call, ``tool`` for its output."""
    sub = _parent(ctx, m)
    kind = sub.get("type") if isinstance(sub, dict) else None
    if kind == "tool_call":
        return bool(v == "provider")
    return kind in ("tool_output", "tool_error") and v == "tool"


def _p(text: str) -> re.Pattern[str]:
    return re.compile(text)


ATIF_STEP = r"(?P<obj>(?P<traj>(?:/subagent_trajectories/\d+)*)/steps/(?P<i>\d+))"
TAO_STEP = r"(?P<step>/steps/(?P<i>\d+))"
RUN_STEP = r"/steps/(?P<i>\d+)"
RUN_SUB = r"(?P<obj>/steps/(?P<i>\d+)/substeps/(?P<j>\d+))"

# ATIF as the source.
ATIF_STEP_ID = Rule(  # tao §2.2, §3; trajectory-sdk §3.1; step-substep §3, §5: by position
    "atif step_id = position 1..n", _p(ATIF_STEP + "/step_id"), position(1)
)
ATIF_AGENT = Rule(  # trajectory-sdk §3.3, §4.1; step-substep §5: source agent -> role assistant
    "atif source agent -> assistant", _p(ATIF_STEP + "/source"), rename("agent", "assistant")
)
ATIF_SYSTEM = Rule(  # tao §3 (system steps -> system_prompts), §2.3 (and back to a step)
    "atif system step -> TAO prompt",
    _p(r"(?P<obj>(?:/subagent_trajectories/\d+)*/steps/\d+)/source"),
    atif_system_step,
)
ATIF_PROMPT = Rule(  # tao §3 (metrics), §2.5: input_tokens = prompt - cached - cache creation
    "atif prompt_tokens - cached = TAO input_tokens",
    _p(r"(?P<obj>(?:/subagent_trajectories/\d+)*/steps/\d+/metrics)/prompt_tokens"),
    atif_prompt_less_cache,
)
ATIF_TOTALS = Rule(  # RFC.md §2.4; tao §2.5: final_metrics recomputed from the steps
    "atif final_metrics totals = RFC §2.4 sums",
    _p(
        r"(?P<obj>(?:/subagent_trajectories/\d+)*)/final_metrics/"
        r"total_(?:(?P<name>prompt|completion|cached)_tokens|(?P<steps>steps))"
    ),
    atif_total,
)
ATIF_UNLINKED = Rule(  # tao §3 (observations), §2.2: an unlinked result comes back with null
    "atif unlinked result source_call_id null",
    _p(ATIF_STEP + r"/observation/results/\d+/source_call_id"),
    constant(None),
    default=True,
)
ATIF_TOOL_TYPE = Rule(  # trajectory-sdk §3.2: every tool definition is wrapped as type function
    "atif tool_definitions type function",
    _p(r"(?:/subagent_trajectories/\d+)*/agent/tool_definitions/\d+/type"),
    constant("function"),
    default=True,
)
ATIF_EMPTY = Rule(  # trajectory-sdk §4.1: "" with tool calls is content null, "" again back
    "atif empty agent message with tool calls",
    _p(r"(?P<obj>(?:/subagent_trajectories/\d+)*/steps/\d+)/message"),
    atif_empty_with_calls,
    default=True,
)
PLACEHOLDER: dict[str, Any] = {"step_id": 1, "source": "system", "message": ""}


def _placeholder_run(ctx: Context, m: re.Match[str], value: Any) -> bool:
    """The source trajectory's only step is ATIF's placeholder step of an empty run."""
    steps = resolve(ctx.source, m["traj"] + "/steps")
    return isinstance(steps, list) and len(steps) == 1 and _same_members(steps[0], PLACEHOLDER)


def _same_members(a: Any, b: dict[str, Any]) -> bool:
    return isinstance(a, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in b)


ATIF_PLACEHOLDER = Rule(  # step-substep SSL-26: the placeholder step is an empty run, and back
    "atif placeholder step -> empty run",
    _p(ATIF_STEP + "/(?:step_id|source|message)"),
    _placeholder_run,
    default=True,
)

ATIF_NO_TEXT = Rule(  # step-substep §5, SSL-27: "" is a null message_text, "" again back
    "atif empty message -> null message_text",
    _p(ATIF_STEP + "/message"),
    constant(""),
    default=True,
)


def atif_empty_agent(ctx: Context, m: re.Match[str], v: Any) -> bool:
    step = _parent(ctx, m)
    return v == "" and isinstance(step, dict) and step.get("source") == "agent"


ATIF_NULL_CONTENT = Rule(  # tao §3: an empty agent message is TAO's null content, "" again back
    "atif empty agent message -> null content",
    _p(ATIF_STEP + "/message"),
    atif_empty_agent,
    default=True,
)

# TAO as the source (spec/tao/MAPPING.md).
TAO_INDEX = Rule(  # §2.2: ATIF -> TAO numbers steps by position from 0
    "tao step_index = position 0..n-1", _p(TAO_STEP + "/step_index"), position(0)
)
TAO_INDEX_FILLED = Rule(  # D33: in the filled style ATIF -> TAO numbers steps from 1, as opentraces
    "tao step_index = position 1..n (filled style)",
    _p(TAO_STEP + "/step_index"),
    position(1),
    default=True,
)
TAO_AGENT = Rule(  # §2.2 role -> source agent; trajectory-sdk §4.1 / step-substep §5 -> assistant
    "tao role agent -> assistant", _p(TAO_STEP + "/role"), rename("agent", "assistant")
)
TAO_CALL_TYPE = Rule(  # §2.2 call_type, §2.6: main / subagent is what ATIF -> TAO writes
    "tao call_type main/subagent", _p(TAO_STEP + "/call_type"), tao_call_type, default=True
)
TAO_ROLE = Rule(  # §2.2 agent_role, §2.6: main on a main agent step is what ATIF -> TAO writes
    "tao agent_role main", _p(TAO_STEP + "/agent_role"), tao_main_role, default=True
)
TAO_HASH = Rule(  # §2.3: the hash becomes a system step whose message is the prompt
    "tao system_prompt_hash -> system step", _p(TAO_STEP + "/system_prompt_hash"), tao_prompt_hash
)
TAO_PARENT = Rule(  # §2.4: parent_step -> the embedded subagent of the step it names
    "tao parent_step -> embedding", _p(TAO_STEP + "/parent_step"), tao_parent, default=True
)
TAO_INPUT = Rule(  # §2.5: prompt_tokens = input_tokens + cache_read_tokens + cache_write_tokens
    "tao input_tokens + cache = prompt_tokens",
    _p(r"(?P<obj>/steps/\d+/token_usage)/input_tokens"),
    tao_input_plus_cache,
)
TAO_TOTALS = Rule(  # §2.5: TAO's totals come back from the per-step counts
    "tao metrics totals = sums of the steps",
    _p(r"/metrics/total_(?:(?P<name>input|output)_tokens|(?P<steps>steps))"),
    tao_total,
)
TAO_NO_TEXT = Rule(  # §2.2 content -> message; step-substep §5, SSL-27: "" is null, "" back
    "tao empty content -> null message_text", _p(TAO_STEP + "/content"), constant(""), default=True
)
TAO_UNLINKED = Rule(  # §2.2 observations .error: what ATIF -> TAO writes on an unlinked result
    "tao unlinked_response error",
    _p(r"(?P<obj>/steps/(?P<i>\d+)/observations/\d+)/error"),
    tao_unlinked_error,
    default=True,
)

# The run log as the source (spec/step-substep/MAPPING.md).
RUN_STEP_ID = Rule(  # §3 position: step_id S<n>
    "run step_id = S<position>", _p(RUN_STEP + "/step_id"), position(1, "S{}")
)
RUN_STEP_INDEX = Rule(  # §3 position: step_index n
    "run step_index = position 1..n", _p(RUN_STEP + "/step_index"), position(1)
)
RUN_SUB_ID = Rule(  # §4 substep_id, §6: S<n>.<m> by place
    "run substep_id = S<n>.<m>", _p(RUN_SUB + "/substep_id"), position(1, "S{}.{}", "i", "j")
)
RUN_SUB_INDEX = Rule(  # §4 substep_index, §6: by place
    "run substep_index = position 1..m", _p(RUN_SUB + "/substep_index"), position(1, None, "j")
)
RUN_ROLE = Rule(  # §3 message_role: assistant -> agent (ATIF source, TAO role)
    "run message_role assistant -> agent",
    _p(RUN_STEP + "/message_role"),
    rename("assistant", "agent"),
)
RUN_NULLS = Rule(  # §3 started_at (null: no timestamp), completed_at, outcome, summary, legacy
    # ids: null is what the way back writes
    "run step null defaults",
    _p(RUN_STEP + "/(?:legacy_event_id|legacy_turn_id|summary|started_at|completed_at|outcome)"),
    constant(None),
    default=True,
)
RUN_SUB_NULLS = Rule(  # §4 timestamp, legacy ids: null is what the way back writes
    "run substep null defaults",
    _p(RUN_SUB + "/(?:legacy_event_id|legacy_turn_id|timestamp)"),
    constant(None),
    default=True,
)
RUN_SUB_TYPE = Rule(  # §4 type (SSL-22), §5 tool_calls -> tool_call substeps
    "run substep type by payload", _p(RUN_SUB + "/type"), substep_type, default=True
)
RUN_SUB_SOURCE = Rule(  # §4 source, §5: provider for a call, tool for its output
    "run substep source by type", _p(RUN_SUB + "/source"), substep_source, default=True
)
SDK_NULLS = Rule(  # trajectory-sdk D4, D23: a null root member is what the way back writes
    "sdk root null defaults",
    _p(
        "/(?:reward|metrics|execution_metrics|reference_trajectory|telemetry|idx|error|trace_id"
        "|model_id)"
    ),
    constant(None),
    default=True,
)
TAO_CONTENT_HASH = Rule(  # D32: the filled style's content_hash is recomputed from the record
    "tao content_hash recomputed", _p(r"/content_hash"), tao_content_hash, default=True
)


def _tao_default(pointer: str) -> Any:
    """The TAO 0.2.0 schema's ``default`` of the field at ``pointer`` of a record (read from the
    schema here, with numeric tokens as array items), or :data:`MISSING`."""
    from atif_spec.formats.tao import schema

    root = schema("v0.2.0")
    node: Any = root
    found: Any = MISSING
    for token in pointer.split("/")[1:]:
        node = _tao_node(root, node)
        if token.isdigit() and isinstance(node.get("items"), dict):
            node, found = node["items"], MISSING
            continue
        props = node.get("properties")
        if not isinstance(props, dict) or token not in props:
            return MISSING
        node = props[token]
        found = node.get("default", MISSING) if isinstance(node, dict) else MISSING
    return found


def _tao_node(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """``node`` with its ``$ref`` followed and, for ``anyOf``, its first non-null branch."""
    ref = node.get("$ref")
    if isinstance(ref, str):
        node = root["$defs"][ref.rsplit("/", 1)[1]]
    for branch in node.get("anyOf") or ():
        resolved = _tao_node(root, branch)
        if resolved.get("type") != "null":
            return resolved
    return node


def tao_filled_default(ctx: Context, m: re.Match[str], v: Any) -> bool:
    """A member that holds its field's default: the filled style of ATIF → TAO writes it again
    (D32), so TAO → ATIF may leave it out (D33)."""
    return same(v, _tao_default(m.group(0)))


TAO_FILLED_DEFAULT = Rule(  # D32, D33: a default of the model comes back through fill
    "tao model default (filled style)", _p(r"(?:/[^/]+)+"), tao_filled_default, default=True
)
_TAO = (
    TAO_CONTENT_HASH,
    TAO_FILLED_DEFAULT,
    TAO_INDEX,
    TAO_INDEX_FILLED,
    TAO_CALL_TYPE,
    TAO_ROLE,
    TAO_HASH,
    TAO_PARENT,
    TAO_INPUT,
    TAO_TOTALS,
    TAO_UNLINKED,
)
_RUN = (
    RUN_STEP_ID,
    RUN_STEP_INDEX,
    RUN_SUB_ID,
    RUN_SUB_INDEX,
    RUN_NULLS,
    RUN_SUB_NULLS,
    RUN_SUB_TYPE,
    RUN_SUB_SOURCE,
)
RULES: dict[tuple[str, str], tuple[Rule, ...]] = {
    ("atif", "tao"): (  # tao §5: the empty run's system step is the placeholder and back
        *(ATIF_STEP_ID, ATIF_SYSTEM, ATIF_PROMPT, ATIF_TOTALS, ATIF_UNLINKED),
        ATIF_NULL_CONTENT,
        ATIF_PLACEHOLDER,
    ),
    ("atif", "trajectory-sdk"): (ATIF_STEP_ID, ATIF_AGENT, ATIF_TOOL_TYPE, ATIF_EMPTY),
    ("atif", "step-substep"): (ATIF_STEP_ID, ATIF_AGENT, ATIF_NO_TEXT, ATIF_PLACEHOLDER),
    ("tao", "atif"): _TAO,
    ("tao", "trajectory-sdk"): (*_TAO, TAO_AGENT),
    ("tao", "step-substep"): (*_TAO, TAO_AGENT, TAO_NO_TEXT),
    ("step-substep", "atif"): (*_RUN, RUN_ROLE),
    ("step-substep", "tao"): (*_RUN, RUN_ROLE),
    ("step-substep", "trajectory-sdk"): _RUN,
    ("trajectory-sdk", "atif"): (SDK_NULLS,),
    ("trajectory-sdk", "tao"): (SDK_NULLS,),
    ("trajectory-sdk", "step-substep"): (SDK_NULLS,),
}
"""(source format, target format) -> the correspondences the checker accepts."""


def first(rules: Iterable[Rule], ctx: Context, ptr: str, value: Any) -> Rule | None:
    """The first rule that accepts the leaf, if any."""
    return next((r for r in rules if r.accepts(ctx, ptr, value)), None)
