"""Migration benchmark (run by `nox -s bench`; not a test).

Prints, measured in this run on this machine: a feature-rich 9 MB v1.8 trajectory (multimodal
parts, embedded subagents, token ids, extras everywhere) migrated down to v1.0 and back up, and a
JSON Lines corpus migrated record by record, each as a ratio to orjson.loads + orjson.dumps of
the same bytes alone; then the throughput of `atif migrate` on the corpus file (which also
validates every result) with --jobs 1 and 2.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).parent))
import corpus
import timing

import atif_spec
from atif_spec.jsonio.jsonequal import same_json_text
from atif_spec.transforms.migrations import migrate
from atif_spec.validation.pipeline import validate_raw
from atif_spec.validation.reader import RawDocument

WORK = Path(".bench")
TEXT = {"type": "text", "text": "Here is the screenshot and the recording."}
IMAGE = {"type": "image", "source": {"media_type": "image/png", "path": "images/screen.png"}}
AUDIO = {
    "type": "audio",
    "source": {"media_type": "audio/wav", "path": "audio/note.wav", "duration_sec": 2.5},
}


def row(name: str, seconds: float, base: float, note: str = "") -> None:
    timing.row(name, seconds, base, note, width=48)


def enrich(doc: dict[str, Any], tokens: int, sub_ids: list[str]) -> dict[str, Any]:
    """Give a corpus trajectory every feature v1.8 has (in place; returns it)."""
    doc["schema_version"] = "ATIF-v1.8"
    doc["agent"]["tool_definitions"] = [
        {"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}
    ]
    doc["agent"]["extra"] = {"temperature": 0.2}
    for n, step in enumerate(doc["steps"]):
        step["extra"] = {"turn": n}
        if step["source"] == "user":
            step["message"] = [TEXT, IMAGE, AUDIO]
            step["is_copied_context"] = False
        if step["source"] != "agent":
            continue
        step["llm_call_count"] = 1
        step["is_copied_context"] = n % 7 == 0
        for call in step["tool_calls"]:
            call["extra"] = {"timeout_sec": 30, "retries": 0}
        results = step["observation"]["results"]
        for k, result in enumerate(results):
            result["extra"] = {"exit_code": 0}
            if k == 1:
                result["content"] = [{"type": "text", "text": result["content"]}, IMAGE, AUDIO]
        if sub_ids and n % 5 == 0:
            results[0]["subagent_trajectory_ref"] = [
                {"trajectory_id": sub_ids[n % len(sub_ids)]},
                {"session_id": "s", "trajectory_path": "trajectory.summarization-1-summary.json"},
            ]
        m = step["metrics"]
        m["prompt_token_ids"] = [(n * 31 + i) % 50_000 for i in range(tokens)]
        m["completion_token_ids"] = [(n * 17 + i) % 50_000 for i in range(150)]
        m["logprobs"] = [-0.001 * (i % 97) for i in range(150)]
        m["extra"] = {"reasoning_tokens": 40}
    doc["final_metrics"]["extra"] = {"source": "bench"}
    doc["continued_trajectory_ref"] = "trajectory.cont-1.json"
    doc["extra"] = {"task": "bench"}
    return doc


def feature_rich(agent_steps: int, tokens: int, subagents: int) -> dict[str, Any]:
    """A valid v1.8 trajectory with embedded subagents (one v1.7 among them)."""
    subs = []
    for s in range(subagents):
        sub = enrich(corpus.trajectory(agent_steps // 10, output_lines=8), tokens, [])
        sub["trajectory_id"] = f"sub-{s}"
        if s == 0:
            sub = migrate(sub, to="v1.7")[0]
        subs.append(sub)
    doc = enrich(
        corpus.trajectory(agent_steps, output_lines=8), tokens, [s["trajectory_id"] for s in subs]
    )
    doc["trajectory_id"] = "main"
    doc["subagent_trajectories"] = subs
    return doc


def single_document(args: argparse.Namespace) -> dict[str, float]:
    doc = feature_rich(args.steps, tokens=600, subagents=3)
    data = orjson.dumps(doc)
    report = validate_raw(RawDocument("<bench>", data), None)
    assert report.valid, report.errors[:3]
    low_doc, low_report = migrate(orjson.loads(data), to="v1.0")
    low = orjson.dumps(low_doc)
    assert validate_raw(RawDocument("<bench>", low)).valid
    assert same_json_text(orjson.dumps(migrate(orjson.loads(low), to="v1.8")[0]), data)
    print(
        f"\nfeature-rich v1.8 trajectory: {len(data) / 1e6:.1f} MB, {len(doc['steps'])} steps, "
        f"{len(doc['subagent_trajectories'])} embedded subagents, "
        f"{len(low_report.stashed)} values stashed going to v1.0 (best of {args.runs})"
    )
    t = timing.best(
        timing.interleaved(
            {
                "base": lambda: orjson.dumps(orjson.loads(data)),
                "down": lambda: orjson.dumps(migrate(orjson.loads(data), to="v1.0")[0]),
                "base_low": lambda: orjson.dumps(orjson.loads(low)),
                "up": lambda: orjson.dumps(migrate(orjson.loads(low), to="v1.8")[0]),
            },
            args.runs,
        )
    )
    base, down, up, base_low = t["base"], t["down"], t["up"], t["base_low"]
    row("orjson.loads + orjson.dumps (baseline)", base, base)
    row("loads + migrate v1.8 -> v1.0 + dumps", down, base, "target <= 2x")
    row("orjson.loads + orjson.dumps of the v1.0 result", base_low, base_low)
    row("loads + migrate v1.0 -> v1.8 + dumps", up, base_low, "(ratio to the line above)")
    return {"down_ratio": down / base, "up_ratio": up / base_low, "mb": len(data) / 1e6}


SWEEP_STEPS = (1, 5, 20, 100, 2000)
CONVERSION = "tao@v0.2.0"


def size_sweep(args: argparse.Namespace) -> None:
    """Migration down and up, and one conversion, at every size, as ratios to parse + dump."""
    print(
        "\nSize sweep: plain v1.8 trajectories; ratios to orjson.loads + orjson.dumps of the same"
        f" input (CPU time), median (min-max) of {args.sweep_runs} interleaved rounds"
    )
    print(
        f"  {'document':<12} {'size':>9}  {'v1.8 -> v1.0':<18} {'v1.0 -> v1.8':<18} -> {CONVERSION}"
    )
    for steps in SWEEP_STEPS:
        data = orjson.dumps(corpus.trajectory(steps, output_lines=42, version="v1.8"))
        low = orjson.dumps(migrate(orjson.loads(data), to="v1.0")[0])
        assert same_json_text(orjson.dumps(migrate(orjson.loads(low), to="v1.8")[0]), data)
        fns = {
            "base": lambda data=data: orjson.dumps(orjson.loads(data)),
            "down": lambda data=data: orjson.dumps(migrate(orjson.loads(data), to="v1.0")[0]),
            "base_low": lambda low=low: orjson.dumps(orjson.loads(low)),
            "up": lambda low=low: orjson.dumps(migrate(orjson.loads(low), to="v1.8")[0]),
            "convert": lambda data=data: orjson.dumps(
                atif_spec.convert(orjson.loads(data), to=CONVERSION)[0]
            ),
        }
        times = timing.interleaved(
            fns, args.sweep_runs, timing.calls_for(fns["base"]), time.process_time
        )
        print(
            f"  {steps:>5} steps {len(data) / 1e3:7.0f}KB"
            f"  {timing.spread(timing.ratios(times, 'down', 'base')):<18}"
            f" {timing.spread(timing.ratios(times, 'up', 'base_low')):<18}"
            f" {timing.spread(timing.ratios(times, 'convert', 'base'))}"
        )


def jsonl(args: argparse.Namespace) -> dict[str, float]:
    line = orjson.dumps(feature_rich(12, tokens=200, subagents=1))
    lines = [line] * args.documents
    print(f"\nJSON Lines: {args.documents} documents of {len(line) / 1e3:.1f} KB")
    t = timing.best(
        timing.interleaved(
            {
                "base": lambda: [orjson.dumps(orjson.loads(x)) for x in lines],
                "ours": lambda: [
                    orjson.dumps(migrate(orjson.loads(x), to="v1.0")[0]) for x in lines
                ],
            },
            3,
        )
    )
    base, ours = t["base"], t["ours"]
    row("orjson.loads + orjson.dumps per record", base, base)
    row("loads + migrate v1.8 -> v1.0 + dumps per record", ours, base)
    path = WORK / "migrate-corpus.jsonl"
    path.write_bytes(b"".join(x + b"\n" for x in lines))
    for jobs in (1, 2):
        start = time.perf_counter()
        cmd = [sys.executable, "-c", "from atif_spec.cli.transform import migrate; migrate()"]
        out = WORK / f"migrate-out-{jobs}.jsonl"
        proc = subprocess.run(
            [*cmd, str(path), "--to", "v1.0", "-o", str(out), "-j", str(jobs)],
            capture_output=True,
            check=False,
        )
        elapsed = time.perf_counter() - start
        assert proc.returncode == 0, proc.stderr[-500:]
        print(
            f"  atif migrate --jobs {jobs} (with validation): {elapsed:6.2f} s  "
            f"{args.documents / elapsed:7.0f} documents/s"
        )
    return {"jsonl_ratio": ours / base}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--sweep-runs", type=int, default=7, help="rounds per sweep size (>= 5)")
    parser.add_argument("--steps", type=int, default=860, help="agent steps of the big document")
    parser.add_argument("--documents", type=int, default=2000, help="JSON Lines corpus size")
    args = parser.parse_args()
    WORK.mkdir(exist_ok=True)
    size_sweep(args)
    results = single_document(args)
    results |= jsonl(args)
    print(
        json.dumps(
            {"python": sys.version.split()[0], **{k: round(v, 2) for k, v in results.items()}}
        )
    )


if __name__ == "__main__":
    main()
