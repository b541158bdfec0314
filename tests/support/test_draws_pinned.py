"""A derandomized property test draws the same examples however the suite is ordered.

Hypothesis mines literals from the local modules loaded so far and sometimes draws them, so
``test_every_lens_conserves_generated_leaves`` drew other documents when
``atif_spec.conformance.interop`` had been imported first (by
``tests/conformance/test_lensing.py`` in the same process). ``conftest.pin_hypothesis_constants``
stops that; this test runs the property's draws in two fresh interpreters, one importing interop
first, and compares them.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support import ROOT

EXAMPLES = 8
"""The property's ``max_examples``: every example it draws is compared."""

PROBE = """
import hashlib, json, sys, types
sys.path.insert(0, sys.argv[1])
if sys.argv[2] == "interop":
    import atif_spec.conformance.interop
import tests.conftest
import tests.transforms.test_conservation as tc

drawn = []
tc.trajectories = lambda v, _t=tc.trajectories: _t(v).map(lambda d: drawn.append(d) or d)
# the draws only: every example passes, as a failing one would end the run early
tc.atif_spec = types.SimpleNamespace(convert=lambda doc, to, **kw: (doc, None))
tc.check = lambda *args: types.SimpleNamespace(total=1, leaked=[])
tc.test_every_lens_conserves_generated_leaves(to="tao@v0.2.0")
print(json.dumps([hashlib.sha256(json.dumps(d).encode()).hexdigest() for d in drawn]))
"""


def _draws(first: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(ROOT), first],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        timeout=600,
    )
    drawn: list[str] = json.loads(done.stdout.splitlines()[-1])
    return drawn


def test_draws_do_not_depend_on_what_was_imported_first() -> None:
    alone, after_interop = _draws("alone"), _draws("interop")
    assert len(alone) == EXAMPLES
    assert alone == after_interop
