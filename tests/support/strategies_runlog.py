"""Hypothesis strategies for step/substep run logs v1.0, written as gza and our stream readers do.

``run_logs()`` draws run logs that pass the schema and the error-level rules, shaped like the
logs of the three providers (spec/step-substep/MAPPING.md, DECISIONS SSL-7, SSL-11, SSL-17,
SSL-18, SSL-22, SSL-23):

- Codex: ``Bash`` calls with ``command`` and ``tool_input``, results ``{exit_code, output}``
  (a ``tool_error`` when the exit code is not 0), a retry written as a ``tool_retry`` and then a
  new ``tool_call`` naming ``retry_of_call_id``, a synthetic first step ("Pre-message tool
  activity") for commands before any message, usage per turn in the run's ``extra.turn_usage``;
- Claude: ``tool_input`` calls, results ``{content, is_error}`` (text or content parts), thinking
  as ``status_update`` substeps, usage per step in ``extra.usage`` and ``extra.metrics`` (ATIF's
  shape, cache tokens counted in the prompt) with ``message_ids`` and ``model``;
- Gemini: results ``{content}`` or errors ``{message}``, retries;
- runner notes (``message_role: runner`` steps, ``status_update`` substeps from the ``runner``),
  artifacts, parallel calls answered after both were made;
- step outcomes (``completed``, ``failed``, ``interrupted``, ``timeout``, null), completion
  times, legacy ``T<k>`` / ``T<k>.<j>`` ids, times in ``+00:00`` or ``Z`` form or null (event
  times only: see the restriction in :func:`run_logs`);
- substep sources as the spec says (``provider`` for a call, ``tool`` for its output) or as gza's
  adapters write them (``provider`` everywhere);
- the run's ``extra`` with the model, the result events and ``final_metrics`` (agreeing with the
  steps' metrics or not).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tests.support.strategies_shape import OMIT, Draw, Style, emit, prose, styles

PROVIDERS = ("claude", "codex", "gemini")
MODELS = {"claude": "claude-opus-4-6", "codex": "gpt-5.2-codex", "gemini": "gemini-2.5-pro"}


def _time(draw: Draw, second: int) -> str:
    offset = draw(st.sampled_from(("+00:00", "Z", ".250000+00:00")))
    return f"2026-02-26T10:{second // 60:02d}:{second % 60:02d}{offset}"


class _Run:
    """Counters shared by the steps of one run."""

    def __init__(self, draw: Draw, provider: str, style: Style) -> None:
        self.provider = provider
        self.style = style
        self.spec_sources = draw(st.booleans())
        self.timed = draw(st.integers(0, 3)) > 0
        self.clock = draw(st.integers(0, 600))
        self.turn = 0
        self.event = 0
        self.calls = 0

    def tick(self, draw: Draw) -> str | None:
        self.clock += draw(st.integers(0, 5))
        return _time(draw, self.clock) if self.timed else None

    def legacy(self, draw: Draw) -> tuple[str | None, str | None]:
        if not self.turn or draw(st.integers(0, 4)) == 0:
            return None, None
        self.event += 1
        return f"T{self.turn}", f"T{self.turn}.{self.event}"


def _substeps(draw: Draw, run: _Run, runner_notes: bool) -> list[dict[str, Any]]:
    """One step's events (ids and indexes filled in by the caller)."""
    out: list[dict[str, Any]] = []
    tool = "tool" if run.spec_sources else "provider"

    def add(kind: str, source: str, call_id: Any, payload: dict[str, Any]) -> None:
        turn, event = run.legacy(draw)
        extra = {"sandbox": "workspace-write"} if draw(st.integers(0, 9)) == 0 else OMIT
        out.append(
            {
                "type": kind,
                "source": source,
                "call_id": call_id,
                "payload": payload,
                "timestamp": run.tick(draw),
                "legacy_turn_id": turn,
                "legacy_event_id": event,
                "extra": extra,
            }
        )

    if run.provider == "claude" and draw(st.integers(0, 3)) == 0:
        thought = draw(prose)
        add(
            "status_update",
            "provider",
            None,
            {"kind": "thinking", "message": thought, "thinking": thought},
        )
    pending: list[tuple[str, str]] = []
    for _ in range(draw(st.integers(0, 3))):
        run.calls += 1
        call_id = {"claude": "toolu_", "codex": "cmd_", "gemini": "read_"}[run.provider]
        call_id += str(run.calls)
        if run.provider == "codex":
            command = draw(st.sampled_from(("pytest -q", "git status --short", "ls src")) | prose)
            payload: dict[str, Any] = {
                "tool_name": "Bash",
                "command": command,
                "tool_input": {"command": command},
            }
        else:
            name = draw(st.sampled_from(("Read", "Edit", "Bash", "Grep")))
            payload = {"tool_name": name, "tool_input": {"file_path": "src/app.py"}}
        add("tool_call", "provider", call_id, payload)
        pending.append((call_id, payload["tool_name"]))
        if draw(st.integers(0, 3)) == 0:  # parallel calls: answered after the next call
            continue
        for cid, name in pending:
            _result(draw, run, add, tool, cid, name, payload)
        pending = []
    for cid, name in pending:
        _result(draw, run, add, tool, cid, name, {})
    if draw(st.integers(0, 6)) == 0:
        add(
            "artifact",
            "provider",
            None,
            {"path": "reports/junit.xml", "media_type": "application/xml"},
        )
    if runner_notes and draw(st.integers(0, 4)) == 0:
        add("status_update", "runner", None, {"message": draw(prose), "status": "ok"})
    return out


def _result(
    draw: Draw, run: _Run, add: Any, tool: str, call_id: str, name: str, call: dict[str, Any]
) -> None:
    """The result of ``call_id`` in the provider's payload style; sometimes failed and retried."""
    failed = draw(st.integers(0, 3)) == 0
    if run.provider == "codex":
        code = draw(st.integers(1, 2)) if failed else 0
        payload: dict[str, Any] = {"exit_code": code, "output": draw(prose)}
    elif run.provider == "claude":
        content: Any = draw(prose)
        if draw(st.booleans()):
            content = [{"type": "text", "text": content}]
        payload = {"content": content, "is_error": failed}
    else:
        payload = {"message": draw(prose)} if failed else {"content": draw(prose)}
    add("tool_error" if failed else "tool_output", tool, call_id, payload)
    if failed and run.provider != "claude" and draw(st.booleans()):
        run.calls += 1
        retry_id = f"{call_id}_retry{run.calls}"
        add("tool_retry", "provider", retry_id, {"retry_of_call_id": call_id})
        again = dict(call) if call else {"tool_name": name, "tool_input": {}}
        again["retry_of_call_id"] = call_id
        add("tool_call", "provider", retry_id, again)
        ok = (
            {"exit_code": 0, "output": "1 passed"} if run.provider == "codex" else {"content": "ok"}
        )
        add("tool_output", tool, retry_id, ok)


def _usage(draw: Draw) -> tuple[dict[str, int], dict[str, int]]:
    """Claude's counts for one message and the ATIF metrics our reader derives from them."""
    usage = {
        "input_tokens": draw(st.integers(0, 50)),
        "cache_creation_input_tokens": draw(st.sampled_from((0, 310, 2904))),
        "cache_read_input_tokens": draw(st.sampled_from((0, 11873))),
        "output_tokens": draw(st.integers(1, 800)),
    }
    prompt = sum(v for k, v in usage.items() if k != "output_tokens")
    metrics = {"prompt_tokens": prompt, "completion_tokens": usage["output_tokens"]}
    if usage["cache_read_input_tokens"]:
        metrics["cached_tokens"] = usage["cache_read_input_tokens"]
    return usage, metrics


@st.composite
def run_logs(draw: Draw) -> dict[str, Any]:
    """A run log v1.0 that passes the schema and the error-level rules (see the module)."""
    style = draw(styles)
    provider = draw(st.sampled_from(PROVIDERS))
    run = _Run(draw, provider, style)
    steps: list[dict[str, Any]] = []
    metrics_sum = {"prompt_tokens": 0, "completion_tokens": 0}
    for _turn in range(draw(st.integers(0, 2))):
        run.turn += 1
        run.event = 0
        kinds = ["message"] * draw(st.integers(1, 3))
        if provider == "codex" and draw(st.integers(0, 2)) == 0:
            kinds.insert(0, "synthetic")
        if draw(st.integers(0, 4)) == 0:
            kinds.insert(draw(st.integers(0, len(kinds))), "runner")
        for kind in kinds:
            n = len(steps) + 1
            turn, event = run.legacy(draw)
            started = run.tick(draw)
            role, text, summary = "assistant", draw(prose), None
            substeps: list[dict[str, Any]] = []
            if kind == "runner":
                role, text = "runner", "[gza] " + draw(prose)
            else:
                substeps = _substeps(draw, run, runner_notes=True)
            if kind == "synthetic":
                text, summary, event = None, "Pre-message tool activity", None
            elif substeps and not (text or "").strip():
                summary = "Pre-message tool activity"
            extra: dict[str, Any] = {}
            if provider == "claude" and kind == "message":
                usage, metrics = _usage(draw)
                metrics_sum["prompt_tokens"] += metrics["prompt_tokens"]
                metrics_sum["completion_tokens"] += metrics["completion_tokens"]
                extra = {
                    "message_ids": [f"msg_{n}"],
                    "model": MODELS[provider],
                    "usage": usage,
                    "metrics": metrics,
                }
            outcome = draw(
                st.sampled_from(
                    ("completed", "completed", "failed", "interrupted", "timeout", None)
                )
            )
            completed = run.tick(draw) if outcome and started else None
            for m, sub in enumerate(substeps, 1):
                sub["substep_id"], sub["substep_index"] = f"S{n}.{m}", m
            steps.append(
                emit(
                    draw,
                    style,
                    [
                        ("step_id", f"S{n}", OMIT),
                        ("step_index", n, OMIT),
                        ("provider", provider, OMIT),
                        ("message_role", role, OMIT),
                        ("message_text", text, None),
                        ("started_at", started, OMIT),
                        ("completed_at", completed, None),
                        ("outcome", outcome, OMIT),
                        ("summary", summary, None),
                        ("legacy_turn_id", turn, None),
                        ("legacy_event_id", event, None),
                        ("substeps", [_written(draw, style, s) for s in substeps], OMIT),
                        ("extra", extra, {}),
                    ],
                )
            )
    extra: dict[str, Any] = {}
    if draw(st.booleans()):
        extra["task_prompt"] = draw(prose)
    if provider != "codex" or draw(st.booleans()):
        extra["model"] = MODELS[provider]
    if provider == "codex" and steps:
        usage = {
            "input_tokens": draw(st.integers(0, 9000)),
            "output_tokens": draw(st.integers(0, 900)),
        }
        extra["turn_usage"] = [{"turn": 1, "usage": usage}]
    if draw(st.booleans()):
        cost = draw(st.floats(0, 1))
        extra["results"] = [
            {"type": "result", "subtype": "success", "is_error": False, "total_cost_usd": cost}
        ]
        final: dict[str, Any] = {"total_cost_usd": cost}
        if draw(st.booleans()):
            final["total_steps"] = len(steps) or 1
        if provider == "claude" and metrics_sum["prompt_tokens"] and draw(st.booleans()):
            final["total_prompt_tokens"] = metrics_sum["prompt_tokens"] + draw(
                st.sampled_from((0, 0, 1))  # a result that disagrees with the steps, sometimes
            )
            final["total_completion_tokens"] = metrics_sum["completion_tokens"]
        extra["final_metrics"] = final
    return emit(
        draw,
        style,
        [
            ("run_id", draw(st.sampled_from(("run-1", "sess_c1", "thr_7f3a"))), OMIT),
            ("provider", provider, OMIT),
            ("steps", steps, OMIT),
            ("extra", extra, {}),
        ],
    )


def _written(draw: Draw, style: Style, sub: dict[str, Any]) -> dict[str, Any]:
    """A substep in the store's column order (optional columns trimmed when null)."""
    return emit(
        draw,
        style,
        [
            ("substep_id", sub["substep_id"], OMIT),
            ("substep_index", sub["substep_index"], OMIT),
            ("type", sub["type"], OMIT),
            ("source", sub["source"], OMIT),
            ("call_id", sub["call_id"], None),
            ("payload", sub["payload"], OMIT),
            ("timestamp", sub["timestamp"], OMIT),
            ("legacy_turn_id", sub["legacy_turn_id"], None),
            ("legacy_event_id", sub["legacy_event_id"], None),
            ("extra", sub["extra"], OMIT),
        ],
    )
