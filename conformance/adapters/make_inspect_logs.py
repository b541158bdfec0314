#!/usr/bin/env python3
"""Writes the Inspect AI logs of ``conformance/native/inspect/`` (not an adapter, not run by CI).

The logs are written by Inspect AI itself (PyPI ``inspect-ai``: 0.3.150 wrote the ``.eval``
files without ``-zstd``, 0.3.285 the rest), offline: its ``mockllm/model`` provider replays the
model turns below (text, reasoning, tool calls, per-call usage), while the agent (``react``),
the tools and the scorer are real Inspect code running in process. The ``.eval`` files are
Inspect's own log files; the sample bundle and the sample pair are one sample of a log lifted
out with an export envelope beside it, in the two packagings atif-make 0.10.0 reads
(``atif_make/parsers/inspect_bundle.py``: envelope keys ``name``, ``trajectory_id``,
``eval_sample_id``, ``eval_log_url``, ``run_id``, ``epoch``, ``created_at``, ``created_by``,
``source_file``, ``cost``, ``token_usage``, ``timing``, ``tags``, ``comments``,
``step_comments``, ``metadata``).

    python -m venv /tmp/inspect && /tmp/inspect/bin/pip install inspect-ai
    /tmp/inspect/bin/python conformance/adapters/make_inspect_logs.py conformance/native/inspect
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.agent import react
from inspect_ai.dataset import Sample
from inspect_ai.model import ContentReasoning, ContentText, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.tool import ToolError, tool

MODEL = "mockllm/model"
FAILING = """============================= test session starts ==============================
collected 3 items

tests/test_slug.py ..F                                                   [100%]

=================================== FAILURES ===================================
____________________________ test_slug_strips_dashes ___________________________

    def test_slug_strips_dashes():
>       assert slugify("--Hello  World--") == "hello-world"
E       AssertionError: assert '-hello-world-' == 'hello-world'

tests/test_slug.py:12: AssertionError
=========================== short test summary info ============================
FAILED tests/test_slug.py::test_slug_strips_dashes - AssertionError
========================= 1 failed, 2 passed in 0.04s ==========================
"""
SOURCE = '''import re


def slugify(text: str) -> str:
    """Lower-case words joined by single dashes."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower())
'''


@tool
def read_file():  # type: ignore[no-untyped-def]
    async def execute(path: str) -> str:
        """Read a file of the repository.

        Args:
            path: Path of the file, relative to the repository root.
        """
        if path == "slug.py":
            return SOURCE
        raise ToolError(f"No such file: {path}")

    return execute


@tool
def run_tests():  # type: ignore[no-untyped-def]
    async def execute(selector: str = "") -> str:
        """Run the test suite with pytest.

        Args:
            selector: Optional pytest node id or -k expression.
        """
        return FAILING if not selector else "1 passed in 0.01s\n"

    return execute


def usage(
    fresh: int, completion: int, read: int = 0, written: int = 0, reasoning: int = 0
) -> ModelUsage:
    """One call's usage the way Inspect records it for every provider: ``input_tokens`` is the
    uncached part of the prompt only, cache reads and writes are counted beside it."""
    return ModelUsage(
        input_tokens=fresh,
        output_tokens=completion,
        total_tokens=fresh + read + written + completion,
        input_tokens_cache_read=read or None,
        input_tokens_cache_write=written or None,
        reasoning_tokens=reasoning or None,
    )


def call(
    name: str, args: dict[str, Any], call_id: str, said: str, spent: ModelUsage
) -> ModelOutput:
    out = ModelOutput.for_tool_call(MODEL, name, args, tool_call_id=call_id, content=said)
    out.usage = spent
    return out


def fix_slug_turns() -> list[ModelOutput]:
    first = call("run_tests", {}, "call_tests_1", "", usage(812, 41, written=806, reasoning=24))
    first.choices[0].message.content = [
        ContentReasoning(reasoning="The failing test is about leading and trailing dashes."),
        ContentText(text="Running the tests to see what fails."),
    ]
    second = call("read_file", {"path": "src/slug.py"}, "call_read_1", "", usage(478, 22, 806, 472))
    third = call(
        "read_file",
        {"path": "slug.py"},
        "call_read_2",
        "It lives at the root.",
        usage(70, 25, 1278, 64),
    )
    fourth = call(
        "run_tests",
        {"selector": "tests/test_slug.py::test_slug_strips_dashes"},
        "call_tests_2",
        "Stripping the dashes with .strip('-') fixes it; re-running.",
        usage(612, 60, 1342, 606, 32),
    )
    done = call(
        "submit",
        {"answer": "slugify now strips leading and trailing dashes"},
        "call_submit_1",
        "",
        usage(41, 30, 1948, 35),
    )
    return [first, second, third, fourth, done]


def task(samples: list[Sample]) -> Task:
    return Task(
        dataset=samples,
        solver=react(
            prompt="You fix failing tests in a small Python repository.",
            tools=[read_file(), run_tests()],
        ),
        scorer=includes(),
        name="fix_failing_test",
    )


def run(samples: list[Sample], outputs: list[ModelOutput], out: Path, name: str) -> Path:
    with tempfile.TemporaryDirectory() as tmp:
        model = get_model(MODEL, custom_outputs=outputs)
        (log,) = eval(
            task(samples),
            model=model,
            log_dir=tmp,
            log_format="eval",
            max_samples=1,
            display="none",
        )
        with zipfile.ZipFile(log.location) as archive:
            methods = {info.compress_type for info in archive.infolist()}
        # Recent Inspect AI (0.3.285) compresses members with zstd (ZIP method 93), older
        # releases (0.3.150) with deflate: the zstd logs are named so.
        target = out / (name.replace(".eval", "-zstd.eval") if 93 in methods else name)
        shutil.copyfile(log.location, target)
    return target


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    slug = Sample(
        id="slug-dashes",
        input="tests/test_slug.py fails; make it pass.",
        target="strips",
        metadata={"setting_name": "repo-fix", "eval_mode": "honest"},
    )
    one = run([slug], fix_slug_turns(), out, "fix-failing-test.eval")

    second = Sample(
        id="slug-unicode", input="Make slugify keep accented letters as ASCII.", target="unidecode"
    )
    answers = [
        *fix_slug_turns(),
        call("read_file", {"path": "slug.py"}, "call_read_3", "", usage(700, 18)),
        call(
            "submit",
            {"answer": "transliterate with unicodedata.normalize('NFKD')"},
            "call_submit_2",
            "NFKD plus an ASCII encode drops the accents.",
            usage(590, 44, 700),
        ),
    ]
    run([slug, second], answers, out, "two-samples.eval")

    with zipfile.ZipFile(one) as archive:
        header = json.loads(archive.read("header.json"))
        name = next(n for n in archive.namelist() if n.startswith("samples/"))
        sample = json.loads(archive.read(name))
    envelope = {
        "name": "fix_failing_test: slug-dashes (honest)",
        "trajectory_id": "3f9c2a7e5b1d4c08a6e2f1b7c9d0e4a5",
        "eval_sample_id": sample["id"],
        "eval_log_url": f"logs/{one.name}",
        "run_id": header["eval"]["run_id"],
        "epoch": sample["epoch"],
        "created_at": "2026-09-20T11:42:07Z",
        "created_by": "reviewer@example.org",
        "source_file": one.name,
        "description": "Honest run that fixes a failing slug test.",
        "cost": {
            "total_usd": 0.0213,
            "input_usd": 0.0181,
            "output_usd": 0.0027,
            "cache_read_usd": 0.0005,
        },
        "token_usage": sample.get("model_usage") or {},
        "timing": {"time_started": 1789990920000, "time_completed": 1789990934500},
        "tags": ["honest", "fixed"],
        "comments": [],
        "step_comments": {},
        "metadata": {"reviewed": True},
    }
    (out / "sample-bundle.json").write_text(
        json.dumps({"metadata": envelope, "sample": sample}) + "\n", encoding="utf-8"
    )
    pair = out / "sample-pair-slug-dashes"
    pair.mkdir(exist_ok=True)
    paired = {**envelope, "trajectory_id": "8b2d6f1a9c3e4b7d"}
    (pair / "metadata.json").write_text(json.dumps(paired, indent=2) + "\n", encoding="utf-8")
    (pair / "sample.json").write_text(json.dumps(sample, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
