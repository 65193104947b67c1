"""Variables: eager use, reads and writes inside graphs, lifting, and errors."""

import numpy as np
import pytest

import runtime as rt


def test_variable_api():
    v = rt.Variable([1.0, 2.0], name="weights")
    assert v.name == "weights:0" and v.trainable and v.dtype is rt.float32
    assert v.shape.as_list() == [2]
    v.assign([3.0, 4.0])
    v.assign_add([1.0, 1.0])
    v.assign_sub(rt.constant([0.5, 0.5]))
    np.testing.assert_array_equal(v.numpy(), [3.5, 4.5])
    assert (v + 1).numpy().tolist() == [4.5, 5.5]
    assert isinstance(v.read_value(), rt.Tensor) and isinstance(v.value(), rt.Tensor)
    assert rt.reduce_sum(v).numpy() == 8.0
    assert not rt.Variable(1, trainable=False).trainable
    assert rt.Variable(1, dtype=rt.float64).dtype is rt.float64
    assert "weights" in repr(v)


def test_graphs_read_variables_when_they_run():
    v = rt.Variable(2.0)
    f = rt.function(lambda x: x * v, autograph=False)
    assert f(rt.constant(3.0)).numpy() == 6.0
    v.assign(10.0)
    assert f(rt.constant(3.0)).numpy() == 30.0
    assert f.experimental_get_tracing_count() == 1


def test_assignments_inside_graphs_run_in_program_order():
    v = rt.Variable(1.0)

    @rt.function(autograph=False)
    def step():
        before = v.read_value()
        v.assign(v * 3.0)
        v.assign_add(1.0)
        return before, v.read_value()

    before, after = step()
    assert (before.numpy(), after.numpy()) == (1.0, 4.0)
    before, after = step()
    assert (before.numpy(), after.numpy()) == (4.0, 13.0)


def test_variables_created_while_tracing_are_lifted_once():
    @rt.function(autograph=False)
    def counter(x):
        total = rt.Variable(0.0)
        total.assign_add(x)
        return total.read_value()

    assert [counter(rt.constant(v)).numpy() for v in (1.0, 2.0, 3.0)] == [1.0, 3.0, 6.0]
    concrete = counter.get_concrete_function(rt.constant(1.0))
    assert len(concrete.variables) == 1


def test_variable_with_a_traced_initial_value_is_initialised_on_the_first_call():
    @rt.function(autograph=False)
    def remember_first(x):
        first = rt.Variable(x * 1.0)
        return first.read_value()

    assert remember_first(rt.constant(5.0)).numpy() == 5.0
    assert remember_first(rt.constant(7.0)).numpy() == 5.0


def test_assigning_another_shape_or_dtype_is_a_value_error():
    v = rt.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="shape"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="dtype"):
        v.assign(rt.constant([1, 2]))
    with pytest.raises(TypeError):  # a Python float for an int variable: TF's TypeError
        rt.Variable(1).assign(1.5)
    f = rt.function(lambda: v.assign(rt.ones([3])), autograph=False)
    with pytest.raises(ValueError, match="shape"):
        f()


def test_variables_are_unhashable_but_have_refs():
    v = rt.Variable(1.0)
    with pytest.raises(TypeError):
        hash(v)
    assert {v.ref(): 1}[v.ref()] == 1 and v.ref().deref() is v


def test_variable_with_unknown_dims_accepts_other_shapes():
    v = rt.Variable(np.zeros([2], np.float32), shape=rt.TensorShape([None]))
    v.assign(np.ones([5], np.float32))
    assert v.numpy().shape == (5,)
