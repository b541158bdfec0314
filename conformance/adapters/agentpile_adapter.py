#!/usr/bin/env python3
"""Conformance adapter for PyPI ``agentpile`` (0.3.1): agent traces and dataset rows → ATIF v1.7.

Runs in its own Python 3.12 environment, offline (``HF_HUB_OFFLINE=1``, its download cache in a
temporary folder): only local files are read. Producer only; each answer is every run's
``Run.to_dict()`` (the record ``Run.to_json`` writes), in the order agentpile yields them.

- ``claude-code``, ``openai-messages``: ``agentpile.load(path)``, the reader found by its own
  detection (``loading.load``: exactly one reader must recognise the file), which must be the
  one the source kind names (``formats/claude_code.py``, ``formats/messages.py``).
- ``tau-bench``: the tau_bench dataset converter (``corpora/tau_bench.py``, ``TauBench``) on a
  local copy laid out like the dataset's files (``Dataset.load(root=...)``, one
  ``<model>.jsonl`` per model; ``model=`` picks the file).
"""

from __future__ import annotations

import os
import platform
import re
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["AGENTPILE_CACHE"] = tempfile.mkdtemp(prefix="agentpile-cache-")

import agentpile  # imported after the offline switches above
from _serve import serve

READERS = {"claude-code": "claude-code-jsonl", "openai-messages": "openai-messages"}
DATASETS = {"tau-bench": "tau_bench"}
STARTED = {
    "implementation": {
        "name": "agentpile",
        "version": version("agentpile"),
        "language": f"python {platform.python_version()}",
        "homepage": "https://pypi.org/project/agentpile/",
        "notes": "agentpile.load(file) with detection; tau_bench rows via Dataset.load(root=...)",
    },
    "roles": ["producer"],
    "formats": [],
    "profiles": [],
    "findings": False,
    "sources": sorted([*READERS, *DATASETS]),
    "writes": [f"atif@{agentpile.ATIF_VERSION.removeprefix('ATIF-')}"],
}


def produce(request: dict[str, Any]) -> dict[str, Any]:
    path, source = Path(request["path"]), request["source"]
    if source in DATASETS:
        dataset = agentpile.datasets.get(DATASETS[source])
        runs = list(dataset.load(root=str(path.parent), model=path.stem))
    else:
        try:
            runs = list(agentpile.load(path))
        except agentpile.UnrecognizedSource as exc:  # a log shape none of its readers reads
            reason = re.sub(r" '[^']*'", "", str(exc).split(";")[0])  # no checkout path
            return {"id": request["id"], "skipped": reason}
        readers = {run.source.get("reader") or run.source.get("format") for run in runs}
        if readers != {READERS[source]}:
            return {"id": request["id"], "skipped": f"read by {sorted(map(str, readers))}"}
    return {"id": request["id"], "documents": [run.to_dict() for run in runs]}


if __name__ == "__main__":
    sys.exit(serve(STARTED, {"produce": produce}))
