"""rt.random.uniform draws in [minval, maxval): float32 rounding of a float64 draw never reaches
maxval. NumPy's float32 arithmetic is the oracle of the bounds."""

import numpy as np
import pytest

import runtime as rt


@pytest.mark.parametrize("dtype", [rt.float16, rt.float32, rt.float64])
@pytest.mark.parametrize("staged", [False, True], ids=["eager", "staged"])
def test_uniform_never_returns_maxval(dtype, staged):
    np_dtype = dtype.as_numpy_dtype
    lo = 1.0
    hi = float(np.nextafter(np.nextafter(np_dtype(1.0), np_dtype(2)), np_dtype(2)))  # 2 ulps up
    draw = (rt.function(lambda: rt.random.uniform([200_000], lo, hi, dtype=dtype)) if staged
            else (lambda: rt.random.uniform([200_000], lo, hi, dtype=dtype)))
    for _ in range(5):
        values = draw().numpy()
        assert values.dtype == np_dtype
        assert values.min() >= np_dtype(lo)
        assert values.max() < np_dtype(hi), values.max()


def test_uniform_unit_range_float32_stays_below_one():
    rt.random.set_seed(3)
    values = rt.random.uniform([2_000_000], 0.0, 1.0).numpy()
    assert values.max() < np.float32(1.0) and values.min() >= 0.0
    assert rt.random.uniform([], 0.0, 1.0).shape == rt.TensorShape([])


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("dtype", [rt.float32, rt.float64])
def test_uniform_with_tensor_bounds_never_returns_maxval(dtype, jit):
    np_dtype = dtype.as_numpy_dtype
    hi = np.nextafter(np_dtype(1.0), np_dtype(2))     # 1 ulp up: most draws round to a bound

    @rt.function(jit_compile=jit)
    def draw(lo, hi):
        return rt.random.uniform([100_000], lo, hi, dtype=dtype)

    values = draw(rt.constant(1.0, dtype), rt.constant(hi, dtype)).numpy()
    assert values.min() >= np_dtype(1.0) and values.max() < hi
    wide = draw(rt.constant(-2.0, dtype), rt.constant(3.0, dtype)).numpy()
    assert wide.min() >= -2.0 and wide.max() < 3.0 and abs(wide.mean() - 0.5) < 0.05


@pytest.mark.parametrize("jit", [None, False, True], ids=["eager", "numpy", "numba"])
def test_shuffle_permutes_rows(jit):
    x = np.arange(40, dtype=np.float32).reshape(20, 2)
    draw = (lambda v: rt.random.shuffle(v)) if jit is None else \
        rt.function(lambda v: rt.random.shuffle(v), jit_compile=jit)
    orders = []
    for _ in range(4):
        out = draw(rt.constant(x)).numpy()
        assert sorted(map(tuple, out)) == sorted(map(tuple, x))     # the same rows
        np.testing.assert_array_equal(out[:, 1] - out[:, 0], 1)     # rows kept whole
        orders.append(tuple(out[:, 0]))
    assert len(set(orders)) > 1                                     # a fresh order each run


def test_shuffle_is_reproducible_with_seeds():
    x = rt.range(10)
    rt.random.set_seed(4)
    first = [rt.random.shuffle(x, seed=1).numpy().tolist() for _ in range(2)]
    rt.random.set_seed(4)
    again = [rt.random.shuffle(x, seed=1).numpy().tolist() for _ in range(2)]
    assert first == again and first[0] != first[1]
    assert rt.random.shuffle(rt.constant(3.0)).numpy() == 3.0
