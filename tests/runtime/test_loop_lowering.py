"""Converted loops over `rt.range` index arithmetically and append rows without kernel calls;
results match the same loops in plain Python and NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt


def _rows(n, x):
    out = []
    for i in rt.range(n):
        out.append(x * rt.cast(i, rt.float32))
    return rt.stack(out)


def test_row_appending_loop_matches_numpy_and_skips_take():
    f = rt.function(_rows)
    xv = np.arange(3, dtype=np.float32)
    result = f(rt.constant(7), rt.constant(xv))
    np.testing.assert_array_equal(result.numpy(), np.stack([xv * i for i in range(7)]))
    source = f.get_concrete_function(rt.constant(7), rt.constant(xv)).generated_source
    assert "np.take" not in source and ".append(" in source


@pytest.mark.parametrize("start, stop, step", [(0, 5, 1), (2, 9, 3), (10, 1, -2), (4, 4, 1)])
def test_range_loops_visit_the_python_range(start, stop, step):
    def total(a, b, c):
        s = 0
        for i in rt.range(a, b, c):
            s = s * 2 + i
        return s
    expected = 0
    for i in range(start, stop, step):
        expected = expected * 2 + i
    f = rt.function(total)
    assert int(f(rt.constant(start), rt.constant(stop), rt.constant(step))) == expected


def test_range_with_constant_start_and_step():
    def total(n):
        s = 0.0
        for i in rt.range(3, n, 2):
            s += rt.cast(i, rt.float32) * 0.5
        return s
    f = rt.function(total)
    assert float(f(rt.constant(12))) == sum(i * 0.5 for i in range(3, 12, 2))


def test_scalar_integer_casts_match_astype():
    f = rt.function(lambda i: (rt.cast(i, rt.float32), rt.cast(i, rt.float64)), autograph=False)
    for v in (0, 7, -3, 2 ** 24 + 1):
        single, double = f(rt.constant(np.int32(v)))
        assert single.dtype == rt.float32 and double.dtype == rt.float64
        assert single.numpy() == np.int32(v).astype(np.float32)
        assert double.numpy() == np.float64(v)


def test_array_sizes_used_as_numbers_stay_int32():
    def sizes(n):
        out = []
        total = 0
        for i in rt.range(n):
            out.append(rt.cast(i, rt.float32))
            total += len(out)
        return rt.stack(out), total, len(out)
    f = rt.function(sizes)
    stacked, total, size = f(rt.constant(4))
    np.testing.assert_array_equal(stacked.numpy(), np.arange(4, dtype=np.float32))
    assert int(total) == 1 + 2 + 3 + 4 and int(size) == 4
    assert size.dtype == rt.int32 and total.dtype == rt.int32
