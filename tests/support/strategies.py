"""Hypothesis strategies for rule-valid ATIF documents of every version.

``trajectories(version)`` draws documents that pass both the version's JSON Schema and the rule
registry at error level (sequential step ids, agent-only fields, same-step ``source_call_id``,
``llm_call_count: 0`` without metrics, resolvable v1.7 references, unique embedded subagent ids),
with every optional field sometimes absent, sometimes ``null`` and sometimes set, keys sometimes
shuffled, free-form ``extra`` objects, multimodal parts and, from v1.7, recursive embedded
subagents declaring any version from v1.7 up to their parent's. hypothesis-jsonschema alone can
handle neither the rules nor the recursive ``$ref``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

VERSIONS = ("v1.0", "v1.1", "v1.2", "v1.3", "v1.4", "v1.5", "v1.6", "v1.7", "v1.8")
RESERVED = "_atif_stash"

ABSENT = object()
Draw = Any


def at_least(version: str, since: str) -> bool:
    """True when ``version`` has what appeared in ``since``."""
    return VERSIONS.index(version) >= VERSIONS.index(since)


text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=8)
nonempty = st.text(alphabet=st.characters(exclude_categories=("Cs",)), min_size=1, max_size=8)
integers = st.integers(min_value=-(2**62), max_value=2**62)
counts = st.integers(min_value=0, max_value=2**40)
floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
numbers = integers | floats
json_values = st.recursive(
    st.none() | st.booleans() | integers | floats | text,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(text.filter(lambda k: k != RESERVED), inner, max_size=3)
    ),
    max_leaves=6,
)
free_objects = st.dictionaries(text.filter(lambda k: k != RESERVED), json_values, max_size=3)
timestamps = st.builds(
    lambda y, mo, d, h, mi, s, frac, off: (
        f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}{frac}{off}"
    ),
    st.integers(1970, 2100),
    st.integers(1, 12),
    st.integers(1, 28),
    st.integers(0, 23),
    st.integers(0, 59),
    st.integers(0, 59),
    st.sampled_from(["", ".5", ".123456"]),
    st.sampled_from(["Z", "+02:00", "-05:30", ""]),
)
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
AUDIO_TYPES = (
    "audio/wav",
    "audio/mpeg",
    "audio/mp4",
    "audio/aac",
    "audio/ogg",
    "audio/flac",
    "audio/webm",
    "audio/aiff",
)


def put(
    draw: Draw,
    obj: dict[str, Any],
    key: str,
    values: st.SearchStrategy[Any],
    *,
    nullable: bool = True,
) -> None:
    """Set ``obj[key]`` to a drawn value, to null, or leave it out."""
    choice = draw(st.sampled_from(("absent", "null", "value") if nullable else ("absent", "value")))
    if choice == "null":
        obj[key] = None
    elif choice == "value":
        obj[key] = draw(values)


def shuffled(draw: Draw, obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with its keys sometimes in another order."""
    if len(obj) < 2 or not draw(st.booleans()):
        return obj
    keys = draw(st.permutations(list(obj)))
    return {k: obj[k] for k in keys}


@st.composite
def content_parts(draw: Draw, version: str) -> dict[str, Any]:
    """One ContentPart of ``version`` (v1.6+)."""
    kinds = ["text", "image"] + (["audio"] if at_least(version, "v1.8") else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "text":
        part: dict[str, Any] = {"type": "text", "text": draw(text)}
        put(draw, part, "source", st.none(), nullable=False)
        return part
    if kind == "image":
        source = {"media_type": draw(st.sampled_from(IMAGE_TYPES)), "path": draw(nonempty)}
    else:
        source = {"media_type": draw(st.sampled_from(AUDIO_TYPES)), "path": draw(nonempty)}
        put(draw, source, "duration_sec", st.floats(min_value=0, max_value=1e6))
    part = {"type": kind, "source": source}
    put(draw, part, "text", st.none(), nullable=False)
    return part


def content(version: str) -> st.SearchStrategy[Any]:
    """A message or observation content: a string, or (v1.6+) a list of parts."""
    if at_least(version, "v1.6"):
        return text | st.lists(content_parts(version), max_size=4)
    return text


@st.composite
def refs(draw: Draw, version: str, sub_ids: list[str]) -> dict[str, Any]:
    """A SubagentTrajectoryRef valid in ``version``."""
    ref: dict[str, Any] = {}
    if at_least(version, "v1.7"):
        ids = st.sampled_from(sub_ids) | nonempty if sub_ids else nonempty
        form = draw(st.sampled_from(("id", "path", "both")))
        if form in ("id", "both"):
            ref["trajectory_id"] = draw(ids)
        else:
            put(draw, ref, "trajectory_id", st.none())
        put(draw, ref, "session_id", text)
        if form in ("path", "both"):
            ref["trajectory_path"] = draw(nonempty)
        else:
            put(draw, ref, "trajectory_path", st.none())
    else:
        ref["session_id"] = draw(text)
        put(draw, ref, "trajectory_path", nonempty)
    put(draw, ref, "extra", free_objects)
    return shuffled(draw, ref)


@st.composite
def metrics(draw: Draw, version: str) -> dict[str, Any]:
    """Per-step Metrics of ``version``."""
    m: dict[str, Any] = {}
    for key in ("prompt_tokens", "completion_tokens", "cached_tokens"):
        put(draw, m, key, counts)
    put(draw, m, "cost_usd", numbers)
    if at_least(version, "v1.4"):
        put(draw, m, "prompt_token_ids", st.lists(integers, max_size=6))
    if at_least(version, "v1.3"):
        put(draw, m, "completion_token_ids", st.lists(integers, max_size=6))
    put(draw, m, "logprobs", st.lists(numbers, max_size=6))
    put(draw, m, "extra", free_objects)
    return shuffled(draw, m)


@st.composite
def steps(draw: Draw, version: str, step_id: int, sub_ids: list[str]) -> dict[str, Any]:
    """Step number ``step_id`` of a trajectory of ``version``."""
    source = draw(st.sampled_from(("system", "user", "agent")))
    step: dict[str, Any] = {"step_id": step_id}
    put(draw, step, "timestamp", timestamps)
    step["source"] = source
    agent = source == "agent"
    llm_zero = False
    if at_least(version, "v1.7"):
        llm = draw(st.sampled_from(("absent", "null", 0, 1, 3)))
        llm_zero = agent and llm == 0
    call_ids: list[str] = []
    if agent:
        put(draw, step, "model_name", text)
        put(draw, step, "reasoning_effort", text | numbers)
    step["message"] = draw(content(version))
    if agent:
        if not llm_zero:
            put(draw, step, "reasoning_content", text)
        calls = []
        for _ in range(draw(st.integers(0, 2))):
            call: dict[str, Any] = {
                "tool_call_id": draw(text),
                "function_name": draw(text),
                "arguments": draw(free_objects),
            }
            if at_least(version, "v1.7"):
                put(draw, call, "extra", free_objects)
            call_ids.append(call["tool_call_id"])
            calls.append(shuffled(draw, call))
        put(draw, step, "tool_calls", st.just(calls))
        if not isinstance(step.get("tool_calls"), list):
            call_ids = []
    if draw(st.booleans()):
        results = []
        for _ in range(draw(st.integers(0, 2))):
            result: dict[str, Any] = {}
            if call_ids:
                put(draw, result, "source_call_id", st.sampled_from(call_ids))
            else:
                put(draw, result, "source_call_id", st.none())
            put(draw, result, "content", content(version))
            put(
                draw,
                result,
                "subagent_trajectory_ref",
                st.lists(refs(version, sub_ids), max_size=2),
            )
            if at_least(version, "v1.7"):
                put(draw, result, "extra", free_objects)
            results.append(shuffled(draw, result))
        step["observation"] = {"results": results}
    elif draw(st.booleans()):
        step["observation"] = None
    if agent and not llm_zero:
        put(draw, step, "metrics", metrics(version))
    if at_least(version, "v1.5"):
        put(draw, step, "is_copied_context", st.booleans())
    if at_least(version, "v1.7"):
        if llm == "null":
            step["llm_call_count"] = None
        elif llm != "absent":
            step["llm_call_count"] = llm
    put(draw, step, "extra", free_objects)
    return shuffled(draw, step)


@st.composite
def trajectories(
    draw: Draw, version: str, depth: int = 2, embedded: bool = False
) -> dict[str, Any]:
    """A rule-valid ATIF trajectory of ``version`` (embedded subagents down to ``depth``)."""
    doc: dict[str, Any] = {"schema_version": f"ATIF-{version}"}
    subs: list[dict[str, Any]] = []
    if at_least(version, "v1.7") and depth > 0 and draw(st.integers(0, 3)) == 0:
        allowed = [v for v in VERSIONS if at_least(v, "v1.7") and at_least(version, v)]
        ids = draw(st.lists(nonempty, min_size=1, max_size=2, unique=True))
        for tid in ids:
            sub_version = draw(st.sampled_from(allowed))
            sub = draw(trajectories(sub_version, depth - 1, embedded=True))
            sub["trajectory_id"] = tid
            subs.append(sub)
    if at_least(version, "v1.7"):
        put(draw, doc, "session_id", text)
        if embedded:
            doc["trajectory_id"] = "placeholder"
        else:
            put(draw, doc, "trajectory_id", nonempty)
    else:
        doc["session_id"] = draw(text)
    agent: dict[str, Any] = {"name": draw(text), "version": draw(text)}
    put(draw, agent, "model_name", text)
    if at_least(version, "v1.5"):
        put(draw, agent, "tool_definitions", st.lists(free_objects, max_size=2))
    put(draw, agent, "extra", free_objects)
    doc["agent"] = shuffled(draw, agent)
    sub_ids = [s["trajectory_id"] for s in subs]
    doc["steps"] = [draw(steps(version, i, sub_ids)) for i in range(1, draw(st.integers(1, 4)) + 1)]
    put(draw, doc, "notes", text)
    if draw(st.booleans()):
        fm: dict[str, Any] = {}
        for key in (
            "total_prompt_tokens",
            "total_completion_tokens",
            "total_cached_tokens",
            "total_steps",
        ):
            put(draw, fm, key, counts)
        put(draw, fm, "total_cost_usd", numbers)
        put(draw, fm, "extra", free_objects)
        doc["final_metrics"] = fm
    if at_least(version, "v1.5"):
        put(draw, doc, "continued_trajectory_ref", text)
    if at_least(version, "v1.1"):
        put(draw, doc, "extra", free_objects)
    if subs:
        doc["subagent_trajectories"] = subs
    elif at_least(version, "v1.7"):
        put(draw, doc, "subagent_trajectories", st.just([]))
    return shuffled(draw, doc)
