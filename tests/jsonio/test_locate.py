"""Where a JSON pointer's value is in the text: ``jsonio.locate``."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from atif_spec.jsonio.locate import BOM, MAX_DEPTH, line_column, line_columns, value_offsets
from atif_spec.jsonio.pointers import join

_keys = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=6)
_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _keys,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=25,
)
_space = st.text(alphabet=" \t\n\r", max_size=3)


class _Writer:
    """Serializes a JSON value with drawn whitespace and string escapes, noting the character
    offset at which each pointer's value starts."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.parts: list[str] = []
        self.size = 0
        self.starts: dict[str, int] = {}

    def put(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)

    def string(self, text: str) -> str:
        return json.dumps(text, ensure_ascii=self.draw(st.booleans()))

    def value(self, value: Any, ptr: str) -> None:
        self.put(self.draw(_space))
        self.starts[ptr] = self.size
        if isinstance(value, dict):
            self.members(value, ptr, "{", "}")
        elif isinstance(value, list):
            self.members(dict(enumerate(value)), ptr, "[", "]")
        else:
            self.put(self.string(value) if isinstance(value, str) else json.dumps(value))
        self.put(self.draw(_space))

    def members(self, items: dict[Any, Any], ptr: str, begin: str, end: str) -> None:
        self.put(begin)
        for n, (key, item) in enumerate(items.items()):
            if n:
                self.put(",")
            if begin == "{":
                self.put(self.draw(_space) + self.string(key) + self.draw(_space) + ":")
            self.value(item, join(ptr, key))
        self.put(self.draw(_space) + end)


@st.composite
def _documents(draw: st.DrawFn) -> tuple[Any, str, dict[str, int], bool]:
    value = draw(_values)
    writer = _Writer(draw)
    writer.value(value, "")
    return value, "".join(writer.parts), writer.starts, draw(st.booleans())


def _expected(text: str, at: int) -> tuple[int, int]:
    before = text[:at]
    return before.count("\n") + 1, at - (before.rfind("\n") + 1) + 1


@settings(max_examples=300, deadline=None)
@given(_documents())
def test_every_pointer_is_placed_at_its_values_first_character(
    drawn: tuple[Any, str, dict[str, int], bool],
) -> None:
    value, text, starts, with_bom = drawn
    data = (BOM if with_bom else b"") + text.encode()
    offsets = value_offsets(data, list(starts))
    places = line_columns(data, offsets.values())
    decoder = json.JSONDecoder()
    for ptr, at in starts.items():
        expected_offset = len(text[:at].encode()) + (len(BOM) if with_bom else 0)
        assert offsets[ptr] == expected_offset, ptr
        assert places[offsets[ptr]] == _expected(text, at), ptr
        parsed, _ = decoder.raw_decode(text, at)
        assert parsed == _resolve(value, ptr)


def _resolve(value: Any, ptr: str) -> Any:
    for token in ptr.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        value = value[int(token)] if isinstance(value, list) else value[token]
    return value


@settings(max_examples=150, deadline=None)
@given(_documents())
def test_a_missing_member_is_placed_at_its_nearest_existing_ancestor(
    drawn: tuple[Any, str, dict[str, int], bool],
) -> None:
    _, text, starts, _ = drawn
    data = text.encode()
    missing = {join(ptr, "\x00absent", "deeper"): ptr for ptr in starts}
    offsets = value_offsets(data, list(missing))
    for ptr, ancestor in missing.items():
        assert offsets[ptr] == len(text[: starts[ancestor]].encode())


def test_the_last_of_a_repeated_key_counts_as_for_the_parser() -> None:
    data = b'{"a": 1, "a": [2]}'
    assert value_offsets(data, ["/a", "/a/0"]) == {"/a": 14, "/a/0": 15}
    assert json.loads(data)["a"] == [2]


def test_escaped_keys_and_brackets_inside_strings() -> None:
    data = b'{"x": "]}\\"{[", "a\\u002fb": {"c~": [0, "]", 5]}}'
    offsets = value_offsets(data, ["/a~1b/c~0/2", "/x"])
    assert data[offsets["/a~1b/c~0/2"] :].startswith(b"5]")
    assert data[offsets["/x"] :].startswith(b'"]}')


def test_lines_end_at_lf_and_columns_count_code_points() -> None:
    data = 'ab\r\n"é😀x"\n\tz'.encode()
    assert line_column(data, data.index(b"x")) == (2, 4)
    assert line_column(data, data.index(b"z")) == (3, 2)
    assert line_column(BOM + b"{}", len(BOM)) == (1, 1)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.lists(st.sampled_from(["", "/0", "/a", "/a/0/b"])))
def test_malformed_text_never_raises(data: bytes, pointers: list[str]) -> None:
    offsets = value_offsets(data, pointers)
    assert all(0 <= at < len(data) for at in offsets.values())


def test_hostile_nesting_is_bounded() -> None:
    depth = 4 * MAX_DEPTH
    data = b"[" * depth + b"]" * depth
    offsets = value_offsets(data, ["/0" * depth, "/1"])
    assert offsets["/0" * depth] == MAX_DEPTH  # the deepest value the scan followed
    assert offsets["/1"] == 0  # no second item: the array itself
    assert value_offsets(b"{" * depth, ["/a"]) == {"/a": 0}


def test_a_valid_document_with_nothing_wanted_below_the_root_is_not_scanned() -> None:
    data = b" \n  {" + b'"a": 1, ' * 10 + b"broken"
    assert value_offsets(data, [""]) == {"": 4}
    assert value_offsets(b"   ", [""]) == {}
