"""Parquet inputs: a document column, or one column per field as Hugging Face ``datasets``
writes (``load_dataset("json", ...).to_parquet(...)``), read a row per document."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from atif_spec import validate
from atif_spec.cli import main
from atif_spec.datasets.engines import parquet
from atif_spec.datasets.engines.sources import read_documents, rows_as_documents
from atif_spec.jsonio.jsontext import dumps
from atif_spec.validation.reader import UnreadablePath
from tests.support import ROOT

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pyarrow") is None, reason="pyarrow not installed (parquet extra)"
)

HF_FIXTURE = ROOT / "tests/support/hf-datasets-5.2.parquet"
"""What ``datasets`` 5.2.0 (pyarrow 26) writes for :data:`HF_SOURCES` as JSON Lines: made by
:func:`write_with_datasets`, kept so that the tests run without ``datasets``."""
HF_SOURCES = [
    "conformance/atif/v1.7/valid/minimal.json",
    "conformance/atif/v1.7/valid/null-optional-objects.json",  # "final_metrics": null
    "conformance/atif/v1.7/valid/rich.json",
    "conformance/atif/v1.7/valid/embedded-subagent.json",
    "conformance/atif/v1.7/valid/multimodal.json",
    "conformance/atif/v1.8/valid/schema-url-null.json",  # "$schema": null
]


def write_with_datasets(sources: list[Path], out: Path, cache: Path) -> None:
    """``sources`` as JSON Lines, loaded and written back by Hugging Face ``datasets``."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    datasets: Any = pytest.importorskip("datasets")
    lines = cache / "in.jsonl"
    lines.write_bytes(b"".join(p.read_bytes().replace(b"\n", b"") + b"\n" for p in sources))
    loaded = datasets.load_dataset(
        "json", data_files=str(lines), split="train", cache_dir=str(cache / "hf")
    )
    loaded.to_parquet(str(out))


def without_top_level_nulls(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if v is not None}


def documents(path: Path) -> list[Any]:
    return [orjson.loads(d.data) for d in read_documents(str(path))]


# --- what datasets writes -------------------------------------------------------------------


def test_datasets_parquet_rows_are_the_documents() -> None:
    """Was: ``no column 'trajectory'`` (exit 2). Every document comes back as it was written,
    less its top-level nulls (README: a null cell is dropped)."""
    originals = [orjson.loads((ROOT / s).read_bytes()) for s in HF_SOURCES]
    assert documents(HF_FIXTURE) == [without_top_level_nulls(d) for d in originals]
    assert "final_metrics" in originals[1] and "final_metrics" not in documents(HF_FIXTURE)[1]
    assert rows_as_documents([str(HF_FIXTURE)]) == [str(HF_FIXTURE)]


def test_the_fixture_is_what_datasets_writes(tmp_path: Path) -> None:
    out = tmp_path / "out.parquet"
    write_with_datasets([ROOT / s for s in HF_SOURCES], out, tmp_path)
    assert documents(out) == documents(HF_FIXTURE)


def test_validate_reads_datasets_parquet_and_says_so() -> None:
    result = CliRunner().invoke(main, ["validate", str(HF_FIXTURE)])
    assert result.exit_code == 0, result.output
    assert "6 document(s): 6 valid" in result.stdout
    [note] = result.stderr.splitlines()
    assert note == (
        f"atif: note: {HF_FIXTURE}: no 'trajectory' column: each row is read as one document "
        "whose members are the columns (column per field, as Hugging Face datasets writes; "
        "null cells and null struct members dropped)"
    )


# --- the decoding rule, on tables built here --------------------------------------------------


def write(table: Any, path: Path) -> str:
    import pyarrow.parquet as pq

    pq.write_table(table, path)
    return str(path)


def json_type() -> Any:
    import pyarrow as pa

    if not hasattr(pa, "json_"):
        pytest.skip("this pyarrow has no arrow.json extension type")
    return pa.json_()


def json_array(texts: list[str | None]) -> Any:
    """An ``arrow.json`` array of JSON texts."""
    import pyarrow as pa

    return pa.ExtensionArray.from_storage(json_type(), pa.array(texts, pa.string()))


def json_lists(lists: list[list[str]]) -> Any:
    """A ``list<arrow.json>`` array (how ``datasets`` stores ``steps``)."""
    import pyarrow as pa

    offsets = [0]
    for texts in lists:
        offsets.append(offsets[-1] + len(texts))
    return pa.ListArray.from_arrays(offsets, json_array([t for ts in lists for t in ts]))


def test_json_text_is_kept_and_arrow_slots_drop_their_nulls(tmp_path: Path) -> None:
    import pyarrow as pa

    step = '{"step_id":1,"source":"agent","message":"hi","extra":{"k":null,"n":123456789012345678901234567890}}'
    metrics = pa.struct([("total_steps", pa.int64()), ("total_cost_usd", pa.float64())])
    table = pa.table(
        {
            "schema_version": ["ATIF-v1.7", "ATIF-v1.7"],
            "session_id": ["s1", None],
            "agent": json_array(['{"name":"a","version":"1","model_name":null}', None]),
            "steps": json_lists([[step], ['{"step_id": 1, oops']]),
            "final_metrics": pa.array([{"total_steps": 1, "total_cost_usd": None}, None], metrics),
            "tags": pa.array([["a", None], None], pa.list_(pa.string())),
        }
    )
    first, second = read_documents(write(table, tmp_path / "t.parquet"))
    assert first.data == (
        b'{"schema_version":"ATIF-v1.7","session_id":"s1",'
        b'"agent":{"name":"a","version":"1","model_name":null},'
        b'"steps":[' + step.encode() + b'],"final_metrics":{"total_steps":1},"tags":["a",null]}'
    )
    assert (first.line, second.line) == (1, 2)
    # JSON text that is not JSON is found where it stands, not a traceback
    assert second.data == b'{"schema_version":"ATIF-v1.7","steps":[{"step_id": 1, oops]}'
    assert [f.code for f in validate(second.data).findings] == ["input:invalid-json"]


def test_a_document_column_wins_over_column_per_field(tmp_path: Path) -> None:
    import pyarrow as pa

    doc = '{"schema_version":"ATIF-v1.7"}'
    path = write(pa.table({"trajectory": [doc], "steps": [1]}), tmp_path / "t.parquet")
    assert [d.data for d in read_documents(path)] == [doc.encode()]
    assert rows_as_documents([path]) == []
    # told another column, the row is the document: a string column is a string member
    assert [d.data for d in read_documents(path, column="other")] == [
        b'{"trajectory":' + dumps(doc) + b',"steps":1}'
    ]


def test_a_struct_document_column_drops_struct_nulls_only(tmp_path: Path) -> None:
    import pyarrow as pa

    cells = pa.StructArray.from_arrays(
        [
            pa.array([None, None], pa.int64()),
            json_array(['{"x":null}', None]),
            pa.array([[1, None], None], pa.list_(pa.int64())),
        ],
        names=["a", "b", "c"],
        mask=pa.array([False, True]),
    )
    path = write(pa.table({"trajectory": cells}), tmp_path / "t.parquet")
    assert [d.data for d in read_documents(path)] == [b'{"b":{"x":null},"c":[1,null]}', b""]


def test_json_named_in_field_metadata_is_json_text() -> None:
    """A pyarrow without the arrow.json type reads the column as its storage (a string) with
    the extension's name in the field's metadata."""
    import pyarrow as pa

    field = pa.field("agent", pa.string(), metadata={b"ARROW:extension:name": b"arrow.json"})
    assert dumps(parquet.decoder(field)('{"name":null}')) == b'{"name":null}'
    assert parquet.decoder(pa.field("agent", pa.string()))('{"name":null}') == '{"name":null}'


def test_a_file_of_neither_layout_is_one_line(tmp_path: Path) -> None:
    import pyarrow as pa

    path = write(pa.table({"prompt": ["p"], "response": ["r"]}), tmp_path / "t.parquet")
    with pytest.raises(UnreadablePath, match="no column 'trajectory' and no 'steps' column"):
        list(read_documents(path))


def test_a_corrupt_parquet_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """Was: a pyarrow traceback (ArrowInvalid)."""
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet\n")
    result = CliRunner().invoke(main, ["validate", str(bad)])
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"atif: cannot read {bad}: Parquet magic bytes not found")
