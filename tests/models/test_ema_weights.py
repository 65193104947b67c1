"""Optimizers' use_ema (exponential moving averages of the weights, overwritten into them
every ema_overwrite_frequency steps, finalized at the end of fit) and
keras.callbacks.SwapEMAWeights, against Keras 3.15's numbers on the TensorFlow backend
(recorded there with the same gradients, data and initial weights)."""

import numpy as np
import pytest

import runtime as rt

k = rt.keras

# SGD(0.1, use_ema=True, ema_momentum=0.8, ema_overwrite_frequency=3).apply([g_t], [v]),
# g_t = [0.5 (t + 1), -1]: (v, its average) after each step, from Keras 3.15
KERAS_STEPS = [
    [[0.949999988079071, -1.899999976158142], [0.949999988079071, -1.899999976158142]],
    [[0.8499999642372131, -1.7999999523162842], [0.9299999475479126, -1.8799998760223389]],
    [[0.8839999437332153, -1.8439998626708984], [0.8839999437332153, -1.8439998626708984]],
    [[0.6839999556541443, -1.7439998388290405], [0.843999981880188, -1.8239998817443848]],
    [[0.4339999556541443, -1.6439998149871826], [0.7619999647140503, -1.7879998683929443]],
]
# fit(epochs=2, batch_size=8, shuffle=False, validation_data=(x, y)) of Dense(1, ones) with
# SGD(0.05, use_ema=True, ema_momentum=0.5) and SwapEMAWeights(swap_on_epoch=True)
KERAS_FIT = {"loss": [5.32556676864624, 2.8753528594970703],
             "val_loss": [4.169469833374023, 2.3273372650146484]}
KERAS_FIT_WEIGHTS = [[[0.8311479091644287], [-0.16526919603347778], [0.8771255016326904]],
                     [-0.18326117098331451]]


@pytest.mark.parametrize("staged", [False, True])
def test_moving_averages_and_overwrites_are_keras(staged):
    v = rt.Variable(np.array([1.0, -2.0], "float32"))
    opt = k.optimizers.SGD(0.1, use_ema=True, ema_momentum=0.8, ema_overwrite_frequency=3)
    step = rt.function(lambda g: opt.apply([g], [v])) if staged else \
        (lambda g: opt.apply([g], [v]))
    for t, (want_v, want_average) in enumerate(KERAS_STEPS):
        step(rt.constant(np.array([0.5 * (t + 1), -1.0], "float32")))
        np.testing.assert_allclose(v.numpy(), want_v, rtol=1e-6)
        np.testing.assert_allclose(opt._average_of(v).numpy(), want_average, rtol=1e-6)
    config = opt.get_config()
    assert (config["use_ema"], config["ema_momentum"], config["ema_overwrite_frequency"]) == \
        (True, 0.8, 3)
    opt.finalize_variable_values([v])
    np.testing.assert_allclose(v.numpy(), KERAS_STEPS[-1][1], rtol=1e-6)


def test_fit_with_swap_ema_weights_is_keras():
    x = np.random.default_rng(0).normal(size=(32, 3)).astype("float32")
    y = x @ np.array([[1.0], [-2.0], [0.5]], "float32")
    model = k.Sequential([k.Input((3,)), k.layers.Dense(1, kernel_initializer="ones")])
    model.compile(k.optimizers.SGD(0.05, use_ema=True, ema_momentum=0.5), "mse")
    history = model.fit(x, y, epochs=2, batch_size=8, verbose=0, shuffle=False,
                        validation_data=(x, y),
                        callbacks=[k.callbacks.SwapEMAWeights(swap_on_epoch=True)])
    for key, values in KERAS_FIT.items():
        np.testing.assert_allclose(history.history[key], values, rtol=1e-5)
    for got, want in zip(model.get_weights(), KERAS_FIT_WEIGHTS):
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_errors():
    model = k.Sequential([k.Input((2,)), k.layers.Dense(1)])
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match="use_ema=True"):
        model.evaluate(np.zeros((2, 2)), np.zeros((2, 1)), verbose=0,
                       callbacks=[k.callbacks.SwapEMAWeights()])
    with pytest.raises(ValueError, match="ema_momentum"):
        k.optimizers.Adam(use_ema=True, ema_momentum=1.5)
    with pytest.raises(NotImplementedError, match="gradient_accumulation_steps"):
        k.optimizers.Adam(gradient_accumulation_steps=2)
