"""Gradients through calls of compiled functions and inside compiled train steps."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime.function import recorded_call


def test_a_call_is_recorded_as_one_op():
    @rt.function(autograph=False)
    def f(x):
        return rt.reduce_sum(rt.tanh(x) * rt.exp(x) + x)
    x = rt.constant([0.1, 0.2])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert len(tape._nodes) == 1
    t = np.tanh([0.1, 0.2])
    expected = (1 - t ** 2) * np.exp([0.1, 0.2]) + t * np.exp([0.1, 0.2]) + 1
    np.testing.assert_allclose(tape.gradient(y, x), expected, rtol=1e-6)


def test_the_backward_graph_is_built_once_per_concrete_function():
    @rt.function(autograph=False)
    def f(x):
        return x * x
    x = rt.constant([1.0, 2.0])
    grads = []
    for _ in range(3):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        grads.append(np.asarray(tape.gradient(y, x)))
    concrete = f.get_concrete_function(x)
    first = recorded_call.gradient_of(concrete)
    assert recorded_call.gradient_of(concrete) is first
    np.testing.assert_allclose(grads, [[2.0, 4.0]] * 3)
    assert f.experimental_get_tracing_count() == 1


def test_the_forward_saves_only_what_the_backward_reads():
    @rt.function(autograph=False)
    def f(x, y):
        a = rt.exp(x)          # needed: d(a*y)/dx = a*y
        b = rt.sin(a) + 1.0    # only the output depends on it
        return rt.reduce_sum(a * y) + rt.reduce_sum(b * 0.0)
    x, y = rt.constant([0.5]), rt.constant([2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        out = f(x, y)
    tape.gradient(out, x)
    grad = recorded_call.gradient_of(f.get_concrete_function(x, y))
    assert grad.n_saved <= 4
    saved_types = {t.op.type for t in grad.forward_compiled.graph.outputs[1:]}
    assert "Add" not in saved_types  # `b` is not saved


def test_plain_calls_keep_the_lean_forward():
    @rt.function(autograph=False)
    def f(x):
        return rt.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * y), (0, x))[1]
    x = rt.constant(1.1)
    before = f.get_concrete_function(x).generated_source
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x), 8 * 1.1 ** 7, rtol=1e-5)
    assert f.get_concrete_function(x).generated_source == before
    assert "append" not in before
    np.testing.assert_allclose(f(x), 1.1 ** 8, rtol=1e-5)


def test_variables_read_inside_a_compiled_function():
    w = rt.Variable([[1.0, 2.0], [3.0, 4.0]])
    b = rt.Variable([0.5, -0.5])

    @rt.function(autograph=False)
    def predict(x):
        return rt.nn.relu(rt.matmul(x, w) + b)
    x = rt.constant([[1.0, 1.0]])
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(predict(x))
    gw, gb = tape.gradient(loss, [w, b])
    np.testing.assert_allclose(gw, [[1.0, 1.0], [1.0, 1.0]])
    np.testing.assert_allclose(gb, [1.0, 1.0])


def test_several_outputs_with_unconnected_and_integer_ones():
    @rt.function(autograph=False)
    def f(x):
        return {"square": x * x, "cube": x * x * x, "count": rt.size(x)}
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = f(x)
    np.testing.assert_allclose(tape.gradient(out["square"], x), [2.0, 4.0])
    np.testing.assert_allclose(tape.gradient(out["cube"], x), [3.0, 12.0])
    np.testing.assert_allclose(tape.gradient([out["square"], out["cube"]], x), [5.0, 16.0])
    assert int(out["count"]) == 2


def test_a_call_under_a_tape_runs_its_updates_once():
    counter = rt.Variable(0.0, trainable=False)

    @rt.function(autograph=False)
    def f(x):
        counter.assign_add(1.0)
        return x * 2.0
    x = rt.constant(1.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert float(tape.gradient(y, x)) == 2.0
    assert float(counter.numpy()) == 1.0


def test_dropout_mask_is_shared_by_forward_and_backward():
    @rt.function(autograph=False)
    def f(x):
        return rt.nn.dropout(x, 0.5)
    x = rt.constant(np.ones(100))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_array_equal(np.asarray(tape.gradient(y, x)), np.asarray(y))


def test_nested_compiled_calls_inline_and_differentiate():
    @rt.function(autograph=False)
    def inner(x):
        return rt.sin(x)

    @rt.function(autograph=False)
    def outer(x):
        return inner(x) * inner(x * 2.0)
    x = rt.constant(0.3)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = outer(x)
    expected = np.cos(0.3) * np.sin(0.6) + 2 * np.sin(0.3) * np.cos(0.6)
    np.testing.assert_allclose(float(tape.gradient(y, x)), expected, rtol=1e-6)


def test_direct_concrete_function_calls_are_differentiable():
    @rt.function(autograph=False)
    def f(x):
        return x * x
    x = rt.constant(3.0)
    concrete = f.get_concrete_function(x)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = concrete(x)
    assert float(tape.gradient(y, x)) == 6.0


def test_unwatched_calls_are_not_recorded():
    @rt.function(autograph=False)
    def f(x):
        return x * x
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        f(x)
    assert not tape._nodes


def test_a_tape_inside_the_train_step_stages_a_lean_backward():
    rng = np.random.default_rng(0)
    w1 = rt.Variable(rng.standard_normal((8, 16)).astype(np.float32))
    b1 = rt.Variable(np.zeros(16, np.float32))
    w2 = rt.Variable(rng.standard_normal((16, 3)).astype(np.float32))

    @rt.function(autograph=False)
    def step(x, labels):
        with rt.GradientTape() as tape:
            h = rt.nn.relu(rt.matmul(x, w1) + b1)
            logits = rt.matmul(h, w2)
            loss = rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        grads = tape.gradient(loss, [w1, b1, w2])
        for g, v in zip(grads, [w1, b1, w2]):
            v.assign_sub(0.1 * g)
        return loss
    x = rt.constant(rng.standard_normal((4, 8)).astype(np.float32))
    labels = rt.constant(np.eye(3, dtype=np.float32)[[0, 1, 2, 0]])
    losses = [float(step(x, labels)) for _ in range(20)]
    assert losses[-1] < losses[0]
    source = step.get_concrete_function(x, labels).generated_source
    # three matmuls forward-and-backward for w1/w2 and h, none for the gradient of x
    assert source.count("@") == 2 + 3
    assert "zeros" not in source


@pytest.mark.parametrize("persistent", [False, True])
def test_tape_around_a_call_inside_a_traced_function(persistent):
    @rt.function(autograph=False)
    def inner(x):
        return x * x * 3.0

    @rt.function(autograph=False)
    def outer(x):
        with rt.GradientTape(persistent=persistent) as tape:
            tape.watch(x)
            y = inner(x)
        return tape.gradient(y, x)
    assert float(outer(rt.constant(2.0))) == 12.0


def test_unknown_batch_sizes_reduce_broadcast_gradients_at_run_time():
    from .fd import numeric_gradients
    spec = [rt.TensorSpec([None, 3], rt.float64), rt.TensorSpec([3], rt.float64)]

    def body(x, b):
        y = rt.reduce_mean(rt.nn.softmax(x * b + b) * x, axis=0)
        z = rt.reduce_max(rt.concat([x, x * 2.0], axis=0), axis=1)
        return (rt.reduce_sum(y) + rt.reduce_mean(z) + rt.reduce_sum(rt.reshape(x, [-1]) * 0.5)
                + rt.reduce_sum(rt.tile(b[None], [2, 1])))
    compiled = rt.function(body, input_signature=spec, autograph=False)

    @rt.function(input_signature=spec, autograph=False)
    def staged(x, b):
        with rt.GradientTape() as tape:
            tape.watch([x, b])
            y = body(x, b)
        return tape.gradient(y, [x, b])
    b0 = np.array([0.5, -0.3, 0.2])
    for rows in (1, 4):
        x0 = np.random.default_rng(rows).uniform(-1, 1, (rows, 3))
        expected = numeric_gradients(lambda a, c: float(body(rt.constant(a), rt.constant(c))), [x0, b0])
        xt, bt = rt.constant(x0), rt.constant(b0)
        with rt.GradientTape() as tape:
            tape.watch([xt, bt])
            y = compiled(xt, bt)
        for got, want in zip(tape.gradient(y, [xt, bt]), expected):
            np.testing.assert_allclose(got, want, rtol=1e-5)
        for got, want in zip(staged(xt, bt), expected):
            np.testing.assert_allclose(got, want, rtol=1e-5)
    assert staged.experimental_get_tracing_count() == 1


def test_the_forward_graph_keeps_its_ops_after_a_gradient():
    w = rt.Variable(np.ones((2, 2), np.float32))

    @rt.function(autograph=False)
    def f(x):
        return rt.reduce_mean(rt.nn.relu(rt.matmul(x, w)))
    x = rt.constant(np.ones((3, 2), np.float32))
    graph = f.get_concrete_function(x).graph
    before = [op.type for op in graph.operations]
    with rt.GradientTape() as tape:
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, w), np.full((2, 2), 0.5))
    assert [op.type for op in graph.operations] == before


def test_the_same_tensor_passed_twice_gets_both_gradients():
    @rt.function(autograph=False)
    def f(a, b):
        return a * 2.0 + b * 3.0
    x = rt.constant(1.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x, x)
    assert float(tape.gradient(y, x)) == 5.0
