"""Compare our provider-stream migration and timelines with gza's own (``nox -s gza``).

Runs in a venv holding ``gza-agent==0.5.0`` and this package. For each provider stream in
``conformance/step-substep/v1.0/legacy/``:

1. **gza's runner path, offline** (``gza_replay.py``, shared with the interop adapter): a
   replay stub named ``claude``/``codex``/``gemini`` on PATH prints the recorded stream; gza's
   provider runs it as a subprocess and parses its output (``Provider._run_with_output_parsing``,
   the method ``gza work`` calls), then gza's runner writes the steps into a fresh SQLite task
   store (``runner._persist_run_steps_from_result``) and we read
   ``get_run_steps``/``get_run_substeps`` back.
2. **gza's timeline**: what ``gza log --steps`` prints (``gza.cli.log._display_step_timeline``,
   built on ``gza.providers.log_renderers``), ANSI stripped and cut to our compact width, against
   our ``atif render`` compact lines; ``gza.log_events.is_new_step`` for the step count.

3. gza's renderer token totals (``RenderStats`` of ``get_log_renderer``) against our
   ``final_metrics``.

Compared with ours as normalized projections (steps: message text and outcome; substeps: order,
type, tool name, call id), the timeline's step lines ANSI stripped, and token totals. A
difference is listed; the ones explained in spec/step-substep/DECISIONS.md (SSL-21) are
expected, any other fails the run.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from gza_replay import replay

from atif_spec.stepsubstep.legacy import migrate
from atif_spec.stepsubstep.render import ELLIPSIS, WIDTH, render_lines, truncate

ROOT = Path(__file__).resolve().parents[2]
LEGACY = ROOT / "conformance" / "step-substep" / "v1.0" / "legacy"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
EXPECTED: dict[str, tuple[bool, bool, bool]] = {
    # stream: (store, timeline, token totals differ); each difference has its reason in
    # spec/step-substep/DECISIONS.md SSL-21 (letters a to g).
    "codex-pre-message-tool": (False, False, False),
    "codex-multi-step": (True, False, False),  # a, b
    "claude-multi-step": (True, True, False),  # a, e, f
    "gemini-stream": (True, True, False),  # d, f
    "gza-renderer-claude": (True, True, False),  # a, e, f
    "gza-renderer-codex": (True, False, True),  # a, c, g
    "gza-renderer-gemini": (False, True, False),  # f
    "repro-claude-usage": (False, False, False),
    "repro-claude-identity": (False, True, False),  # f
    "repro-codex-completed-only": (False, False, True),  # g
}
Projection = list[tuple[str | None, str | None, list[tuple[str, str | None, str | None]]]]


def events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def ours(evs: list[dict[str, Any]]) -> Projection:
    """Steps as (text, outcome, [(type, tool name, call id)]) from our run log."""
    out: Projection = []
    for step in migrate(evs).document["steps"]:
        subs = [
            (s["type"], (s["payload"] or {}).get("tool_name"), s["call_id"])
            for s in step["substeps"]
        ]
        out.append((step["message_text"], step["outcome"], subs))
    return out


def gza_store(kind: str, stream: Path, work: Path) -> Projection:
    """gza's steps for ``stream``: its provider runs a replay stub, its runner persists."""
    store, task_id, _ = replay(kind, stream, work)
    out: Projection = []
    for step in store.get_run_steps(task_id):
        subs = []
        for sub in store.get_run_substeps(step):
            payload = sub.payload if isinstance(sub.payload, dict) else {}
            subs.append((sub.type, payload.get("tool_name"), sub.call_id))
        out.append((step.message_text, step.outcome, subs))
    return out


def usage_pair(evs: list[dict[str, Any]]) -> tuple[tuple[int, int], tuple[int, int]]:
    """(gza's renderer token totals, ours): input (prompt) and output (completion) tokens."""
    from gza.providers.log_renderers import get_log_renderer

    kind = migrate(evs).document["provider"]
    renderer = get_log_renderer(kind)
    for entry in evs:
        renderer.handle_log(entry, live=False)
    final = migrate(evs).document.get("extra", {}).get("final_metrics", {})
    theirs = (renderer.stats.input_tokens, renderer.stats.output_tokens)
    mine = (final.get("total_prompt_tokens", 0), final.get("total_completion_tokens", 0))
    return theirs, mine


def gza_timeline(kind: str, evs: list[dict[str, Any]]) -> tuple[list[str], int]:
    """gza's `gza log --steps` output (its own console, ANSI stripped, cut like ours to
    WIDTH columns) and its is_new_step count."""
    import io

    from gza.cli import log as gza_log
    from gza.log_events import is_new_step
    from rich.console import Console

    buffer = io.StringIO()
    saved = gza_log.console
    gza_log.console = Console(file=buffer, width=200, force_terminal=True, highlight=False)
    try:
        gza_log._display_step_timeline(evs, verbose=False, provider=kind)
    finally:
        gza_log.console = saved
    lines = []
    for raw in ANSI.sub("", buffer.getvalue()).splitlines():
        label, _, text = raw.partition("] ")
        text = re.sub(r"\s+", " ", text).strip()
        room = WIDTH - len(label) - 2
        lines.append(f"{label}] {truncate(text, room, ELLIPSIS)}".strip() if text else raw)
    seen: set[str] = set()
    return lines, sum(1 for e in evs if is_new_step(e, seen))


def main() -> int:
    start = time.monotonic()
    cases = [c for c in json.loads((LEGACY / "index.json").read_text())["cases"]]
    unexplained: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            if case["kind"] == "legacy":
                continue
            path = LEGACY / case["input"]
            evs = events(path)
            mine = ours(evs)
            print(f"== {case['name']} ({case['kind']})")
            try:
                theirs = gza_store(case["kind"], path, Path(tmp))
            except Exception as exc:  # report what could not be driven, and go on
                print(f"  gza runner path could not run: {type(exc).__name__}: {exc}")
                theirs = None
            store_differs = theirs is None or theirs != mine
            if theirs is not None:
                if theirs == mine:
                    print(f"  store: equal ({len(mine)} steps)")
                else:
                    print(f"  store: DIFFERENT: gza {len(theirs)} steps, ours {len(mine)}")
                    for n, (a, b) in enumerate(zip(theirs, mine, strict=False), start=1):
                        if a != b:
                            print(f"    S{n} gza:  {a}\n    S{n} ours: {b}")
                    for extra in theirs[len(mine) :]:
                        print(f"    gza only:  {extra}")
                    for extra in mine[len(theirs) :]:
                        print(f"    ours only: {extra}")
            lines, count = gza_timeline(case["kind"], evs)
            our_lines = render_lines(evs, width=WIDTH)
            print(f"  gza is_new_step count: {count}; gza timeline steps: {len(lines)}")
            timeline_differs = lines != our_lines
            their_usage, my_usage = usage_pair(evs)
            usage_differs = their_usage != my_usage
            print(f"  usage (input, output): gza {their_usage}, ours {my_usage}")
            seen = (store_differs, timeline_differs, usage_differs)
            if seen != EXPECTED.get(case["name"], (False, False, False)):
                unexplained.append(case["name"])
            if timeline_differs:
                print("  timeline: DIFFERENT")
                for x in lines:
                    print(f"    gza:  {x[:110]}")
                for x in our_lines:
                    print(f"    ours: {x[:110]}")
            else:
                print("  timeline: equal")
    print(f"gza comparison: unexplained differences: {unexplained or 'none'}")
    print(f"wall time: {time.monotonic() - start:.1f} s")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
