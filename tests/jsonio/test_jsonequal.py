"""Equality of JSON values (RFC.md §4.6): ``jsonio.jsonequal``."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from atif_spec.jsonio.jsonequal import difference, same_json, same_json_text
from atif_spec.jsonio.jsontext import canonical_json

text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=6)
BIG = st.integers(min_value=2**64, max_value=2**200) | st.integers(max_value=-(2**63) - 1)
values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | BIG
    | st.floats(allow_nan=False, allow_infinity=False)
    | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)
FEW_LEAVES = st.sampled_from([None, True, False, 0, 1, 1.0, 0.0, -0.0, 100, 100.0, 2**64, "1"])
few = st.recursive(
    FEW_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from("ab"), inner, max_size=2)
    ),
    max_leaves=4,
)
"""A small domain, so that two independent draws are often equal."""


def shuffled(value: Any, rng: random.Random) -> Any:
    """``value`` with the keys of every object in another order (arrays kept in order)."""
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {k: shuffled(value[k], rng) for k in keys}
    if isinstance(value, list):
        return [shuffled(v, rng) for v in value]
    return value


@given(values)
def test_every_value_equals_a_copy_of_itself(value: Any) -> None:
    assert same_json(value, copy.deepcopy(value))
    assert difference(value, value) is None


@given(values, st.randoms(use_true_random=False))
def test_key_order_is_not_data(value: Any, rng: random.Random) -> None:
    assert same_json(value, shuffled(value, rng))


@given(few, few)
def test_equal_exactly_when_the_canonical_forms_are(a: Any, b: Any) -> None:
    assert same_json(a, b) == (canonical_json(a) == canonical_json(b))


@given(values, values)
def test_equal_exactly_when_the_canonical_forms_are_on_any_values(a: Any, b: Any) -> None:
    assert same_json(a, b) == (canonical_json(a) == canonical_json(b))


@given(BIG)
def test_big_integers_are_exact(n: int) -> None:
    assert same_json([n], [n])
    assert not same_json([n], [n + 1]) and not same_json([n], [n - 1])
    assert not same_json(n, float(n))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (True, 1),
        (False, 0),
        (1, 1.0),
        (100, 1e2),
        (-0.0, 0.0),
        (None, {}),
        ([], {}),
        ("1", 1),
        ([1, 2], [2, 1]),
        ({"a": None}, {}),
        ({"a": 1}, {"a": 1, "b": 2}),
    ],
)
def test_what_python_equality_mixes_up_stays_apart(a: Any, b: Any) -> None:
    assert not same_json(a, b) and not same_json(b, a)


def test_spellings_of_one_number_of_one_kind_are_one_value() -> None:
    assert same_json_text(b'{"a": 1.50, "b": 1e2}', b'{"b":100.0,"a":1.5}')
    assert same_json_text(b"[1e2]", b"[1E2]")
    assert same_json_text('"\\u0041"', '"A"')
    assert not same_json_text(b"100", b"1E2")
    assert not same_json_text(b"[true]", b"[1]")
    assert same_json_text(b"123456789012345678901234567890", b"123456789012345678901234567890")
    assert not same_json_text(b"123456789012345678901234567890", b"123456789012345678901234567891")
    with pytest.raises(ValueError):
        same_json_text(b"{", b"{}")


def test_difference_names_the_place() -> None:
    assert difference({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}) is None
    assert difference({"a": [1, {"x": 1}]}, {"a": [1, {"x": 2}]}) == "/a/1/x: 1 became 2"
    assert difference({"a": 1}, {}) == "/a: dropped"
    assert difference({}, {"a/b": 1}) == "/a~1b: added"
    assert difference({"a": 1.0}, {"a": 1}) == "/a: 1.0 became 1"
    assert difference([1, 2], [1]) == "(root): 2 items became 1"
    assert difference(True, 1) == "(root): true became 1"


def test_only_parsed_json_is_compared() -> None:
    with pytest.raises(TypeError, match="tuple"):
        same_json((1,), (1,))
