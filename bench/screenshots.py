"""The screenshots of `atif view` in docs/images/, made again (not a benchmark; it lives beside
bench_view.py because it drives the same headless Chromium).

Writes each page with `atif view` from the repository's fixtures, in a temporary folder and
with relative names (the page's headings show `rich.json`, not a temporary path), opens it in
Debian's headless Chromium with the network blocked, and saves a PNG of its first screen:

- atif-view.png: a rich run (conformance/atif/v1.8/valid/rich.json);
- atif-view-dataset.png: the index of a JSON Lines dataset of the ATIF v1.8 conformance
  fixtures, valid and invalid;
- atif-view-compare.png: `atif view a.json b.json --compare` of two runs of the same task
  (tests/support/viewpage.two_runs);
- atif-view-harbor-job.png: the trials index of a Harbor job folder (tests/support/harbor).

Fails (exit 1) if a page reports an error (console, exception, CSP violation, a request).

    python bench/screenshots.py [--out docs/images]
"""

from __future__ import annotations

import argparse
import base64
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import orjson

from atif_spec.view import ViewOptions, render

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.support

from tests.support.browser import CHROMIUM, Browser, errors  # noqa: E402
from tests.support.harbor import harbor_job  # noqa: E402
from tests.support.viewpage import two_runs  # noqa: E402

WIDTH = 1200
WATCH = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', e => window.__violations.push(e.violatedDirective));
"""


def rich_run(folder: Path) -> str:
    (folder / "rich.json").write_bytes(
        (ROOT / "conformance/atif/v1.8/valid/rich.json").read_bytes()
    )
    return render(["rich.json"])


def dataset(folder: Path) -> str:
    fixtures = sorted((ROOT / "conformance/atif/v1.8").glob("*/*.json"))
    lines = [orjson.dumps(orjson.loads(f.read_bytes())) for f in fixtures]
    (folder / "atif-v1.8-fixtures.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return render(["atif-v1.8-fixtures.jsonl"])


def comparison(folder: Path) -> str:
    a, b = two_runs(folder)
    return render([a.name, b.name], ViewOptions(compare=True))


def job_folder(folder: Path) -> str:
    job = harbor_job(folder / "jobs")
    return render([str(job.root.relative_to(folder))])


# name, page, viewport height
SHOTS: list[tuple[str, Callable[[Path], str], int]] = [
    ("atif-view.png", rich_run, 1400),
    ("atif-view-dataset.png", dataset, 1000),
    ("atif-view-compare.png", comparison, 1250),
    ("atif-view-harbor-job.png", job_folder, 760),
]


def shoot(browser: Browser, page: Path, height: int, out: Path) -> list[str]:
    """Open ``page`` at ``WIDTH`` x ``height``, save its first screen; the problems seen."""
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        width=WIDTH,
        height=height,
        deviceScaleFactor=1,
        mobile=False,
    )
    browser.load("about:blank")
    found = browser.load(page.as_uri())
    browser.call(
        "Runtime.evaluate",
        expression="new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))",
        awaitPromise=True,
    )
    if browser.evaluate("document.documentElement.dataset.ready") != "1":
        found.append("the page did not get ready")
    found += [f"csp: {v}" for v in browser.evaluate("window.__violations") or []]
    for event in browser.events:
        if event["method"] == "Network.requestWillBeSent":
            url = event["params"]["request"]["url"]
            if not url.startswith(("data:", page.as_uri())):
                found.append(f"request: {url}")
    shot = browser.call("Page.captureScreenshot", format="png")
    out.write_bytes(base64.b64decode(shot["data"]))
    return found + errors(browser.events)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = parser.parse_args()
    if CHROMIUM is None:
        sys.exit("chromium is not installed (apt-get install -y chromium)")
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        profile = folder / "profile"
        profile.mkdir()
        browser = Browser(profile)
        here = Path.cwd()
        try:
            browser.call("Network.setBlockedURLs", urls=["http://*", "https://*", "ws://*"])
            browser.call("Page.addScriptToEvaluateOnNewDocument", source=WATCH)
            for name, make, height in SHOTS:
                work = folder / name.removesuffix(".png")
                work.mkdir()
                os.chdir(work)  # relative names on the page
                page = work / "page.html"
                page.write_text(make(work))
                found = shoot(browser, page, height, out / name)
                problems += [f"{name}: {p}" for p in found]
                print(f"{out / name}" + (f" ({len(found)} problems)" if found else ""))
        finally:
            os.chdir(here)
            browser.close()
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
