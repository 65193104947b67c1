"""Lists in staged loops and branches: `pop` is staged, concatenation and tensor indices are
clear errors, never a silent wrong answer."""

from __future__ import annotations

import pytest

import autograph as ag
import runtime as rt


def _pop_sum(n):
    items = [1, 2, 3, 4]
    total = 0
    i = 0
    while i < n:
        total += items.pop()
        i += 1
    return total


@pytest.mark.parametrize("n", [0, 1, 2, 4])
def test_pop_in_a_staged_loop(n):
    compiled = rt.function(_pop_sum)
    assert _pop_sum(n) == ag.to_graph(_pop_sum)(n) == compiled(rt.constant(n)).numpy()


def test_pop_is_hoisted_only_when_that_keeps_the_meaning():
    def reads_the_list_too(items):
        return items[-1] + items.pop()

    def conditional(items, c):
        return items.pop() if c else 0

    code = ag.to_code(reads_the_list_too)
    assert "list_pop" not in code
    assert reads_the_list_too([1, 2, 3]) == ag.to_graph(reads_the_list_too)([1, 2, 3]) == 6
    assert "list_pop" not in ag.to_code(conditional)
    code = ag.to_code(_pop_sum)
    assert "items, items_item = ag__.list_pop(items)" in code and "total += items_item" in code


def test_popping_an_empty_staged_list_fails_when_the_graph_runs():
    with pytest.raises(IndexError):
        _pop_sum(5)
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.function(_pop_sum)(rt.constant(5))


@pytest.mark.parametrize("grow", ["concat", "iadd"])
def test_concatenation_in_a_staged_loop_is_a_clear_error(grow):
    def concat(n):
        s = [0.0]
        i = 0
        while i < n:
            s = s + [1.0]
            i += 1
        return rt.stack(s)

    def iadd(n):
        s = [0.0]
        i = 0
        while i < n:
            s += [1.0]
            i += 1
        return rt.stack(s)

    fn = {"concat": concat, "iadd": iadd}[grow]
    assert fn(2).numpy().tolist() == [0.0, 1.0, 1.0]
    with pytest.raises(ag.StagingError, match=r"'s' is a list whose length changes.*s.append\(x\)"):
        rt.function(fn)(rt.constant(2))


def test_tensor_index_into_a_python_list_is_a_clear_error():
    def f(n):
        items = [1, 2, 3, 4]
        total = 0
        i = 0
        while i < n:
            total += items[i]
            i += 1
        return total

    assert f(3) == 6
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="rt.gather"):
        rt.function(f)(rt.constant(3))


def _append_if_positive(x):
    out = [x]
    if x > 0:
        out.append(x * 2)
    return rt.stack(out)


@pytest.mark.parametrize("x", [-1.0, 3.0])
def test_append_in_an_untaken_branch_does_not_happen(x):
    expected = _append_if_positive(x).numpy().tolist()
    compiled = rt.function(_append_if_positive)
    assert compiled(rt.constant(x)).numpy().tolist() == expected
    assert ag.to_graph(_append_if_positive)(x).numpy().tolist() == expected


def _append_in_elif(a, x):
    out = []
    k = 0
    while k < a % 4:
        k += 1
        if a > 2:
            x = x + 1.0
        elif a > 0:
            out.append(x)
        else:
            x = x - 1.0
    if a > 1:
        x = x * 2.0
    elif a > -1:
        out.append(x)
    return x, len(out)


@pytest.mark.parametrize("a", [-1, 0, 1, 2, 3])
def test_append_in_a_nested_branch_stages_the_list_of_the_outer_one(a):
    expected = _append_in_elif(a, 1.0)
    compiled = rt.function(_append_in_elif)
    x, n = compiled(rt.constant(a), rt.constant(1.0))
    assert (float(x), int(n)) == expected == ag.to_graph(_append_in_elif)(a, 1.0)


def _append_before_a_nested_branch(a, x):
    out = []
    if a > 0:
        x = x + 1.0
    else:
        out.append(x)
        if a > -2:      # carries `out` (the `except` may append) but gives it back unchanged
            x = x * 2.0
        else:
            try:
                x = x - 1.0
            except ValueError:
                out.append(x)
    return x, len(out)


@pytest.mark.parametrize("a", [-3, -1, 1])
def test_append_before_a_nested_branch_that_gives_back_a_new_list(a):
    expected = _append_before_a_nested_branch(a, 1.0)
    x, n = rt.function(_append_before_a_nested_branch)(rt.constant(a), rt.constant(1.0))
    assert (float(x), int(n)) == expected


def test_other_length_changes_in_a_branch_are_clear_errors():
    def f(x):
        out = [x]
        if x > 0:
            out = out + [x]
        return rt.stack(out)

    assert f(1.0).numpy().tolist() == [1.0, 1.0]
    with pytest.raises(ag.StagingError, match="'out'.*list of 2 items.*list of 1 items"):
        rt.function(f)(rt.constant(1.0))


def test_branch_lists_do_not_leak_between_branches():
    def f(x):
        out = [x]
        if x > 0:
            out.append(x)
        else:
            out.append(-x)
        return rt.stack(out)

    for v in (-2.0, 2.0):
        assert rt.function(f)(rt.constant(v)).numpy().tolist() == f(v).numpy().tolist()


def test_a_staged_list_as_a_condition_is_true_when_not_empty():
    def f(a, x):
        items = []
        if a >= 3:
            items.append(1.0)
        return 1.0 if items else x, not items

    for a in (1, 4):
        expected = f(a, 2.5)
        value, empty = rt.function(f)(rt.constant(a), rt.constant(2.5))
        assert (float(value), bool(empty)) == expected


def _extend_in_loop(n):
    items = [1.0]
    i = 0
    while i < n:
        items.extend([2.0])
        i += 1
    return len(items)


def _conditional_pop_in_loop(n):
    items = [1, 2, 3, 4]
    total = 0
    i = 0
    while i < n:
        total += items.pop() if i < 10 else 0
        i += 1
    return total


def _extend_in_branch(x):
    items = [x]
    if x > 0:
        items.extend([x])
    return rt.stack(items)


def _reverse_in_loop(n):
    items = [1.0, 2.0, 3.0]
    i = 0
    while i < n:
        items.reverse()
        i += 1
    return items[0]


@pytest.mark.parametrize("fn, arg", [(_extend_in_loop, 3), (_conditional_pop_in_loop, 2),
                                     (_extend_in_branch, -1.0)])
def test_other_in_place_changes_are_errors_not_trace_time_effects(fn, arg):
    assert ag.to_graph(fn)(arg) is not None     # Python values: as written
    with pytest.raises(ag.StagingError, match="'items'"):
        rt.function(fn)(rt.constant(arg))


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_reversing_a_list_in_a_staged_loop(n):
    assert rt.function(_reverse_in_loop)(rt.constant(n)).numpy() == _reverse_in_loop(n)


def test_python_list_use_in_a_returning_branch_matches_python():
    # the returning branch does not make `items` an output of the `if`, so it stays a list
    def f(x):
        items = []
        if x > 10.0:
            return rt.stack(items + [x])
        items.append(x)
        return rt.stack(items)

    compiled = rt.function(f)
    for x in (2.5, 12.5):
        assert compiled(rt.constant(x)).numpy().tolist() == f(x).numpy().tolist()
