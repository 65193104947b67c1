"""GradientTape behaviour: watching, persistence, nests, unconnected sources, variables."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt


def test_watched_tensor_gradient():
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 6.0


def test_unwatched_constant_gets_none():
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None


def test_non_persistent_tape_refuses_a_second_call():
    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="persistent=True"):
        tape.gradient(y, x)


def test_persistent_tape_computes_several_gradients():
    x = rt.constant(2.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert float(tape.gradient(y, x)) == 4.0
    assert float(tape.gradient(z, x)) == 32.0
    assert float(tape.gradient(z, y)) == 8.0


def test_sources_may_be_a_nest_and_the_result_has_its_structure():
    a, b = rt.constant(1.0), rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch([a, b])
        y = a * b
    grads = tape.gradient(y, {"a": a, "pair": (b, a)})
    assert set(grads) == {"a", "pair"}
    assert float(grads["a"]) == 2.0
    assert [float(g) for g in grads["pair"]] == [1.0, 2.0]


def test_targets_may_be_a_list_and_their_gradients_add():
    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y1, y2 = x * x, x * 3.0
    assert float(tape.gradient([y1, y2], x)) == 7.0


def test_output_gradients_weight_the_targets():
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x, output_gradients=rt.constant([10.0, 100.0]))
    np.testing.assert_allclose(g, [20.0, 400.0])


def test_unconnected_gradients_none_and_zero():
    x, z = rt.constant([1.0, 2.0]), rt.constant([[5.0]])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = rt.reduce_sum(x)
    assert tape.gradient(y, z) is None
    assert tape.gradient(y, z, unconnected_gradients="none") is None
    zero = tape.gradient(y, z, unconnected_gradients="zero")
    np.testing.assert_array_equal(zero, [[0.0]])
    zero = tape.gradient(y, z, unconnected_gradients=rt.gradients.UnconnectedGradients.ZERO)
    assert zero.shape.as_list() == [1, 1]
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tape.gradient(y, z, unconnected_gradients="sometimes")


def test_stop_recording_pauses_the_tape():
    x = rt.constant(3.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tape.stop_recording():
            y = x * x
        z = x * 2.0
    assert tape.gradient(y, x) is None
    assert float(tape.gradient(z, x)) == 2.0


def test_trainable_variables_are_watched_automatically():
    v = rt.Variable(2.0)
    frozen = rt.Variable(5.0, trainable=False)
    with rt.GradientTape() as tape:
        y = v * v * frozen
    gv, gf = tape.gradient(y, [v, frozen])
    assert float(gv) == 20.0
    assert gf is None
    assert [w.name for w in tape.watched_variables()] == [v.name]


def test_watch_accessed_variables_false_needs_explicit_watch():
    v, w = rt.Variable(2.0), rt.Variable(3.0)
    with rt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = v * w
    gv, gw = tape.gradient(y, [v, w])
    assert gv is None and float(gw) == 2.0


def test_a_variable_read_several_times_sums_its_gradients():
    v = rt.Variable([1.0, 2.0])
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(v * 2.0) + rt.reduce_sum(rt.square(v))
    np.testing.assert_allclose(tape.gradient(y, v), [4.0, 6.0])


def test_gradient_of_an_intermediate_and_of_the_target_itself():
    x = rt.constant(2.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = rt.sin(y)
    assert np.isclose(float(tape.gradient(z, y)), np.cos(4.0))
    assert float(tape.gradient(z, z)) == 1.0


def test_integer_sources_get_none():
    i = rt.constant(3)
    with rt.GradientTape() as tape:
        tape.watch(i)
        y = i * 2
    assert tape.gradient(y, i) is None


def test_bad_arguments_are_named():
    x = rt.constant(1.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
        with pytest.raises(ValueError, match="watch"):
            tape.watch("x")
    with pytest.raises(ValueError, match="sources"):
        tape.gradient(y, 3.0)


def test_stop_gradient_blocks_the_flow():
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * rt.stop_gradient(x * x)
    assert float(tape.gradient(y, x)) == 9.0


def test_stop_gradient_in_a_compiled_function():
    @rt.function(autograph=False)
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x * rt.stop_gradient(x)
        return tape.gradient(y, x)
    assert float(f(rt.constant(4.0))) == 4.0


def test_reset_forgets_the_recording():
    x = rt.constant(2.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        tape.watch(x)
        z = x * 3.0
    assert tape.gradient(y, x) is None
    assert float(tape.gradient(z, x)) == 3.0


def test_jacobian_eagerly():
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_allclose(tape.jacobian(y, x), [[2.0, 0.0], [0.0, 4.0]])
