"""keras.optimizers.LossScaleOptimizer (also keras.mixed_precision's): the variables, scale,
counter and step count after each step as Keras 3.15 (TensorFlow 2.21 backend) printed them
for the same gradients, its config, and fit with it (the loss scaled before differentiating,
the gradients unscaled: the same weights as the inner optimizer alone)."""

import numpy as np
import pytest

import runtime as rt

k = rt.keras

# LossScaleOptimizer(SGD(0.1), initial_scale=8.0, dynamic_growth_steps=2).apply([g], [v]):
# (v, dynamic_scale, step_counter, iterations) after each step, from Keras 3.15
GRADS = ([8.0, 16.0, -8.0], [np.inf, 1, 1], [4.0, 4.0, 4.0], [2.0, 0.0, 2.0], [1.0, 1.0, 1.0])
KERAS = [[[0.8999999761581421, -2.200000047683716, 3.0999999046325684], 8.0, 1, 1],
         [[0.8999999761581421, -2.200000047683716, 3.0999999046325684], 4.0, 0, 1],
         [[0.7999999523162842, -2.299999952316284, 3.0], 4.0, 1, 2],
         [[0.7499999403953552, -2.299999952316284, 2.950000047683716], 8.0, 0, 3],
         [[0.7374999523162842, -2.3125, 2.9375], 8.0, 1, 4]]


@pytest.mark.parametrize("staged", [False, True])
def test_dynamic_scale_steps_are_keras(staged):
    v = rt.Variable(np.array([1.0, -2.0, 3.0], "float32"))
    opt = k.optimizers.LossScaleOptimizer(k.optimizers.SGD(0.1), initial_scale=8.0,
                                          dynamic_growth_steps=2)
    step = rt.function(lambda g: opt.apply([g], [v])) if staged else \
        (lambda g: opt.apply([g], [v]))
    for g, (want_v, scale, counter, iterations) in zip(GRADS, KERAS):
        step(rt.constant(np.array(g, "float32")))
        np.testing.assert_allclose(v.numpy(), want_v, rtol=1e-6)
        assert float(opt.dynamic_scale.numpy()) == scale
        assert int(opt.step_counter.numpy()) == counter
        assert int(opt.iterations.numpy()) == iterations
    assert float(opt.scale_loss(2.0)) == 16.0


def test_config_round_trip_and_namespace():
    opt = k.optimizers.LossScaleOptimizer(k.optimizers.SGD(0.1), initial_scale=8.0,
                                          dynamic_growth_steps=2)
    config = opt.get_config()
    assert config["initial_scale"] == 8.0 and config["dynamic_growth_steps"] == 2
    assert config["inner_optimizer"]["class_name"] == "SGD"
    again = k.optimizers.LossScaleOptimizer.from_config(config)
    assert isinstance(again.inner_optimizer, k.optimizers.SGD)
    assert k.mixed_precision.LossScaleOptimizer is k.optimizers.LossScaleOptimizer
    with pytest.raises(ValueError, match="dynamic=False"):
        k.optimizers.LossScaleOptimizer(k.optimizers.SGD(), dynamic=False)
    with pytest.raises(ValueError, match="does not support `clipnorm`"):
        k.optimizers.LossScaleOptimizer(k.optimizers.SGD(), clipnorm=1.0)


def test_fit_with_loss_scaling_matches_the_inner_optimizer():
    x = np.random.default_rng(0).normal(size=(32, 3)).astype("float32")
    y = x @ np.array([[1.0], [-2.0], [0.5]], "float32")

    def trained(optimizer):
        rt.keras.utils.set_random_seed(1)
        model = k.Sequential([k.Input((3,)), k.layers.Dense(1)])
        model.compile(optimizer, "mse")
        model.fit(x, y, epochs=2, batch_size=8, verbose=0, shuffle=False)
        return model.get_weights()

    plain = trained(k.optimizers.SGD(0.05))
    scaled = trained(k.optimizers.LossScaleOptimizer(k.optimizers.SGD(0.05)))
    for a, b in zip(plain, scaled):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
