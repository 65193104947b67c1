"""Gradients of compiled functions build new graphs; the traced graph stays as traced."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt


def _snapshot(graph) -> list:
    """Every op of a graph and its bodies, with its inputs and outputs, as plain data."""
    rows = []
    for op in graph.all_operations():
        rows.append((op.name, op.type, tuple(t.name for t in op.inputs),
                     tuple((t.name, str(t.shape), t.dtype.name) for t in op.outputs),
                     tuple(len(s.outputs) for s in op.subgraphs)))
    return rows


def _cond_and_loop(x):
    if rt.reduce_sum(x) > 0:
        s = rt.sin(x)  # branch-local values the backward branch reads
        y = s * s
    else:
        y = rt.cos(x)
    i = rt.constant(0)
    while i < 5:  # a staged loop: its gradient reads per-iteration values
        y = y * 0.5 + rt.tanh(y)
        i += 1
    return rt.reduce_sum(y * x)


def _numpy_cond_and_loop(x):
    y = np.sin(x) ** 2 if x.sum() > 0 else np.cos(x)
    for _ in range(5):
        y = y * 0.5 + np.tanh(y)
    return (y * x).sum()


@pytest.mark.parametrize("jit_compile", [False, True])
def test_taking_a_gradient_leaves_the_traced_graph_unchanged(jit_compile):
    f = rt.function(_cond_and_loop, jit_compile=jit_compile)
    x = rt.constant([0.5, -0.25, 1.5])
    concrete = f.get_concrete_function(x)
    before = _snapshot(concrete.graph)
    outputs_before = [t.name for t in concrete.graph.outputs]
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    grad = tape.gradient(y, x).numpy()
    assert _snapshot(concrete.graph) == before
    assert [t.name for t in concrete.graph.outputs] == outputs_before
    eps = 1e-3
    xs = x.numpy().astype(np.float64)
    numeric = [(_numpy_cond_and_loop(xs + eps * e) - _numpy_cond_and_loop(xs - eps * e)) / (2 * eps)
               for e in np.eye(3)]
    np.testing.assert_allclose(grad, numeric, rtol=2e-3, atol=2e-3)
    # the plain call still runs the traced graph, which returns only the traced outputs
    np.testing.assert_allclose(f(x).numpy(), _numpy_cond_and_loop(xs), rtol=1e-5)


def test_the_traced_graph_is_the_same_with_or_without_a_tape():
    def body(x):
        return x * (rt.constant(2.0) * 3.0 + 1.0)

    plain = rt.function(body).get_concrete_function(rt.TensorSpec([2], rt.float32))
    with rt.GradientTape():
        taped = rt.function(body).get_concrete_function(rt.TensorSpec([2], rt.float32))
    assert [op.type for op in taped.graph.operations] == [op.type for op in plain.graph.operations]


def test_a_tape_inside_a_function_differentiates_through_folded_constants():
    @rt.function
    def f():
        c = rt.constant(2.0)
        with rt.GradientTape() as tape:
            tape.watch(c)
            y = c * c * 3.0
        return tape.gradient(y, c)

    assert f().numpy() == pytest.approx(12.0)


def _decay(x, n):
    for _ in rt.range(n):
        x = x * 0.99 + rt.sin(x) * 0.01
    return rt.reduce_sum(x * x)


def test_jit_compile_under_a_tape_runs_the_compiled_tier_with_equal_gradients():
    from runtime.function.recorded_call import gradient_of

    x = rt.constant(np.linspace(-1.0, 1.0, 8).astype(np.float32))
    n = rt.constant(300)
    grads = {}
    for jit_compile in (False, True):
        f = rt.function(_decay, jit_compile=jit_compile)
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = f(x, n)
        grads[jit_compile] = tape.gradient(y, x).numpy()
        compiled = gradient_of(f.get_concrete_function(x, n))
        kind = type(compiled.backward_compiled).__name__
        assert kind == ("JitCompiled" if jit_compile else "CompiledGraph")
    np.testing.assert_allclose(grads[True], grads[False], rtol=1e-4, atol=1e-6)
    xs = x.numpy().astype(np.float64)
    grad = np.ones_like(xs)
    saved = []
    for _ in range(300):
        saved.append(xs)
        xs = xs * 0.99 + np.sin(xs) * 0.01
    grad = 2 * xs
    for s in reversed(saved):
        grad = grad * (0.99 + np.cos(s) * 0.01)
    np.testing.assert_allclose(grads[True], grad, rtol=1e-3, atol=1e-5)
