"""indented_json writes the same characters as json.dumps(indent=2, ensure_ascii=False, allow_nan=False)."""

from __future__ import annotations

import json
from enum import IntEnum, StrEnum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmark.suites.simuhome.episode_json import indented_json


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
