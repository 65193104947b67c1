"""keras.random.binomial: Keras 3's float32 counts of successes; the draws follow the binomial
law (mean n p, variance n p (1 - p)) and a seed repeats them."""

import numpy as np

import runtime as rt

keras = rt.keras


def test_binomial_draws():
    x = keras.random.binomial((20000,), counts=5, probabilities=0.3, seed=1)
    assert x.dtype == rt.float32  # as Keras 3
    values = x.numpy()
    assert set(np.unique(values)) <= set(range(6))
    assert abs(values.mean() - 1.5) < 0.05 and abs(values.var() - 1.05) < 0.06
    np.testing.assert_array_equal(keras.random.binomial((3,), 10.0, 0.5, seed=7),
                                  keras.random.binomial((3,), 10.0, 0.5, seed=7))
    sure = keras.random.binomial((2,), [2.0, 4.0], [0.0, 1.0], dtype="int32")
    assert sure.dtype == rt.int32 and sure.numpy().tolist() == [0, 4]
    generator = keras.random.SeedGenerator(3)
    a = keras.random.binomial((50,), 10.0, 0.5, seed=generator)
    b = keras.random.binomial((50,), 10.0, 0.5, seed=generator)
    assert not np.array_equal(a, b)  # the generator moves on
