"""The TypeScript declarations accept every valid document and reject a mistyped one."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from tests.support import ROOT

TSC = ROOT / "node_modules" / ".bin" / "tsc"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not TSC.is_file(),
    reason="node or the pinned typescript package is missing (run `npm ci`)",
)


def _write_checks() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "write_checks", ROOT / "tests" / "typescript" / "write_checks.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tsc(folder: Path, files: list[str]) -> subprocess.CompletedProcess[str]:
    config = json.loads((ROOT / "tests" / "typescript" / "tsconfig.json").read_text())
    config["files"] = files
    (folder / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return subprocess.run(
        [str(TSC), "-p", str(folder)], capture_output=True, text=True, check=False
    )


def test_every_valid_document_type_checks(tmp_path: Path) -> None:
    out = tmp_path / "checks.ts"
    text, count = _write_checks().render(ROOT, out)
    assert count >= 18  # at least the two samples of each ATIF version
    out.write_text(text, encoding="utf-8")
    done = _tsc(tmp_path, ["checks.ts"])
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("field", "value"),
    [(("agent", "version"), 1), (("steps", 0, "step_id"), "1"), (("agent", "nickname"), "x")],
)
def test_a_mistyped_document_does_not_type_check(
    tmp_path: Path, field: tuple[str | int, ...], value: object
) -> None:
    doc = json.loads((ROOT / "tests/bindings_samples/atif/v1.7/rich.json").read_text())
    node = doc
    for key in field[:-1]:
        node = node[key]
    node[field[-1]] = value
    target = ROOT / "generated/typescript/atif/v1.7/trajectory"
    (tmp_path / "bad.ts").write_text(
        f'import type {{ Trajectory }} from "{target.as_posix()}";\n'
        f"export const bad: Trajectory = {json.dumps(doc)};\n",
        encoding="utf-8",
    )
    done = _tsc(tmp_path, ["bad.ts"])
    assert done.returncode != 0
    assert "error TS" in done.stdout


# --- The npm package (generated/typescript) as a consumer installs it ------------------------

PACKAGE = ROOT / "generated" / "typescript"
DECLARATIONS = sorted(PACKAGE.rglob("*.d.ts"))

RESOLUTIONS = {
    "nodenext": {"module": "nodenext", "moduleResolution": "nodenext"},
    "bundler": {"module": "esnext", "moduleResolution": "bundler"},
}

WRONG_SHAPES = """\
import type {
  ContentPart, EmbeddedSubagent, Step, Trajectory,
} from "@atif-spec/types/atif/v1.8";
import type { AtifV17 } from "@atif-spec/types";

const agent = { name: "a", version: "1" };
const steps: [Step] = [{ step_id: 1, source: "user", message: "hi" }];

// Discriminated unions narrow: an image part has a source, a v1.7 subagent is a v1.7 trajectory.
export function describe(part: ContentPart): string {
  return part.type === "text" ? part.text : part.source.path;
}
export function older(sub: EmbeddedSubagent): AtifV17.Trajectory | null {
  return sub.schema_version === "ATIF-v1.7" ? sub : null;
}

// @ts-expect-error a text part carries no source
export const textWithSource: ContentPart = { type: "text", text: "t", source: { media_type: "image/png", path: "a.png" } };
// @ts-expect-error an image part needs its source
export const imageWithoutSource: ContentPart = { type: "image" };
// @ts-expect-error an embedded subagent needs a trajectory_id
export const noId: EmbeddedSubagent = { schema_version: "ATIF-v1.8", agent, steps };
// @ts-expect-error subagents older than v1.7 cannot be embedded
export const tooOld: EmbeddedSubagent = { schema_version: "ATIF-v1.6", trajectory_id: "s", agent, steps };
// @ts-expect-error step ids are numbers
export const stringId: Step = { step_id: "1", source: "user", message: "hi" };
// @ts-expect-error unknown keys are refused on closed objects
export const unknownKey: Trajectory = { schema_version: "ATIF-v1.8", agent, steps, nickname: "x" };

export function extraIsUnknown(doc: Trajectory): void {
  // @ts-expect-error free-form values are unknown, not any
  const n: number = doc.extra!["k"];
  void n;
}
"""


@pytest.fixture(scope="module")
def consumer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with the packed tarball of generated/typescript installed by path (offline)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is missing")
    work = tmp_path_factory.mktemp("npm")
    packed = subprocess.run(
        [npm, "pack", str(PACKAGE), "--pack-destination", str(work), "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    tarball = work / json.loads(packed.stdout)[0]["filename"]
    project = work / "consumer"
    project.mkdir()
    (project / "package.json").write_text(
        json.dumps({"name": "consumer", "private": True, "type": "module"}), encoding="utf-8"
    )
    subprocess.run(
        [npm, "install", "--offline", "--no-audit", "--no-fund", str(tarball)],
        cwd=project, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return project


def _compile(project: Path, resolution: str, files: list[str]) -> subprocess.CompletedProcess[str]:
    options = {
        "strict": True,
        "noEmit": True,
        "target": "es2022",
        "skipLibCheck": False,
        "types": [],
        **RESOLUTIONS[resolution],
    }
    config = {"compilerOptions": options, "files": files}
    (project / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return subprocess.run(
        [str(TSC), "-p", str(project)], capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("resolution", sorted(RESOLUTIONS))
def test_packed_package_compiles_every_valid_document(consumer: Path, resolution: str) -> None:
    name = json.loads((PACKAGE / "package.json").read_text())["name"]
    text, count = _write_checks().render(ROOT, consumer / "checks.ts", package=name)
    assert count >= 18
    root = (
        'import type * as all from "@atif-spec/types";\n'
        'import type { Trajectory as Latest } from "@atif-spec/types";\n'
        'import type { Trajectory as Named } from "@atif-spec/types/atif/v1.8/trajectory";\n'
        "export const same: Latest = {} as all.AtifV18.Trajectory;\n"
        "export const named: Named = same;\n"
    )
    (consumer / "checks.ts").write_text(text + root, encoding="utf-8")
    done = _compile(consumer, resolution, ["checks.ts"])
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("resolution", sorted(RESOLUTIONS))
def test_wrong_shapes_fail_to_compile(consumer: Path, resolution: str) -> None:
    (consumer / "shapes.ts").write_text(WRONG_SHAPES, encoding="utf-8")
    done = _compile(consumer, resolution, ["shapes.ts"])
    assert done.returncode == 0, done.stdout + done.stderr  # every @ts-expect-error was used
    (consumer / "shapes.ts").write_text(WRONG_SHAPES.replace("// @ts-expect-error", "//"))
    done = _compile(consumer, resolution, ["shapes.ts"])
    assert done.stdout.count("error TS") >= WRONG_SHAPES.count("@ts-expect-error")


def test_every_declaration_is_exported_and_every_export_exists() -> None:
    manifest = json.loads((PACKAGE / "package.json").read_text())
    targets = {e["types"] for e in manifest["exports"].values() if isinstance(e, dict)}
    assert targets == {f"./{p.relative_to(PACKAGE).as_posix()}" for p in DECLARATIONS}
    assert manifest["types"] == "./index.d.ts"


def _code(path: Path) -> str:
    """Declaration text without its comments."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", path.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.parametrize("path", DECLARATIONS, ids=[p.name for p in DECLARATIONS])
def test_declarations_have_no_any_no_duplicate_members_and_extensions(path: Path) -> None:
    code = _code(path)
    assert not re.search(r"\bany\b", code)
    assert "number | number" not in code
    for spec in re.findall(r"""(?:from |import\()["'](\.[^"']*)["']""", code):
        assert spec.endswith(".js"), spec


def test_exported_names_come_from_the_schemas() -> None:
    """Every declared type is a definition, a root or a union member: no ``Timestamp1``."""
    from atif_spec.codegen import driver, unions

    for doc in driver.documents(ROOT):
        schema = json.loads((ROOT / "spec" / doc.path).read_text(encoding="utf-8"))
        schema = unions.case_unions(unions.dispatch_unions(schema))
        allowed = {doc.root_class, *schema.get("$defs", {})}
        code = _code(PACKAGE / doc.typescript_file)
        declared = set(re.findall(r"export (?:interface|type) (\w+)", code))
        assert declared <= allowed, (doc.typescript_file, sorted(declared - allowed))
