"""Training: forward, backward and update in one compiled step; eager steps; `minimize`."""

import numpy as np
import pytest

import runtime as rt


def _regression_data(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    y = x @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.3 + 0.2 * np.sin(3 * x[:, :1])
    return x, y.astype(np.float32)


class Regressor(rt.Model):
    def __init__(self):
        super().__init__()
        self.hidden = rt.layers.Dense(16, activation="tanh")
        self.dropout = rt.layers.Dropout(0.1)
        self.out = rt.layers.Dense(1)

    def call(self, inputs, training=None):
        return self.out(self.dropout(self.hidden(inputs), training=training))


def test_a_compiled_train_step_with_adam_cuts_the_loss_by_5x_in_200_steps_with_one_trace():
    rt.random.set_seed(0)
    x, y = _regression_data()
    model = Regressor()
    optimizer = rt.optimizers.Adam(learning_rate=0.02)

    @rt.function
    def train_step(x, y):
        with rt.GradientTape() as tape:
            prediction = model(x, training=True)
            loss = rt.reduce_mean(rt.square(prediction - y))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss

    xt, yt = rt.constant(x), rt.constant(y)
    losses = [float(train_step(xt, yt)) for _ in range(200)]
    assert losses[-1] < losses[0] / 5, (losses[0], losses[-1])
    assert train_step.experimental_get_tracing_count() == 1
    assert len(model.trainable_variables) == 4
    assert int(optimizer.iterations.numpy()) == 200
    ops = [op.type for op in train_step.get_concrete_function(xt, yt).graph.operations]
    assert ops.count("AssignVariableOp") >= 4 * 3  # each weight, its m and its v
    inference = float(np.mean((np.asarray(model(x, training=False)) - y) ** 2))
    assert inference < losses[0] / 5


def test_an_eager_step_through_a_compiled_call_matches_a_compiled_step():
    x, y = _regression_data(16, seed=1)

    class Compiled(rt.Model):
        def __init__(self):
            super().__init__()
            self.hidden = rt.layers.Dense(8, activation="relu")
            self.out = rt.layers.Dense(1)

        @rt.function
        def call(self, inputs):
            return self.out(self.hidden(inputs))

    eager_model, compiled_model = Compiled(), Compiled()
    eager_model(x)
    compiled_model(x)
    compiled_model.set_weights(eager_model.get_weights())
    eager_opt = rt.optimizers.SGD(0.1, momentum=0.9)
    compiled_opt = rt.optimizers.SGD(0.1, momentum=0.9)

    def loss_of(model):
        return rt.reduce_mean(rt.square(model(x) - y))

    def step(model, opt):
        with rt.GradientTape() as tape:
            loss = loss_of(model)
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                model.trainable_variables))
        return loss

    compiled_step = rt.function(step)
    for _ in range(5):
        a = step(eager_model, eager_opt)
        b = compiled_step(compiled_model, compiled_opt)
        np.testing.assert_allclose(float(a), float(b), rtol=1e-5)
    for va, vb in zip(eager_model.variables, compiled_model.variables):
        np.testing.assert_allclose(va.numpy(), vb.numpy(), rtol=1e-5, atol=1e-6)


def test_minimize_with_a_loss_callable():
    var = rt.Variable([3.0, -2.0])
    optimizer = rt.optimizers.SGD(0.25)
    for _ in range(20):
        optimizer.minimize(lambda: rt.reduce_sum(rt.square(var)), [var])
    np.testing.assert_allclose(var.numpy(), [3.0 * 0.5 ** 20, -2.0 * 0.5 ** 20], atol=1e-6)


def test_minimize_with_a_tape():
    var = rt.Variable(2.0)
    optimizer = rt.optimizers.SGD(0.5)
    with rt.GradientTape() as tape:
        loss = var * var
    optimizer.minimize(loss, lambda: [var], tape=tape)
    assert float(var.numpy()) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="callable"):
        optimizer.minimize(loss, [var])


def test_variables_the_loss_does_not_reach_are_left_alone():
    model = rt.layers.Sequential([rt.layers.Dense(2), rt.layers.Dense(2)])
    x = rt.ones([1, 3])
    model(x)
    unused = rt.layers.Dense(1)
    unused(x)
    before = unused.get_weights()
    optimizer = rt.optimizers.Adam(0.1)
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(model(x))
    variables = model.trainable_variables + unused.trainable_variables
    gradients = tape.gradient(loss, variables)
    assert gradients[-1] is None and gradients[-2] is None
    optimizer.apply_gradients(zip(gradients, variables))
    for old, new in zip(before, unused.get_weights()):
        np.testing.assert_array_equal(old, new)
