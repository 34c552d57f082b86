"""The one JSON bracket scanner (argument limits and the ReAct reply parser): strings are not structure."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tools.json_text import matching_brace, nesting_exceeds

# Strings full of what a naive scanner would take for structure: brackets, quotes, backslashes.
TRICKY = st.text(alphabet='{}[]"\\ab:,', max_size=8)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TRICKY, inner, max_size=3),
    max_leaves=20,
)


def depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_nesting_is_the_nesting_of_the_decoded_value(value: Any) -> None:
    text = json.dumps(value)
    assert not nesting_exceeds(text, depth(value))
    assert nesting_exceeds(text, depth(value) - 1) == (depth(value) > 0)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(TRICKY, VALUES, max_size=3), TRICKY)
def test_matching_brace_closes_the_object_whatever_its_strings_hold(value: dict[str, Any], after: str) -> None:
    text = json.dumps(value)
    prose = 'Thought: "{" first. '
    assert matching_brace(prose + text + after, len(prose)) == len(prose) + len(text) - 1


def test_an_object_never_closed_has_no_match() -> None:
    assert matching_brace('{"action": "finish", "action_input": {"answer": "}"', 0) is None
    assert nesting_exceeds("[" * 33 + "]" * 33, 32) and not nesting_exceeds('["[[[["]', 1)
