"""JSON Patch diff/apply: applying the diff of two states always gives the second."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.model import patch

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "c/d", "e~f", ""]), inner, max_size=4)
    ),
    max_leaves=15,
)


@given(before=json_values, after=json_values)
@settings(max_examples=400)
def test_apply_of_diff_gives_the_new_state(before: Any, after: Any) -> None:
    ops = patch.diff(before, after)
    assert patch.apply(before, ops) == after
    if json.dumps(before, sort_keys=True) == json.dumps(after, sort_keys=True):
        assert ops == []


def test_diff_names_only_what_changed() -> None:
    before = {"hero": {"credits": 3, "hp": 10}, "tags": ["a"]}
    after = {"hero": {"credits": -4, "hp": 10}, "tags": ["a", "b"]}
    assert patch.diff(before, after) == [
        {"op": "replace", "path": "/hero/credits", "value": -4},
        {"op": "add", "path": "/tags/1", "value": "b"},
    ]


def test_apply_does_not_touch_the_original() -> None:
    before = {"x": [1, 2]}
    patch.apply(before, [{"op": "remove", "path": "/x/0"}])
    assert before == {"x": [1, 2]}
