"""keras.optimizers.ScheduleFreeAdamW against Keras 3.15 (TensorFlow 2.21 backend): the
variable after four steps, recorded there with the same gradients (learning_rate=0.1,
warmup_steps=2, weight_decay=0.01), the rule in NumPy, and the config."""

import numpy as np

import runtime as rt

k = rt.keras

KERAS_STEPS = [
    [[0.949999988079071, -1.9500000476837158], [0.44999998807907104, 2.950000047683716]],
    [[0.8862892389297485, -1.885789155960083], [0.38653913140296936, 2.885289192199707]],
    [[0.8185001611709595, -1.817500352859497], [0.31899985671043396, 2.816500663757324]],
    [[0.7479353547096252, -1.746436357498169], [0.24868476390838623, 2.7449371814727783]],
]


def test_steps_are_keras():
    v = rt.Variable(np.array([[1.0, -2.0], [0.5, 3.0]], "float32"))
    opt = k.optimizers.ScheduleFreeAdamW(learning_rate=0.1, warmup_steps=2, weight_decay=0.01)
    for step, want in enumerate(KERAS_STEPS):
        g = np.array([[0.3, -0.1], [0.2, 0.4]], "float32") * (step + 1)
        opt.apply([g], [v])
        np.testing.assert_allclose(v.numpy(), want, rtol=1e-5, atol=3e-6)  # float32 order
    config = opt.get_config()
    assert {key: config[key] for key in ("beta_1", "beta_2", "epsilon", "warmup_steps")} == {
        "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-08, "warmup_steps": 2}


def test_rule_in_numpy():
    y = np.array([0.5, -1.0])
    var = rt.Variable(y.astype("float32"))
    opt = k.optimizers.ScheduleFreeAdamW(learning_rate=0.05, beta_1=0.8, beta_2=0.99)
    z, v = y.copy(), np.zeros(2)
    for t in range(1, 5):
        g = np.array([0.2, -0.4]) * t
        opt.apply([g.astype("float32")], [var])
        v = v + (g * g - v) * 0.01
        z = z - 0.05 * g / (np.sqrt(v / (1 - 0.99 ** t)) + 1e-8)
        x = (y - 0.2 * z) / 0.8  # from the updated z, as Keras on TensorFlow
        x = (1 - 1 / t) * x + z / t
        y = 0.2 * z + 0.8 * x
        np.testing.assert_allclose(var.numpy(), y, rtol=1e-5)
