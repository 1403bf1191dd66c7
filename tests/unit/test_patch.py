"""JSON Patch diff/apply: applying the diff of two states always gives the second."""

from __future__ import annotations

import json
from typing import Any

import pytest
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


# -- working copies: a long list's items shared until reached -----------------------------------


def long_list(n: int) -> list[Any]:
    return [{"n": i, "tags": [i]} for i in range(n)]


def test_a_working_copy_shares_a_long_lists_items_until_reached() -> None:
    original = {"page": {"checks": long_list(patch.SHARED_FROM), "date": "d"}, "short": [{"a": 1}]}
    kept = patch.copy_json(original)
    work = patch.working_copy(original)
    checks = work["page"]["checks"]
    assert isinstance(checks, patch.SharedItems)
    assert work["short"][0] is not original["short"][0]  # a short list is copied whole
    assert list.__getitem__(checks, 3) is original["page"]["checks"][3]
    checks[3]["n"] = -3  # reached by index: copied first
    checks[-1]["tags"].append("x")
    for item in checks[5:7]:
        item["n"] = 0
    next(iter(checks))["n"] = 99
    next(reversed(checks))["n"] = 98
    checks.pop(10)["n"] = 97
    (checks + [])[11]["n"] = 96  # noqa: RUF005  (concatenation is what is tried)
    ([] + checks)[12]["n"] = 95  # noqa: RUF005
    [*checks][14]["n"] = 93
    sorted(checks, key=lambda item: -item["n"])[0]["n"] = 92
    checks.copy()[13]["n"] = 94
    assert original == kept  # nothing reached the original
    assert checks[3]["n"] == -3 and checks[3] is checks[3]  # the copy stays in the list


def test_sorting_a_long_list_hands_the_key_copies() -> None:
    """``list.sort`` gives ``key`` the items as stored: a key that writes must not reach the
    original (a fresh working copy, none of its items reached before)."""
    original = {"checks": long_list(patch.SHARED_FROM)}
    kept = patch.copy_json(original)
    work = patch.working_copy(original)
    work["checks"].sort(key=lambda item: item.setdefault("seen", -item["n"]))
    assert original == kept
    assert [item["n"] for item in work["checks"]] == list(range(patch.SHARED_FROM))[::-1]
    assert all("seen" in item for item in work["checks"])


def test_items_the_command_added_are_never_copied_behind_its_back() -> None:
    work = patch.working_copy({"checks": long_list(patch.SHARED_FROM)})
    added = {"n": "new"}
    work["checks"].append(added)
    assert work["checks"][-1] is added
    added["n"] = "changed"
    assert work["checks"][-1]["n"] == "changed"


@pytest.mark.parametrize("size", [patch.SHARED_FROM, 10 * patch.SHARED_FROM])
def test_diff_of_a_working_copy_looks_only_at_what_it_reached(size: int) -> None:
    """A command on a long list touches only what it changes: the diff compares the items it
    reached and the items added, whatever the list's length (a long page)."""
    original = {"page": {"checks": long_list(size)}, "hero": {"hp": 5}}
    work = patch.working_copy(original)
    work["page"]["checks"][1]["n"] = "one"
    work["page"]["checks"].append({"n": "last"})
    work["hero"]["hp"] = 4
    compared: list[Any] = []
    real_same = patch.same

    def counting(before: Any, after: Any) -> bool:
        compared.append(after)
        return real_same(before, after)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(patch, "same", counting)
        ops = patch.diff(original, work)
    assert ops == [
        {"op": "replace", "path": "/page/checks/1/n", "value": "one"},
        {"op": "add", "path": f"/page/checks/{size}", "value": {"n": "last"}},
        {"op": "replace", "path": "/hero/hp", "value": 4},
    ]
    assert len(compared) <= 8  # the root, page, checks, item 1 and the hero: not the items


mutations = st.lists(
    st.tuples(
        st.sampled_from(["set", "append", "pop", "insert", "delete", "sort", "nested"]),
        st.integers(min_value=0, max_value=40),
        json_values,
    ),
    max_size=8,
)


def mutate(document: Any, steps: list[tuple[str, int, Any]]) -> None:
    """Apply the same changes to a document, through whatever list type it holds."""
    items = document["items"]
    for action, at, value in steps:
        index = at % len(items) if items else 0
        if action == "append":
            items.append(value)
        elif not items:
            continue
        elif action == "set":
            items[index] = value
        elif action == "pop":
            items.pop(index)
        elif action == "insert":
            items.insert(index, value)
        elif action == "delete":
            del items[index]
        elif action == "sort":
            items.sort(key=json.dumps)
        elif isinstance(item := items[index], dict):
            item["k"] = value
        elif isinstance(item, list):
            item.append(value)


@given(
    values=st.lists(json_values, min_size=patch.SHARED_FROM, max_size=patch.SHARED_FROM + 4),
    steps=mutations,
)
@settings(max_examples=300)
def test_a_working_copy_changes_and_diffs_as_a_deep_copy_does(
    values: list[Any], steps: list[tuple[str, int, Any]]
) -> None:
    original = {"items": values}
    kept = patch.copy_json(original)
    deep, work = patch.copy_json(original), patch.working_copy(original)
    mutate(deep, patch.copy_json(steps))
    mutate(work, patch.copy_json(steps))
    assert original == kept
    assert work == deep
    assert patch.diff(original, work) == patch.diff(original, deep)
    assert patch.apply(original, patch.diff(original, work)) == deep
