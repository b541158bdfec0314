"""generated/typescript is an npm package: `npm pack` gives a tarball that a consumer project
installs by path and compiles under `nodenext` and `bundler` resolution, strict, with
`skipLibCheck: false`; a wrong shape fails to compile (`@ts-expect-error`)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support import ROOT

PACKAGE = ROOT / "generated" / "typescript"
TSC = ROOT / "node_modules" / ".bin" / "tsc"

pytestmark = pytest.mark.skipif(
    shutil.which("npm") is None or not TSC.is_file(),
    reason="npm or the pinned typescript package is missing (run `npm ci`)",
)

CONSUMER = """\
import type { Trajectory } from "@atif-spec/types/atif/v1.8";
import type { Trajectory as TrajectoryV17 } from "@atif-spec/types/atif/v1.7";
import type { Trajectory as Latest } from "@atif-spec/types";
import type { RunLog } from "@atif-spec/types/step-substep/v1.0";

const ok: Trajectory = {
  $schema: "https://atif-spec.org/schemas/atif/v1.8/trajectory.schema.json",
  schema_version: "ATIF-v1.8",
  agent: { name: "a", version: "1" },
  steps: [{ step_id: 1, source: "user", message: "hi" }],
  subagent_trajectories: [
    {
      schema_version: "ATIF-v1.7",
      trajectory_id: "sub-1",
      agent: { name: "b", version: "1" },
      steps: [{ step_id: 1, source: "agent", message: "done" }],
    },
  ],
};
const older: TrajectoryV17 = {
  schema_version: "ATIF-v1.7",
  agent: { name: "b", version: "1" },
  steps: [{ step_id: 1, source: "user", message: "hi" }],
};
const embedded = ok.subagent_trajectories?.[0];
const embeddedVersion: "ATIF-v1.7" | "ATIF-v1.8" | undefined = embedded?.schema_version;
const latest: Latest = ok;
const steps: number = ok.steps.length;

const badStepId: Trajectory = {
  schema_version: "ATIF-v1.8",
  agent: { name: "a", version: "1" },
  // @ts-expect-error step_id is a number
  steps: [{ step_id: "1", source: "user", message: "hi" }],
};
// @ts-expect-error the version constant of v1.8
const badVersion: Trajectory = { ...ok, schema_version: "ATIF-v1.6" };
const badField: Trajectory = {
  ...ok,
  // @ts-expect-error agent has no such field
  agent: { name: "a", version: "1", colour: "red" },
};
// @ts-expect-error a run log is not a trajectory
const crossed: RunLog = ok;

export { ok, older, latest, steps, embeddedVersion, badStepId, badVersion, badField, crossed };
"""

SETTINGS = {
    "nodenext": {"module": "nodenext", "moduleResolution": "nodenext"},
    "bundler": {"module": "esnext", "moduleResolution": "bundler"},
}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A consumer project with the packed tarball installed by path."""
    work = tmp_path_factory.mktemp("ts-consumer")
    packed = subprocess.run(
        ["npm", "pack", str(PACKAGE), "--pack-destination", str(work), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    tarball = work / json.loads(packed.stdout)[0]["filename"]
    project = work / "project"
    project.mkdir()
    (project / "package.json").write_text(
        json.dumps(
            {
                "name": "consumer",
                "private": True,
                "type": "module",
                "dependencies": {"@atif-spec/types": f"file:{tarball}"},
            }
        )
    )
    subprocess.run(
        ["npm", "install", "--offline", "--no-audit", "--no-fund"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    (project / "index.ts").write_text(CONSUMER, encoding="utf-8")
    guide = (ROOT / "docs/INTEGRATIONS.md").read_text(encoding="utf-8")
    recipe = re.search(r"<!-- recipe: typescript -->\n```ts\n(.*?)```", guide, re.DOTALL)
    assert recipe, "docs/INTEGRATIONS.md has no TypeScript recipe"
    (project / "recipe.ts").write_text(recipe.group(1), encoding="utf-8")
    return project


def test_tarball_holds_every_declaration_and_the_manifest(installed: Path) -> None:
    pkg = installed / "node_modules" / "@atif-spec" / "types"
    shipped = {p.relative_to(pkg).as_posix() for p in pkg.rglob("*.d.ts")}
    assert shipped == {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.d.ts")}
    manifest = json.loads((pkg / "package.json").read_text())
    for entry in manifest["exports"].values():
        target = entry["types"] if isinstance(entry, dict) else entry
        assert (pkg / target).is_file(), target


@pytest.mark.parametrize("mode", sorted(SETTINGS))
def test_consumer_compiles_strict_without_skip_lib_check(installed: Path, mode: str) -> None:
    options = {
        "strict": True,
        "noEmit": True,
        "target": "es2022",
        "skipLibCheck": False,
        "types": [],
        **SETTINGS[mode],
    }
    config = installed / f"tsconfig.{mode}.json"
    config.write_text(json.dumps({"compilerOptions": options, "files": ["index.ts", "recipe.ts"]}))
    done = subprocess.run(
        [str(TSC), "-p", str(config)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_declarations_use_no_any_and_no_duplicate_number() -> None:
    for path in PACKAGE.rglob("*.d.ts"):
        code = [
            ln for ln in path.read_text().splitlines() if not ln.lstrip().startswith(("*", "/"))
        ]
        text = "\n".join(code)
        assert not re.search(r"\bany\b", text), path
        assert "number | number" not in text, path
