"""Parquet dataset files: one document per row, in either of two layouts.

* **A document column** (``--column``, default ``trajectory``): each cell is one document, best
  as JSON text (``string`` or ``binary``); a struct, list or map cell is read as the value it
  holds (below).
* **Column per field**: no such column, but a ``steps`` column (the top-level member every format
  has). This is what Hugging Face ``datasets`` writes for JSON Lines of documents
  (``load_dataset("json", ...).to_parquet(...)``): each row is the document, its columns are
  the document's members (:data:`ROWS_NOTE`).

Arrow values become JSON by one rule, whichever the layout:

* JSON text stays as written: an ``arrow.json`` extension value (``datasets`` 5 stores nested
  objects of varying shape, and ``steps`` as a list of them, this way) is spliced in as its
  text, nulls and every digit kept;
* a null struct member is dropped, and so is a null cell of a row read as a document: Arrow
  keeps a slot for every field in every row, so a member a row did not have is a null there,
  and a null cannot be told from an absent member (the documents then lose an explicit null of
  an optional member, the one thing this layout cannot carry);
* list and map elements are kept as they are, nulls included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from atif_spec.datasets.engines.storage import pyarrow
from atif_spec.jsonio.jsontext import dumps
from atif_spec.validation.reader import RawDocument, UnreadablePath

BATCH_ROWS = 256
ROWS_MARKER = "steps"
"""The column that marks a column-per-field file (with no document column)."""
ROWS_NOTE = (
    "each row is read as one document whose members are the columns (column per field, as "
    "Hugging Face datasets writes; null cells and null struct members dropped)"
)
_JSON_EXTENSION = "arrow.json"
_EXTENSION_KEY = b"ARROW:extension:name"

Decoder = Callable[[Any], Any]
"""Turns one value of ``to_pylist()`` into its JSON value."""


def _is_json(field: Any) -> bool:
    """An ``arrow.json`` field: the extension type, or (a pyarrow that does not know it) its
    storage type with the extension's name in the field's metadata."""
    if getattr(field.type, "extension_name", None) == _JSON_EXTENSION:
        return True
    return bool(field.metadata and field.metadata.get(_EXTENSION_KEY) == _JSON_EXTENSION.encode())


def _scalar(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    isoformat = getattr(value, "isoformat", None)  # date, time, timestamp
    return isoformat() if isoformat is not None else str(value)


def decoder(field: Any) -> Decoder:
    """The decoder of a field's values (the rule of this module's docstring)."""
    types = pyarrow("types")
    kind = field.type
    if _is_json(field):
        return _json_text
    if types.is_struct(kind):
        return _struct([kind.field(i) for i in range(kind.num_fields)])
    if types.is_map(kind):
        item = decoder(kind.item_field)
        return lambda v: None if v is None else {str(k): item(x) for k, x in v}
    lists = ("is_list", "is_large_list", "is_fixed_size_list", "is_list_view", "is_large_list_view")
    if any(getattr(types, test, bool)(kind) for test in lists):
        element = decoder(kind.value_field)
        return lambda v: None if v is None else [element(x) for x in v]
    return _scalar


def _json_text(value: Any) -> Any:
    """JSON text spliced into the document as written (a fragment): every digit and null kept,
    and text that is not JSON is found where it stands when the document is parsed."""
    return None if value is None else orjson.Fragment(value)


def _struct(fields: list[Any]) -> Decoder:
    members = [(f.name, decoder(f)) for f in fields]

    def decode(value: Any) -> Any:
        if value is None:
            return None
        return {
            name: decode_member(value[name])
            for name, decode_member in members
            if value.get(name) is not None
        }

    return decode


def _text(value: Any) -> bytes:
    """A document cell holding text: its bytes (a null cell is an empty document)."""
    if value is None:
        return b""
    return value.encode() if isinstance(value, str) else bytes(value)


def cells(field: Any) -> Callable[[Any], bytes]:
    """The document bytes of one cell of a document column ``field``: JSON text as it is, any
    other value as the JSON of its decoded value (a number or boolean cell: not a document)."""
    storage = getattr(field.type, "storage_type", field.type)
    if _is_json(field) or str(storage) in ("string", "large_string", "binary", "large_binary"):
        return _text
    decode = decoder(field)
    return lambda v: b"" if v is None else dumps(decode(v))


def rows_are_documents(names: Iterable[str], column: str) -> bool:
    """Whether a file with columns ``names`` is column per field (see the module docstring)."""
    names = list(names)
    return column not in names and ROWS_MARKER in names


def read(
    parquet: Any, name: str, local: Path | None, max_bytes: int, column: str
) -> Iterator[RawDocument]:
    """The documents of an open ``pyarrow.parquet.ParquetFile``, one per row; raises
    :class:`UnreadablePath` for a file of neither layout."""
    schema = parquet.schema_arrow
    if rows_are_documents(schema.names, column):
        document = _struct(list(schema))
        batches = (b.to_pylist() for b in parquet.iter_batches(batch_size=BATCH_ROWS))
        encode: Callable[[Any], bytes] = lambda row: dumps(document(row))  # noqa: E731
    elif column in schema.names:
        encode = cells(schema.field(column))
        batches = (
            b.column(0).to_pylist()
            for b in parquet.iter_batches(batch_size=BATCH_ROWS, columns=[column])
        )
    else:
        raise UnreadablePath(
            f"{name}: no column {column!r} and no {ROWS_MARKER!r} column of a document read "
            f"from its columns (columns: {', '.join(schema.names)})"
        )
    row = 0
    for values in batches:
        for value in values:
            row += 1
            data = encode(value)
            if len(data) > max_bytes:
                yield RawDocument(name, b"", row, local, oversize=len(data))
            else:
                yield RawDocument(name, data, row, local)
