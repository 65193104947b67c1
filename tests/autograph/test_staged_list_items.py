"""Items of a list that a staged loop grows, read and written with a tensor index: the
Python function run on plain values is the oracle for the converted one and for both tiers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph as ag
import runtime as rt


def fibonacci_flipping(n):
    items = [0, 1]
    for i in range(2, n):
        items.append(items[i - 1] + items[i - 2])
        items[i - 2] = -items[i - 2]
    return items


def halving_with_updates(n):
    items = [1.0, 2.0]
    for i in range(n):
        items.append(items[-1] * 0.5 + items[i])
        items[i] += 1.0
    return items


def while_reads_from_the_end(n):
    items = [3, 1, 4]
    total = 0
    i = 0
    while i < n:
        total += items[i % 3] * items[-1 - i % 3]
        items.append(total)
        i += 1
    return total, items


def reset_under_a_staged_if(n):
    items = [0]
    for i in range(1, n):
        items.append(i)
        if items[i - 1] > 2:
            items[i - 1] = 0
    return items


PROGRAMS = [fibonacci_flipping, halving_with_updates, while_reads_from_the_end,
            reset_under_a_staged_if]


def _as_arrays(value):
    if isinstance(value, tuple):
        return tuple(_as_arrays(v) for v in value)
    return np.asarray(value.numpy() if isinstance(value, rt.Tensor) else value)


def _assert_same(expected, got):
    expected, got = _as_arrays(expected), _as_arrays(got)
    if isinstance(expected, tuple):
        for e, g in zip(expected, got, strict=True):
            _assert_same(e, g)
        return
    np.testing.assert_allclose(got, expected)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda f: f.__name__)
def test_staged_reads_and_writes_match_python(program, jit):
    compiled = rt.function(program, jit_compile=jit)
    for n in (0, 2, 3, 7):
        expected = program(n)
        _assert_same(expected, ag.to_graph(program)(n))     # converted, plain values
        _assert_same(expected, compiled(rt.constant(n)))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 12))
def test_fibonacci_flipping_for_any_length(n):
    _assert_same(fibonacci_flipping(n), rt.function(fibonacci_flipping)(rt.constant(n)))


def test_converted_code_reads_and_writes_through_the_operators():
    code = ag.to_code(fibonacci_flipping)
    assert "ag__.get_item(items, i - 1)" in code
    assert "items = ag__.set_item(items, i - 2, -ag__.get_item(items, i - 2))" in code


def test_a_returned_staged_list_is_its_stacked_items():
    def count(n):
        items = []
        for i in rt.range(n):
            items.append(i * 2)
        return items

    out = rt.function(count)(rt.constant(4))
    np.testing.assert_array_equal(out.numpy(), [0, 2, 4, 6])


def test_an_index_past_the_end_fails_when_the_graph_runs():
    def past_the_end(n):
        items = [1, 2]
        for i in range(n):
            items.append(items[i + 5])
        return items

    with pytest.raises(IndexError):
        past_the_end(1)
    with pytest.raises((IndexError, ValueError)):
        rt.function(past_the_end)(rt.constant(1))


def test_lists_that_are_not_grown_keep_python_indexing():
    def lookup(i):
        table = [10, 20, 30]
        table[1] = 25
        return table[i]

    assert "get_item" not in ag.to_code(lookup)
    assert lookup(1) == ag.to_graph(lookup)(1) == 25


def test_subscripts_of_attributes_and_dicts_stay_python():
    class Holder:
        def __init__(self):
            self.items = [1, 2]

    def grow(h, d):
        h.items.append(3)
        d["k"] = h.items[2]
        return d

    assert ag.to_graph(grow)(Holder(), {}) == {"k": 3}
