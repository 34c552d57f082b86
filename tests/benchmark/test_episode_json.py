"""indented_json writes the same characters as json.dumps(indent=2, ensure_ascii=False, allow_nan=False);
plain_indented_json too, for plain JSON data only."""

from __future__ import annotations

import json
from collections import OrderedDict
from enum import IntEnum, StrEnum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmark.suites.simuhome.episode_json import NotPlainJSON, indented_json, plain_indented_json


def _standard(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)


class Level(IntEnum):
    LOW = 1


class Colour(StrEnum):
    RED = "red"


EDGE_CASES: list[Any] = [
    {},
    [],
    {"a": {}, "b": [], "c": [[]], "d": [{}], "e": ({"x": ()},)},
    {"ü→\u2028": 'tab\tquote"back\\slash\nnul\x00é😀'},
    {3: "int key", 2.5: "float key", True: "bool key", None: "null key", -0.0: "negative zero key"},
    {"floats": [0.1, -0.0, 1e16, 1e-7, 123456789.125, 2.5e300], "ints": [0, -1, 10**30, Level.LOW, True, False]},
    {"enum": Colour.RED, "nested": {"deep": {"deeper": [None, 1, "x", 2.0]}}},
    "top-level string",
    12,
    None,
]


@pytest.mark.parametrize("data", EDGE_CASES)
def test_edge_cases_match_json_dumps(data: Any):
    assert indented_json(data) == _standard(data)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5) | st.integers(), children, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_data_matches_json_dumps(data: Any):
    assert indented_json(data) == _standard(data)


@pytest.mark.parametrize("bad", [float("nan"), {"x": [float("inf")]}, {"x": -float("inf")}])
def test_out_of_range_floats_are_refused_like_json_dumps(bad: Any):
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        indented_json(bad)
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        _standard(bad)


@pytest.mark.parametrize("bad", [{"x": object()}, [{1, 2}], {(1, 2): "tuple key"}])
def test_data_json_cannot_hold_is_refused_with_a_type_error(bad: Any):
    with pytest.raises(TypeError):
        indented_json(bad)
    with pytest.raises(TypeError):
        _standard(bad)


# --- plain_indented_json: the same characters for plain JSON data, NotPlainJSON for anything else ------------------

plain_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(plain_json_values)
def test_plain_json_data_is_written_as_json_dumps_writes_it(data: Any):
    assert plain_indented_json(data) == _standard(data)


@pytest.mark.parametrize(
    "data",
    [{"a": {}, "b": [], "c": [[]], "d": [{}]}, {"s": 'q"\n\u2028é', "f": [0.1, -0.0, 1e16]}, [1, [2, [3]]], 7, "x", {}],
)
def test_plain_json_is_written_at_any_level(data: Any):
    nested = {"level": data}
    assert '{\n  "level": ' + plain_indented_json(data, "\n  ") + "\n}" == _standard(nested)


@pytest.mark.parametrize(
    "bad",
    [
        {3: "int key"},
        {"x": {None: 1}},
        {"x": [Level.LOW]},
        {"x": Colour.RED},
        {"x": (1, 2)},
        [{"y": OrderedDict(a=1)}],
        {"x": object()},
        Level.LOW,
    ],
)
def test_anything_but_plain_json_data_is_refused(bad: Any):
    with pytest.raises(NotPlainJSON):
        plain_indented_json(bad)


def test_non_finite_floats_are_refused_in_plain_data_too():
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        plain_indented_json({"x": [1.0, float("nan")]})
