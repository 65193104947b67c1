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
