"""Variables passed as arguments are traced by dtype and shape, like tensors (TensorFlow's rule);
each call reads and writes the variable it passes."""

import threading

import numpy as np
import pytest

import runtime as rt


@pytest.mark.parametrize("jit", [False, True])
def test_one_trace_serves_variables_of_one_dtype_and_shape(jit):
    f = rt.function(lambda v: v * 2, jit_compile=jit)
    assert f(rt.Variable(1)).numpy() == 2
    assert f(rt.Variable(2)).numpy() == 4
    a = rt.Variable(3)
    assert f(a).numpy() == 6
    a.assign(10)
    assert f(a).numpy() == 20  # the current value, read at each call
    assert f.experimental_get_tracing_count() == 1


def test_another_dtype_or_shape_traces_again():
    f = rt.function(lambda v: v + 1)
    f(rt.Variable(1.0))
    f(rt.Variable(2.0))
    f(rt.Variable([1.0, 2.0]))
    f(rt.Variable(1))
    assert f.experimental_get_tracing_count() == 3


@pytest.mark.parametrize("jit", [False, True])
def test_assignments_update_the_variable_of_each_call(jit):
    @rt.function(jit_compile=jit)
    def step(v, x):
        v.assign_add(x)
        return v.read_value()

    a, b = rt.Variable([1.0, 2.0]), rt.Variable([10.0, 20.0])
    x = rt.constant([1.0, 1.0])
    np.testing.assert_array_equal(step(a, x).numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(step(b, x).numpy(), [11.0, 21.0])
    np.testing.assert_array_equal(step(b, x).numpy(), [12.0, 22.0])
    np.testing.assert_array_equal(a.numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(b.numpy(), [12.0, 22.0])
    assert step.experimental_get_tracing_count() == 1


def test_variables_in_a_list_argument():
    @rt.function
    def total(vs):
        for v in vs:
            v.assign(v * 2)
        return vs[0] + vs[1]

    a, b, c, d = (rt.Variable(float(i)) for i in (1, 2, 3, 4))
    assert total([a, b]).numpy() == 6.0
    assert total([c, d]).numpy() == 14.0
    assert [v.numpy() for v in (a, b, c, d)] == [2.0, 4.0, 6.0, 8.0]
    assert total.experimental_get_tracing_count() == 1


def test_gradients_flow_to_the_variable_passed():
    f = rt.function(lambda v, x: rt.reduce_sum(v * v * x))
    a, b = rt.Variable([1.0, 2.0]), rt.Variable([3.0, -1.0])
    x = rt.constant([2.0, 3.0])
    for var in (a, b, a):
        with rt.GradientTape() as tape:
            y = f(var, x)
        np.testing.assert_allclose(tape.gradient(y, var).numpy(), 2 * var.numpy() * x.numpy())
    assert f.experimental_get_tracing_count() == 1


def test_a_method_with_variable_arguments():
    class Adder:
        @rt.function
        def add(self, v, x):
            return v.assign_add(x)

    adder = Adder()
    a, b = rt.Variable(0.0), rt.Variable(100.0)
    adder.add(a, 1.0)
    adder.add(b, 1.0)
    assert (a.numpy(), b.numpy()) == (1.0, 101.0)


def test_threads_bind_their_own_variables():
    f = rt.function(lambda v: v.assign_add(1.0) + 0.0)
    variables = [rt.Variable(0.0) for _ in range(4)]
    f(variables[0])
    variables[0].assign(0.0)

    def work(v):
        for _ in range(50):
            f(v)
    threads = [threading.Thread(target=work, args=(v,)) for v in variables]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [v.numpy() for v in variables] == [50.0] * 4


def test_a_concrete_function_refuses_a_variable_of_another_shape():
    f = rt.function(lambda v: v + 1)
    concrete = f.get_concrete_function(rt.Variable([1.0, 2.0]))
    np.testing.assert_array_equal(concrete(rt.Variable([5.0, 6.0])).numpy(), [6.0, 7.0])
    with pytest.raises(TypeError, match="variable"):
        concrete(rt.Variable([1.0, 2.0, 3.0]))
