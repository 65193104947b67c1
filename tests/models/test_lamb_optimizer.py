"""keras.optimizers.Lamb against Keras 3.15 (TensorFlow 2.21 backend): the variables after
three steps, recorded there with the same gradients (weight_decay=0.01, learning_rate=0.1),
a NumPy computation of the rule, the config and slot names."""

import numpy as np
import pytest

import runtime as rt

k = rt.keras

# keras.optimizers.Lamb(learning_rate=0.1, weight_decay=0.01).apply_gradients three times
KERAS_STEPS = [
    [[[0.8104428648948669, -1.8094429969787598], [0.3109428882598877, 2.8084428310394287]],
     [-0.09999924153089523, 0.0, 0.09999928623437881]],
    [[[0.6372148394584656, -1.6352159976959229], [0.13821440935134888, 2.6332168579101562]],
     [-0.10988916456699371, 0.0, 0.10988921672105789]],
    [[[0.47836214303970337, -1.475365400314331], [-0.020139262080192566, 2.472368001937866]],
     [-0.12075720727443695, 0.0, 0.12075725942850113]],
]


def _grads(step):
    return (np.array([[0.3, -0.1], [0.2, 0.4]], "float32") * (step + 1),
            np.array([0.1, 0.0, -0.2], "float32"))


def test_lamb_steps_are_keras():
    v = rt.Variable(np.array([[1.0, -2.0], [0.5, 3.0]], "float32"))
    z = rt.Variable(np.zeros(3, "float32"))
    opt = k.optimizers.Lamb(learning_rate=0.1, weight_decay=0.01)
    for step, (want_v, want_z) in enumerate(KERAS_STEPS):
        g, gz = _grads(step)
        opt.apply_gradients([(g, v), (gz, z)])
        np.testing.assert_allclose(v.numpy(), want_v, rtol=2e-6, atol=1e-6)
        np.testing.assert_allclose(z.numpy(), want_z, rtol=2e-6, atol=1e-6)


def test_lamb_is_the_rule_in_numpy():
    w = np.array([0.5, -1.5, 2.0])
    var = rt.Variable(w.astype("float32"))
    opt = k.optimizers.Lamb(learning_rate=0.05, beta_1=0.8, beta_2=0.99, epsilon=1e-6)
    m = v = np.zeros(3)
    for t in range(1, 5):
        g = np.array([0.1, -0.3, 0.2]) * t
        opt.apply_gradients([(g.astype("float32"), var)])
        m = 0.8 * m + 0.2 * g
        v = 0.99 * v + 0.01 * g * g
        update = (m / (1 - 0.8 ** t)) / (np.sqrt(v / (1 - 0.99 ** t)) + 1e-6)
        w = w - 0.05 * np.linalg.norm(w) / np.linalg.norm(update) * update
        np.testing.assert_allclose(var.numpy(), w, rtol=1e-5)


def test_lamb_config_and_errors():
    config = k.optimizers.Lamb(learning_rate=0.1, weight_decay=0.01).get_config()
    assert {key: config[key] for key in ("beta_1", "beta_2", "epsilon", "weight_decay")} == {
        "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-07, "weight_decay": 0.01}
    assert config["name"].startswith("lamb")
    assert isinstance(k.optimizers.deserialize(k.optimizers.serialize(
        k.optimizers.Lamb())), k.optimizers.Lamb)
    with pytest.raises(TypeError):
        k.optimizers.Lamb(beta3=0.5)
