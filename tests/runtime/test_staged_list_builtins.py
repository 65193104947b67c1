"""sum/max/min and indexing of a Python list appended to in a staged loop (autograph makes it a
TensorArray): the same values as Python's builtins on the list of items."""

import numpy as np
import pytest

import runtime as rt


def _items(n):
    return [float(i) * 2.0 - 3.0 for i in range(n)]


@pytest.mark.parametrize("jit", [False, True])
def test_sum_max_min_len_and_indexing(jit):
    @rt.function(jit_compile=jit)
    def f(n, k):
        lst = []
        for i in rt.range(n):
            lst.append(rt.cast(i, rt.float32) * 2.0 - 3.0)
        return sum(lst), max(lst), min(lst), len(lst), lst[1], lst[-1], lst[k], lst[-k]

    for n in (3, 5):
        items = _items(n)
        got = [float(v) for v in f(rt.constant(n), rt.constant(2))]
        assert got == [sum(items), max(items), min(items), n, items[1], items[-1], items[2],
                       items[-2]]


def test_sum_of_vector_items_and_a_start_value():
    @rt.function
    def f(x):
        rows = []
        for i in rt.range(rt.shape(x)[0]):
            rows.append(x[i] * 2.0)
        return sum(rows), sum(rows, 10.0), rows[0:2]

    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    total, started, head = f(x)
    items = [row * 2.0 for row in x]
    np.testing.assert_array_equal(total.numpy(), sum(items))
    np.testing.assert_array_equal(started.numpy(), sum(items, 10.0))
    np.testing.assert_array_equal(head.numpy(), np.stack(items[0:2]))


def test_gradients_flow_through_sum_and_indexing():
    @rt.function
    def f(x):
        lst = []
        for i in rt.range(3):
            lst.append(x * rt.cast(i + 1, rt.float32))
        return sum(lst) + lst[2] * lst[0]

    x = rt.constant(1.5)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    # y = 6x + 3x^2
    assert float(y) == 6 * 1.5 + 3 * 1.5 ** 2
    assert float(tape.gradient(y, x)) == pytest.approx(6 + 6 * 1.5)


def test_an_eager_tensor_array_indexes_too():
    ta = rt.TensorArray(rt.float32, size=3)
    for i in range(3):
        ta = ta.write(i, float(i) + 0.5)
    assert float(ta[0]) == 0.5
    assert float(ta[-1]) == 2.5
    np.testing.assert_array_equal(ta[1:].numpy(), [1.5, 2.5])
