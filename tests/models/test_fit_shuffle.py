"""fit(shuffle=True) draws its batch order from the global seed; batch sizes are checked."""

import numpy as np
import pytest

import runtime as rt


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-1.0], [2.0]], np.float32)).astype(np.float32)
    return x, y


def _fit(model, weights, seed, x, y):
    model.set_weights(weights)
    rt.random.set_seed(seed)
    return model.fit(x, y, epochs=3, batch_size=8, shuffle=True, verbose=0).history["loss"]


def test_the_global_seed_makes_shuffled_fits_identical():
    x, y = _data()
    rt.random.set_seed(0)
    model = rt.layers.Sequential([rt.layers.Dense(4, activation="relu"), rt.layers.Dense(1)])
    model.compile(rt.optimizers.SGD(0.05), "mse")
    model.predict(x[:1])  # builds the weights
    weights = [w.copy() for w in model.get_weights()]
    first = _fit(model, weights, 7, x, y)
    second = _fit(model, weights, 7, x, y)
    assert first == second
    other = _fit(model, weights, 8, x, y)
    assert other != first  # another seed, another batch order


@pytest.mark.parametrize("method", ["fit", "evaluate", "predict"])
@pytest.mark.parametrize("batch_size", [0, -3, 2.5])
def test_a_batch_size_that_is_not_positive_is_refused(method, batch_size):
    x, y = _data()
    model = rt.layers.Sequential([rt.layers.Dense(1)])
    model.compile(rt.optimizers.SGD(0.05), "mse")
    args = (x,) if method == "predict" else (x, y)
    with pytest.raises(ValueError, match="batch_size"):
        getattr(model, method)(*args, batch_size=batch_size)
