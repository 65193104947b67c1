"""Matching calls against traced signatures: binding, input signatures, trace reuse, listeners."""

import numpy as np
import pytest

import runtime as rt
from runtime.function import add_trace_listener, remove_trace_listener


def counted(fn, **kwargs):
    return rt.function(fn, autograph=False, **kwargs)


def test_a_concrete_function_converts_python_values_for_its_tensors():
    f = counted(lambda x, y: x * y)
    concrete = f.get_concrete_function(rt.TensorSpec([2], rt.float32), rt.TensorSpec([2], rt.float32))
    out = concrete([1.0, 2.0], np.array([3.0, 4.0], np.float32))
    np.testing.assert_array_equal(out.numpy(), np.array([1.0, 2.0]) * np.array([3.0, 4.0]))


def test_a_concrete_function_refuses_other_python_values_and_specs():
    f = counted(lambda x, n: x * n)
    concrete = f.get_concrete_function(rt.TensorSpec([], rt.float32), 3)
    assert concrete(rt.constant(2.0), 3).numpy() == 2.0 * 3
    with pytest.raises(TypeError, match="Python value 3"):
        concrete(rt.constant(2.0), 4)
    with pytest.raises(TypeError, match="TensorSpec"):
        concrete(rt.TensorSpec([], rt.float32), 3)
    with pytest.raises(ValueError, match="dtype int32"):
        concrete(rt.constant(2), 3)


def test_a_trace_for_a_tensor_is_not_reused_for_a_python_number():
    f = counted(lambda x: x + 1)
    f.get_concrete_function(rt.TensorSpec([], rt.float32))
    assert f(1.0) == 1.0 + 1
    assert f.experimental_get_tracing_count() == 2
    assert f(rt.constant(5.0)).numpy() == 5.0 + 1
    assert f.experimental_get_tracing_count() == 2


def test_a_trace_with_unknown_dims_serves_every_shape_that_fits():
    f = counted(lambda x: x * 2)
    f.get_concrete_function(rt.TensorSpec([None], rt.float32))
    for n in (1, 3, 7):
        values = np.arange(n, dtype=np.float32)
        np.testing.assert_array_equal(f(rt.constant(values)).numpy(), values * 2)
        np.testing.assert_array_equal(f(values).numpy(), values * 2)
    assert f.experimental_get_tracing_count() == 1


def test_variables_of_one_dtype_and_shape_share_a_trace_and_read_their_own_values():
    # TensorFlow traces a variable argument by its dtype and shape (one trace here)
    f = counted(lambda x, v: x * v)
    a, b = rt.Variable(2.0), rt.Variable(2.0)
    x = rt.constant(3.0)
    assert f(x, a).numpy() == 3.0 * 2.0
    assert f(x, b).numpy() == 3.0 * 2.0
    b.assign(5.0)
    assert f(x, b).numpy() == 3.0 * 5.0
    assert f(x, a).numpy() == 3.0 * 2.0
    assert f.experimental_get_tracing_count() == 1


def test_input_signature_refuses_another_structure():
    f = counted(lambda pair: pair[0] + pair[1],
                input_signature=[(rt.TensorSpec([], rt.float32), rt.TensorSpec([], rt.float32))])
    assert f((rt.constant(1.0), rt.constant(2.0))).numpy() == 1.0 + 2.0
    with pytest.raises(TypeError, match="structure"):
        f((rt.constant(1.0), rt.constant(2.0), rt.constant(3.0)))
    with pytest.raises(ValueError, match=r"received TensorSpec\(shape=\(3,\)"):
        f.get_concrete_function((rt.TensorSpec([3], rt.float32), rt.TensorSpec([], rt.float32)))


def test_trace_listeners_hear_traces_and_can_be_removed():
    heard = []
    listener = lambda level, message: heard.append((level, message))
    f = counted(lambda x: x + 1, name="plus_one")
    add_trace_listener(listener)
    add_trace_listener(listener)  # registered once
    try:
        f(rt.constant(1.0))
        f(rt.constant(2.0))
    finally:
        remove_trace_listener(listener)
    f(rt.constant([1.0]))
    assert heard == [(1, "Tracing plus_one: first call")]
    with pytest.raises(KeyError):
        remove_trace_listener(listener)


def test_concrete_calls_with_keyword_tensors_are_differentiable():
    f = counted(lambda x, y: x * x * y)
    concrete = f.get_concrete_function(rt.TensorSpec([], rt.float32), rt.TensorSpec([], rt.float32))
    x, y = rt.constant(3.0), rt.constant(4.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        out = concrete(x=x, y=y)
    assert out.numpy() == 3.0 * 3.0 * 4.0
    assert tape.gradient(out, x).numpy() == 2 * 3.0 * 4.0
