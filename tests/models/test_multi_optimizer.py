"""keras.optimizers.MultiOptimizer and OptimizerMap: a fit with SGD for one layer and Adam
(by a path pattern) for another gives Keras 3.15's losses and weights (recorded there with
the same data and initial weights); the map's lookups, config round trip and errors."""

import numpy as np
import pytest

import runtime as rt

k = rt.keras

# MultiOptimizer(OptimizerMap(SGD(0.01), {".*/b/.*": Adam(0.05)})), fit(epochs=2,
# batch_size=8, shuffle=False) of Dense(2, "a") -> Dense(1, "b"), ones kernels, in Keras 3.15
KERAS_LOSS = [12.404266357421875, 7.419241905212402]
KERAS_WEIGHTS = [[[0.831576943397522] * 2, [0.6769260168075562] * 2, [0.9081000089645386] * 2],
                 [-0.06951788067817688] * 2, [[0.6196683645248413], [0.6196683645248413]],
                 [-0.13675075769424438]]


def _model():
    return k.Sequential([k.Input((3,)), k.layers.Dense(2, kernel_initializer="ones", name="a"),
                         k.layers.Dense(1, kernel_initializer="ones", name="b")])


def test_fit_with_two_optimizers_is_keras():
    x = np.random.default_rng(0).normal(size=(32, 3)).astype("float32")
    y = x @ np.array([[1.0], [-2.0], [0.5]], "float32")
    model = _model()
    sgd, adam = k.optimizers.SGD(0.01), k.optimizers.Adam(0.05)
    opt = k.optimizers.MultiOptimizer(k.optimizers.OptimizerMap(sgd, {".*/b/.*": adam}))
    model.compile(opt, "mse")
    history = model.fit(x, y, epochs=2, batch_size=8, verbose=0, shuffle=False)
    np.testing.assert_allclose(history.history["loss"], KERAS_LOSS, rtol=1e-6)
    for got, want in zip(model.get_weights(), KERAS_WEIGHTS):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert int(opt.iterations.numpy()) == 8
    assert int(sgd.iterations.numpy()) == int(adam.iterations.numpy()) == 8
    assert opt.optimizers == [adam, sgd]


def test_map_lookup_config_and_errors():
    sgd, adam = k.optimizers.SGD(0.01), k.optimizers.Adam(0.05)
    mapping = k.optimizers.OptimizerMap(sgd, {"dense/kernel": adam})
    assert mapping["dense/kernel"] is adam and mapping["other/bias"] is sgd
    mapping["x/.*"] = k.optimizers.RMSprop()
    assert isinstance(mapping["x/y"], k.optimizers.RMSprop) and len(mapping) == 2
    with pytest.raises(ValueError, match="already exists"):
        mapping["x/.*"] = sgd
    with pytest.raises(ValueError, match="cannot be LossScaleOptimizer"):
        mapping["z"] = k.optimizers.LossScaleOptimizer(sgd)
    with pytest.raises(TypeError, match="default_optimizer"):
        k.optimizers.OptimizerMap("sgd")
    opt = k.optimizers.MultiOptimizer(mapping)
    config = opt.get_config()
    assert config["optimizer_map"]["class_name"] == "OptimizerMap"
    again = k.optimizers.MultiOptimizer.from_config(config)
    assert isinstance(again._optimizer_map["dense/kernel"], k.optimizers.Adam)
    with pytest.raises(AttributeError, match="sub-optimizers"):
        opt.learning_rate  # noqa: B018
    by_function = k.optimizers.MultiOptimizer(lambda var: adam)
    v = rt.Variable([1.0])
    by_function.apply([rt.constant([0.5])], [v])
    assert int(adam.iterations.numpy()) == 1
