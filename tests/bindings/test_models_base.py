"""Generated bindings: round trips, strictness, determinism and the drift check."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pydantic
import pytest
import referencing
from pydantic_core import PydanticCustomError
from referencing.jsonschema import DRAFT202012

from atif_spec.bindings import models_io
from atif_spec.bindings.models_base import _schema_errors
from atif_spec.codegen import driver
from atif_spec.codegen.typescript_types import NodeError, find_node_modules
from tests.support import ROOT
from tests.support.documents import dispatch_only

SAMPLES = ROOT / "tests" / "bindings_samples"
DOCUMENTS = driver.documents(ROOT)
ATIF_VERSIONS = [d.version for d in DOCUMENTS if d.format == "atif"]


def as_model(doc: dict[str, Any], version: str = "v1.8") -> pydantic.BaseModel:
    """``doc`` through the ATIF ``version`` model alone (``models_io.load`` validates first)."""
    return models_io.model_class("atif", version).model_validate(doc)


def canonical(value: Any) -> str:
    """One spelling per JSON value (key order kept, so it matters)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _registry() -> referencing.Registry[Any]:
    resources = []
    for path in sorted((ROOT / "spec").rglob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        resources.append((schema["$id"], DRAFT202012.create_resource(schema)))
    return referencing.Registry().with_resources(resources)


REGISTRY = _registry()


def schema_validator(fmt: str, version: str) -> jsonschema.Draft202012Validator:
    doc = next(d for d in DOCUMENTS if d.format == fmt and d.version == version and d.primary)
    schema = json.loads((ROOT / "spec" / doc.path).read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema, registry=REGISTRY)


def valid_documents() -> list[tuple[str, str, Path]]:
    """Conformance fixtures (valid and warning) that have a model, then this suite's samples."""
    known = {(d.format, d.version) for d in DOCUMENTS}
    found: list[tuple[str, str, Path]] = []
    for folder in ("valid", "warning"):
        for path in sorted((ROOT / "conformance").glob(f"*/*/{folder}/*.json")):
            fmt, version = path.parts[-4], path.parts[-3]
            if (fmt, version) in known and not dispatch_only(path):
                found.append((fmt, version, path))
    for path in sorted(SAMPLES.glob("*/*/*.json")):
        found.append((path.parts[-3], path.parts[-2], path))
    return found


VALID = valid_documents()


@pytest.mark.parametrize(
    ("fmt", "version", "path"), VALID, ids=[p.relative_to(ROOT).as_posix() for *_, p in VALID]
)
def test_valid_document_round_trips_type_exactly(fmt: str, version: str, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    original = json.loads(text)
    model = models_io.load(text)
    assert type(model).__module__.endswith(f".{fmt.replace('-', '_')}.{version.replace('.', '_')}")
    dumped = models_io.dump(model)
    assert canonical(json.loads(dumped)) == canonical(original)
    assert not list(schema_validator(fmt, version).iter_errors(json.loads(dumped)))


def test_samples_cover_every_atif_version() -> None:
    assert sorted({v for f, v, _ in VALID if f == "atif"}) == sorted(ATIF_VERSIONS)


@pytest.mark.parametrize("source_kind", ["path", "str", "bytes", "dict"])
def test_load_accepts_paths_text_bytes_and_dicts(source_kind: str) -> None:
    path = SAMPLES / "atif" / "v1.8" / "rich.json"
    text = path.read_text(encoding="utf-8")
    source: Any = {
        "path": path,
        "str": text,
        "bytes": text.encode(),
        "dict": json.loads(text),
    }[source_kind]
    assert canonical(json.loads(models_io.dump(models_io.load(source)))) == canonical(
        json.loads(text)
    )


def test_numbers_nulls_and_key_order_survive() -> None:
    text = (
        '{"steps":[{"message":"m","source":"agent","step_id":1,"reasoning_effort":2.0,'
        '"metrics":{"cost_usd":1,"logprobs":[0,0.0,-1.5],"prompt_tokens":null}}],'
        '"agent":{"version":"1","name":"a","extra":{"x":1.0,"y":1,"z":true,"n":null}},'
        '"session_id":"s","schema_version":"ATIF-v1.6"}'
    )
    assert (
        models_io.dump(models_io.load(text), indent=None).replace(", ", ",").replace(": ", ":")
        == text
    )


def test_integral_floats_are_json_schema_integers_and_stay_floats() -> None:
    doc = json.loads((SAMPLES / "atif" / "v1.8" / "rich.json").read_text(encoding="utf-8"))
    doc["steps"][0]["step_id"] = 1.0
    doc["steps"][2]["metrics"]["prompt_token_ids"] = [1, 2.0, 3]
    assert not list(schema_validator("atif", "v1.8").iter_errors(doc))
    assert canonical(json.loads(models_io.dump(models_io.load(doc)))) == canonical(doc)
    for bad in ([1, 2.5], [1, "2"], [1, True]):
        doc["steps"][2]["metrics"]["prompt_token_ids"] = bad
        with pytest.raises(pydantic.ValidationError):
            as_model(doc)
        with pytest.raises(models_io.InvalidDocumentError):
            models_io.load(doc)


def test_fields_set_after_loading_are_written_too() -> None:
    model = models_io.load(SAMPLES / "atif" / "v1.7" / "minimal.json")
    model.notes = "added"  # type: ignore[attr-defined]
    assert json.loads(models_io.dump(model))["notes"] == "added"


def test_embedded_subagents_load_as_models_of_their_own_version() -> None:
    from atif_spec.models.atif import v1_7, v1_8

    model = models_io.load(SAMPLES / "atif" / "v1.8" / "rich.json")
    assert isinstance(model, v1_8.Trajectory)
    subs = list(model.subagent_trajectories or [])
    assert isinstance(subs[0], v1_7.Trajectory)
    assert isinstance(subs[1], v1_8.Trajectory)
    embedded = pydantic.TypeAdapter(v1_8.EmbeddedSubagent)  # a union type alias in v1.8
    assert isinstance(embedded.validate_python(model.model_dump()["subagent_trajectories"][0]),
                      v1_7.Trajectory)  # fmt: skip
    assert issubclass(v1_7.EmbeddedSubagent, v1_7.Trajectory)  # a subclass in v1.7


def test_root_and_nested_classes_keep_the_spec_names() -> None:
    from atif_spec.models.atif import v1_8

    for name in (
        "Trajectory", "Agent", "Step", "ToolCall", "Observation", "ObservationResult", "Metrics",
        "FinalMetrics", "SubagentTrajectoryRef", "ContentPart", "ImageSource", "AudioSource",
    ):  # fmt: skip
        assert isinstance(getattr(v1_8, name), type), name
    for helper in ("OnlyOnAgentSteps", "MustBeAbsentForText", "AbsentWithoutLlmCall"):
        assert not hasattr(v1_8, helper)
    assert "atif_spec.validate" in (v1_8.Step.__doc__ or "")


def test_unknown_version_is_a_clear_error() -> None:
    doc = json.loads((SAMPLES / "atif" / "v1.8" / "minimal.json").read_text(encoding="utf-8"))
    doc["schema_version"] = "ATIF-v9.9"
    with pytest.raises(models_io.InvalidDocumentError, match=r"ATIF-v9\.9.*known: ATIF-v1\.0"):
        models_io.load(doc)
    with pytest.raises(models_io.InvalidDocumentError, match=r"not a document of any known"):
        models_io.load({"hello": "world"})
    with pytest.raises(models_io.UnknownDocumentError, match=r"v9\.9"):
        models_io.model_class("atif", "v9.9")


Mutation = Callable[[dict[str, Any]], None]


def _set(path: tuple[Any, ...], value: Any) -> Mutation:
    def mutate(doc: dict[str, Any]) -> None:
        node: Any = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return mutate


def _drop(path: tuple[Any, ...]) -> Mutation:
    def mutate(doc: dict[str, Any]) -> None:
        node: Any = doc
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]

    return mutate


INVALID: dict[str, Mutation] = {
    "step_id as string": _set(("steps", 0, "step_id"), "1"),
    "step_id as boolean": _set(("steps", 0, "step_id"), True),
    "step_id with fraction": _set(("steps", 0, "step_id"), 1.5),
    "agent.version as number": _set(("agent", "version"), 1),
    "message as null": _set(("steps", 0, "message"), None),
    "prompt_tokens as string": _set(("steps", 2, "metrics", "prompt_tokens"), "10"),
    "cost_usd as string": _set(("steps", 2, "metrics", "cost_usd"), "0.5"),
    "cost_usd as boolean": _set(("steps", 2, "metrics", "cost_usd"), True),
    "arguments as JSON string": _set(("steps", 2, "tool_calls", 0, "arguments"), "{}"),
    "extra as list": _set(("extra",), []),
    "steps as object": _set(("steps",), {}),
    "missing agent": _drop(("agent",)),
    "missing steps": _drop(("steps",)),
    "missing agent.name": _drop(("agent", "name")),
    "missing step message": _drop(("steps", 1, "message")),
    "missing tool arguments": _drop(("steps", 2, "tool_calls", 0, "arguments")),
    "missing observation results": _drop(("steps", 2, "observation", "results")),
    "unknown root key": _set(("trajectory",), {}),
    "unknown agent key": _set(("agent", "temperature"), 0.5),
    "unknown step key": _set(("steps", 0, "role"), "system"),
    "unknown metrics key": _set(("steps", 2, "metrics", "reasoning_tokens"), 3),
    "unknown tool call key": _set(("steps", 2, "tool_calls", 0, "name"), "bash"),
    "unknown final metrics key": _set(("final_metrics", "total_reasoning_tokens"), 1),
    "source outside enum": _set(("steps", 0, "source"), "assistant"),
    "wrong schema_version constant": _set(("schema_version",), "ATIF-v1.0-rc"),
}


INVALID_CASES = [
    (version, case)
    for version in ATIF_VERSIONS
    for case in sorted(INVALID)
    if not (case == "extra as list" and version == "v1.0")  # v1.0 has no root extra
]


@pytest.mark.parametrize(("version", "case"), INVALID_CASES)
def test_invalid_document_is_rejected_by_model_and_schema(version: str, case: str) -> None:
    doc = json.loads((SAMPLES / "atif" / version / "rich.json").read_text(encoding="utf-8"))
    bad = copy.deepcopy(doc)
    INVALID[case](bad)
    assert list(schema_validator("atif", version).iter_errors(bad)), "mutation must be invalid"
    with pytest.raises(pydantic.ValidationError):
        as_model(bad, version)
    with pytest.raises(models_io.InvalidDocumentError) as caught:
        models_io.load(bad)
    assert caught.value.report.errors and caught.value.findings


def test_unknown_key_inside_embedded_subagent_is_rejected() -> None:
    doc = json.loads((SAMPLES / "atif" / "v1.8" / "rich.json").read_text(encoding="utf-8"))
    doc["subagent_trajectories"][0]["steps"][0]["bogus"] = 1
    with pytest.raises(pydantic.ValidationError):
        as_model(doc)


def _node_modules() -> Path | None:
    try:
        return find_node_modules(ROOT)
    except NodeError:
        return None


LANGUAGES = driver.LANGUAGES if _node_modules() and shutil.which("node") else ("python", "bundles")


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One generation from the repository's schemas (a ``generated/`` folder)."""
    out = tmp_path_factory.mktemp("fresh") / "generated"
    driver.generate_into(ROOT, out, LANGUAGES, _node_modules())
    return out


@pytest.mark.slow
def test_generated_files_name_their_schema_and_the_command(fresh: Path) -> None:
    """(That generation is deterministic is checked where it is repeated: in another process,
    at another hash seed, by test_committed_bindings_are_up_to_date; in this process, by
    test_check_names_changed_and_stale_files_and_generate_fixes_them, whose second generation
    of every language differs from ``fresh`` in the planted files only.)"""
    header = (fresh / "python" / "atif" / "v1_7.py").read_text(encoding="utf-8")
    assert "atif-spec.org/schemas/atif/v1.7/trajectory.schema.json" in header
    assert "spec/atif/v1.7/trajectory.schema.json" in header
    assert "nox -s generate" in header


@pytest.mark.slow
def test_committed_bindings_are_up_to_date(fresh: Path) -> None:
    assert driver.differences(fresh, ROOT / "generated", LANGUAGES) == []


@pytest.mark.slow
def test_check_names_changed_and_stale_files_and_generate_fixes_them(
    fresh: Path, tmp_path: Path
) -> None:
    """`check` generates every language again (in this process, after ``fresh``) and names
    exactly the planted changes: every other file comes out byte for byte the same."""
    root = tmp_path / "repo"
    shutil.copytree(ROOT / "spec", root / "spec")
    shutil.copytree(fresh, root / "generated")
    if (ROOT / "pyproject.toml").is_file():
        shutil.copyfile(ROOT / "pyproject.toml", root / "pyproject.toml")
    schema_path = root / "spec" / "atif" / "v1.7" / "trajectory.schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    schema["$defs"]["Agent"]["description"] = "A changed description."
    schema_path.write_text(json.dumps(schema, indent=2), encoding="utf-8")
    stale = root / "generated" / "python" / "atif" / "v0_9.py"
    stale.write_text("# left over\n", encoding="utf-8")
    expected = {"python/atif/v1_7.py", "python/atif/v0_9.py"}
    if "typescript" in LANGUAGES:
        expected.add("typescript/atif/v1.7/trajectory.d.ts")
    for kind in ("compound", "editor"):  # v1.7 itself and the bundles that embed it
        for path in ("atif/v1.7/", "atif/v1.8/", "atif/"):
            expected.add(f"bundles/{kind}/{path}trajectory.schema.json")
    assert set(driver.check(root, LANGUAGES, _node_modules())) == expected

    command = [sys.executable, "-m", "atif_spec.codegen", "check", "--root", str(root)]
    done = subprocess.run(
        [*command, "--only", "python"], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert done.returncode == 1
    assert "generated/python/atif/v1_7.py" in done.stdout
    assert "generated/python/atif/v0_9.py" in done.stdout
    assert "v1_6.py" not in done.stdout

    assert set(driver.generate(root, ("python",))) == {"python/atif/v1_7.py", "python/atif/v0_9.py"}
    assert not stale.exists()
    assert "A changed description." in (root / "generated/python/atif/v1_7.py").read_text()


@pytest.mark.parametrize("version", ["v1.0", "v1.8"])
def test_schema_url_round_trips_through_the_models(version: str) -> None:
    """The root `$schema` (a Python field with an alias) is read and written under its JSON name."""
    path = ROOT / "conformance" / "atif" / version / "valid" / "schema-url.json"
    model = models_io.load(path)
    assert models_io.to_json_value(model) == json.loads(path.read_text(encoding="utf-8"))
    assert next(iter(model.model_dump())) == "$schema"


# --- Verdicts, names and typing of the models -------------------------------------------------


def _model_accepts(fmt: str, version: str, doc: Any) -> bool:
    try:
        models_io.model_class(fmt, version).model_validate(doc)
    except pydantic.ValidationError:
        return False
    return True


def test_models_verdict_equals_the_schemas_on_every_fixture() -> None:
    """The model of a document accepts exactly what its canonical schema accepts, conditionals
    (``if``/``then``/``else``, ``not``, agent-only fields, content-part rules) included."""
    primary = {(d.format, d.version) for d in DOCUMENTS if d.primary}
    checked, rejected, wrong = 0, 0, []
    for path in sorted(ROOT.glob("conformance/*/*/*/*.json")):
        fmt, version = path.parts[-4], path.parts[-3]
        if (fmt, version) not in primary:
            continue
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue  # not JSON: no model verdict to compare
        checked += 1
        schema_ok = not list(schema_validator(fmt, version).iter_errors(doc))
        model_ok = _model_accepts(fmt, version, doc)
        rejected += not schema_ok
        if model_ok != schema_ok:
            rel = path.relative_to(ROOT).as_posix()
            wrong.append(f"{rel}: schema {schema_ok}, model {model_ok}")
    assert checked > 500
    assert rejected > 100  # the comparison covers many invalid documents, not only valid ones
    assert not wrong, "\n".join(wrong)


def test_class_names_come_from_the_schemas() -> None:
    """Every class a model module defines is named by the schema: no ``Agent1``, and no public
    name for a class of another model module (``v1_8.AtifV17Trajectory``, issue 35 item 12)."""
    import importlib

    from atif_spec.codegen import naming, unions

    for doc in DOCUMENTS:
        schema = unions.dispatch_unions(json.loads((ROOT / "spec" / doc.path).read_text()))
        allowed = {doc.root_class, *schema.get("$defs", {})}
        module = importlib.import_module(doc.module)
        defined = {
            name
            for name, value in vars(module).items()
            if getattr(value, "__module__", None) == module.__name__
            or type(value).__name__ == "TypeAliasType"
        }
        assert defined <= allowed, (doc.module, sorted(defined - allowed))
        borrowed = {
            name
            for name, value in vars(module).items()
            if not name.startswith("_")
            and isinstance(value, type)
            and value.__module__.startswith(f"{naming.MODELS_PACKAGE}.")
            and value.__module__ != module.__name__
        }
        assert not borrowed, (doc.module, sorted(borrowed))


def test_integers_are_ints_and_integral_floats_keep_their_spelling() -> None:
    from atif_spec.models.atif import v1_8

    step = v1_8.Step.model_validate({"step_id": 3.0, "source": "user", "message": "m"})
    assert isinstance(step.step_id, int) and step.step_id == 3 and step.step_id + 1 == 4
    assert step.model_dump(mode="json", exclude_unset=True)["step_id"] == 3.0
    assert json.dumps(step.model_dump(mode="json", exclude_unset=True)).count("3.0") == 1
    assert v1_8.Step(step_id=3, source="user", message="m").model_dump()["step_id"] == 3
    assert "int | float" not in v1_8.Step.model_fields["step_id"].annotation.__name__


def test_user_code_typed_against_the_models_passes_mypy_strict(tmp_path: Path) -> None:
    """tests/typing_samples/user_script.py: builds, reads and narrows models under --strict."""
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    if mypy is None:
        pytest.skip("mypy is not installed (the dev extra)")
    tree = tmp_path / "path" / "atif_spec"  # the installed layout: models inside atif_spec
    tree.mkdir(parents=True)
    for item in (ROOT / "tools" / "atif_spec").iterdir():
        (tree / item.name).symlink_to(item)
    (tree / "models").symlink_to(ROOT / "generated" / "python")
    script = ROOT / "tests" / "typing_samples" / "user_script.py"
    done = subprocess.run(
        [mypy, "--strict", "--cache-dir", str(tmp_path / "cache"), str(script)],
        capture_output=True, text=True, check=False,
        env={**os.environ, "MYPYPATH": str(tree.parent)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'Revealed type is "int"' in done.stdout  # step_id: int, not int | float
    assert 'Revealed type is "int | None"' in done.stdout
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_optional_fields_may_be_absent_but_not_null_where_the_schema_says_so() -> None:
    from atif_spec.models.trajectory_sdk import v0_4

    path = ROOT / "conformance" / "trajectory-sdk" / "v0.4" / "valid" / "chat-without-tools.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    validator = schema_validator("trajectory-sdk", "v0.4")
    doc["steps"][0].pop("trainable_status", None)
    assert not list(validator.iter_errors(doc))
    v0_4.Trajectory.model_validate(doc)  # absent: fine
    doc["steps"][0]["trainable_status"] = None
    assert list(validator.iter_errors(doc))
    with pytest.raises(pydantic.ValidationError, match="trainable_status may be left out"):
        v0_4.Trajectory.model_validate(doc)
    from atif_spec.models.atif import v1_8  # ATIF's optional fields admit null: no mark there

    v1_8.Agent.model_validate({"name": "a", "version": "1", "model_name": None})


@pytest.mark.parametrize("index", [0, 1])  # the v1.7 and the v1.8 subagent of the sample
def test_embedded_subagent_members_keep_their_targets_constraints(index: int) -> None:
    doc = json.loads((SAMPLES / "atif" / "v1.8" / "rich.json").read_text(encoding="utf-8"))
    doc["subagent_trajectories"][index]["trajectory_id"] = ""
    assert list(schema_validator("atif", "v1.8").iter_errors(doc))
    with pytest.raises(pydantic.ValidationError):
        as_model(doc)
    del doc["subagent_trajectories"][index]["trajectory_id"]
    with pytest.raises(pydantic.ValidationError):
        as_model(doc)


# --- The models check their schema definitions -------------------------------------------------


def _rich(version: str = "v1.8") -> dict[str, Any]:
    return json.loads((SAMPLES / "atif" / version / "rich.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("mutate", "loc", "message"),
    [
        (_set(("steps", 0, "metrics"), {"prompt_tokens": 1}), ("steps", 0, "metrics"),
         "only allowed on agent steps"),
        (_set(("steps", 1, "model_name"), "m"), ("steps", 1, "model_name"),
         "only allowed on agent steps"),
        (_set(("steps", 1, "message"), [{"type": "text", "text": "t",
                                         "source": {"media_type": "image/png", "path": "a.png"}}]),
         ("steps", 1, "message", 0, "source"), "must not carry a source"),
        (_set(("steps", 0, "timestamp"), "2025-10-11T10:30:00Z\n"), ("steps", 0, "timestamp"), ""),
    ],
)  # fmt: skip
def test_conditional_failures_are_validation_errors_at_the_value(
    mutate: Mutation, loc: tuple[Any, ...], message: str
) -> None:
    doc = _rich()
    mutate(doc)
    assert list(schema_validator("atif", "v1.8").iter_errors(doc))
    with pytest.raises(pydantic.ValidationError) as caught:
        as_model(doc)
    errors = caught.value.errors()
    assert [e["loc"] for e in errors] == [loc]
    assert message in errors[0]["msg"]
    with pytest.raises(pydantic.ValidationError):  # JSON text goes through the same check
        models_io.model_class("atif", "v1.8").model_validate_json(json.dumps(doc))


def test_nested_models_check_their_own_definition_when_validated_alone() -> None:
    from atif_spec.models.atif import v1_8

    v1_8.Step.model_validate({"step_id": 1, "source": "agent", "message": "m", "model_name": "x"})
    with pytest.raises(pydantic.ValidationError, match="only allowed on agent steps"):
        v1_8.Step.model_validate(
            {"step_id": 1, "source": "user", "message": "m", "model_name": "x"}
        )
    image = v1_8.ImageSource(media_type="image/png", path="a.png")
    assert v1_8.ContentPart(type="image", source=image).source == image
    with pytest.raises(pydantic.ValidationError, match="must not carry a source"):
        v1_8.ContentPart(type="text", text="t", source=image)


def test_models_built_from_instances_and_python_names_are_checked_as_documents() -> None:
    from atif_spec.models.atif import v1_8

    agent = v1_8.Agent(name="a", version="1")
    url = "https://atif-spec.org/schemas/atif/v1.8/trajectory.schema.json"
    built = v1_8.Trajectory(
        field_schema=url, schema_version="ATIF-v1.8", agent=agent,
        steps=[v1_8.Step(step_id=1, source="user", message="hi")],
    )  # fmt: skip
    assert models_io.to_json_value(built)["$schema"] == url
    unchecked = v1_8.Step.model_construct(step_id=1, source="user", message="hi", model_name="m")
    with pytest.raises(pydantic.ValidationError) as caught:
        v1_8.Trajectory(schema_version="ATIF-v1.8", agent=agent, steps=[unchecked])
    assert [e["loc"] for e in caught.value.errors()] == [("steps", 0, "model_name")]


def test_every_generated_class_is_bound_to_a_definition_of_its_schema() -> None:
    import importlib

    from atif_spec.bindings.models_base import StrictModel
    from atif_spec.schemas.catalog import node_at

    bound = 0
    for doc in DOCUMENTS:
        module = importlib.import_module(doc.module)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module.__name__:
                assert issubclass(value, StrictModel), value
                location = value.__dict__.get("json_schema_location")
                assert isinstance(location, str) and location.startswith(f"{doc.id}#"), value
                assert isinstance(node_at(location), dict)
                bound += 1
    assert bound > 100


def test_a_class_without_a_definition_is_a_generation_error() -> None:
    from atif_spec.codegen import schema_binding
    from atif_spec.codegen.prepare import BindingError

    doc = next(d for d in DOCUMENTS if d.format == "atif" and d.version == "v1.8")
    canonical = json.loads((ROOT / "spec" / doc.path).read_text(encoding="utf-8"))
    prepared = {"$defs": {"EmbeddedSubagent": {"discriminator": {"propertyName": "v"},
                                               "oneOf": [{"$ref": "#/$defs/EmbeddedSubagentX"}]}}}  # fmt: skip
    found = schema_binding.locations(
        doc, ["Trajectory", "Step", "EmbeddedSubagentX"], canonical, prepared
    )
    assert found == {
        "Trajectory": "#", "Step": "#/$defs/Step",
        "EmbeddedSubagentX": "#/$defs/EmbeddedSubagent",
    }  # fmt: skip
    with pytest.raises(BindingError, match="Inline1 stands for no definition"):
        schema_binding.locations(doc, ["Inline1"], canonical, prepared)


def test_schema_errors_of_a_deeply_nested_refused_value_are_line_errors() -> None:
    """The models' schema check reads findings through ``findings_of``: a refused value nested
    deeper than the engine describes is one ``input:too-deep`` line error, not a ``ValueError``
    (issue #36; through ``model_validate`` Pydantic's own depth limit answers first)."""
    deep: Any = []
    for _ in range(300):
        deep = [deep]
    doc = {"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"}, "steps": deep}
    location = "https://atif-spec.org/schemas/atif/v1.7/trajectory.schema.json#"
    [error] = _schema_errors(location, doc)
    assert error["loc"] == ("steps", 0)
    assert isinstance(error["type"], PydanticCustomError)
    assert error["type"].message().startswith("nested too deeply to check")
    assert error["type"].context == {"message": error["type"].message(), "code": "input:too-deep"}
