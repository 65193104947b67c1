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
