"""The six behaviours the seed document promises for compiled functions."""

import io
import warnings
from contextlib import redirect_stdout

import numpy as np
import pytest

import runtime as rt


def f(x, y):
    return rt.reduce_mean(rt.multiply(x ** 2, 3) + y)


def test_1_compiled_function_returns_what_the_python_function_returns():
    g = rt.defun(f)
    x = rt.constant([[2.0, 3.0]])
    y = rt.constant([[3.0, -2.0]])
    expected = np.mean(np.multiply(np.array([[2.0, 3.0]]) ** 2, 3) + np.array([[3.0, -2.0]]))
    assert np.isclose(f(x, y).numpy(), expected)
    assert np.isclose(g(x, y).numpy(), expected)
    assert g(x, y).dtype is rt.float32


def test_1_compiled_function_may_close_over_eager_tensors():
    w = rt.constant([[1.0], [2.0]])

    @rt.defun
    def apply_w(x):
        return rt.matmul(x, w)

    out = apply_w(rt.constant([[3.0, 4.0]]))
    np.testing.assert_allclose(out.numpy(), [[11.0]])


def test_2_one_graph_per_distinct_signature():
    F = rt.defun(f)
    F(rt.random.uniform([2]), rt.random.uniform([2]))
    F(rt.random.uniform([3]), rt.random.uniform([3]))
    assert F.experimental_get_tracing_count() == 2
    c2 = F.get_concrete_function(rt.random.uniform([2]), rt.random.uniform([2]))
    c3 = F.get_concrete_function(rt.random.uniform([3]), rt.random.uniform([3]))
    assert c2 is not c3
    assert c2.graph.inputs[0].shape.as_list() == [2]


def test_2_numpy_arrays_of_one_shape_share_a_graph_whatever_their_values():
    F = rt.defun(f)
    for _ in range(3):
        a = np.random.randn(4).astype(np.float32)
        b = np.random.randn(4).astype(np.float32)
        assert np.isclose(F(a, b).numpy(), np.mean(a ** 2 * 3 + b), rtol=1e-5)
    assert F.experimental_get_tracing_count() == 1


def test_2_python_values_are_part_of_the_key_and_bake_one_branch_each():
    @rt.defun(autograph=False)
    def maybe_dropout(x, training):
        if training:
            return rt.nn.dropout(x, 0.5)
        return x

    x = rt.ones([4, 4])
    maybe_dropout(x, True)
    maybe_dropout(x, False)
    assert maybe_dropout.experimental_get_tracing_count() == 2
    train_graph = maybe_dropout.get_concrete_function(x, True).graph
    infer_graph = maybe_dropout.get_concrete_function(x, False).graph
    assert any(op.type == "Dropout" for op in train_graph.operations)
    assert not any(op.type == "Dropout" for op in infer_graph.operations)


def test_3_input_signature_allows_any_size_on_a_none_axis_with_one_graph():
    @rt.defun(input_signature=[rt.TensorSpec([50, 300, None], rt.float32),
                               rt.TensorSpec([300, 100], rt.float32)])
    def matmul_last(x, w):
        return rt.tensordot(x, w, axes=[[1], [0]])

    w = np.ones([300, 100], np.float32)
    for n in (1, 7, 20):
        out = matmul_last(np.ones([50, 300, n], np.float32), w)
        assert out.shape.as_list() == [50, n, 100]
    assert matmul_last.experimental_get_tracing_count() == 1
    with pytest.raises((TypeError, ValueError)) as info:
        matmul_last(np.ones([50, 100, 20], np.float32), w)
    message = str(info.value)
    assert "'x'" in message and "(50, 300, None)" in message and "(50, 100, 20)" in message


def test_4_python_code_runs_only_while_tracing():
    @rt.defun
    def noisy_numpy():
        return rt.eye(5) + np.random.randn(5, 5)

    first = noisy_numpy().numpy()
    np.testing.assert_array_equal(noisy_numpy().numpy(), first)

    @rt.defun
    def noisy_runtime():
        return rt.eye(5) + rt.random.normal((5, 5))

    assert not np.array_equal(noisy_runtime().numpy(), noisy_runtime().numpy())


def test_4_list_append_happens_once_per_trace():
    calls = []

    @rt.defun
    def appends(x):
        calls.append(1)
        return x + 1

    for _ in range(4):
        appends(rt.constant(1.0))
    assert len(calls) == 1
    appends(rt.constant([1.0, 2.0]))
    assert len(calls) == 2


def test_5_variables_are_created_once_per_concrete_function():
    def fn():
        x = rt.Variable(0.0)
        x.assign_add(1.0)
        return x.read_value()

    assert fn().numpy() == 1.0
    assert fn().numpy() == 1.0
    compiled = rt.defun(fn)
    assert compiled().numpy() == 1.0
    assert compiled().numpy() == 2.0
    assert compiled().numpy() == 3.0


def test_6_register_traces_without_running():
    ran = []

    @rt.defun
    def F(x):
        ran.append(1)
        rt.print("ran")
        return x * 2

    out = io.StringIO()
    with redirect_stdout(out):
        concrete = rt.register(F, rt.constant([1.0, 2.0]))
    assert isinstance(concrete, rt.ConcreteFunction)
    assert out.getvalue() == ""
    assert len(ran) == 1  # traced once, graph not run
    np.testing.assert_allclose(concrete(rt.constant([3.0, 4.0])).numpy(), [6.0, 8.0])
    with pytest.raises(ValueError):
        rt.register(lambda x: x, rt.constant(1.0))


def test_6_callbacks_receive_function_name_graph_inputs_outputs():
    seen = []

    def callback(function, name, graph, inputs, outputs):
        seen.append((function, name, graph, list(inputs), list(outputs)))

    rt.add_function_callback(callback)
    rt.add_function_callback(callback)  # idempotent

    @rt.defun
    def double(x):
        return x * 2

    double(rt.constant(1.0))
    double(rt.constant(2.0))  # cache hit: no new concrete function
    assert len(seen) == 1
    function, name, graph, inputs, outputs = seen[0]
    assert isinstance(graph, rt.Graph)
    assert len(inputs) == 1 and len(outputs) == 1
    assert "double" in name
    rt.remove_function_callback(callback)
    double(rt.constant([1.0]))
    assert len(seen) == 1


def test_6_run_functions_eagerly_runs_python_side_effects_every_call():
    calls = []

    @rt.defun
    def F(x):
        calls.append(1)
        return x + 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rt.experimental_run_functions_eagerly(True)
        assert rt.experimental_functions_run_eagerly() is True
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    for _ in range(3):
        F(rt.constant(1.0))
    assert len(calls) == 3
    assert rt.functions_run_eagerly()
    rt.run_functions_eagerly(False)
    F(rt.constant(1.0))
    F(rt.constant(1.0))
    assert len(calls) == 4
