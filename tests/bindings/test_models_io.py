"""``load``: a document validated as ``atif_spec.validate`` does, as the model of its own version."""

from __future__ import annotations

import json
from pathlib import Path

import pydantic
import pytest

import atif_spec
from atif_spec.bindings import models_io
from atif_spec.models.atif import v1_5, v1_8
from tests.support import ROOT

SAMPLES = ROOT / "tests" / "bindings_samples"


def test_the_public_load_is_this_one() -> None:
    assert atif_spec.load is models_io.load
    assert atif_spec.InvalidDocumentError is models_io.InvalidDocumentError


def test_an_older_document_loads_into_the_model_of_its_own_version() -> None:
    path = SAMPLES / "atif" / "v1.5" / "rich.json"
    model = atif_spec.load(path)
    assert type(model) is v1_5.Trajectory
    with pytest.raises(pydantic.ValidationError, match=r"ATIF-v1\.8"):  # the v1.8 model refuses it
        v1_8.Trajectory.model_validate(json.loads(path.read_text(encoding="utf-8")))


def test_a_rule_beyond_the_schema_is_an_invalid_document_with_its_findings() -> None:
    doc = json.loads((SAMPLES / "atif" / "v1.5" / "minimal.json").read_text(encoding="utf-8"))
    doc["steps"].append(dict(doc["steps"][0]))  # step_id 1 twice: the schema allows it
    v1_5.Trajectory.model_validate(doc)
    with pytest.raises(atif_spec.InvalidDocumentError, match="ATIF101 at /steps/1/step_id") as e:
        atif_spec.load(doc)
    assert [f.code for f in e.value.report.errors] == ["ATIF101"]
    assert e.value.findings == e.value.report.findings


def test_text_that_is_not_json_is_an_invalid_document() -> None:
    with pytest.raises(atif_spec.InvalidDocumentError, match="<bytes>: input:invalid-json") as e:
        atif_spec.load(b'{"schema_version": ')
    assert e.value.report.format is None


def test_media_files_are_looked_up_only_when_asked(tmp_path: Path) -> None:
    source = SAMPLES / "atif" / "v1.8" / "rich.json"  # names images/shot.png, not beside it
    path = tmp_path / "rich.json"
    path.write_bytes(source.read_bytes())
    assert type(atif_spec.load(path)) is v1_8.Trajectory
    with pytest.raises(atif_spec.InvalidDocumentError, match="ATIF401"):
        atif_spec.load(str(path), check_files=True)


def test_warnings_do_not_stop_a_load() -> None:
    text = (SAMPLES / "atif" / "v1.5" / "minimal.json").read_bytes()
    assert atif_spec.validate(b"\xef\xbb\xbf" + text).warnings  # a byte order mark
    assert type(atif_spec.load(b"\xef\xbb\xbf" + text)) is v1_5.Trajectory
