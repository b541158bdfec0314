"""Compiled validators of the packaged schemas."""

from __future__ import annotations

import pytest

from atif_spec.schemas.catalog import UnknownSchemaError, load_catalog
from atif_spec.schemas.compiled import document_validator, rs_validator


def test_the_document_validator_of_a_target_is_its_catalog_schemas() -> None:
    validator = document_validator("tao@v0.2.0")
    assert validator is rs_validator(load_catalog().find("tao@v0.2.0").id)
    assert document_validator("tao@v0.2.0") is validator
    assert not validator.is_valid({"schema_version": "0.2.0"})


def test_an_unknown_target_has_no_document_validator() -> None:
    with pytest.raises(UnknownSchemaError):
        document_validator("tao@v9.9.9")
