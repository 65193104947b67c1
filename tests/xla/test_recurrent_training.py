"""Recurrent training on the XLA tier: a traced RNN is one staged loop (its graph does not grow
with the steps), and its gradient compiles, compared with the NumPy tier."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

import runtime as rt  # noqa: E402
from runtime import keras  # noqa: E402


def _loops_and_ops(f, *args):
    graph = f.get_concrete_function(*args).graph
    ops = [op for op in graph.operations]
    return sum(op.opdef.is_loop for op in ops), len(ops)


def _lstm_step(steps: int, tier):
    keras.utils.set_random_seed(3)  # the same initial weights for every tier's model
    model = keras.Sequential([keras.layers.Embedding(50, 8), keras.layers.LSTM(6),
                              keras.layers.Dense(1)])
    model.build((None, steps))
    opt = keras.optimizers.SGD(0.1)
    loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)

    @rt.function(jit_compile=tier)
    def step(x, y):
        with rt.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return model, step


def test_a_traced_lstm_is_one_staged_loop_whatever_its_steps():
    counts = []
    for steps in (4, 12):
        x = np.zeros((3, steps), np.int32)
        y = np.zeros((3, 1), np.float32)
        _, step = _lstm_step(steps, False)
        loops, n = _loops_and_ops(step, x, y)
        assert loops >= 1
        counts.append(n)
    assert counts[0] == counts[1]


def test_unroll_true_writes_every_step_into_the_graph():
    layer = keras.layers.SimpleRNN(3, unroll=True)
    f = rt.function(lambda x: layer(x))
    loops, _ = _loops_and_ops(f, np.ones((2, 5, 4), np.float32))
    assert loops == 0


def test_lstm_training_steps_on_xla_match_the_numpy_tier():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 50, (4, 7)).astype(np.int32)
    y = rng.integers(0, 2, (4, 1)).astype(np.float32)
    m1, xla = _lstm_step(7, "xla")
    m2, ref = _lstm_step(7, False)
    for a, b in zip(m1.get_weights(), m2.get_weights()):
        np.testing.assert_array_equal(a, b)
    for _ in range(3):
        la, lb = xla(x, y), ref(x, y)
        np.testing.assert_allclose(la.numpy(), lb.numpy(), rtol=2e-5)
    for a, b in zip(m1.get_weights(), m2.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    # eagerly (Python steps) the layer gives the same outputs as traced (a staged loop)
    np.testing.assert_allclose(m1(x).numpy(), rt.function(m1)(x).numpy(), rtol=1e-5, atol=1e-6)


def test_a_loop_with_checked_reads_and_variables_compiles_with_its_gradient():
    # a gather (an index the kernel checks) in a loop that reads a variable: the loop
    # carries the validity code beside the variables' values
    w = rt.Variable(np.linspace(0.5, 1.5, 4).astype(np.float32))

    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            h = rt.zeros([4])
            for t in rt.range(5):
                h = rt.tanh(h * w + rt.gather(x, t))
            loss = rt.reduce_sum(h * h)
        gx, gw = tape.gradient(loss, [x, w])
        return loss, gx, gw
    x = np.linspace(-1.0, 1.0, 20).reshape(5, 4).astype(np.float32)
    a = rt.function(f, jit_compile="xla")(x)
    b = rt.function(f)(x)
    for p, q in zip(a, b):
        np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-5, atol=1e-6)
