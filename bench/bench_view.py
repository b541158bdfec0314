"""`atif view` benchmark: a 3 000-step trajectory opened in headless Chromium (not a test).

Builds a 3 000-step trajectory (agent steps with tool calls, arguments and results, reasoning,
metrics, a few findings), writes its page with `atif view`, and opens it from a file in Debian's
headless Chromium with the network blocked, several times. Prints, measured in this run on this
machine: the page size, the time to build it, the time from navigation to the page being ready
(the timeline's first chunk drawn: `data-ready`), to the load event, the time to jump to a
finding on the last step (rendering everything before it), to search the whole run and go to a
hit near its end, and the time to scroll through the whole timeline (compact: a run this long
opens in compact mode); then for `atif view A B --compare` of the run and a changed copy (every
50th step dropped, every 70th calling another tool): the page size, the time to build it (the
alignment included) and to open it with every aligned row drawn; then a dataset page holding
`--index-rows` small documents (50,000; `--max-docs` as many): the page size, the time to build
it and to open it, and, in the page, the time to scroll its (virtualised) index to the end, to
sort it and to filter it to one row. The issue's target: open in under 2 s.

First, a table against the issue's budgets (issue 34): the page size and the time to open the
3,000-step conformance fixture (`large-3000-steps.json`) and a 50,000-document JSON Lines
dataset made here from the ATIF v1.8 conformance fixtures, each opened `--runs` times (median
and min-max). "First screen" is from navigation start to the first frame painted after the page
is ready (its first chunk of steps, or the dataset's index, drawn); "whole page" is to the first
frame painted after every step is drawn (the page's "draw all N steps" button, clicked at once)
or, for a dataset, the index rows in view (the index is virtualised) and every chart laid out.
Times are read in the page (`performance.now()`, from navigation start), not over the DevTools
connection.

    python bench/bench_view.py [--steps 3000] [--runs 3] [--docs 50000] [--index-rows 50000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from atif_spec.view import ViewOptions, render

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.support.browser
FIXTURE = ROOT / "conformance/atif/v1.8/valid/large-3000-steps.json"
# Issue 34's budgets: the first screen usable in under 1 s, the whole page in under 2 s; the
# page sizes are ours: a run's page holds its document once plus the script (about 0.1 MB) and
# its waterfall's rows (about 0.2 MB for the 3,000-step fixture); a dataset's page holds at most
# --max-docs documents (200 by default) whatever the dataset's size.
FIRST_SCREEN_MS = 1000
WHOLE_PAGE_MS = 2000
RUN_PAGE_MB = 3.0
DATASET_PAGE_MB = 2.0
# Installed before any script of the page runs: when the page sets data-ready, note the time,
# wait for the frame to be painted (a task after the animation frame), click "draw all" if the
# page has one, lay everything out and note the time after the next painted frame.
TIMES = """
window.__times = {};
new MutationObserver(function (_, obs) {
  if (document.documentElement.dataset.ready !== '1') return;
  obs.disconnect();
  const painted = f => requestAnimationFrame(() => setTimeout(f, 0));
  painted(function () {
    window.__times.first = performance.now();
    const all = Array.from(document.querySelectorAll('.toolbar button'))
      .find(b => b.textContent.startsWith('draw all'));
    if (all) all.click();
    void document.body.scrollHeight;
    painted(function () {
      window.__times.whole = performance.now();
      window.__times.steps = document.querySelectorAll('li.step').length;
      window.__times.rows = document.querySelectorAll('table tr.row').length;
    });
  });
}).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-ready']});
"""


def trajectory(steps: int) -> dict[str, Any]:
    """A long agent run: a user step, then agent steps with one tool call and its result."""
    out: list[dict[str, Any]] = [{"step_id": 1, "source": "user", "message": "Fix the bug."}]
    for i in range(2, steps + 1):
        out.append(
            {
                "step_id": i,
                "source": "agent",
                "timestamp": f"2026-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z",
                "message": f"Step {i}: looking at file {i % 97}.py " + "context " * 40,
                "reasoning_content": "I should check the tests first. " * 30,
                "tool_calls": [
                    {
                        "tool_call_id": f"call-{i}",
                        "function_name": "bash" if i % 3 else "read_file",
                        "arguments": {"cmd": f"pytest tests/test_{i % 50}.py -q", "timeout": 60},
                    }
                ],
                "observation": {
                    "results": [{"source_call_id": f"call-{i}", "content": "ok\n" * 40}]
                },
                "metrics": {"prompt_tokens": 1000 + i, "completion_tokens": 50, "cost_usd": 0.001},
            }
        )
    out[-1]["message"] = 42  # a finding on the last step
    return {
        "schema_version": "ATIF-v1.7",
        "session_id": "bench",
        "agent": {"name": "bench-agent", "version": "1", "model_name": "m"},
        "steps": out,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--docs", type=int, default=50_000, help="documents in the dataset")
    parser.add_argument(
        "--index-rows", type=int, default=50_000, help="small documents in one dataset page"
    )
    args = parser.parse_args()
    from tests.support.browser import CHROMIUM, Browser

    if CHROMIUM is None:
        sys.exit("chromium is not installed (apt-get install -y chromium)")
    budgets(args.runs, args.docs)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        doc_path = folder / "trajectory.json"
        doc_path.write_bytes(orjson.dumps(trajectory(args.steps)))
        start = time.perf_counter()
        html = render([str(doc_path)])
        built = time.perf_counter() - start
        page = folder / "page.html"
        page.write_text(html)
        print(f"atif view, {args.steps}-step trajectory ({doc_path.stat().st_size / 1e6:.1f} MB)")
        print(f"  page: {len(html.encode()) / 1e6:.1f} MB, built in {built * 1000:.0f} ms")
        profile = folder / "profile"
        profile.mkdir()
        browser = Browser(profile)
        try:
            browser.call("Network.setBlockedURLs", urls=["http://*", "https://*"])
            for run in range(args.runs):
                _measure(browser, page, run)
            _compare(browser, folder, doc_path, args.runs)
            _index(browser, folder, args.index_rows, args.runs)
        finally:
            browser.close()


def dataset(path: Path, docs: int) -> None:
    """A JSON Lines dataset of ``docs`` documents: the ATIF v1.8 conformance fixtures (valid and
    invalid, one file each, the 3,000-step one aside) over and over."""
    fixtures = sorted((ROOT / "conformance/atif/v1.8").glob("*/*.json"))
    lines = [orjson.dumps(orjson.loads(f.read_bytes())) for f in fixtures if f != FIXTURE]
    with path.open("wb") as out:
        for i in range(docs):
            out.write(lines[i % len(lines)] + b"\n")


def budgets(runs: int, docs: int) -> None:
    """The page size and time to open of the 3,000-step fixture and of a ``docs``-document
    dataset, as a table beside issue 34's budgets."""
    from tests.support.browser import Browser

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = folder / "dataset.jsonl"
        dataset(data, docs)
        rows = [
            (f"{FIXTURE.name} (3,000 steps)", FIXTURE, RUN_PAGE_MB),
            (f"dataset, {docs:,} documents (JSONL)", data, DATASET_PAGE_MB),
        ]
        profile = folder / "profile"
        profile.mkdir()
        browser = Browser(profile)
        try:
            browser.call("Network.setBlockedURLs", urls=["http://*", "https://*"])
            browser.call("Page.addScriptToEvaluateOnNewDocument", source=TIMES)
            table = [_open_times(browser, folder, *row, runs) for row in rows]
        finally:
            browser.close()
    print(f"atif view: page size and time to open, median (min-max) of {runs} runs")
    head = ("page", "size", "budget", "first screen", "budget", "whole page", "budget")
    widths = [max(len(str(r[i])) for r in [head, *table]) for i in range(len(head))]
    for row in [head, *table]:
        print(
            ("  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True))).rstrip()
        )


def _open_times(
    browser: Any, folder: Path, name: str, source: Path, budget_mb: float, runs: int
) -> tuple[str, ...]:
    """One row of the table: build the page, open it ``runs`` times."""
    start = time.perf_counter()
    html = render([str(source)])
    built = time.perf_counter() - start
    page = folder / "page.html"
    page.write_bytes(html.encode())
    size = page.stat().st_size / 1e6
    first: list[float] = []
    whole: list[float] = []
    for _ in range(runs):
        browser.call("Page.navigate", url="about:blank")
        browser.call("Page.navigate", url=page.as_uri())
        while browser.receive(timeout=120).get("method") != "Page.loadEventFired":
            pass
        _wait(browser, "window.__times && window.__times.whole !== undefined")
        times = browser.evaluate("window.__times")
        first.append(times["first"])
        whole.append(times["whole"])
    drawn = f"{times['steps']:,} steps" if times["steps"] else f"{times['rows']:,} index rows"
    print(f"  {name}: page built in {built:.1f} s; whole page: {drawn} drawn")

    def ms(values: list[float], budget: int) -> tuple[str, str]:
        median = statistics.median(values)
        mark = "" if median < budget else " OVER"
        return f"{median:.0f} ms ({min(values):.0f}-{max(values):.0f}){mark}", f"< {budget} ms"

    mark = "" if size < budget_mb else " OVER"
    return (
        name,
        f"{size:.2f} MB{mark}",
        f"< {budget_mb:.1f} MB",
        *ms(first, FIRST_SCREEN_MS),
        *ms(whole, WHOLE_PAGE_MS),
    )


def _wait(browser: Any, expression: str) -> None:
    browser.call(
        "Runtime.evaluate",
        expression=f"new Promise(r => {{ const t = () => ({expression}) ? r(1) : "
        "requestAnimationFrame(t); t(); })",
        awaitPromise=True,
    )


def _measure(browser: Any, page: Path, run: int) -> None:
    browser.call("Page.navigate", url="about:blank")
    start = time.perf_counter()
    browser.events = []
    browser.call("Page.navigate", url=page.as_uri())
    while browser.receive(timeout=60).get("method") != "Page.loadEventFired":
        pass
    loaded = time.perf_counter() - start
    ready = browser.evaluate(
        "performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd"
    )
    # The first chunk is drawn synchronously by the page's script; wait for the frame too.
    _wait(browser, "document.documentElement.dataset.ready === '1'")
    painted = time.perf_counter() - start
    steps = browser.evaluate("document.querySelectorAll('li.step').length")
    start = time.perf_counter()
    browser.evaluate(
        "Array.from(document.querySelectorAll('.findings-list li'))"
        ".find(li => li.textContent.includes('/message')).click()"
    )
    _wait(browser, "document.querySelector('.finding.flash') !== null")
    jumped = time.perf_counter() - start
    total = browser.evaluate("document.querySelectorAll('li.step').length")
    start = time.perf_counter()
    browser.evaluate(
        "(() => { const q = document.getElementById('q'); q.value = 'Step 2999:';"
        " q.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true})); })()"
    )
    _wait(browser, "document.querySelector('li.step.current') !== null")
    searched = time.perf_counter() - start
    hits = browser.evaluate("document.getElementById('q-count').textContent")
    start = time.perf_counter()
    browser.evaluate("window.scrollTo(0, 0)")
    for _ in range(20):
        browser.evaluate("window.scrollBy(0, document.body.scrollHeight / 20)")
        _wait(browser, "true")
    scrolled = time.perf_counter() - start
    print(
        f"  run {run + 1}: DOMContentLoaded {ready:.0f} ms, load event {loaded * 1000:.0f} ms, "
        f"first chunk painted {painted * 1000:.0f} ms ({steps} steps drawn); "
        f"jump to the last step's finding {jumped * 1000:.0f} ms ({total} steps drawn); "
        f"search the whole run and go to the hit {searched * 1000:.0f} ms ({hits}); "
        f"scroll through in 20 moves {scrolled * 1000:.0f} ms"
    )


def _compare(browser: Any, folder: Path, doc_path: Path, runs: int) -> None:
    doc = orjson.loads(doc_path.read_bytes())
    steps = [s for i, s in enumerate(doc["steps"]) if i % 50 != 49]
    for i, step in enumerate(steps):
        if i % 70 == 69:
            step["tool_calls"][0]["function_name"] = "grep"
    other = folder / "other.json"
    other.write_bytes(orjson.dumps({**doc, "steps": steps}))
    start = time.perf_counter()
    html = render([str(doc_path), str(other)], ViewOptions(compare=True))
    built = time.perf_counter() - start
    page = folder / "compare.html"
    page.write_text(html)
    print(f"atif view --compare, the run and a copy of {len(steps)} steps")
    print(f"  page: {len(html.encode()) / 1e6:.1f} MB, built in {built * 1000:.0f} ms")
    for run in range(runs):
        browser.call("Page.navigate", url="about:blank")
        start = time.perf_counter()
        browser.call("Page.navigate", url=page.as_uri())
        while browser.receive(timeout=60).get("method") != "Page.loadEventFired":
            pass
        _wait(browser, "document.documentElement.dataset.ready === '1'")
        painted = time.perf_counter() - start
        note = browser.evaluate("document.querySelector('.align-note').textContent.split('.')[0]")
        print(f"  run {run + 1}: every row drawn {painted * 1000:.0f} ms ({note})")


# In the page: the time from an action until a predicate holds after a frame (a scroll, a sort and
# a filter of the index are each drawn on the next frame).
INDEX_STEPS = """
(async function () {
  const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const timed = async (act, ok) => { const t = performance.now(); act();
    do await frame(); while (!ok()); return Math.round(performance.now() - t); };
  const box = document.querySelector('.index-scroll'), n = DATA_ROWS;
  const last = () => Array.from(document.querySelectorAll('tr.doc')).pop().firstChild.textContent;
  const scroll = await timed(() => { box.scrollTop = box.scrollHeight; }, () => last() === String(n));
  const th = document.querySelector('.doc-table th[data-key=steps]');
  const sort = await timed(() => th.click(), () => true);
  const q = document.querySelector('.doc-filters input');
  const filter = await timed(() => { q.value = 'jsonl:' + (n - 1); q.dispatchEvent(new Event('input')); },
    () => document.querySelectorAll('tr.doc').length === 1);
  return {scroll: scroll, sort: sort, filter: filter,
          drawn: document.querySelectorAll('tr.row').length};
})()
"""


def _index(browser: Any, folder: Path, rows: int, runs: int) -> None:
    """A dataset page holding ``rows`` index rows (small documents, ``--max-docs rows``): open it,
    scroll its index to the end, sort it by steps and filter it to one row."""
    data = folder / "small.jsonl"
    with data.open("wb") as out:
        for i in range(rows):
            steps = [{"step_id": k + 1, "source": "user", "message": f"{i}"} for k in range(i % 9)]
            agent = {"name": f"agent-{i % 5}", "version": "1"}
            out.write(orjson.dumps({"schema_version": "ATIF-v1.7", "agent": agent, "steps": steps}))
            out.write(b"\n")
    start = time.perf_counter()
    html = render([str(data)], ViewOptions(max_docs=rows))
    built = time.perf_counter() - start
    page = folder / "index.html"
    page.write_text(html)
    print(f"atif view, a dataset page of {rows:,} index rows (--max-docs {rows})")
    print(f"  page: {len(html.encode()) / 1e6:.1f} MB, built in {built * 1000:.0f} ms")
    for run in range(runs):
        browser.call("Page.navigate", url="about:blank")
        start = time.perf_counter()
        browser.call("Page.navigate", url=page.as_uri())
        while browser.receive(timeout=120).get("method") != "Page.loadEventFired":
            pass
        _wait(browser, "document.documentElement.dataset.ready === '1'")
        ready = time.perf_counter() - start
        drawn = browser.evaluate("document.querySelectorAll('tr.row').length")
        took = browser.call(
            "Runtime.evaluate",
            expression=INDEX_STEPS.replace("DATA_ROWS", str(rows)),
            awaitPromise=True,
            returnByValue=True,
        )["result"]["value"]
        print(
            f"  run {run + 1}: ready {ready * 1000:.0f} ms ({drawn} rows drawn); scroll to the "
            f"end {took['scroll']} ms, sort by steps {took['sort']} ms, filter to one row "
            f"{took['filter']} ms ({took['drawn']} rows drawn)"
        )


if __name__ == "__main__":
    main()
